/**
 * The change feed and the idempotency keys across real processes over NATS: the record services in one
 * node, the `changes` service in another, two gateways. Pages read alternately through either gateway give
 * the same feed as one gateway alone (tokens are positions of the stored feed, not of a node); a create
 * repeated through the other gateway is replayed, not made twice.
 */
import { startNats, startNode, waitForHttp, Nats, Node } from "../helpers/processes";
import { KEYS } from "../helpers/harness";
import { checkedFetch } from "../helpers/contract";
import type { Json } from "../helpers/json";

interface Answer { status: number; body: Json; text: string; headers: Headers }

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await checkedFetch(`${base}/wp-json/calendar/events/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${KEYS.admin}`, ...(body !== undefined ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body)
  });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

describe("across nodes", () => {
  let nats: Nats;
  const nodes: Node[] = [];
  let a: Node;
  let b: Node;

  beforeAll(async () => {
    nats = await startNats();
    // One deployment: one BASE_URL for every gateway (README).
    const bus = { TRANSPORTER: nats.url, NAMESPACE: `sync-${process.pid}`, BASE_URL: "http://calendar.test" };
    // (the change feed is read where the records write it: one process on an in-memory store, C42: one transaction per write)
    nodes.push(await startNode({ ...bus, SERVICES: "events,venues,organizers,taxonomy,i18n,changes" }));
    // two gateways keep no answers of their own (one would refuse the in-process cache: CACHER, README "Scaling out")
    a = await startNode({ ...bus, SERVICES: "api", CACHER: "off" }, { http: true });
    b = await startNode({ ...bus, SERVICES: "api", CACHER: "off" }, { http: true });
    nodes.push(a, b);
    await Promise.all([a, b].map(n => waitForHttp(`${n.base}/health/ready`)));
    // The changes service is optional for readiness (like geolocation): wait until the bus knows it.
    await Promise.all([a, b].map(n => waitForHttp(`${n.base}/wp-json/calendar/events/v1/changes`)));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop()));
    await nats?.stop();
  });

  test("the feed: pages through alternating gateways = one gateway's feed; it ends with what the lists show", async () => {
    const ev = (title: string) => ({ title, start_date: "2031-04-01 10:00:00", end_date: "2031-04-01 11:00:00" });
    const tag = (await call(a.base!, "POST", "/tags", { name: "Across" })).body;
    const e1 = (await call(b.base!, "POST", "/events", { ...ev("One"), tags: [tag.id] })).body;
    const venue = (await call(a.base!, "POST", "/venues", { venue: "Shared hall" })).body;
    await call(b.base!, "POST", `/events/${e1.id}`, { venue: venue.id });
    const e2 = (await call(a.base!, "POST", "/events", ev("Two"))).body;
    await call(b.base!, "DELETE", `/events/${e2.id}`);
    await call(a.base!, "DELETE", `/tags/${tag.id}`);

    const whole = await call(a.base!, "GET", "/changes?per_page=500");
    expect(whole.body.has_more).toBe(false);
    const alternating: Json[] = [];
    let token: string | undefined;
    for (let page = 0; page < 100; page++) {
      const gateway = page % 2 === 0 ? b : a;
      const res = await call(gateway.base!, "GET", `/changes?per_page=2${token ? `&since=${token}` : ""}`);
      expect(res.status).toBe(200);
      alternating.push(...res.body.changes);
      token = res.body.next_token;
      if (!res.body.has_more) break;
    }
    expect(alternating).toEqual(whole.body.changes);
    expect(token).toBe(whole.body.next_token);

    const copy = new Map<string, Json>();
    for (const c of alternating) {
      if (c.action === "deleted") copy.delete(`${c.type}:${c.id}`);
      else copy.set(`${c.type}:${c.id}`, c.record);
    }
    const events = (await call(b.base!, "GET", "/events?start_date=2030-01-01&end_date=2032-01-01")).body.events;
    const venues = (await call(b.base!, "GET", "/venues")).body.venues;
    const tags = (await call(b.base!, "GET", "/tags?hide_empty=false")).body.tags;
    const lists = new Map<string, Json>([...events.map((r: Json) => [`event:${r.id}`, r]), ...venues.map((r: Json) => [`venue:${r.id}`, r]), ...tags.map((r: Json) => [`tag:${r.id}`, r])]);
    expect(Object.fromEntries([...copy].sort())).toEqual(Object.fromEntries([...lists].sort()));
  });

  test("a create repeated through the other gateway is replayed; another body is 422", async () => {
    const body = { title: "Once only", start_date: "2031-05-01 10:00:00", end_date: "2031-05-01 11:00:00" };
    const first = await call(a.base!, "POST", "/events", body, { "Idempotency-Key": "across-1" });
    expect(first.status).toBe(201);
    const again = await call(b.base!, "POST", "/events", body, { "Idempotency-Key": "across-1" });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const other = await call(b.base!, "POST", "/events", { ...body, title: "Twice" }, { "Idempotency-Key": "across-1" });
    expect({ status: other.status, code: other.body.code }).toEqual({ status: 422, code: "rest_idempotency_mismatch" });
    const list = await call(a.base!, "GET", "/events?search=Once%20only&start_date=2031-01-01&end_date=2031-12-31");
    expect(list.body.total).toBe(1);
  });
});
