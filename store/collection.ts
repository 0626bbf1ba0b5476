/**
 * The store operations the services use, one interface for every backend (SQLite and PostgreSQL in
 * store/sql/collection.ts, MongoDB in store/mongo/collection.ts). Queries are lib/store-query.ts's.
 */
import type { Doc, FindOptions, Query } from "../lib/store-query";

export type { Doc, FindOptions, Query, Sort } from "../lib/store-query";

/** What `append` copies from the newest document of the same `match` value. */
export interface Carry {
  match: string;
  from: string;
  into: string;
}

export interface Collection {
  find(query: Query, opts?: FindOptions): Promise<Doc[]>;
  /** The documents with these ids, in no particular order. */
  findByIds(ids: readonly unknown[]): Promise<readonly Doc[]>;
  count(query: Query): Promise<number>;
  /** The ids of the documents whose `field` equals `value`. */
  idsWhere(field: string, value: unknown): Promise<unknown[]>;
  findOne(query: Query): Promise<Doc | null>;
  /** Stores a new document (its `_id` set by the caller); a taken unique key throws UniqueViolation. */
  insert(doc: Doc): Promise<Doc>;
  /**
   * Stores a new document under the next number of this collection's own sequence; answers it with its
   * `_id`. With `carry`, the store also sets `doc[carry.into]` to the `carry.from` field of the newest
   * document whose `carry.match` field equals this one's (null when none), in the same statement.
   */
  append(doc: Doc, carry?: Carry): Promise<Doc>;
  /** Applies `update` ($set/$unset/$inc/$push/$pull/$addToSet) to the first match, atomically; returns the updated doc. */
  updateOne(query: Query, update: Doc): Promise<Doc | null>;
  /** `updateOne`, answering the document as the update found it (read under the same lock) and as it left it. */
  updateOneChange(query: Query, update: Doc): Promise<{ before: Doc; after: Doc } | null>;
  updateMany(query: Query, update: Doc): Promise<number>;
  removeMany(query: Query): Promise<number>;
  ensureIndex(field: string, opts?: { unique?: boolean; sparse?: boolean }): Promise<void>;
}
