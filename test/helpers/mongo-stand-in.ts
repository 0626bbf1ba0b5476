/**
 * A stand-in for the MongoDB driver's database (the part store/mongo/driver.ts names), held in memory and
 * answered by mingo's query and update engine, so the MongoDB store's own code (store/mongo/) runs the
 * store contract where no MongoDB server can run (README "MongoDB"). It is not MongoDB: where mingo
 * evaluates a query or an update differently from a server, these tests do not see it. What it keeps of
 * the server: documents are copies (never shared with the caller), `_id` and unique indexes refuse a
 * duplicate with the server's error code 11000 (a sparse index skips documents missing one of its
 * fields), `findOneAndUpdate` may insert (upsert), and the driver 3.x/4.x options of which document
 * to return.
 */
import { find as mingoFind, Query as MingoQuery, update as mingoUpdate } from "mingo";
import type { FindAndModifyOptions, MongoCol, MongoCursor } from "../../store/mongo/driver";
import type { MongoDb } from "../../store/mongo/store";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents of any shape, as the driver's
type Doc = Record<string, any>;
type Query = Record<string, unknown>;

const copy = <T>(value: T): T => structuredClone(value);

function valueAt(doc: Doc, path: string): unknown {
  let v: unknown = doc;
  for (const part of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Doc)[part];
  }
  return v;
}

/** The server's duplicate key error, as the driver reports it. */
function duplicateKey(index: string): Error {
  return Object.assign(new Error(`E11000 duplicate key error index: ${index}`), { code: 11000 });
}

interface UniqueIndex {
  name: string;
  fields: string[];
  sparse: boolean;
}

/** A document's key in a unique index; undefined where a sparse index skips it (a field missing). */
function indexKey(index: UniqueIndex, doc: Doc): string | undefined {
  const values = index.fields.map(f => valueAt(doc, f));
  if (index.sparse && values.some(v => v === undefined)) return undefined;
  return JSON.stringify(values.map(v => v ?? null));
}

let nextObjectId = 1;

class StandInCollection implements MongoCol {
  private docs: Doc[] = [];
  private readonly uniques: UniqueIndex[] = [{ name: "_id_", fields: ["_id"], sparse: false }];

  private matching(query: Query): Doc[] {
    const q = new MingoQuery(query);
    return this.docs.filter(d => q.test(d));
  }

  /** Refuses `doc` where another document (not `self`) holds its key in a unique index. */
  private checkUnique(doc: Doc, self?: Doc): void {
    for (const index of this.uniques) {
      const key = indexKey(index, doc);
      if (key !== undefined && this.docs.some(other => other !== self && indexKey(index, other) === key)) throw duplicateKey(index.name);
    }
  }

  find(query: Query): MongoCursor {
    const steps: { projection?: Record<string, 0 | 1>; sort?: Record<string, 1 | -1>; skip?: number; limit?: number } = {};
    const cursor: MongoCursor = {
      project: projection => ((steps.projection = projection), cursor),
      sort: sort => ((steps.sort = sort), cursor),
      skip: n => ((steps.skip = n), cursor),
      limit: n => ((steps.limit = n), cursor),
      toArray: async () => {
        let c = mingoFind(this.docs, query, steps.projection);
        if (steps.sort) c = c.sort(steps.sort);
        if (steps.skip) c = c.skip(steps.skip);
        if (steps.limit) c = c.limit(steps.limit);
        return copy(c.all() as Doc[]);
      }
    };
    return cursor;
  }

  async findOne(query: Query): Promise<Doc | null> {
    const [doc] = this.matching(query);
    return doc ? copy(doc) : null;
  }

  async countDocuments(query: Query): Promise<number> {
    return this.matching(query).length;
  }

  async insertOne(doc: Doc): Promise<unknown> {
    const stored = copy(doc);
    stored._id ??= `oid${nextObjectId++}`;
    this.checkUnique(stored);
    this.docs.push(stored);
    return { insertedId: stored._id };
  }

  async insertMany(docs: Doc[]): Promise<unknown> {
    for (const doc of docs) await this.insertOne(doc);
    return { insertedCount: docs.length };
  }

  /** The document `opts` asks for: before the change (driver 3.x's default) or after it. */
  private static chosen(opts: FindAndModifyOptions, before: Doc | null, after: Doc): { value: Doc | null } {
    const wantsBefore = opts.returnDocument ? opts.returnDocument === "before" : opts.returnOriginal !== false;
    return { value: wantsBefore ? (before ? copy(before) : null) : copy(after) };
  }

  async findOneAndUpdate(query: Query, update: Doc, opts: FindAndModifyOptions): Promise<{ value?: Doc | null } | null> {
    const [doc] = this.matching(query);
    if (!doc) {
      if (!opts.upsert) return { value: null };
      // an upsert starts from the query's plain equalities (the counters: `{_id}`)
      const fresh: Doc = Object.fromEntries(Object.entries(query).filter(([k, v]) => !k.startsWith("$") && (v === null || typeof v !== "object")));
      mingoUpdate(fresh, update);
      await this.insertOne(fresh);
      return StandInCollection.chosen(opts, null, fresh);
    }
    const before = copy(doc);
    const after = copy(doc);
    mingoUpdate(after, update);
    after._id = before._id;
    this.checkUnique(after, doc);
    this.docs[this.docs.indexOf(doc)] = after;
    return StandInCollection.chosen(opts, before, after);
  }

  async findOneAndReplace(query: Query, replacement: Doc, opts: FindAndModifyOptions): Promise<{ value?: Doc | null } | null> {
    const [doc] = this.matching(query);
    if (!doc) return { value: null };
    const after = { ...copy(replacement), _id: doc._id };
    this.checkUnique(after, doc);
    this.docs[this.docs.indexOf(doc)] = after;
    return StandInCollection.chosen(opts, doc, after);
  }

  async updateMany(query: Query, update: Doc): Promise<{ modifiedCount?: number; matchedCount?: number }> {
    const matched = this.matching(query);
    let modified = 0;
    for (const doc of matched) {
      const after = copy(doc);
      mingoUpdate(after, update);
      this.checkUnique(after, doc);
      if (JSON.stringify(after) !== JSON.stringify(doc)) modified++;
      this.docs[this.docs.indexOf(doc)] = after;
    }
    return { modifiedCount: modified, matchedCount: matched.length };
  }

  async deleteMany(query: Query): Promise<{ deletedCount?: number }> {
    const gone = new Set(this.matching(query));
    this.docs = this.docs.filter(d => !gone.has(d));
    return { deletedCount: gone.size };
  }

  async createIndex(spec: Record<string, 1>, opts: { unique: boolean; sparse: boolean }): Promise<unknown> {
    const fields = Object.keys(spec);
    const name = fields.map(f => `${f}_1`).join("_");
    if (!opts.unique || this.uniques.some(u => u.name === name)) return name;
    const index = { name, fields, sparse: opts.sparse };
    // as the server: an index the documents already break is not made
    const keys = new Set<string>();
    for (const doc of this.docs) {
      const key = indexKey(index, doc);
      if (key === undefined) continue;
      if (keys.has(key)) throw duplicateKey(name);
      keys.add(key);
    }
    this.uniques.push(index);
    return name;
  }
}

/** An empty database of stand-in collections. */
export function mongoStandIn(): MongoDb {
  const collections = new Map<string, StandInCollection>();
  return {
    collection(name: string): MongoCol {
      let col = collections.get(name);
      if (!col) collections.set(name, (col = new StandInCollection()));
      return col;
    }
  };
}
