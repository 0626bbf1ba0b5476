/**
 * A collection of the embedded store (SQLite in memory) for unit tests of query builders: each call
 * makes a new site, so tests never see each other's documents. The methods mirror the few the tests use.
 */
import { acquireStore, IndexSpec } from "../../store";
import type { Collection, Doc, FindOptions, Query } from "../../store/collection";

let nextSite = 5000;

export interface TestCollection {
  col: Collection;
  insertAsync(docs: Doc | Doc[]): Promise<void>;
  findAsync(query: Query, opts?: FindOptions): Promise<Doc[]>;
  findOneAsync(query: Query): Promise<Doc | null>;
  updateAsync(query: Query, update: Doc, opts?: { multi?: boolean }): Promise<number>;
}

export async function memoryCollection(table: string, indexes: IndexSpec[] = []): Promise<TestCollection> {
  const store = await acquireStore({ dataDir: ":memory:", connectTimeoutMs: 1000 });
  const col = store.collection(table, indexes, nextSite++);
  return {
    col,
    async insertAsync(docs) {
      for (const doc of Array.isArray(docs) ? docs : [docs]) await col.insert(doc);
    },
    findAsync: (query, opts) => col.find(query, opts),
    findOneAsync: query => col.findOne(query),
    async updateAsync(query, update, opts = {}) {
      if (opts.multi) return col.updateMany(query, update);
      return (await col.updateOne(query, update)) ? 1 : 0;
    }
  };
}
