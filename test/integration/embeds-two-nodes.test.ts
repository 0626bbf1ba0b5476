/**
 * Read-your-writes through embeds on two nodes (C16, C61: stored renderings): two nodes over NATS on one PostgreSQL
 * database, each with its own gateway and the record services, their kept answers in the Redis they share
 * (several gateways run that way, docs/caching.md#many-nodes). A venue renamed through node A; then 32
 * concurrent reads of events at it through node B (their pages and the venue's list), every one of them
 * kept by node B before the rename: every answer shows the new name. The same for an organizer and a
 * category, and again after renames in a row, so an answer kept between two renames is caught too. Two
 * topologies: each node runs the gateway and every record service (a read through node B is computed by
 * node B's services), and the hosted one (docker-compose.yml): two gateway nodes, the record services on
 * nodes of their own, two of each, so a read's embeds come from whichever node the bus picks.
 */
import Redis from "ioredis";
import { startNats, startNode, waitForHttp, Nats, Node } from "../helpers/processes";
import { createTestDatabase, postgresReachable, TestDatabase } from "../helpers/postgres";
import { call } from "../helpers/ops";
import type { Json } from "../helpers/json";

const REDIS_URL = "redis://127.0.0.1:6379";
const READS = 32;
const EVENTS = 12;
const ROUNDS = 4;

async function natsAt4222(): Promise<boolean> {
  const net = await import("net");
  return new Promise(resolve => {
    const s = net.connect(4222, "127.0.0.1", () => { s.end(); resolve(true); });
    s.on("error", () => resolve(false));
  });
}

const RECORDS = "events,venues,organizers,taxonomy,i18n,changes";
const TOPOLOGIES: Array<{ name: string; gateways: string; others: string[] }> = [
  { name: "each node the gateway and every record service", gateways: `api,${RECORDS}`, others: [] },
  { name: "gateways apart, the record services on two nodes of their own", gateways: "api", others: [RECORDS, RECORDS] }
];

describe.each(TOPOLOGIES)("two nodes over NATS on PostgreSQL ($name): a linked record renamed through one is shown by every read through the other", ({ gateways, others }) => {
  let nats: Nats | undefined;
  let db: TestDatabase;
  let redis: Redis;
  const nodes: Node[] = [];
  let a: string;
  let b: string;
  const namespace = `embeds-nodes-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    if (!(await postgresReachable())) throw new Error("PostgreSQL is not reachable at 127.0.0.1:5432 (npm run test:services starts it)");
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
    try {
      await redis.connect();
    } catch (err) {
      throw new Error(`No Redis answers at ${REDIS_URL} (${(err as Error).message}): npm test starts one (scripts/ensure-test-services.sh).`);
    }
    // the machine's nats-server when it runs (a namespace of this run's own), else one of this test's
    let natsUrl = "nats://127.0.0.1:4222";
    if (!(await natsAt4222())) {
      nats = await startNats();
      natsUrl = nats.url;
    }
    db = await createTestDatabase("embednodes");
    const env = { TRANSPORTER: natsUrl, NAMESPACE: namespace, DATABASE_URL: db.url, CACHER: REDIS_URL, BASE_URL: "http://calendar.test", DATABASE_POOL_MAX: "5" };
    // the nodes start together: migrations run under a store lock
    const [first, second, ...rest] = await Promise.all([
      startNode({ ...env, SERVICES: gateways }, { http: true }),
      startNode({ ...env, SERVICES: gateways }, { http: true }),
      ...others.map(services => startNode({ ...env, SERVICES: services }))
    ]);
    nodes.push(first, second, ...rest);
    // ready once every service it needs has joined the bus
    for (const node of [first, second]) await waitForHttp(`${node.base}/health/ready`, 200, 60_000);
    [a, b] = [first.base!, second.base!];
  }, 120_000);

  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop()));
    await nats?.stop();
    await db?.drop();
    if (redis?.status === "ready") {
      const keys = await redis.keys(`*${namespace}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
  });

  async function ok(base: string, method: string, path: string, body?: unknown): Promise<Json> {
    const res = await call(base, method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    return res.body;
  }

  /** Events at one venue, with one organizer and one category, published (anonymous readers see them). */
  async function calendar(label: string): Promise<{ venue: number; organizer: number; category: number; events: number[] }> {
    const venue = (await ok(a, "POST", "/venues", { venue: `Hall ${label}`, status: "publish" })).id as number;
    const organizer = (await ok(a, "POST", "/organizers", { organizer: `Org ${label}`, status: "publish" })).id as number;
    const category = (await ok(a, "POST", "/categories", { name: `Cat ${label}` })).id as number;
    const events: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const ev = await ok(i % 2 ? a : b, "POST", "/events", {
        title: `At ${label} ${i}`, start_date: `2031-06-${String(1 + i).padStart(2, "0")} 10:00:00`, end_date: `2031-06-${String(1 + i).padStart(2, "0")} 11:00:00`,
        status: "publish", venue, organizer: [organizer], categories: [category]
      });
      events.push(ev.id as number);
    }
    return { venue, organizer, category, events };
  }

  /** The reads of events at the record: each event's page and the list filtered by the venue, half anonymous. */
  function reads(c: { venue: number; events: number[] }): Array<{ path: string; anonymous: boolean }> {
    return Array.from({ length: READS }, (_, i) => ({
      path: i % 4 === 3 ? `/events?venue=${c.venue}&start_date=2031-01-01&end_date=2031-12-31&per_page=50` : `/events/${c.events[i % c.events.length]}`,
      anonymous: i % 2 === 0
    }));
  }

  async function readAll(base: string, list: Array<{ path: string; anonymous: boolean }>): Promise<Json[]> {
    const answers = await Promise.all(list.map(r => call(base, "GET", r.path, undefined, r.anonymous ? null : undefined)));
    for (const [i, res] of answers.entries()) if (res.status !== 200) throw new Error(`GET ${list[i].path} answered ${res.status}`);
    return answers.map(r => r.body);
  }

  /** What each answer shows of the linked record (`pick` from one event), one entry per event shown. */
  function shown(bodies: Json[], pick: (ev: Json) => unknown): unknown[] {
    return bodies.flatMap(body => (Array.isArray(body.events) ? body.events : [body]).map(pick));
  }

  const cases: Array<{ what: string; rename: (c: Awaited<ReturnType<typeof calendar>>, name: string) => Promise<unknown>; pick: (ev: Json) => unknown }> = [
    { what: "venue", rename: (c, name) => ok(a, "POST", `/venues/${c.venue}`, { venue: name }), pick: ev => ev.venue?.venue },
    { what: "organizer", rename: (c, name) => ok(a, "POST", `/organizers/${c.organizer}`, { organizer: name }), pick: ev => ev.organizer?.[0]?.organizer },
    { what: "category", rename: (c, name) => ok(a, "POST", `/categories/${c.category}`, { name }), pick: ev => ev.categories?.[0]?.name }
  ];

  for (const { what, rename, pick } of cases) {
    test(`a ${what} renamed through node A: 32 concurrent reads of events at it through node B all show the new name, ${ROUNDS} renames in a row`, async () => {
      const c = await calendar(`${what} ${Date.now().toString(36)}`);
      const list = reads(c);
      // kept by both nodes' gateways and services before the rename
      for (const base of [a, b]) await readAll(base, list);
      await readAll(b, list);
      for (let round = 1; round <= ROUNDS; round++) {
        const name = `Renamed ${what} ${round}`;
        await rename(c, name);
        const bodies = await readAll(b, list);
        const seen = shown(bodies, pick);
        expect(seen.length).toBeGreaterThanOrEqual(READS);
        const stale = seen.filter(n => n !== name);
        expect([round, stale.length, [...new Set(stale)]]).toEqual([round, 0, []]);
        // and through node A, the writer's own gateway
        expect(new Set(shown(await readAll(a, list.slice(0, 8)), pick))).toEqual(new Set([name]));
      }
    }, 120_000);
  }
});
