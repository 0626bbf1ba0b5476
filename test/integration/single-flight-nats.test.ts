/**
 * One computation per stale answer (docs/caching.md#one-computation-per-stale-answer), in the hosted
 * topology: two gateway processes and the record services' process over a real nats-server, Redis as the
 * shared cache. After a write through one gateway, 32 concurrent reads of the hot list through each
 * gateway make that gateway call `events.list` at most once (read from its own Prometheus counter of
 * remote calls), and every answer shows the write.
 */
import Redis from "ioredis";
import { startNats, startNode, waitForHttp, Nats, Node } from "../helpers/processes";
import { freePort } from "../helpers/harness";
import { call } from "../helpers/ops";
import type { Json } from "../helpers/json";

const REDIS_URL = "redis://127.0.0.1:6379";
const READS = 32;

describe("two gateways, Redis: a stale hot list is computed once per gateway", () => {
  let nats: Nats;
  let redis: Redis;
  const nodes: Node[] = [];
  const gateways: Array<{ base: string; metrics: string }> = [];
  const namespace = `single-flight-${process.pid}-${Date.now().toString(36)}`;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
    try {
      await redis.connect();
    } catch (err) {
      throw new Error(`No Redis answers at ${REDIS_URL} (${(err as Error).message}): npm test starts one (scripts/ensure-test-services.sh).`);
    }
    nats = await startNats();
    const env = { TRANSPORTER: nats.url, NAMESPACE: namespace, CACHER: REDIS_URL, BASE_URL: "http://calendar.test" };
    nodes.push(await startNode({ ...env, SERVICES: "events,venues,organizers,taxonomy,i18n,changes" }));
    for (let i = 0; i < 2; i++) {
      const metricsPort = await freePort();
      const gw = await startNode({ ...env, SERVICES: "api", METRICS_PORT: String(metricsPort) }, { http: true });
      nodes.push(gw);
      gateways.push({ base: gw.base!, metrics: `http://127.0.0.1:${metricsPort}/metrics` });
    }
    await Promise.all(gateways.map(g => waitForHttp(`${g.base}/health/ready`, 200, 30000)));
  }, 60000);

  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop()));
    await nats?.stop();
    if (redis?.status === "ready") {
      const keys = await redis.keys(`*${namespace}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
  });

  /** How many times this gateway has called `events.list` on another node. */
  async function listCalls(metrics: string): Promise<number> {
    const text = await (await fetch(metrics)).text();
    let total = 0;
    for (const line of text.split("\n")) {
      if (line.startsWith("moleculer_request_total{") && line.includes('action="events.list"') && line.includes('type="remote"')) total += Number(line.split(" ").pop());
    }
    return total;
  }

  const eventIds = (body: Json): number[] => (body.events as Json[]).map(e => e.id as number);

  test("after each write, 32 reads through each gateway cost that gateway at most one computation, and all show the write", async () => {
    for (let i = 0; i < 5; i++) {
      const seeded = await call(gateways[0].base, "POST", "/events", { title: `Seed ${i}`, start_date: "tomorrow 10am", end_date: "tomorrow 11am", status: "publish" });
      expect(seeded.status).toBe(201);
    }
    // the hot list, kept through both gateways
    for (const g of gateways) expect((await call(g.base, "GET", "/events")).status).toBe(200);

    for (let round = 0; round < 3; round++) {
      const writer = gateways[round % 2];
      const created = await call(writer.base, "POST", "/events", { title: `Hot ${round}`, start_date: "tomorrow 9am", end_date: "tomorrow 9:30am", status: "publish" });
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      const before = await Promise.all(gateways.map(g => listCalls(g.metrics)));
      const answers = await Promise.all(gateways.flatMap(g => Array.from({ length: READS }, () => call(g.base, "GET", "/events"))));
      const after = await Promise.all(gateways.map(g => listCalls(g.metrics)));
      for (const a of answers) {
        expect(a.status).toBe(200);
        expect(eventIds(a.body)).toContain(id);
      }
      const computed = after.map((n, i) => n - before[i]);
      for (const n of computed) expect(n).toBeLessThanOrEqual(1);
      // the list was stale: someone computed it
      expect(computed[0] + computed[1]).toBeGreaterThanOrEqual(1);
    }
  }, 60000);
});
