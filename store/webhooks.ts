/**
 * The webhooks' records in the store (docs/webhooks.md#how-deliveries-are-made), on every backend through
 * the Collection interface, always the current site's (store/site-collection.ts):
 *
 * - `webhooks`: the endpoints;
 * - `webhook_deliveries`: one per endpoint and change, its `key` (`<endpoint>:<feed sequence>`) unique, so
 *   a fan-out run again after a crash adds none twice; claimed for an attempt by a compare-and-set of its
 *   `due` time (which then holds the attempt's lease), so no two nodes send the same attempt;
 * - `webhook_payloads`: the body of each change fanned out, by feed sequence, sent as kept on every attempt;
 * - `webhook_cursor`: how far the change feed has been fanned out, and the lease of the node doing it.
 *
 * Correctness comes from the store alone (unique keys, conditional updates): any number of nodes.
 */
import { FEED_COLLECTION, type Collection, type Doc } from "./collection";
import type { IndexSpec, Store } from "./index";
import { siteCollection } from "./site-collection";
import { isUniqueViolation } from "./errors";
import type { ChangeDoc } from "../lib/changes/feed";
import type { DeliveryDoc, EndpointDoc } from "../lib/webhooks/present";
import { deliveryKey } from "../lib/webhooks/payload";
import { SqlDeliveries, type ClaimRequest } from "./sql/webhook-deliveries";
import { currentSiteId } from "../lib/sites/scope";

export const ENDPOINTS = "webhooks";
export const DELIVERIES = "webhook_deliveries";
export const PAYLOADS = "webhook_payloads";
export const CURSORS = "webhook_cursor";

export const ENDPOINT_INDEXES: IndexSpec[] = [];
export const DELIVERY_INDEXES: IndexSpec[] = [
  { field: "key", unique: true },
  // an endpoint's log, newest first; its due deliveries, oldest first
  { field: "endpoint", thenById: true },
  { field: "endpoint", then: ["due"] },
  // the deliveries of one record to one endpoint, in feed order
  { field: "chain", then: ["seq"] },
  // the oldest, removed after WEBHOOK_RETENTION_DAYS
  { field: "at" }
];
export const PAYLOAD_INDEXES: IndexSpec[] = [{ field: "at" }];
export const CURSOR_INDEXES: IndexSpec[] = [];

const CURSOR_ID = 1;
/** The row of the same collection whose lease says which node removes the site's old deliveries, and when next. */
const RETENTION_ID = 2;

/** A delivery log's filters (ms since the epoch for the instants). */
export interface DeliveryFilter {
  status?: string;
  type?: string;
  afterMs?: number;
  beforeMs?: number;
}

export interface CursorDoc {
  _id: number;
  seq: number;
  /** The lease of the node fanning out (ms since the epoch) and who holds it. */
  lease_until: number;
  owner: string;
}

export interface WebhookCollections {
  endpoints: Collection;
  deliveries: Collection;
  payloads: Collection;
  cursor: Collection;
  feed: Collection;
  /** SQLite and PostgreSQL: the deliveries in batches (store/sql/webhook-deliveries.ts); otherwise one at a time. */
  sql?: SqlDeliveries;
}

/** An attempt's result to record: the update of delivery `d`, claimed under the lease `lease`. */
export interface Settlement {
  d: DeliveryDoc;
  lease: number;
  update: Doc;
}

/** What a claim of an endpoint's due attempts asks (store/sql/webhook-deliveries.ts ClaimRequest). */
export type { ClaimRequest };

/**
 * The webhooks' records of an open store, the endpoints' collection given (the webhooks service's own,
 * mixins/store.mixin.ts): makes the other collections' indexes, and answers the current site's records.
 */
export async function openWebhookStore(store: Store, endpoints: Collection): Promise<WebhookStore> {
  for (const [name, indexes] of [[DELIVERIES, DELIVERY_INDEXES], [PAYLOADS, PAYLOAD_INDEXES], [CURSORS, CURSOR_INDEXES]] as const) await store.ensureIndexes(name, indexes);
  return new WebhookStore({
    endpoints,
    deliveries: siteCollection(store, DELIVERIES, DELIVERY_INDEXES),
    payloads: siteCollection(store, PAYLOADS, PAYLOAD_INDEXES),
    cursor: siteCollection(store, CURSORS, CURSOR_INDEXES),
    feed: siteCollection(store, FEED_COLLECTION, []),
    sql: store.sql ? new SqlDeliveries(store.sql, currentSiteId) : undefined
  });
}

/** Deliveries or payloads written at once by a store without batches. */
const AT_ONCE = 64;

export class WebhookStore {
  constructor(private readonly c: WebhookCollections) {}

  // Endpoints ---------------------------------------------------------------------------------------------

  async createEndpoint(doc: Omit<EndpointDoc, "_id">): Promise<EndpointDoc> {
    return (await this.c.endpoints.append(doc as Doc)) as EndpointDoc;
  }

  async endpoint(id: number): Promise<EndpointDoc | undefined> {
    return ((await this.c.endpoints.findOne({ _id: id })) as EndpointDoc | null) ?? undefined;
  }

  async endpoints(page: { skip: number; limit: number }): Promise<{ total: number; docs: EndpointDoc[] }> {
    const [total, docs] = await Promise.all([this.c.endpoints.count({}), this.c.endpoints.find({}, { sort: { _id: 1 }, skip: page.skip, limit: page.limit })]);
    return { total, docs: docs as EndpointDoc[] };
  }

  async allEndpoints(): Promise<EndpointDoc[]> {
    return (await this.c.endpoints.find({}, { sort: { _id: 1 } })) as EndpointDoc[];
  }

  async updateEndpoint(id: number, update: Doc, where: Doc = {}): Promise<EndpointDoc | undefined> {
    return ((await this.c.endpoints.updateOne({ ...where, _id: id }, update)) as EndpointDoc | null) ?? undefined;
  }

  /**
   * An endpoint's failing streak ended (a delivery succeeded): `failing_since` removed when one is recorded,
   * by any node. Looked for first, as a read: nearly always there is none, and an update would take the
   * write lock for nothing. A failure recorded after the look is one that came after this success.
   */
  async endFailingStreak(id: number): Promise<void> {
    if (!(await this.c.endpoints.findOne({ _id: id, failing_since: { $exists: true } }))) return;
    await this.updateEndpoint(id, { $unset: { failing_since: 1 } }, { failing_since: { $exists: true } });
  }

  /** Removes an endpoint and its deliveries (answers whether it existed). */
  async removeEndpoint(id: number): Promise<boolean> {
    const n = await this.c.endpoints.removeMany({ _id: id });
    await this.c.deliveries.removeMany({ endpoint: id });
    return n > 0;
  }

  // The feed and its fan-out ------------------------------------------------------------------------------

  /** The newest change's number (0 when the feed is empty). */
  async feedEnd(): Promise<number> {
    const [last] = await this.c.feed.find({}, { sort: { _id: -1 }, limit: 1, projection: { _id: 1 } });
    return last ? Number(last._id) : 0;
  }

  /**
   * The first feed number a reader may not pass yet on PostgreSQL (store/sql/webhook-deliveries.ts
   * `feedHorizon`); undefined on the stores that number entries in commit order.
   */
  async feedHorizon(): Promise<number | undefined> {
    return this.c.sql?.feedHorizon();
  }

  /** The changes after `seq`, in feed order; with `below` (PostgreSQL's horizon, store/sql/feed.ts) only those under it. */
  async feedAfter(seq: number, limit: number, below?: number): Promise<ChangeDoc[]> {
    const range = below === undefined ? { $gt: seq } : { $gt: seq, $lt: below };
    return (await this.c.feed.find({ _id: range }, { sort: { _id: 1 }, limit })) as ChangeDoc[];
  }

  /** The fan-out cursor (null before the site's first endpoint). */
  async cursor(): Promise<CursorDoc | null> {
    return (await this.c.cursor.findOne({ _id: CURSOR_ID })) as CursorDoc | null;
  }

  /** The fan-out position (0 before the first endpoint); never leased. */
  async cursorSeq(): Promise<number> {
    const doc = (await this.c.cursor.findOne({ _id: CURSOR_ID })) as CursorDoc | null;
    return doc?.seq ?? 0;
  }

  /** Makes the cursor, at `seq`, unless it exists (the first endpoint of the site: earlier changes are not its). */
  async ensureCursor(seq: number): Promise<void> {
    if (await this.c.cursor.findOne({ _id: CURSOR_ID })) return;
    try {
      await this.c.cursor.insert({ _id: CURSOR_ID, seq, lease_until: 0, owner: "" });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }

  /**
   * Takes the fan-out lease until `until` unless another node holds one (`renew`: renews this owner's
   * lease while it still stands); answers the position or undefined.
   */
  async claimCursor(owner: string, nowMs: number, until: number, renew = false): Promise<number | undefined> {
    const free = renew ? { owner, lease_until: { $gte: nowMs } } : { lease_until: { $lt: nowMs } };
    const doc = (await this.c.cursor.updateOne({ _id: CURSOR_ID, ...free }, { $set: { lease_until: until, owner } })) as CursorDoc | null;
    return doc ? doc.seq : undefined;
  }

  /** Moves the position on, while still holding the lease (renewed to `until`); false when it was lost. */
  async advanceCursor(owner: string, seq: number, nowMs: number, until: number): Promise<boolean> {
    return !!(await this.c.cursor.updateOne({ _id: CURSOR_ID, owner, lease_until: { $gte: nowMs } }, { $set: { seq, lease_until: until } }));
  }

  async releaseCursor(owner: string): Promise<void> {
    await this.c.cursor.updateOne({ _id: CURSOR_ID, owner }, { $set: { lease_until: 0 } });
  }

  async putPayload(seq: number, body: string, at = Date.now()): Promise<void> {
    try {
      await this.c.payloads.insert({ _id: seq, body, at });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }

  async payloads(seqs: readonly number[]): Promise<Map<number, string>> {
    const docs = await this.c.payloads.findByIds(seqs);
    return new Map(docs.map(d => [Number(d._id), String(d.body)]));
  }

  /** Adds a delivery; false when it exists already (a fan-out run again). */
  async addDelivery(doc: Omit<DeliveryDoc, "_id">): Promise<boolean> {
    try {
      await this.c.deliveries.append(doc as Doc);
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** A fan-out step's payloads, each stored once. */
  async putPayloads(given: ReadonlyArray<{ seq: number; body: string; at?: number }>): Promise<void> {
    const now = Date.now();
    const payloads = given.map(p => ({ ...p, at: p.at ?? now }));
    if (this.c.sql) return this.c.sql.putPayloads(payloads);
    for (let i = 0; i < payloads.length; i += AT_ONCE) await Promise.all(payloads.slice(i, i + AT_ONCE).map(p => this.putPayload(p.seq, p.body, p.at)));
  }

  /** A fan-out step's deliveries, each key added once (one added already, by a fan-out run again, is passed over). */
  async addDeliveries(docs: ReadonlyArray<Omit<DeliveryDoc, "_id">>): Promise<void> {
    if (this.c.sql) return this.c.sql.addDeliveries(docs);
    for (let i = 0; i < docs.length; i += AT_ONCE) await Promise.all(docs.slice(i, i + AT_ONCE).map(d => this.addDelivery(d)));
  }

  // Attempts ----------------------------------------------------------------------------------------------

  /**
   * Claims up to `limit` of an endpoint's due attempts among its `scan` oldest due deliveries of changes
   * fanned out up to `maxSeq`: each gets the lease `leaseUntil` as its `due` and one more attempt. One with
   * an earlier pending delivery of its record to that endpoint is parked instead (`waiting`, due at the
   * earlier one's `due` or `parkUntil`, whichever is later) until the earlier one ends (`settleAll`).
   * Answers the claimed deliveries; no two callers claim the same attempt.
   */
  async claimDue(c: ClaimRequest): Promise<DeliveryDoc[]> {
    if (this.c.sql) return this.c.sql.claim(c);
    const out: DeliveryDoc[] = [];
    for (const d of await this.due(c.endpoint, c.nowMs, c.maxSeq, c.scan)) {
      if (out.length >= c.limit) break;
      const blocker = await this.blockedBy(d);
      if (blocker) {
        await this.postpone(d, Math.max(typeof blocker.due === "number" ? blocker.due : 0, c.parkUntil));
        // the earlier one may have ended between the look and the move
        if (!(await this.blockedBy(d))) await this.releaseNext(blocker, Date.now());
        continue;
      }
      const claimed = await this.claim(d, c.leaseUntil);
      if (claimed) out.push(claimed);
    }
    return out;
  }

  /**
   * Records attempts' results, each only while its lease stands; the deliveries waiting behind one that
   * ended (its `due` unset) are due at `nowMs`. Answers the ids of the deliveries recorded.
   */
  async settleAll(results: readonly Settlement[], nowMs: number): Promise<Set<number>> {
    if (this.c.sql) return this.c.sql.settle(results.map(r => ({ id: r.d._id, lease: r.lease, update: r.update })), new Map(results.map(r => [r.d._id, r.d.chain])), nowMs);
    const done = new Set<number>();
    await Promise.all(results.map(async r => {
      if (!(await this.settle(r.d, r.lease, r.update))) return;
      done.add(r.d._id);
      if (Object.hasOwn((r.update.$unset ?? {}) as object, "due")) await this.releaseNext(r.d, nowMs);
    }));
    return done;
  }

  /** An endpoint's deliveries due by `nowMs` among changes fanned out up to `maxSeq`, oldest due first. */
  async due(endpoint: number, nowMs: number, maxSeq: number, limit: number): Promise<DeliveryDoc[]> {
    return (await this.c.deliveries.find({ endpoint, due: { $lte: nowMs }, seq: { $lte: maxSeq } }, { sort: { due: 1, seq: 1 }, limit })) as DeliveryDoc[];
  }

  /** The first pending delivery of the same record to the same endpoint before this one, if any. */
  async blockedBy(d: DeliveryDoc): Promise<DeliveryDoc | undefined> {
    const [first] = await this.c.deliveries.find({ chain: d.chain, status: "pending", seq: { $lt: d.seq } }, { sort: { seq: 1 }, limit: 1 });
    return first as DeliveryDoc | undefined;
  }

  /**
   * Moves the due time of a delivery waiting behind an earlier one of its record to that one's (only when
   * nobody claimed it meanwhile), marked as waiting: the earlier one's end makes it due at once (`releaseNext`).
   */
  async postpone(d: DeliveryDoc, until: number): Promise<void> {
    await this.c.deliveries.updateOne({ _id: d._id, due: d.due }, { $set: { due: until, waiting: true } });
  }

  /**
   * The deliveries of the same record waiting behind `d` (which just ended) made due now: the first of
   * them goes next, the others wait again behind it. A claimed delivery is no longer waiting, so none
   * in flight is touched.
   */
  async releaseNext(d: DeliveryDoc, nowMs: number): Promise<void> {
    // looked for first: most deliveries have none waiting, and a read takes no write lock (a SQLite update is
    // a transaction of its own even when it changes nothing). One that starts waiting after this look sees
    // `d` ended when it checks again, and releases itself (the service's sendDue).
    if (!(await this.c.deliveries.find({ chain: d.chain, waiting: true }, { limit: 1, projection: { _id: 1 } })).length) return;
    await this.c.deliveries.updateMany({ chain: d.chain, waiting: true }, { $set: { due: nowMs }, $unset: { waiting: 1 } });
  }

  /** Claims an attempt: the delivery's `due` as read is replaced by the lease's end; null when another node was first. */
  async claim(d: DeliveryDoc, leaseUntil: number): Promise<DeliveryDoc | null> {
    return (await this.c.deliveries.updateOne({ _id: d._id, status: "pending", due: d.due }, { $set: { due: leaseUntil }, $unset: { waiting: 1 }, $inc: { attempts: 1 } })) as DeliveryDoc | null;
  }

  /** Records an attempt's result, unless the lease `leaseUntil` was lost (another node took the delivery over). */
  async settle(d: DeliveryDoc, leaseUntil: number, update: Doc): Promise<boolean> {
    return !!(await this.c.deliveries.updateOne({ _id: d._id, due: leaseUntil }, update));
  }

  /** Every pending delivery of an endpoint marked failed (it was made inactive). */
  async failPending(endpoint: number): Promise<number> {
    return this.c.deliveries.updateMany({ endpoint, status: "pending" }, { $set: { status: "failed" }, $unset: { due: 1 } });
  }

  // The delivery log -------------------------------------------------------------------------------------

  async deliveries(endpoint: number, page: { skip: number; limit: number }, filter: DeliveryFilter = {}): Promise<{ total: number; docs: DeliveryDoc[] }> {
    const at = { ...(filter.afterMs !== undefined ? { $gte: filter.afterMs } : {}), ...(filter.beforeMs !== undefined ? { $lt: filter.beforeMs } : {}) };
    const query = { endpoint, ...(filter.status ? { status: filter.status } : {}), ...(filter.type ? { type: filter.type } : {}), ...(Object.keys(at).length ? { at } : {}) };
    const [total, docs] = await Promise.all([
      this.c.deliveries.count(query),
      this.c.deliveries.find(query, { sort: { _id: -1 }, skip: page.skip, limit: page.limit })
    ]);
    return { total, docs: docs as DeliveryDoc[] };
  }

  /** A delivery by its endpoint, change and tag (a replay's or a ping's: lib/webhooks/payload.ts `deliveryKey`). */
  async delivery(endpoint: number, seq: number, tag?: string): Promise<DeliveryDoc | undefined> {
    return ((await this.c.deliveries.findOne({ key: deliveryKey(endpoint, seq, tag) })) as DeliveryDoc | null) ?? undefined;
  }

  /**
   * The changes numbered above `afterSeq` and recorded in [fromMs, toMs), in feed order, at most `limit`
   * (the replay route). Only entries below `below` (PostgreSQL's horizon, store/sql/feed.ts) when given.
   */
  async feedBetween(afterSeq: number, fromMs: number, toMs: number, limit: number, below?: number): Promise<ChangeDoc[]> {
    const range = below === undefined ? { $gt: afterSeq } : { $gt: afterSeq, $lt: below };
    return (await this.c.feed.find({ _id: range, at: { $gte: fromMs, $lt: toMs } }, { sort: { _id: 1 }, limit })) as ChangeDoc[];
  }

  // Retention ---------------------------------------------------------------------------------------------

  /**
   * Takes the site's retention turn: answers true when this node is to remove the old deliveries now (no
   * other node's turn stands, and the last run was `everyMs` ago or more); the next turn is then due in
   * `everyMs`. A conditional write of one row, so two nodes never run it at once for a site.
   */
  async claimRetention(owner: string, nowMs: number, everyMs: number): Promise<boolean> {
    if (!(await this.c.cursor.findOne({ _id: RETENTION_ID }))) {
      try {
        await this.c.cursor.insert({ _id: RETENTION_ID, seq: 0, lease_until: 0, owner: "" });
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
    }
    return !!(await this.c.cursor.updateOne({ _id: RETENTION_ID, lease_until: { $lt: nowMs } }, { $set: { lease_until: nowMs + everyMs, owner } }));
  }

  /**
   * Removes up to `limit` ended deliveries (delivered or failed) made before `cutoffMs`, and up to `limit`
   * payloads of changes fanned out before it and before every delivery still pending (which may yet send
   * its payload); answers how many went.
   */
  async removeOlder(cutoffMs: number, limit: number): Promise<number> {
    let removed = 0;
    const ended = await this.c.deliveries.find({ at: { $lt: cutoffMs }, status: { $in: ["delivered", "failed"] } }, { sort: { at: 1 }, limit, projection: { _id: 1 } });
    if (ended.length) removed += await this.c.deliveries.removeMany({ _id: { $in: ended.map(d => d._id) } });
    const [pending] = await this.c.deliveries.find({ status: "pending" }, { sort: { at: 1 }, limit: 1, projection: { at: 1 } });
    const before = typeof pending?.at === "number" ? Math.min(cutoffMs, pending.at) : cutoffMs;
    const old = await this.c.payloads.find({ at: { $lt: before } }, { sort: { at: 1 }, limit, projection: { _id: 1 } });
    if (old.length) removed += await this.c.payloads.removeMany({ _id: { $in: old.map(d => d._id) } });
    return removed;
  }

  /** Queues a delivery again, due now (a manual retry): its schedule starts over. */
  async requeue(d: DeliveryDoc, nowMs: number): Promise<DeliveryDoc | undefined> {
    return ((await this.c.deliveries.updateOne({ _id: d._id }, { $set: { status: "pending", due: nowMs, base: d.attempts } })) as DeliveryDoc | null) ?? undefined;
  }
}
