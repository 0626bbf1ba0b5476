/**
 * The store operations (store/collection.ts) on MongoDB, through the driver bundled by
 * moleculer-db-adapter-mongo (3.x). The queries are MongoDB's own (lib/store-query.ts), but for the
 * document-level `$not`, which MongoDB spells `$nor` with one clause.
 */
import type { Collection } from "../collection";
import type { MongoCol } from "./driver";
import type { Query, Doc } from "../../lib/store-query";
import { applyUpdate } from "../../lib/update-ops";

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

/** Updates (operators) or replaces (a plain document) the first match; answers it as it was or as it is now. */
async function findAndModify(col: MongoCol, query: Query, update: Doc, which: "before" | "after"): Promise<Doc | null> {
  const opts = { returnOriginal: which === "before", returnDocument: which };
  const replacing = !Object.keys(update).some(k => k.startsWith("$"));
  const res = replacing ? await col.findOneAndReplace(toMongoQuery(query), update, opts) : await col.findOneAndUpdate(toMongoQuery(query), update, opts);
  return res?.value ?? null;
}

/** A MongoDB collection (driver 3.x as bundled by moleculer-db-adapter-mongo). */
export function mongoCollection(col: MongoCol, counters?: MongoCol, counterId = "records"): Collection {
  return {
    async append(doc) {
      if (!counters) throw new Error("append needs the database's counters collection");
      const res = await counters.findOneAndUpdate({ _id: counterId }, { $inc: { seq: 1 } }, { upsert: true, returnOriginal: false, returnDocument: "after" });
      const stored = { ...doc, _id: res!.value!.seq };
      await col.insertOne(stored);
      return stored;
    },
    find(query, opts = {}) {
      let cursor = col.find(toMongoQuery(query));
      if (opts.projection) cursor = cursor.project(opts.projection);
      if (opts.sort) cursor = cursor.sort(opts.sort);
      if (opts.skip) cursor = cursor.skip(opts.skip);
      if (opts.limit) cursor = cursor.limit(opts.limit);
      return cursor.toArray();
    },
    findByIds: async ids => (ids.length ? col.find({ _id: { $in: [...ids] } }).toArray() : []),
    count: query => col.countDocuments(toMongoQuery(query)),
    async idsWhere(field, value) {
      const docs: Doc[] = await col.find({ [field]: value }).project({ _id: 1 }).toArray();
      return docs.map(doc => doc._id);
    },
    findOne: query => col.findOne(toMongoQuery(query)),
    async insert(doc) {
      await col.insertOne(doc);
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
      const res = await col.updateMany(toMongoQuery(query), update);
      return res.modifiedCount ?? res.result?.nModified ?? 0;
    },
    async removeMany(query) {
      const res = await col.deleteMany(toMongoQuery(query));
      return res.deletedCount ?? 0;
    },
    async ensureIndex(field, opts = {}) {
      await col.createIndex({ [field]: 1 }, { unique: !!opts.unique, sparse: !!opts.sparse });
    }
  };
}
