/**
 * The hosted topology with its shared cache: two gateway processes and the record services' process over
 * a real nats-server, Redis (127.0.0.1:6379, a namespace of this run's own) as the action cache. A write
 * through one gateway is visible through the other at once (C16: read your writes), embedded records included (a venue or
 * a category renamed shows in the next events list on every gateway). The reads are shown to come from
 * Redis (the cached answers are there under the namespace's prefix, and an answer altered in Redis is
 * what the gateways serve) so the test proves invalidation, not the absence of caching. Each kind of kept
 * read (a list page, a single record, a record embedded in a list, a term's count, a total) is read twice
 * through one gateway, then written through the other, then read again (the speed issue's read-your-writes);
 * so is the change feed.
 */
import Redis from "ioredis";
import { startNats, startNode, waitForHttp, Nats, Node } from "../helpers/processes";
import { call } from "../helpers/ops";
import type { Json } from "../helpers/json";

const REDIS_URL = "redis://127.0.0.1:6379";
const RECORD_SERVICES = "events,venues,organizers,taxonomy,i18n,changes";

describe("two gateways, one record process, Redis as the shared cache", () => {
  let nats: Nats;
  let redis: Redis;
  const nodes: Node[] = [];
  let gw1: string;
  let gw2: string;
  const namespace = `ops-redis-${process.pid}-${Date.now().toString(36)}`;
  // moleculer.config.ts: prefix `MOL-<namespace>`, to which the Redis cacher adds "-"
  const prefix = `MOL-${namespace}-`;

  async function keys(pattern = "*"): Promise<string[]> {
    const found: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await redis.scan(cursor, "MATCH", `${prefix}${pattern}`, "COUNT", 1000);
      cursor = next;
      found.push(...batch);
    } while (cursor !== "0");
    return found;
  }

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
    try {
      await redis.connect();
      await redis.ping();
    } catch (err) {
      throw new Error(`No Redis answers at ${REDIS_URL} (${(err as Error).message}): npm test starts one (scripts/ensure-test-services.sh: redis-server from Debian's packages, C26).`);
    }
    nats = await startNats();
    const env = { TRANSPORTER: nats.url, NAMESPACE: namespace, CACHER: REDIS_URL, BASE_URL: "http://calendar.test" };
    nodes.push(await startNode({ ...env, SERVICES: RECORD_SERVICES }));
    const g1 = await startNode({ ...env, SERVICES: "api" }, { http: true });
    const g2 = await startNode({ ...env, SERVICES: "api" }, { http: true });
    nodes.push(g1, g2);
    gw1 = g1.base!;
    gw2 = g2.base!;
    await Promise.all([gw1, gw2].map(base => waitForHttp(`${base}/health/ready`, 200, 30000)));
  }, 60000);

  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop()));
    await nats?.stop();
    if (redis?.status === "ready") {
      const left = await keys();
      if (left.length) await redis.del(...left);
      await redis.quit();
    }
  });

  const listed = async (base: string) => {
    const res = await call(base, "GET", "/events?per_page=50");
    expect(res.status).toBe(200);
    return res.body.events as Json[];
  };

  test("writes through one gateway are read at once through the other, embedded records included", async () => {
    const venue = await call(gw1, "POST", "/venues", { venue: "Old Hall", city: "Lyon" });
    expect(venue.status).toBe(201);
    const category = await call(gw1, "POST", "/categories", { name: "Jazz" });
    expect(category.status).toBe(201);
    const event = await call(gw1, "POST", "/events", { title: "Concert", start_date: "tomorrow 20:00", end_date: "tomorrow 22:00", venue: venue.body.id, categories: [category.body.id] });
    expect(event.status).toBe(201);
    const id = event.body.id;

    // both gateways read the event with its embedded venue and category
    for (const base of [gw1, gw2]) {
      const [ev] = await listed(base);
      expect(ev).toMatchObject({ id, title: "Concert", venue: { id: venue.body.id, venue: "Old Hall" }, categories: [{ id: category.body.id, name: "Jazz" }] });
    }

    // the answers are cached in Redis, under this run's prefix
    // (the action cache of the record services, and the gateways' kept responses: both in Redis)
    const cached = [...await keys("ACT:*:events:*"), ...await keys("RESP:*")];
    expect(cached.length).toBeGreaterThan(0);
    // and the gateways serve what Redis holds: alter the cached answers, read them back through both
    for (const key of cached) {
      const value = await redis.get(key);
      if (value?.includes("Old Hall")) await redis.set(key, value.split("Old Hall").join("Cached Hall"), "KEEPTTL");
    }
    for (const base of [gw1, gw2]) expect((await listed(base))[0].venue.venue).toBe("Cached Hall");

    // rename the venue through gateway 2: every gateway's next list shows the new name, not the cached one
    const renamed = await call(gw2, "POST", `/venues/${venue.body.id}`, { venue: "New Hall" });
    expect(renamed.status).toBe(200);
    expect(await keys("ACT:*:events:*")).toEqual([]);
    for (const base of [gw1, gw2]) expect((await listed(base))[0].venue.venue).toBe("New Hall");
    for (const base of [gw1, gw2]) expect((await call(base, "GET", `/venues/${venue.body.id}`)).body.venue).toBe("New Hall");

    // a category renamed through gateway 1 (another service's write) shows through gateway 2
    expect((await keys("ACT:*:events:*")).length).toBeGreaterThan(0);
    expect((await call(gw1, "POST", `/categories/${category.body.id}`, { name: "Free jazz" })).status).toBe(200);
    for (const base of [gw2, gw1]) expect((await listed(base))[0].categories[0].name).toBe("Free jazz");

    // create, update and delete through one gateway, read through the other
    const second = await call(gw2, "POST", "/events", { title: "Matinee", start_date: "tomorrow 10:00", end_date: "tomorrow 11:00" });
    expect(second.status).toBe(201);
    expect((await listed(gw1)).map(e => e.title)).toEqual(["Matinee", "Concert"]);
    expect((await call(gw1, "POST", `/events/${id}`, { title: "Concert (sold out)" })).status).toBe(200);
    expect((await call(gw2, "GET", `/events/${id}`)).body.title).toBe("Concert (sold out)");
    expect((await listed(gw2)).map(e => e.title)).toEqual(["Matinee", "Concert (sold out)"]);
    expect((await call(gw2, "DELETE", `/events/${second.body.id}`)).status).toBe(200);
    expect((await listed(gw1)).map(e => e.title)).toEqual(["Concert (sold out)"]);
    const trashed = await call(gw1, "GET", `/events/${second.body.id}`);
    expect(trashed.body).toMatchObject({ code: "event-no-longer-available", data: { status: 403 } });
  }, 60000);

  test("each kind of kept read sees a write through the other gateway at once: a list page, a single record, a record embedded in a list, a term's count, a total", async () => {
    const tag = await call(gw1, "POST", "/tags", { name: `Kept ${namespace}` });
    expect(tag.status).toBe(201);
    const organizer = await call(gw1, "POST", "/organizers", { organizer: "First Name" });
    const first = await call(gw1, "POST", "/events", { title: "Kept one", start_date: "tomorrow 08:00", end_date: "tomorrow 09:00", tags: [tag.body.id], organizer: organizer.body.id });
    expect(first.status).toBe(201);
    const reads = {
      page: () => call(gw2, "GET", `/events?per_page=50&tags=${tag.body.id}`),
      single: () => call(gw2, "GET", `/events/${first.body.id}`),
      count: () => call(gw2, "GET", `/tags/${tag.body.id}`),
      total: () => call(gw2, "GET", `/events?per_page=1&tags=${tag.body.id}`)
    };
    // every read twice through gateway 2: the second answer is a kept one
    for (const read of Object.values(reads)) for (let i = 0; i < 2; i++) expect((await read()).status).toBe(200);
    expect((await reads.count()).body.count).toBe(1);
    expect((await reads.total()).body.total).toBe(1);
    expect((await keys("RESP:*")).length).toBeGreaterThan(0);

    // a list page and a total: a create through gateway 1
    const second = await call(gw1, "POST", "/events", { title: "Kept two", start_date: "tomorrow 07:00", end_date: "tomorrow 07:30", tags: [tag.body.id] });
    expect(second.status).toBe(201);
    expect((await reads.page()).body.events.map((e: { title: string }) => e.title)).toEqual(["Kept two", "Kept one"]);
    expect((await reads.total()).body.total).toBe(2);
    // a term's count moved by that create
    expect((await reads.count()).body.count).toBe(2);
    // a single record: an update through gateway 1
    expect((await reads.page()).status).toBe(200);
    const pagesBefore = await keys("RESP:*:L:*");
    expect(pagesBefore.length).toBeGreaterThan(0);
    expect((await call(gw1, "POST", `/events/${first.body.id}`, { title: "Kept one, renamed" })).status).toBe(200);
    expect((await reads.single()).body.title).toBe("Kept one, renamed");
    // a title leaves which events the list pages show as it was: the pages stay kept, the bodies showing it go
    expect((await keys("RESP:*:L:*")).sort()).toEqual(pagesBefore.sort());
    expect((await reads.page()).body.events.map((e: { title: string }) => e.title)).toEqual(["Kept two", "Kept one, renamed"]);
    // a record embedded in another's list and in a single record: the organizer renamed through gateway 1
    expect((await reads.page()).body.events[1].organizer[0].organizer).toBe("First Name");
    expect((await call(gw1, "POST", `/organizers/${organizer.body.id}`, { organizer: "Second Name" })).status).toBe(200);
    expect((await reads.page()).body.events[1].organizer[0].organizer).toBe("Second Name");
    expect((await reads.single()).body.organizer[0].organizer).toBe("Second Name");
    // a delete through gateway 1: out of the page, the total and the count
    expect((await call(gw1, "DELETE", `/events/${second.body.id}`)).status).toBe(200);
    expect((await reads.total()).body.total).toBe(1);
    expect((await reads.count()).body.count).toBe(1);
  }, 60000);

  test("the change feed read through one gateway shows a change recorded through the other at once, one that wrote no record included", async () => {
    const tag = await call(gw1, "POST", "/tags", { name: `Feed ${namespace}` });
    expect(tag.status).toBe(201);
    const feed = async () => {
      const res = await call(gw2, "GET", "/changes?per_page=500");
      expect(res.status).toBe(200);
      return (res.body.changes as Json[]).filter(c => c.type === "tag" && c.id === tag.body.id).map(c => c.action);
    };
    for (let i = 0; i < 2; i++) expect(await feed()).toEqual(["created"]);
    // the answer was kept, under the feed's own dependency (docs/caching.md)
    expect((await keys("RESP:*:F:*")).length).toBeGreaterThan(0);
    // a term updated with nothing to change is still recorded (mixins/change-source.mixin.ts), and no
    // record write cleans for it: the `changes` service cleans the feed's pages as it stores the entry
    expect((await call(gw1, "POST", `/tags/${tag.body.id}`, {})).status).toBe(200);
    expect(await feed()).toEqual(["created", "updated"]);
    expect((await call(gw1, "POST", `/tags/${tag.body.id}`, { name: `Feed ${namespace} renamed` })).status).toBe(200);
    expect(await feed()).toEqual(["created", "updated", "updated"]);
  }, 60000);
});
