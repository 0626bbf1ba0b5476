/**
 * The store operations (store/collection.ts) on MongoDB, through the driver bundled by
 * moleculer-db-adapter-mongo (3.x). The queries are MongoDB's own (lib/store-query.ts), but for the
 * document-level `$not`, which MongoDB spells `$nor` with one clause, and literal patterns compared
 * without case, which are asked of the documents' folded texts (store/mongo/folded.ts).
 */
import type { Collection } from "../collection";
import type { MongoCol } from "./driver";
import type { Query, Doc } from "../../lib/store-query";
import { applyUpdate } from "../../lib/update-ops";
import { foldedQuery, foldedUpdate, withFolded, withoutFolded } from "./folded";
import { UniqueViolation } from "../errors";

/** A document-level `$not` is MongoDB's `$nor` with one clause. */
export function toMongoQuery(query: Query): Query {
  if (Array.isArray(query)) return query.map(toMongoQuery) as unknown as Query;
  if (!query || typeof query !== "object" || query instanceof RegExp) return query;
  const out: Query = {};
  for (const [key, value] of Object.entries(query)) {
    if (key === "$not" && value && typeof value === "object" && !(value instanceof RegExp) && !Object.keys(value).some(k => k.startsWith("$") && k !== "$or" && k !== "$and"))
      out.$nor = [toMongoQuery(value as Query)];
    else if (key === "$and" || key === "$or") out[key] = (value as Query[]).map(toMongoQuery);
    else out[key] = value;
  }
  return out;
}

/** The server's duplicate-key error (code 11000) as the store's UniqueViolation, naming the index; others as they are. */
function storeError(err: unknown): unknown {
  if ((err as { code?: number })?.code !== 11000) return err;
  const index = /index: (\S+)/.exec((err as Error).message ?? "")?.[1] ?? "unique index";
  return new UniqueViolation(index, err);
}

/** Runs a write, its duplicate-key error told as the SQL stores tell theirs. */
async function writing<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw storeError(err);
  }
}

/** A query of the services as MongoDB is asked it. */
const asked = (query: Query): Query => toMongoQuery(foldedQuery(query));

/** Updates (operators) or replaces (a plain document) the first match; answers it as it was or as it is now. */
async function findAndModify(col: MongoCol, query: Query, update: Doc, which: "before" | "after"): Promise<Doc | null> {
  const opts = { returnOriginal: which === "before", returnDocument: which };
  const replacing = !Object.keys(update).some(k => k.startsWith("$"));
  const stored = foldedUpdate(update);
  const res = await writing(() => (replacing ? col.findOneAndReplace(asked(query), stored, opts) : col.findOneAndUpdate(asked(query), stored, opts)));
  return withoutFolded(res?.value ?? null);
}

/** A MongoDB collection (driver 3.x as bundled by moleculer-db-adapter-mongo). */
export function mongoCollection(col: MongoCol, counters?: MongoCol, counterId = "records"): Collection {
  return {
    async append(doc) {
      if (!counters) throw new Error("append needs the database's counters collection");
      const res = await counters.findOneAndUpdate({ _id: counterId }, { $inc: { seq: 1 } }, { upsert: true, returnOriginal: false, returnDocument: "after" });
      const stored = { ...doc, _id: res!.value!.seq };
      await writing(() => col.insertOne(withFolded(stored)));
      return stored;
    },
    async find(query, opts = {}) {
      let cursor = col.find(asked(query));
      if (opts.projection) cursor = cursor.project(opts.projection);
      if (opts.sort) cursor = cursor.sort(opts.sort);
      if (opts.skip) cursor = cursor.skip(opts.skip);
      if (opts.limit) cursor = cursor.limit(opts.limit);
      return (await cursor.toArray()).map(withoutFolded);
    },
    findByIds: async ids => (ids.length ? (await col.find({ _id: { $in: [...ids] } }).toArray()).map(withoutFolded) : []),
    count: query => col.countDocuments(asked(query)),
    async idsWhere(field, value) {
      const docs: Doc[] = await col.find(asked({ [field]: value })).project({ _id: 1 }).toArray();
      return docs.map(doc => doc._id);
    },
    findOne: async query => withoutFolded(await col.findOne(asked(query))),
    async insert(doc) {
      await writing(() => col.insertOne(withFolded(doc)));
      return doc;
    },
    async updateOne(query, update) {
      return (await findAndModify(col, query, update, "after")) ?? null;
    },
    async updateOneChange(query, update) {
      const before = await findAndModify(col, query, update, "before");
      return before ? { before, after: applyUpdate(before, update) } : null;
    },
    async updateMany(query, update) {
      const res = await writing(() => col.updateMany(asked(query), foldedUpdate(update)));
      return res.modifiedCount ?? res.result?.nModified ?? 0;
    },
    async removeMany(query) {
      const res = await col.deleteMany(asked(query));
      return res.deletedCount ?? 0;
    },
    async ensureIndex(field, opts = {}) {
      await col.createIndex({ [field]: 1 }, { unique: !!opts.unique, sparse: !!opts.sparse });
    }
  };
}
