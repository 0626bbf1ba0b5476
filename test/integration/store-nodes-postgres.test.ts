/**
 * Correct on any number of nodes: the hosted platform's topology on PostgreSQL over a real nats-server —
 * two gateways, three nodes of the record services, two of the taxonomy, one of the change feed — driven
 * through both gateways at once. Every invariant holds by the store (constraints, row locks, atomic
 * increments), not by a queue inside one process:
 * - 500 creates with one title → 500 distinct ids and 500 distinct slugs;
 * - 200 parallel re-taggings → every term's `count` equals the published events carrying it;
 * - 100 pairs of parallel updates of different fields of one event → both fields kept;
 * - parallel creates of one venue or organizer name → one record (D25: duplicate venues and organizers; under the store's lock of that name);
 * - kill -9 of one record node mid-burst → every create answered 201 is there, none stored twice.
 */
import { Client } from "pg";
import { startNats, startNode, waitForHttp, Nats, Node } from "../helpers/processes";
import { KEYS } from "../helpers/harness";
import { createTestDatabase, TestDatabase } from "../helpers/postgres";
import type { Json } from "../helpers/json";

interface Answer { status: number; body: Json }

async function call(base: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}/wp-json/calendar/events/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${KEYS.admin}`, ...(body !== undefined ? { "Content-Type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body)
  });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body: parsed };
}

/** Runs `tasks` with at most `width` in flight. */
async function pool<T>(width: number, tasks: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]();
    }
  }));
  return out;
}

const EVENT = { start_date: "2031-05-01 10:00:00", end_date: "2031-05-01 11:00:00" };

describe("many nodes on one PostgreSQL database", () => {
  let nats: Nats;
  let db: TestDatabase;
  const nodes: Node[] = [];
  const recordNodes: Node[] = [];
  let gateways: Node[] = [];
  const via = (i: number) => gateways[i % 2].base!;

  beforeAll(async () => {
    nats = await startNats();
    db = await createTestDatabase("nodes");
    // eight nodes at 4 connections each (README "Scaling out"): this file and the topology differential may
    // run at once on the two jest workers, and at the default of 10 they took more than the server's 100
    const env = { TRANSPORTER: nats.url, NAMESPACE: `pgnodes-${process.pid}`, BASE_URL: "http://calendar.test", DATABASE_URL: db.url, CACHER: "redis://127.0.0.1:6379", DATABASE_POOL_MAX: "4" };
    // The first node makes the schema; the others start together (migrations run under a store lock).
    recordNodes.push(await startNode({ ...env, SERVICES: "events,venues,organizers,i18n" }));
    const rest = await Promise.all([
      startNode({ ...env, SERVICES: "events,venues,organizers,i18n" }),
      startNode({ ...env, SERVICES: "events,venues,organizers,i18n" }),
      startNode({ ...env, SERVICES: "taxonomy" }),
      startNode({ ...env, SERVICES: "taxonomy" }),
      startNode({ ...env, SERVICES: "changes" }),
      startNode({ ...env, SERVICES: "api" }, { http: true }),
      startNode({ ...env, SERVICES: "api" }, { http: true })
    ]);
    recordNodes.push(rest[0], rest[1]);
    gateways = [rest[5], rest[6]];
    nodes.push(...recordNodes, ...rest.slice(2));
    await Promise.all(gateways.map(g => waitForHttp(`${g.base}/health/ready`, 200, 60_000)));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop()));
    await nats?.stop();
    await db?.drop();
  });

  test("500 creates with one title through both gateways: 500 distinct ids and slugs", async () => {
    const answers = await pool(32, Array.from({ length: 500 }, (_, i) => () => call(via(i), "POST", "/events", { title: "Same Title", ...EVENT })));
    expect(answers.map(a => a.status).filter(s => s !== 201)).toEqual([]);
    expect(new Set(answers.map(a => a.body.id)).size).toBe(500);
    const slugs = answers.map(a => a.body.slug as string);
    expect(new Set(slugs).size).toBe(500);
    expect(slugs).toContain("same-title");
  }, 120_000);

  test("200 parallel re-taggings: every term count equals the published events carrying it", async () => {
    const cats = await Promise.all(Array.from({ length: 6 }, (_, i) => call(via(i), "POST", "/categories", { name: `Cat ${i}` })));
    const catIds: number[] = cats.map(c => c.body.id);
    const events = await Promise.all(Array.from({ length: 40 }, (_, i) => call(via(i), "POST", "/events", { title: `Tagged ${i}`, ...EVENT, categories: [catIds[i % 6]] })));
    // every setup write answered, or the re-taggings below would address events that are not there
    expect([...cats, ...events].filter(a => a.status !== 201).map(a => `${a.status} ${JSON.stringify(a.body)}`)).toEqual([]);
    const eventIds: number[] = events.map(e => e.body.id);
    // every event re-tagged 5 times at once, through alternating gateways, with overlapping term sets
    const retag = Array.from({ length: 200 }, (_, k) => () => {
      const id = eventIds[k % eventIds.length];
      const set = catIds.filter((_, j) => (k + j) % 3 === 0);
      return call(via(k), "POST", `/events/${id}`, { categories: set });
    });
    const answers = await pool(32, retag);
    expect(answers.filter(a => a.status !== 200).map(a => `${a.status} ${JSON.stringify(a.body)}`)).toEqual([]);
    const carried = new Map<number, number>(catIds.map(id => [id, 0]));
    for (const id of eventIds) {
      const ev = await call(via(id), "GET", `/events/${id}`);
      for (const c of ev.body.categories as Array<{ id: number }>) carried.set(c.id, (carried.get(c.id) ?? 0) + 1);
    }
    for (const id of catIds) {
      for (const g of [0, 1]) {
        const term = await call(via(g), "GET", `/categories/${id}`);
        expect({ id, count: term.body.count }).toEqual({ id, count: carried.get(id) });
      }
    }
  }, 120_000);

  test("100 pairs of parallel updates of different fields of one event: both fields kept", async () => {
    const events = await Promise.all(Array.from({ length: 10 }, (_, i) => call(via(i), "POST", "/events", { title: `Pair ${i}`, ...EVENT })));
    const lost: string[] = [];
    await Promise.all(events.map(async (ev, e) => {
      for (let round = 0; round < 10; round++) {
        const title = `Title ${e}-${round}`;
        const excerpt = `Excerpt ${e}-${round}`;
        const [a, b] = await Promise.all([
          call(via(0), "PATCH", `/events/${ev.body.id}`, { title }),
          call(via(1), "PATCH", `/events/${ev.body.id}`, { excerpt })
        ]);
        expect([a.status, b.status]).toEqual([200, 200]);
        const now = (await call(via(round), "GET", `/events/${ev.body.id}`)).body;
        if (now.title !== title || !String(now.excerpt).includes(excerpt)) lost.push(`${ev.body.id} round ${round}: ${now.title} / ${now.excerpt}`);
      }
    }));
    expect(lost).toEqual([]);
  }, 120_000);

  test("parallel creates of one venue and one organizer name through both gateways: one record each (D25: duplicate venues and organizers)", async () => {
    for (const [path, field] of [["/venues", "venue"], ["/organizers", "organizer"]]) {
      const name = `Twin ${field} ${Date.now()}`;
      const answers = await pool(24, Array.from({ length: 48 }, (_, i) => () => call(via(i), "POST", path, { [field]: name })));
      expect(answers.map(a => a.status).filter(st => st !== 201)).toEqual([]);
      expect(new Set(answers.map(a => a.body.id)).size).toBe(1);
      const listed = await call(via(0), "GET", `${path}?search=${encodeURIComponent(name)}&status=publish`);
      expect(listed.body.total).toBe(1);
    }
  }, 60_000);

  test("kill -9 of one record node mid-burst: every create answered 201 is there, none stored twice", async () => {
    // every record node is up (one that died at start would leave the burst fewer nodes than it counts on)
    expect(recordNodes.map(n => ({ exit: n.proc.exitCode ?? n.proc.signalCode, out: n.proc.exitCode === null && n.proc.signalCode === null ? "" : n.output().slice(-2000) })))
      .toEqual(recordNodes.map(() => ({ exit: null, out: "" })));
    const victim = recordNodes[2];
    let answered = 0;
    const burst = pool(16, Array.from({ length: 300 }, (_, i) => async () => {
      const res = await call(via(i), "POST", "/events", { title: `Burst ${i}`, ...EVENT });
      if (++answered === 80) await victim.stop("SIGKILL");
      return { i, res };
    }));
    const results = await burst;
    const acknowledged = results.filter(r => r.res.status === 201);
    expect(acknowledged.length).toBeGreaterThan(150);
    for (const { i, res } of acknowledged) {
      const stored = await call(via(i), "GET", `/events/${res.body.id}`);
      expect({ i, status: stored.status, title: stored.body.title }).toEqual({ i, status: 200, title: `Burst ${i}` });
    }
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const dup = await client.query("SELECT doc->>'title' AS title, COUNT(*) AS n FROM events WHERE doc->>'title' LIKE 'Burst %' GROUP BY 1 HAVING COUNT(*) > 1");
      expect(dup.rows).toEqual([]);
    } finally {
      await client.end();
    }
  }, 180_000);
});
