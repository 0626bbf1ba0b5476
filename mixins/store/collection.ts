/**
 * The subset of store operations the services use, with one implementation over NeDB (the embedded
 * default) and one over MongoDB. Queries use the operators both understand: equality, $in, $nin, $ne,
 * $gt/$gte/$lt/$lte, $exists, $regex, $or, $and.
 */
import { groupCommit } from "../../lib/group-commit";

export type Doc = Record<string, any>;
export type Query = Record<string, any>;
export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  projection?: Record<string, 0 | 1>;
}

export interface Collection {
  find(query: Query, opts?: FindOptions): Promise<Doc[]>;
  /**
   * The documents with these ids, in no particular order, read-only: on the embedded store the stored
   * (frozen) documents themselves, straight from the id index, without a copy.
   */
  findByIds(ids: readonly unknown[]): Promise<readonly Doc[]>;
  count(query: Query): Promise<number>;
  /**
   * The ids of the documents whose `field` equals `value`: on the embedded store read from NeDB's index
   * of that field as memory holds it now (a write is in memory before it is acknowledged), without
   * queueing behind the writes waiting for the disk; a field without index is a store query.
   */
  idsWhere(field: string, value: unknown): Promise<unknown[]>;
  findOne(query: Query): Promise<Doc | null>;
  insert(doc: Doc): Promise<Doc>;
  /** Applies `update` ($set/$unset/$inc/$push/$pull/$addToSet) to the first match; returns the updated doc. */
  updateOne(query: Query, update: Doc): Promise<Doc | null>;
  updateMany(query: Query, update: Doc): Promise<number>;
  removeMany(query: Query): Promise<number>;
  ensureIndex(field: string, opts?: { unique?: boolean; sparse?: boolean }): Promise<void>;
}

/** NeDB datastore as promisified by moleculer-db's memory adapter (callback API turned into promises). */
export function nedbCollection(db: any): Collection {
  // Inserts arriving together are appended as one batch; if the batch is refused (a unique index), each
  // insert is retried alone so only the offending one fails.
  const insertBatched = groupCommit<Doc, Doc | Error>(async (docs: Doc[]) => {
    if (docs.length === 1) return [await db.insert(docs[0])];
    try {
      return await db.insert(docs);
    } catch {
      return Promise.all(docs.map(doc => db.insert(doc).catch((err: Error) => err)));
    }
  });
  const exec = (cursor: any): Promise<Doc[]> => new Promise((resolve, reject) => cursor.exec((err: Error, docs: Doc[]) => (err ? reject(err) : resolve(docs))));
  return {
    find(query, opts = {}) {
      let cursor = db.find(query, opts.projection ?? {});
      if (opts.sort) cursor = cursor.sort(opts.sort);
      if (opts.skip) cursor = cursor.skip(opts.skip);
      if (opts.limit) cursor = cursor.limit(opts.limit);
      return exec(cursor);
    },
    // Reads NeDB's in-memory state as it is now, like a find queued at this moment would (a write is
    // in memory before it is acknowledged). The store mixin freezes stored documents (FREEZE_STORED).
    findByIds: async ids => (ids.length ? db.indexes._id.getMatching([...ids]) : []),
    count: query => db.count(query),
    async idsWhere(field, value) {
      const index = db.indexes[field];
      const docs: Doc[] = index ? index.getMatching(value) : await db.find({ [field]: value }, { _id: 1 });
      return docs.map(doc => doc._id);
    },
    findOne: query => db.findOne(query),
    async insert(doc) {
      const res = await insertBatched(doc);
      if (res instanceof Error) throw res;
      return res;
    },
    async updateOne(query, update) {
      // moleculer-db wraps update's callback results into one array: [numAffected, affectedDocs, upsert]
      const res = await db.update(query, update, { returnUpdatedDocs: true, multi: false });
      return (res && res[1]) || null;
    },
    async updateMany(query, update) {
      const res = await db.update(query, update, { multi: true });
      return res[0];
    },
    removeMany: query => db.remove(query, { multi: true }),
    async ensureIndex(field, opts = {}) {
      await db.ensureIndex({ fieldName: field, unique: !!opts.unique, sparse: !!opts.sparse });
    }
  };
}

/** NeDB's document-level `$not` is MongoDB's `$nor` with one clause. */
export function toMongoQuery(query: Query): Query {
  if (Array.isArray(query)) return query.map(toMongoQuery) as unknown as Query;
  if (!query || typeof query !== "object" || query instanceof RegExp) return query;
  const out: Query = {};
  for (const [key, value] of Object.entries(query)) {
    if (key === "$not" && value && typeof value === "object" && !(value instanceof RegExp) && !Object.keys(value).some(k => k.startsWith("$") && k !== "$or" && k !== "$and"))
      out.$nor = [toMongoQuery(value)];
    else if (key === "$and" || key === "$or") out[key] = (value as Query[]).map(toMongoQuery);
    else out[key] = value;
  }
  return out;
}

/** A MongoDB collection (driver 3.x as bundled by moleculer-db-adapter-mongo). */
export function mongoCollection(col: any): Collection {
  return {
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
      const res = await col.findOneAndUpdate(query, update, { returnOriginal: false, returnDocument: "after" });
      return res?.value ?? null;
    },
    async updateMany(query, update) {
      const res = await col.updateMany(query, update);
      return res.modifiedCount ?? res.result?.nModified ?? 0;
    },
    async removeMany(query) {
      const res = await col.deleteMany(query);
      return res.deletedCount ?? 0;
    },
    async ensureIndex(field, opts = {}) {
      await col.createIndex({ [field]: 1 }, { unique: !!opts.unique, sparse: !!opts.sparse });
    }
  };
}
