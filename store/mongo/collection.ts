/**
 * The store operations (store/collection.ts) on MongoDB, through the driver bundled by
 * moleculer-db-adapter-mongo (3.x), for one collection of one site. The queries are MongoDB's own
 * (lib/documents/store-query.ts), but for the document-level `$not`, which MongoDB spells `$nor` with one clause,
 * and literal patterns compared without case, which are asked of the documents' folded texts
 * (store/mongo/folded.ts).
 *
 * What must change together commits together (C42: one transaction per write), in one multi-document transaction (`withTransaction`
 * on a session; a replica set is required, store/mongo/store.ts): a record and its change-feed entry, an
 * insert and its `unlessTaken` check, a write and the derived keys of its status-dependent unique indexes.
 * A write with nothing of that is one statement, atomic on its own.
 *
 * The feed's numbers (and every `append`) come from a counter document moved inside the same transaction,
 * after the record's write. Every transaction that appends to a site's feed writes that one document, and
 * the server fails the second of two transactions writing one document (a write conflict: the driver runs
 * it again, from a fresh snapshot): so numbers are handed out in commit order, each committed before the
 * next is drawn, and an aborted transaction takes its number back with it. A reader that reads the feed
 * in number order therefore never passes a number whose entry is still to commit (no gap is ever seen),
 * and each entry's `before` (the record's previous entry, read after the counter moved) is the entry
 * committed just before it.
 *
 * A uniqueness that holds only outside some statuses (a slug, docs/records.md#event-slugs) is a derived
 * key (`_unique_<field>`), present only on documents whose status requires uniqueness and whose value is
 * not empty, under a unique index with a partial filter on its presence (MongoDB 4.4 takes `$exists` in a
 * partial filter, not `$nin`). Every write that can change the field or the status sets or removes it in
 * the same transaction.
 */
import type { Collection, Doc, Carry } from "../collection";
import { FEED_CARRY, FEED_COLLECTION } from "../collection";
import type { IndexSpec } from "../store";
import type { MongoClientLike, MongoCol, MongoDb, MongoSession } from "./driver";
import type { Query } from "../../lib/documents/store-query";
import { applyUpdate } from "../../lib/documents/update-ops";
import { foldedQuery, foldedUpdate, withFolded, withoutFolded } from "./folded";
import { UniqueViolation } from "../errors";
import { termDeltas, type CountedDoc } from "../../lib/terms/term-counts";
import { feedEntry } from "../../lib/changes/feed";
import { nowDb } from "../../lib/time/dates";

/** A document-level `$not` is MongoDB's `$nor` with one clause. */
export function toMongoQuery(query: Query): Query {
  if (!query || typeof query !== "object" || query instanceof RegExp) return query;
  const out: Query = {};
  for (const [key, value] of Object.entries(query)) {
    if (key === "$not" && value && typeof value === "object" && !(value instanceof RegExp) && !Object.keys(value).some(k => k.startsWith("$") && k !== "$or" && k !== "$and"))
      out.$nor = [mongoClause(value)];
    else if (key === "$and" || key === "$or") out[key] = (value as unknown[]).map(mongoClause);
    else out[key] = value;
  }
  return out;
}

/** A clause inside `$not`, `$and` or `$or` as MongoDB takes it: a list clause by clause, a query by toMongoQuery. */
function mongoClause(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(mongoClause);
  if (!value || typeof value !== "object" || value instanceof RegExp) return value;
  return toMongoQuery({ ...value });
}

/** The server's duplicate-key error (code 11000) as the store's UniqueViolation, naming the index; others as they are. */
function storeError(err: unknown): unknown {
  if ((err as { code?: number })?.code !== 11000) return err;
  const index = /index: (\S+)/.exec((err as Error).message ?? "")?.[1] ?? "unique index";
  return new UniqueViolation(index, err);
}

/** Runs a write, its duplicate-key error told as the SQL stores tell theirs. */
export async function writing<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw storeError(err);
  }
}

/** A query of the services as MongoDB is asked it. */
const asked = (query: Query): Query => toMongoQuery(foldedQuery(query));

/** Transactions read one snapshot and commit once a majority holds them (README "MongoDB"). */
const TRANSACTION_OPTIONS = { readConcern: { level: "snapshot" }, writeConcern: { w: "majority" }, readPreference: "primary" };

/**
 * Runs `work` in one transaction (the driver runs it again after a transient error such as a write
 * conflict: `work` must only depend on what it reads); answers what its last run answered.
 */
export async function inTransaction<T>(client: MongoClientLike, work: (session: MongoSession) => Promise<T>): Promise<T> {
  const session = client.startSession();
  try {
    let out: T | undefined;
    await writing(() => session.withTransaction(async () => {
      out = await work(session);
    }, TRANSACTION_OPTIONS));
    return out as T;
  } finally {
    await session.endSession();
  }
}

const DERIVED = "_unique_";

/** The derived key fields of a collection's status-dependent unique indexes. */
export interface DerivedKey {
  field: string;
  key: string;
  unlessStatus: string[];
}

export function derivedKeys(indexes: readonly IndexSpec[]): DerivedKey[] {
  return indexes.filter(i => i.unique && i.unlessStatus?.length).map(i => ({ field: i.field, key: `${DERIVED}${i.field}`, unlessStatus: i.unlessStatus! }));
}

/** The derived key's value for a document: its field's value where the status requires uniqueness, else undefined. */
function derivedValue(doc: Doc, d: DerivedKey): unknown {
  const value = doc[d.field];
  const status = doc.status;
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof status !== "string" || d.unlessStatus.includes(status)) return undefined;
  return value;
}

/** The document with its derived keys as its fields and status require. */
export function withDerived(doc: Doc, keys: readonly DerivedKey[]): Doc {
  if (!keys.length) return doc;
  const out = { ...doc };
  for (const d of keys) {
    const v = derivedValue(doc, d);
    if (v === undefined) delete out[d.key];
    else out[d.key] = v;
  }
  return out;
}

/** The update bringing a stored document's derived keys in line with it; null when they are. */
function derivedFix(stored: Doc, keys: readonly DerivedKey[]): Doc | null {
  const set: Doc = {};
  const unset: Doc = {};
  for (const d of keys) {
    const v = derivedValue(stored, d);
    if (v === undefined && d.key in stored) unset[d.key] = "";
    else if (v !== undefined && JSON.stringify(stored[d.key]) !== JSON.stringify(v)) set[d.key] = v;
  }
  if (!Object.keys(set).length && !Object.keys(unset).length) return null;
  return { ...(Object.keys(set).length ? { $set: set } : {}), ...(Object.keys(unset).length ? { $unset: unset } : {}) };
}

const isOperators = (update: Doc) => Object.keys(update).some(k => k.startsWith("$"));

/** Whether an operator update can change a derived key (it names a field or `status`, or a path inside one). */
function touchesDerived(update: Doc, keys: readonly DerivedKey[]): boolean {
  if (!keys.length || !isOperators(update)) return false;
  const sources = new Set(keys.flatMap(d => [d.field, "status"]));
  return Object.values(update).some(fields => Object.keys((fields ?? {}) as Doc).some(path => sources.has(path.split(".")[0])));
}

/** The fields the store adds to a document, none of which the services see. */
function strip<T extends Doc | null>(doc: T): T {
  if (!doc) return doc;
  const out: Doc = {};
  for (const [k, v] of Object.entries(withoutFolded(doc))) if (k !== "site" && !k.startsWith(DERIVED)) out[k] = v;
  return out as T;
}

/** One site's part of a MongoDB database, as a collection of the store sees it. */
export interface SiteScope {
  client: MongoClientLike;
  /** The site's database. */
  db: MongoDb;
  site: number;
  /** Resolves once a collection's indexes exist in the site's database (made at its first write in this process). */
  prepared(name: string, indexes?: readonly IndexSpec[]): Promise<void>;
}

/** The indexes of the change feed (services/changes.service.ts lists the same). */
export const FEED_INDEXES: IndexSpec[] = [{ field: "key", thenById: true }];

/**
 * Appends `doc` under the next number of the site's counter for `name` (`${site}:${name}`), `carry` read
 * from the newest document of the same match, in the transaction of `session`.
 */
async function appendIn(scope: SiteScope, session: MongoSession, name: string, doc: Doc, carry?: Carry): Promise<Doc> {
  const { db, site } = scope;
  const col = db.collection(name);
  const counter = await db.collection("counters").findOneAndUpdate({ _id: `${site}:${name}` }, { $inc: { seq: 1 } }, { upsert: true, returnOriginal: false, returnDocument: "after", session });
  const extra: Doc = {};
  if (carry) {
    const [prev] = await col.find(asked({ $and: [{ site }, { [carry.match]: doc[carry.match] }] }), { session }).sort({ _id: -1 }).limit(1).toArray();
    extra[carry.into] = prev ? prev[carry.from] ?? null : null;
  }
  const stored = { ...doc, ...extra, _id: counter!.value!.seq, site };
  await col.insertOne(withFolded(stored), { session });
  return strip(stored);
}

/** The collection whose writes move term counts (docs/records.md#term-counts). */
const COUNTED = "events";

/**
 * Term counts on MongoDB, in the event write's own transaction (as the SQL stores' triggers,
 * store/sql/term-counts.ts): each term whose published events changed moves its `count`, it and its
 * ancestors their `tree_count`, and its `updated` feed entry is appended.
 */
async function countTermsIn(scope: SiteScope, session: MongoSession, pairs: ReadonlyArray<readonly [CountedDoc | null | undefined, CountedDoc | null | undefined]>): Promise<void> {
  const deltas = termDeltas(pairs);
  if (!deltas.size) return;
  const { db, site } = scope;
  const terms = db.collection("terms");
  const modified_utc = nowDb();
  for (const [id, { delta, type }] of deltas) {
    const res = await terms.findOneAndUpdate(asked({ $and: [{ site }, { _id: id }] }), { $inc: { count: delta, tree_count: delta }, $set: { modified_utc } },
      { returnOriginal: false, returnDocument: "after", session });
    const doc = res?.value;
    if (!doc) continue;
    const seen = new Set<number>([id]);
    for (let parent = Number(doc.parent) || 0; parent > 0 && !seen.has(parent);) {
      seen.add(parent);
      const up = await terms.findOneAndUpdate(asked({ $and: [{ site }, { _id: parent }] }), { $inc: { tree_count: delta } }, { returnOriginal: false, returnDocument: "after", session });
      parent = up?.value ? Number(up.value.parent) || 0 : 0;
    }
    await appendIn(scope, session, FEED_COLLECTION, feedEntry({ type, id, action: "updated", modified_utc, snapshot: {} }), FEED_CARRY);
  }
}

/** The collection `name` of one site, with the indexes its service lists. */
export function mongoCollection(scope: SiteScope, name: string, indexes: readonly IndexSpec[]): Collection {
  const { client, db, site } = scope;
  const col: MongoCol = db.collection(name);
  const keys = derivedKeys(indexes);
  const scoped = (q: Query): Query => asked({ $and: [{ site }, q] });
  /** A document as stored: its site, folded copies and derived keys. */
  const stored = (doc: Doc): Doc => withFolded(withDerived({ ...doc, site }, keys));
  /** An update as stored: a replacement as a stored document, operators with their folded copies. */
  const storedUpdate = (update: Doc): Doc => (isOperators(update) ? foldedUpdate(update) : stored(update));
  const ready = () => scope.prepared(name, indexes);
  /** Whether this collection's writes move term counts: each then runs in a transaction with them. */
  const counted = name === COUNTED;
  const feedReady = () => (name === FEED_COLLECTION ? Promise.resolve() : scope.prepared(FEED_COLLECTION, FEED_INDEXES));

  /** The record's update, the fix of its derived keys and its feed entry, in `session`'s transaction. */
  async function updateIn(session: MongoSession, query: Query, update: Doc, change?: (after: Doc) => Doc | null): Promise<{ before: Doc; after: Doc } | null> {
    const replacing = !isOperators(update);
    const res = await (replacing
      ? col.findOneAndReplace(scoped(query), storedUpdate(update), { returnOriginal: true, returnDocument: "before", session })
      : col.findOneAndUpdate(scoped(query), storedUpdate(update), { returnOriginal: true, returnDocument: "before", session }));
    const before = res?.value;
    if (!before) return null;
    const after = replacing ? { ...stored(update), _id: before._id } : applyUpdate(before, update);
    const fix = derivedFix(after, keys);
    if (fix) await col.updateOne({ _id: before._id }, fix, { session });
    const entry = change?.(strip(after));
    if (entry) await appendIn(scope, session, FEED_COLLECTION, entry, FEED_CARRY);
    if (counted) await countTermsIn(scope, session, [[before, after]]);
    return { before: strip(before), after: strip(after) };
  }

  async function updateFirst(query: Query, update: Doc, change?: (after: Doc) => Doc | null): Promise<{ before: Doc; after: Doc } | null> {
    await ready();
    if (change || counted || touchesDerived(update, keys)) {
      if (change || counted) await feedReady();
      return inTransaction(client, session => updateIn(session, query, update, change));
    }
    // one statement: the record as it was, the update applied to it as the server applied it
    const replacing = !isOperators(update);
    const opts = { returnOriginal: true, returnDocument: "before" as const };
    const res = await writing(() => (replacing ? col.findOneAndReplace(scoped(query), storedUpdate(update), opts) : col.findOneAndUpdate(scoped(query), storedUpdate(update), opts)));
    const before = res?.value;
    if (!before) return null;
    return { before: strip(before), after: strip(replacing ? { ...stored(update), _id: before._id } : applyUpdate(before, update)) };
  }

  return {
    async find(query, opts = {}) {
      let cursor = col.find(scoped(query));
      if (opts.projection) cursor = cursor.project(opts.projection);
      if (opts.sort) cursor = cursor.sort(opts.sort);
      if (opts.skip) cursor = cursor.skip(opts.skip);
      if (opts.limit) cursor = cursor.limit(opts.limit);
      return (await cursor.toArray()).map(strip);
    },
    findByIds: async ids => (ids.length ? (await col.find(scoped({ _id: { $in: [...ids] } })).toArray()).map(strip) : []),
    count: query => col.countDocuments(scoped(query)),
    countParts: async parts => (await Promise.all(parts.map(p => col.countDocuments(scoped(p.query))))).reduce((a, b) => a + b, 0),
    async idsWhere(field, value) {
      const docs: Doc[] = await col.find(scoped({ [field]: value })).project({ _id: 1 }).toArray();
      return docs.map(doc => doc._id);
    },
    findOne: async query => strip(await col.findOne(scoped(query))),
    async insert(doc, o = {}) {
      await ready();
      const guard = o.unlessTaken && doc[o.unlessTaken] !== undefined && doc[o.unlessTaken] !== "" ? o.unlessTaken : undefined;
      const counts = counted && termDeltas([[null, doc]]).size > 0;
      if (!guard && !o.change && !o.claim && !counts) {
        await writing(() => col.insertOne(stored(doc)));
        return doc;
      }
      if (o.change || counts) await feedReady();
      // the check, the record, its feed entry, its terms' counts and the idempotency claim it answers: one
      // transaction (a concurrent insert of the same value conflicts with this one on the unique key, or is
      // seen by the check when this one runs again)
      await inTransaction(client, async session => {
        if (guard && (await col.findOne(scoped({ [guard]: doc[guard] }), { session }))) throw new UniqueViolation(`${name}.${guard}`);
        await col.insertOne(stored(doc), { session });
        if (o.change) await appendIn(scope, session, FEED_COLLECTION, o.change, FEED_CARRY);
        if (counts) await countTermsIn(scope, session, [[null, doc]]);
        if (o.claim) await db.collection(o.claim.collection).updateOne(asked({ $and: [{ site }, { _id: o.claim.id }] }), { $set: { produced: o.claim.produced } }, { session });
      });
      return doc;
    },
    async append(doc, carry) {
      await ready();
      return inTransaction(client, session => appendIn(scope, session, name, doc, carry));
    },
    async updateOne(query, update, o = {}) {
      return (await updateFirst(query, update, o.change))?.after ?? null;
    },
    updateOneChange: (query, update, o = {}) => updateFirst(query, update, o.change),
    async updateMany(query, update) {
      await ready();
      if (counted) {
        await feedReady();
        return inTransaction(client, async session => {
          const was = await col.find(scoped(query), { session }).toArray();
          if (!was.length) return 0;
          const ids = was.map(d => d._id);
          const res = await col.updateMany({ _id: { $in: ids } }, storedUpdate(update), { session });
          const now = new Map<unknown, Doc>();
          for (const doc of await col.find({ _id: { $in: ids } }, { session }).toArray()) {
            const fix = derivedFix(doc, keys);
            if (fix) await col.updateOne({ _id: doc._id }, fix, { session });
            now.set(doc._id, doc);
          }
          await countTermsIn(scope, session, was.map(d => [d, now.get(d._id)] as const));
          return res.modifiedCount ?? res.result?.nModified ?? 0;
        });
      }
      if (!touchesDerived(update, keys)) {
        const res = await writing(() => col.updateMany(scoped(query), storedUpdate(update)));
        return res.modifiedCount ?? res.result?.nModified ?? 0;
      }
      return inTransaction(client, async session => {
        const ids = (await col.find(scoped(query), { session }).project({ _id: 1 }).toArray()).map(d => d._id);
        if (!ids.length) return 0;
        const res = await col.updateMany({ _id: { $in: ids } }, storedUpdate(update), { session });
        for (const doc of await col.find({ _id: { $in: ids } }, { session }).toArray()) {
          const fix = derivedFix(doc, keys);
          if (fix) await col.updateOne({ _id: doc._id }, fix, { session });
        }
        return res.modifiedCount ?? res.result?.nModified ?? 0;
      });
    },
    async removeMany(query) {
      if (!counted) {
        const res = await col.deleteMany(scoped(query));
        return res.deletedCount ?? 0;
      }
      await feedReady();
      return inTransaction(client, async session => {
        const was = await col.find(scoped(query), { session }).toArray();
        if (!was.length) return 0;
        const res = await col.deleteMany({ _id: { $in: was.map(d => d._id) } }, { session });
        await countTermsIn(scope, session, was.map(d => [d, null] as const));
        return res.deletedCount ?? 0;
      });
    },
    async ensureIndex(field, opts = {}) {
      await createIndexes(col, [{ field, unique: opts.unique, sparse: opts.sparse }]);
    }
  };
}

/**
 * Makes the indexes a service lists, each led by `site`: a status-dependent unique one on its derived key
 * (partial: present keys only); a sparse unique one partial on its field's presence (a compound sparse
 * index still holds every document that has `site`, so absent values would collide); the others plain.
 */
export async function createIndexes(col: MongoCol, indexes: readonly IndexSpec[]): Promise<void> {
  for (const index of indexes) {
    if (index.unique && index.unlessStatus?.length) {
      const key = `${DERIVED}${index.field}`;
      await col.createIndex({ site: 1, [key]: 1 }, { unique: true, partialFilterExpression: { [key]: { $exists: true } }, name: `site_1_${key}_1` });
    } else if (index.unique && index.sparse) {
      await col.createIndex({ site: 1, [index.field]: 1 }, { unique: true, partialFilterExpression: { [index.field]: { $exists: true } }, name: `site_1_${index.field}_1_present` });
    } else {
      await col.createIndex({ site: 1, [index.field]: 1 }, { unique: !!index.unique });
    }
  }
}

/** Documents stored before their derived keys existed get them (a batch at a time), before the unique index is made. */
export async function deriveStoredKeys(col: MongoCol, indexes: readonly IndexSpec[]): Promise<void> {
  for (const d of derivedKeys(indexes)) {
    const lacking = { [d.key]: { $exists: false }, [d.field]: { $nin: [null, ""] }, status: { $type: "string", $nin: d.unlessStatus } };
    for (;;) {
      const batch = await col.find(lacking).limit(500).toArray();
      if (!batch.length) break;
      for (const doc of batch) await col.updateOne({ _id: doc._id, [d.key]: { $exists: false } }, { $set: { [d.key]: doc[d.field] } });
    }
  }
}
