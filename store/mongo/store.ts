/**
 * The MongoDB store: one database (MONGO_URI's), reached through moleculer-db-adapter-mongo's public
 * adapter API (construct, connect, its `db`), every collection of it shared by the services of the
 * process. Records of a site carry a `site` field in their key (`{site, _id}` is unique), so sites
 * never mix. No MongoDB server runs on the development machines: this path is exercised only where
 * MONGO_URI is set (README "MongoDB").
 */
import MongoAdapter from "moleculer-db-adapter-mongo";
import type { MongoCol } from "./driver";
import { FEED_CARRY, FEED_COLLECTION, type Collection, type Doc } from "../collection";
import { termDeltas } from "../../lib/terms/term-counts";
import { feedEntry } from "../../lib/changes/feed";
import { nowDb } from "../../lib/dates";
import { UniqueViolation } from "../errors";
import type { IdRegistry, ImageRecord } from "../registry";
import type { IndexSpec, Store } from "../index";
import { mongoCollection } from "./collection";
import { FOLDED, withFolded } from "./folded";

export interface MongoStore extends Store {
  close(): Promise<void>;
}

/** A database of the driver: its collections by name. */
export interface MongoDb {
  collection(name: string): MongoCol;
}

function registry(db: MongoDb, site: number): IdRegistry {
  const counters = db.collection("counters");
  const ids = db.collection("post_types");
  /** Moves a counter on by `by`; answers its new value (the last of the ids drawn). */
  const next = async (seq: string, by = 1): Promise<number> => {
    const res = await counters.findOneAndUpdate({ _id: `${site}:${seq}` }, { $inc: { seq: by } }, { upsert: true, returnOriginal: false, returnDocument: "after" });
    return res!.value!.seq as number;
  };
  return {
    async allocate(seq, type) {
      const id = await next(seq);
      if (seq === "posts") await ids.insertOne({ _id: `${site}:${id}`, site, id, type });
      return id;
    },
    async allocatePosts(type, count) {
      if (count <= 0) return [];
      // one counter move for the whole range
      const last = await next("posts", count);
      const drawn = Array.from({ length: count }, (_, i) => last - count + 1 + i);
      await ids.insertMany(drawn.map(id => ({ _id: `${site}:${id}`, site, id, type })));
      return drawn;
    },
    async typeOf(id) {
      return (await ids.findOne({ _id: `${site}:${id}` }))?.type;
    },
    async imageForUrl(url, extension) {
      const found = await ids.findOne({ site, type: "image", url });
      if (found) return { id: found.id, url, extension: found.extension };
      const id = await next("posts");
      try {
        await ids.insertOne({ _id: `${site}:${id}`, site, id, type: "image", url, extension });
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) throw err;
        const other = (await ids.findOne({ site, type: "image", url }))!;
        return { id: other.id, url, extension: other.extension };
      }
      return { id, url, extension };
    },
    async images(list) {
      const docs: Array<ImageRecord & { _id: string }> = (await ids.find({ site, type: "image", id: { $in: list } }).toArray()) as Array<ImageRecord & { _id: string }>;
      return docs.map(d => ({ id: d.id, url: d.url, extension: d.extension }));
    }
  };
}

/**
 * Term counts on MongoDB (docs/records.md#term-counts): after a write of events, each term whose
 * published events changed moves its `count`, it and its ancestors their `tree_count`, and its `updated`
 * feed entry is appended. Separate operations after the write here (no multi-document transaction
 * without a replica set, README "The store"); the SQL stores do this in the write's own transaction
 * (store/sql/term-counts.ts).
 */
async function applyTermCounts(db: MongoDb, site: number, pairs: ReadonlyArray<readonly [Doc | null | undefined, Doc | null | undefined]>): Promise<void> {
  const deltas = termDeltas(pairs);
  if (!deltas.size) return;
  const terms = siteCollection(db, "terms", site);
  const modified_utc = nowDb();
  for (const [id, { delta }] of deltas) {
    const doc = await terms.updateOne({ _id: id }, { $inc: { count: delta, tree_count: delta }, $set: { modified_utc } });
    if (!doc) continue;
    const seen = new Set<number>([id]);
    for (let parent = Number(doc.parent) || 0; parent > 0 && !seen.has(parent);) {
      seen.add(parent);
      const up = await terms.updateOne({ _id: parent }, { $inc: { tree_count: delta } });
      parent = up ? Number(up.parent) || 0 : 0;
    }
    await siteCollection(db, FEED_COLLECTION, site).append(feedEntry({ type: doc.taxonomy === "tag" ? "tag" : "category", id, action: "updated", modified_utc, snapshot: {} }), FEED_CARRY);
  }
}

/** A collection of one site: `site` added to every query and document, `_id` kept as the services see it. */
function siteCollection(db: MongoDb, name: string, site: number): Collection {
  const col = counted(db, name, site, plainCollection(db, name, site));
  return col;
}

/** The events collection moves term counts after each of its writes (applyTermCounts); others as they are. */
function counted(db: MongoDb, name: string, site: number, col: Collection): Collection {
  if (name !== "events") return col;
  const before = (q: Doc) => col.find(q);
  return {
    ...col,
    insert: async (doc, o) => {
      const stored = await col.insert(doc, o);
      await applyTermCounts(db, site, [[null, stored]]);
      return stored;
    },
    updateOne: async (q, u, o) => (await col.updateOneChange(q, u, o).then(async change => {
      if (change) await applyTermCounts(db, site, [[change.before, change.after]]);
      return change;
    }))?.after ?? null,
    updateOneChange: async (q, u, o) => {
      const change = await col.updateOneChange(q, u, o);
      if (change) await applyTermCounts(db, site, [[change.before, change.after]]);
      return change;
    },
    updateMany: async (q, u) => {
      const was = await before(q);
      const n = await col.updateMany(q, u);
      const now = new Map((await col.findByIds(was.map(d => d._id))).map(d => [d._id, d]));
      await applyTermCounts(db, site, was.map(d => [d, now.get(d._id)] as const));
      return n;
    },
    removeMany: async q => {
      const was = await before(q);
      const n = await col.removeMany(q);
      const left = new Set((await col.findByIds(was.map(d => d._id))).map(d => d._id));
      await applyTermCounts(db, site, was.filter(d => !left.has(d._id)).map(d => [d, null] as const));
      return n;
    }
  };
}

function plainCollection(db: MongoDb, name: string, site: number): Collection {
  const col = db.collection(name);
  const inner = mongoCollection(col, db.collection("counters"), `${site}:${name}`);
  const scoped = (q: Record<string, unknown>) => ({ $and: [{ site }, q] });
  const strip = <T extends Record<string, unknown> | null>(doc: T): T => {
    if (!doc) return doc;
    const { site: _site, _key, ...rest } = doc as Record<string, unknown>;
    return { ...rest, _id: (doc as Record<string, unknown>)._id } as unknown as T;
  };
  return {
    find: async (q, o) => (await inner.find(scoped(q), o)).map(strip),
    findByIds: async ids => (await inner.find(scoped({ _id: { $in: [...ids] } }))).map(strip),
    count: q => inner.count(scoped(q)),
    idsWhere: async (field, value) => (await inner.find(scoped({ [field]: value }))).map(d => d._id),
    findOne: async q => strip(await inner.findOne(scoped(q))),
    // The guard and the feed entry follow the insert as separate operations here (no multi-document
    // transaction without a replica set, README "The store"); the unique indexes still refuse a taken slug.
    insert: async (doc, o = {}) => {
      const guard = o.unlessTaken;
      if (guard && doc[guard] !== undefined && doc[guard] !== "" && (await inner.findOne(scoped({ [guard]: doc[guard] }))))
        throw new UniqueViolation(`${name}.${guard}`);
      const stored = strip(await inner.insert({ ...doc, site }));
      if (o.change) await siteCollection(db, FEED_COLLECTION, site).append(o.change, FEED_CARRY);
      // a separate operation here (no transaction without a replica set): a crash between the two leaves
      // the claim unmarked, and a retry runs the create again
      if (o.claim) await siteCollection(db, o.claim.collection, site).updateOne({ _id: o.claim.id }, { $set: { produced: o.claim.produced } });
      return stored;
    },
    append: async (doc, carry) => {
      const extra: Record<string, unknown> = {};
      if (carry) {
        const [prev] = await inner.find(scoped({ [carry.match]: doc[carry.match] }), { sort: { _id: -1 }, limit: 1 });
        extra[carry.into] = prev ? prev[carry.from] ?? null : null;
      }
      return strip(await inner.append({ ...doc, ...extra, site }));
    },
    updateOne: async (q, u, o = {}) => {
      const after = strip(await inner.updateOne(scoped(q), Object.keys(u).some(k => k.startsWith("$")) ? u : { ...u, site }));
      const entry = after && o.change?.(after);
      if (entry) await siteCollection(db, FEED_COLLECTION, site).append(entry, FEED_CARRY);
      return after;
    },
    updateOneChange: async (q, u, o = {}) => {
      const change = await inner.updateOneChange(scoped(q), Object.keys(u).some(k => k.startsWith("$")) ? u : { ...u, site });
      if (!change) return null;
      const out = { before: strip(change.before), after: strip(change.after) };
      const entry = o.change?.(out.after);
      if (entry) await siteCollection(db, FEED_COLLECTION, site).append(entry, FEED_CARRY);
      return out;
    },
    updateMany: (q, u) => inner.updateMany(scoped(q), u),
    removeMany: q => inner.removeMany(scoped(q)),
    ensureIndex: (field, o) => inner.ensureIndex(field, o)
  };
}

export async function openMongo(uri: string, connectTimeoutMs: number): Promise<MongoStore> {
  const adapter = new MongoAdapter(uri, { useUnifiedTopology: true, serverSelectionTimeoutMS: Math.min(connectTimeoutMs, 30000) });
  const quiet = { info() {}, warn() {}, error() {}, debug() {} };
  adapter.init({} as never, { schema: { collection: "sites" }, logger: quiet } as never);
  const deadline = Date.now() + connectTimeoutMs;
  for (;;) {
    try {
      await adapter.connect();
      break;
    } catch (err) {
      if (Date.now() >= deadline) throw new Error(`MongoDB at ${uri.replace(/\/\/[^@]*@/, "//***@")} could not be reached within ${connectTimeoutMs} ms: ${(err as Error).message}`);
      await new Promise(resolve => setTimeout(resolve, 500));
    }
  }
  const db = (adapter as unknown as { db: MongoDb }).db;
  return mongoStore(db, uri.replace(/\/\/[^@]*@/, "//***@"), () => adapter.disconnect());
}

/**
 * Documents stored before their texts had folded copies (store/mongo/folded.ts) get them, a batch at a
 * time; one that a write gave copies meanwhile is left as that write left it.
 */
async function foldStoredTexts(col: MongoCol): Promise<void> {
  for (;;) {
    const batch = await col.find({ [FOLDED]: { $exists: false } }).limit(500).toArray();
    if (!batch.length) return;
    for (const doc of batch) await col.updateMany({ _id: doc._id, [FOLDED]: { $exists: false } }, { $set: { [FOLDED]: withFolded(doc)[FOLDED] } });
  }
}

/** The store over a connected database (`location` for messages; `close` ends the connection). */
export function mongoStore(db: MongoDb, location: string, close: () => Promise<void>): MongoStore {
  return {
    kind: "mongo",
    location,
    collection: (name: string, _indexes: readonly IndexSpec[], site = 1) => siteCollection(db, name, site),
    async ensureIndexes(name, indexes) {
      const col = db.collection(name);
      // A uniqueness that holds only outside some statuses (a slug, docs/records.md#event-slugs) cannot be
      // a partial index of MongoDB 4.4 (its filters take no `$nin`): that index is a plain one there, and
      // the services' own checks keep such values unique within a node (README "MongoDB").
      for (const index of indexes) await col.createIndex({ site: 1, [index.field]: 1 }, { unique: !!index.unique && !index.unlessStatus, sparse: !!index.sparse });
      await foldStoredTexts(col);
    },
    registry: (site = 1) => registry(db, site),
    close
  };
}
