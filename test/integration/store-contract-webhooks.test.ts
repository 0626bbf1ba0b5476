/**
 * The webhooks' store contract: what the webhooks service asks of store/webhooks.ts (unique delivery keys,
 * compare-and-set claims and leases, the fan-out cursor's lease, the delivery log) gives the same answers on
 * every backend, as test/integration/store-contract.test.ts does for the collections: SQLite (a file of its
 * own), PostgreSQL (a database of its own, dropped afterwards) and the MongoDB store's code over the
 * in-memory stand-in (test/helpers/mongo-stand-in.ts). Correctness across nodes rests on these answers
 * alone (docs/webhooks.md#how-deliveries-are-made), so each race is run for real: the writes at once.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { acquireStore, releaseStore, Store, StoreConfig } from "../../store";
import { FEED_COLLECTION } from "../../store/collection";
import { CURSORS, CURSOR_INDEXES, DELIVERIES, DELIVERY_INDEXES, ENDPOINTS, ENDPOINT_INDEXES, PAYLOADS, PAYLOAD_INDEXES, WebhookStore } from "../../store/webhooks";
import type { DeliveryDoc, EndpointDoc } from "../../lib/webhooks/present";
import { SqlDeliveries } from "../../store/sql/webhook-deliveries";
import { createTestDatabase, TestDatabase } from "../helpers/postgres";
import { mongoStandIn } from "../helpers/mongo-stand-in";
import { connectedStore } from "../../store/mongo/store";

interface Backend { store: Store; close(): Promise<void> }

let nextSite = 2000;

async function sqlBackend(config: StoreConfig, cleanup: () => Promise<void>): Promise<Backend> {
  return { store: await acquireStore(config), close: async () => { await releaseStore(config); await cleanup(); } };
}

const BACKENDS: Array<[string, () => Promise<Backend>]> = [
  ["SQLite", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "store-contract-webhooks-"));
    return sqlBackend({ dataDir, connectTimeoutMs: 1000 }, async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  }],
  ["PostgreSQL", async () => {
    const db: TestDatabase = await createTestDatabase("contract_webhooks");
    return sqlBackend({ dataDir: ":memory:", databaseUrl: db.url, connectTimeoutMs: 5000 }, () => db.drop());
  }],
  ["the MongoDB store's code on the stand-in", async () => ({ store: await connectedStore(mongoStandIn(), "contract", "stand-in", async () => undefined), close: async () => undefined })]
];

const entry = (id: number) => ({ key: `post:${id}`, type: "event", id, action: "created", modified_utc: "2030-01-01 00:00:00", before: null, after: { status: "publish" }, at: 1 });
const endpointDoc = (n: number): Omit<EndpointDoc, "_id"> => ({ url: `https://example.com/${n}`, events: ["*"], description: "", active: true, secret: "s", created_utc: "2030-01-01 00:00:00", after_seq: 0 });
const deliveryDoc = (endpoint: number, seq: number, o: Partial<DeliveryDoc> = {}): Omit<DeliveryDoc, "_id"> => ({
  key: `${endpoint}:${seq}`, endpoint, seq, chain: `${endpoint}:post:${seq % 3}`, type: "event.created", record_id: seq % 3, status: "pending",
  attempts: 0, base: 0, due: 1000 + seq, last_status_code: null, delivered_utc: null, ...o
});

describe.each(BACKENDS)("webhooks store contract on %s", (_name, make) => {
  let backend: Backend;
  /** A WebhookStore over a new site's collections, and that site's event writes (each with its feed entry). */
  let ws: WebhookStore;
  let writeEvent: (id: number) => Promise<unknown>;

  beforeAll(async () => {
    backend = await make();
    for (const [name, indexes] of [[ENDPOINTS, ENDPOINT_INDEXES], [DELIVERIES, DELIVERY_INDEXES], [PAYLOADS, PAYLOAD_INDEXES], [CURSORS, CURSOR_INDEXES], ["events", []]] as const)
      await backend.store.ensureIndexes(name, indexes);
  }, 30000);
  afterAll(async () => {
    await backend?.close();
  });
  beforeEach(() => {
    const site = nextSite++;
    const s = backend.store;
    ws = new WebhookStore({
      endpoints: s.collection(ENDPOINTS, ENDPOINT_INDEXES, site), deliveries: s.collection(DELIVERIES, DELIVERY_INDEXES, site),
      payloads: s.collection(PAYLOADS, PAYLOAD_INDEXES, site), cursor: s.collection(CURSORS, CURSOR_INDEXES, site), feed: s.collection(FEED_COLLECTION, [], site),
      // SQL stores: the batches the service uses (store/sql/webhook-deliveries.ts); the stand-in goes one at a time
      sql: s.sql ? new SqlDeliveries(s.sql, () => site) : undefined
    });
    const events = s.collection("events", [], site);
    writeEvent = id => events.insert({ _id: id, status: "publish" }, { change: entry(id) });
  });

  test("endpoints: numbered, paged, updated under a condition, removed with their deliveries only", async () => {
    const a = await ws.createEndpoint(endpointDoc(1));
    const b = await ws.createEndpoint(endpointDoc(2));
    expect(b._id).toBeGreaterThan(a._id);
    expect((await ws.endpoint(a._id))?.url).toBe("https://example.com/1");
    expect(await ws.endpoint(b._id + 100)).toBeUndefined();
    const page = await ws.endpoints({ skip: 1, limit: 1 });
    expect([page.total, page.docs.map(d => d._id)]).toEqual([2, [b._id]]);
    // conditional: the failing streak starts once, whichever node is first; ends only when recorded
    const started = await Promise.all([1, 2].map(n => ws.updateEndpoint(a._id, { $set: { failing_since: n } }, { failing_since: { $exists: false } })));
    expect(started.filter(Boolean)).toHaveLength(1);
    await ws.endFailingStreak(a._id);
    expect((await ws.endpoint(a._id))?.failing_since).toBeUndefined();
    await ws.endFailingStreak(a._id);
    expect(await ws.updateEndpoint(b._id + 100, { $set: { active: false } })).toBeUndefined();
    await ws.addDelivery(deliveryDoc(a._id, 1));
    await ws.addDelivery(deliveryDoc(b._id, 1));
    expect(await ws.removeEndpoint(a._id)).toBe(true);
    expect(await ws.endpoint(a._id)).toBeUndefined();
    expect((await ws.deliveries(a._id, { skip: 0, limit: 10 })).total).toBe(0);
    expect((await ws.deliveries(b._id, { skip: 0, limit: 10 })).total).toBe(1);
  });

  test("the feed and the fan-out cursor: one lease holder at a time, taken over once it expired", async () => {
    expect(await ws.feedEnd()).toBe(0);
    for (const id of [1, 2, 3]) await writeEvent(id);
    const end = await ws.feedEnd();
    const all = await ws.feedAfter(0, 10);
    expect(all.map(e => e.id)).toEqual([1, 2, 3]);
    expect(all.at(-1)!._id).toBe(end);
    expect((await ws.feedAfter(all[0]._id, 1)).map(e => e.id)).toEqual([2]);
    expect((await ws.feedAfter(0, 10, all[2]._id)).map(e => e.id)).toEqual([1, 2]);

    expect(await ws.cursor()).toBeNull();
    expect(await ws.cursorSeq()).toBe(0);
    await Promise.all([ws.ensureCursor(all[0]._id), ws.ensureCursor(all[0]._id)]);
    await ws.ensureCursor(end);
    expect(await ws.cursorSeq()).toBe(all[0]._id);
    // two nodes at once: one lease
    const claims = await Promise.all(["a", "b"].map(owner => ws.claimCursor(owner, 100, 200)));
    expect(claims.filter(c => c !== undefined)).toEqual([all[0]._id]);
    const holder = claims[0] !== undefined ? "a" : "b";
    const other = holder === "a" ? "b" : "a";
    expect(await ws.claimCursor(other, 150, 250)).toBeUndefined();
    expect(await ws.advanceCursor(other, end, 150, 250)).toBe(false);
    expect(await ws.advanceCursor(holder, all[1]._id, 150, 300)).toBe(true);
    expect(await ws.claimCursor(holder, 160, 400, true)).toBe(all[1]._id);
    // the holder died: its lease runs out and the other takes over; the late holder moves nothing
    expect(await ws.claimCursor(other, 401, 500)).toBe(all[1]._id);
    expect(await ws.advanceCursor(holder, end, 402, 600)).toBe(false);
    await ws.releaseCursor(holder);
    expect((await ws.cursor())?.owner).toBe(other);
    await ws.releaseCursor(other);
    expect(await ws.claimCursor(holder, 403, 700)).toBe(all[1]._id);
  });

  test("deliveries: one per key, claimed by one node, settled only under their lease, due in order", async () => {
    const e = (await ws.createEndpoint(endpointDoc(1)))._id;
    // a fan-out run twice at once adds each delivery once
    const added = await Promise.all([ws.addDelivery(deliveryDoc(e, 5)), ws.addDelivery(deliveryDoc(e, 5))]);
    expect(added.sort()).toEqual([false, true]);
    await ws.addDelivery(deliveryDoc(e, 6, { due: 1000 }));
    await ws.addDelivery(deliveryDoc(e, 9, { due: 1000 }));
    await Promise.all([ws.putPayload(5, "five"), ws.putPayload(5, "five")]);
    await ws.putPayload(6, "six");
    expect([...(await ws.payloads([5, 6, 7]))].sort()).toEqual([[5, "five"], [6, "six"]]);
    // due by now, fanned out up to maxSeq, oldest due first (then feed order)
    expect((await ws.due(e, 1005, 8, 10)).map(d => d.seq)).toEqual([6, 5]);
    expect((await ws.due(e, 1004, 9, 10)).map(d => d.seq)).toEqual([6, 9]);
    expect((await ws.due(e, 1005, 9, 1)).map(d => d.seq)).toEqual([6]);

    const [d6] = await ws.due(e, 1000, 6, 1);
    const claims = await Promise.all([ws.claim(d6, 5000), ws.claim(d6, 6000)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const lease = claims[0] ? 5000 : 6000;
    const claimed = claims.find(Boolean)!;
    expect([claimed.attempts, claimed.due]).toEqual([1, lease]);
    expect((await ws.due(e, 4000, 9, 10)).map(d => d.seq)).toEqual([9, 5]);
    // a node whose lease was lost records nothing
    expect(await ws.settle(claimed, lease + 1, { $set: { status: "delivered" } })).toBe(false);
    expect(await ws.settle(claimed, lease, { $set: { status: "delivered", last_status_code: 200 }, $unset: { due: 1 } })).toBe(true);
    expect(await ws.settle(claimed, lease, { $set: { status: "failed" } })).toBe(false);
    const stored = await ws.delivery(e, 6);
    expect([stored?.status, stored?.due, stored?.last_status_code]).toEqual(["delivered", undefined, 200]);
    expect(await ws.delivery(e, 7)).toBeUndefined();

    // the log: newest first, paged; a manual retry queues it again, its schedule started over
    const log = await ws.deliveries(e, { skip: 0, limit: 2 });
    expect([log.total, log.docs.map(d => d.seq)]).toEqual([3, [9, 6]]);
    const again = await ws.requeue(stored!, 7000);
    expect([again?.status, again?.due, again?.base]).toEqual(["pending", 7000, 1]);
    expect(await ws.failPending(e)).toBe(3);
    expect(await ws.due(e, 10_000, 99, 10)).toEqual([]);
  });

  test("per record, feed order: a later delivery waits behind a pending earlier one and is released at its end", async () => {
    const e = (await ws.createEndpoint(endpointDoc(1)))._id;
    // seq 3 and 6 are one record's (chain post:0), 4 another's
    for (const seq of [3, 4, 6]) await ws.addDelivery(deliveryDoc(e, seq, { due: 1000 }));
    const [d3, d4, d6] = await Promise.all([3, 4, 6].map(async s => (await ws.delivery(e, s))!));
    expect((await ws.blockedBy(d6))?.seq).toBe(3);
    expect(await ws.blockedBy(d3)).toBeUndefined();
    expect(await ws.blockedBy(d4)).toBeUndefined();
    await ws.postpone(d6, 90_000);
    expect((await ws.due(e, 2000, 9, 10)).map(d => d.seq)).toEqual([3, 4]);
    // a postpone that lost the race to a claim moves nothing
    await ws.postpone({ ...d4, due: 1 }, 90_000);
    expect((await ws.delivery(e, 4))?.due).toBe(1000);
    // the earlier one ends: the waiting one is due at once
    const lease = 5000;
    const claimed = (await ws.claim(d3, lease))!;
    await ws.settle(claimed, lease, { $set: { status: "delivered" }, $unset: { due: 1 } });
    expect(await ws.blockedBy(d6)).toBeUndefined();
    await ws.releaseNext(claimed, 2500);
    expect((await ws.due(e, 3000, 9, 10)).map(d => [d.seq, d.due])).toEqual([[4, 1000], [6, 2500]]);
    // nothing waiting: nothing moves
    await ws.releaseNext(claimed, 2600);
    expect((await ws.delivery(e, 6))?.due).toBe(2500);
  });

  test("batches: payloads and deliveries added once each, a claim takes the due heads of their records, results recorded under their lease", async () => {
    const e = (await ws.createEndpoint(endpointDoc(1)))._id;
    const other = (await ws.createEndpoint(endpointDoc(2)))._id;
    await Promise.all([ws.putPayloads([{ seq: 3, body: "three" }, { seq: 4, body: "four" }]), ws.putPayloads([{ seq: 3, body: "three" }])]);
    expect([...(await ws.payloads([3, 4]))].sort()).toEqual([[3, "three"], [4, "four"]]);
    // chain post:0 holds 3 and 6, post:1 holds 4 and 7; 9 is past the cursor; the other endpoint's are its own
    const docs = [3, 4, 6, 7, 9].map(seq => deliveryDoc(e, seq, { due: 1000 }));
    await Promise.all([ws.addDeliveries(docs), ws.addDeliveries(docs.slice(0, 2)), ws.addDeliveries([deliveryDoc(other, 3, { due: 1000 })])]);
    expect((await ws.deliveries(e, { skip: 0, limit: 10 })).total).toBe(5);
    // two nodes at once: each due head claimed once, the later ones of a record parked behind it
    const ask = { endpoint: e, nowMs: 2000, maxSeq: 8, limit: 10, scan: 10, parkUntil: 50_000 };
    const claims = await Promise.all([ws.claimDue({ ...ask, leaseUntil: 40_000 }), ws.claimDue({ ...ask, leaseUntil: 40_000 })]);
    const claimed = claims.flat();
    expect(claimed.map(d => d.seq).sort()).toEqual([3, 4]);
    expect(claimed.every(d => d.attempts === 1 && d.due === 40_000)).toBe(true);
    expect([(await ws.delivery(e, 6))?.due, (await ws.delivery(e, 7))?.due, (await ws.delivery(e, 9))?.due]).toEqual([50_000, 50_000, 1000]);
    expect(await ws.claimDue({ ...ask, leaseUntil: 41_000 })).toEqual([]);
    // a limit and the other endpoint's own
    expect((await ws.claimDue({ ...ask, endpoint: other, limit: 1, leaseUntil: 40_000 })).map(d => d.key)).toEqual([`${other}:3`]);

    const [d3, d4] = [claimed.find(d => d.seq === 3)!, claimed.find(d => d.seq === 4)!];
    // 3 delivered (its record's next is due at once), 4 to be retried (its next still waits), a lost lease records nothing
    const done = await ws.settleAll([
      { d: d3, lease: 40_000, update: { $set: { status: "delivered", last_status_code: 200, delivered_utc: "2030-01-01 00:00:00" }, $unset: { due: 1 } } },
      { d: d4, lease: 40_000, update: { $set: { due: 60_000, last_status_code: null } } }
    ], 45_000);
    expect([...done].sort()).toEqual([d3._id, d4._id].sort());
    expect([...(await ws.settleAll([{ d: d4, lease: 40_000, update: { $set: { status: "failed" }, $unset: { due: 1 } } }], 45_000))]).toEqual([]);
    const [s3, s4, s6, s7] = await Promise.all([3, 4, 6, 7].map(async (seq): Promise<DeliveryDoc & { waiting?: boolean }> => (await ws.delivery(e, seq))!));
    expect([s3.status, s3.due, s3.last_status_code, s3.delivered_utc]).toEqual(["delivered", undefined, 200, "2030-01-01 00:00:00"]);
    expect([s4.status, s4.due, s4.last_status_code]).toEqual(["pending", 60_000, null]);
    expect([s6.due, s6.waiting]).toEqual([45_000, undefined]);
    expect([s7.due, s7.waiting]).toEqual([50_000, true]);
    // the released one is claimed next; the retried one's record still waits
    expect((await ws.claimDue({ ...ask, nowMs: 49_000, leaseUntil: 70_000 })).map(d => [d.seq, d.attempts])).toEqual([[6, 1]]);
  });

  test("the log's filters, the feed of a period, the retention turn taken by one node, removal in bounded batches", async () => {
    const e = (await ws.createEndpoint(endpointDoc(1)))._id;
    // one after another: the log is newest first by id
    for (const d of [
      deliveryDoc(e, 1, { at: 100, status: "delivered", type: "event.created" }), deliveryDoc(e, 2, { at: 200, status: "failed", type: "event.updated" }),
      deliveryDoc(e, 3, { at: 300, type: "event.updated" }), deliveryDoc(e, 0, { key: `${e}:0:pabc`, at: 400, type: "webhook.ping", chain: `${e}:pabc`, body: "{}" })
    ]) await ws.addDelivery(d);
    const seqs = async (f: Parameters<WebhookStore["deliveries"]>[2]) => (await ws.deliveries(e, { skip: 0, limit: 10 }, f)).docs.map(d => d.seq);
    expect(await seqs({ type: "event.updated" })).toEqual([3, 2]);
    expect(await seqs({ status: "failed" })).toEqual([2]);
    expect(await seqs({ afterMs: 200, beforeMs: 400 })).toEqual([3, 2]);
    expect(await seqs({ type: "webhook.ping" })).toEqual([0]);
    expect((await ws.delivery(e, 0, "pabc"))?.body).toBe("{}");
    // the feed of a period: by when each change was recorded
    for (const id of [11, 12, 13]) await writeEvent(id);
    const all = await ws.feedAfter(0, 10);
    expect(all).toHaveLength(3);
    expect((await ws.feedBetween(0, 0, Date.now() + 1000, 10)).map(x => x.id)).toEqual([11, 12, 13]);
    expect(await ws.feedBetween(all[0]._id, 0, Date.now() + 1000, 10)).toHaveLength(2);
    expect(await ws.feedBetween(0, Date.now() + 1000, Date.now() + 2000, 10)).toEqual([]);
    // two nodes at once: one takes the site's retention turn; the next turn only after the period
    const turns = await Promise.all([ws.claimRetention("a", 1000, 5000), ws.claimRetention("b", 1000, 5000)]);
    expect(turns.filter(Boolean)).toHaveLength(1);
    expect(await ws.claimRetention("c", 5999, 5000)).toBe(false);
    expect(await ws.claimRetention("c", 6001, 5000)).toBe(true);
    // removal: only ended deliveries older than the cutoff, at most `limit` per collection and call; a
    // payload stays while a delivery made before it is pending (it may still send it)
    await ws.putPayloads([{ seq: 1, body: "one", at: 100 }, { seq: 2, body: "two", at: 250 }, { seq: 3, body: "three", at: 310 }, { seq: 4, body: "four", at: 900 }]);
    expect(await ws.removeOlder(350, 1)).toBe(2);
    expect(await ws.removeOlder(350, 10)).toBe(2);
    expect(await ws.removeOlder(350, 10)).toBe(0);
    expect(await seqs({})).toEqual([0, 3]);
    expect([...(await ws.payloads([1, 2, 3, 4])).keys()].sort()).toEqual([3, 4]);
    // once that delivery ended, it and the payload go too
    await ws.settle((await ws.delivery(e, 3))!, 1003, { $set: { status: "failed" }, $unset: { due: 1 } });
    expect(await ws.removeOlder(350, 10)).toBe(2);
    expect(await seqs({})).toEqual([0]);
    expect([...(await ws.payloads([1, 2, 3, 4])).keys()]).toEqual([4]);
  });
});
