/**
 * The store operations the services use, one interface for every backend (SQLite and PostgreSQL in
 * store/sql/collection.ts, MongoDB in store/mongo/collection.ts). Queries are lib/documents/store-query.ts's.
 */
import type { CountPart, Doc, FindOptions, Query } from "../lib/documents/store-query";

export type { CountPart, Doc, FindOptions, Query, Sort } from "../lib/documents/store-query";

/** What `append` copies from the newest document of the same `match` value. */
export interface Carry {
  match: string;
  from: string;
  into: string;
}

/** The change feed's collection (written by every record write through InsertOptions/UpdateOptions). */
export const FEED_COLLECTION = "changes";

/** Where a change-feed entry takes its `before` from: the newest entry of the same record (docs/sync.md#the-change-feed). */
export const FEED_CARRY: Carry = { match: "key", from: "after", into: "before" };

/**
 * What a record write stores with it, in the same transaction (C42: one transaction per write): the change-feed entry that
 * describes it (appended to the feed with FEED_CARRY), so a write is never stored without its entry.
 */
export interface InsertOptions {
  /** The feed entry (without its number, which the feed's sequence gives). */
  change?: Doc;
  /**
   * Refuse the insert, with UniqueViolation naming this field, when another document of the collection
   * already holds the new document's (non-empty) value of it: the check and the insert are one statement.
   */
  unlessTaken?: string;
  /**
   * The idempotency claim this insert answers (store/key-store.ts): the document `id` of collection
   * `collection` gets `produced` (the new record's kind and id) in the same transaction, so a create whose
   * answer was never kept (its node died) is answered from its record on a retry, never run twice (C21: idempotency keys; C41: invariants under concurrency).
   */
  claim?: { collection: string; id: string; produced: Doc };
}

export interface UpdateOptions<T extends Doc = Doc> {
  /** The feed entry of the updated document as it left the update (null: nothing to record). */
  change?: (after: T) => Doc | null;
  /**
   * The record as the caller last read it, for an update by `{ _id }` alone: a store may try the update
   * on it before reading the record again (PostgreSQL's compare-and-set, store/sql/collection.ts); one
   * that moved on since costs that read. Never changes what the update does.
   */
  expected?: Doc;
}

export interface CountOptions {
  /**
   * The query names the present moment (e.g. C13 (a due `future` post counts as published): "`date_utc` already passed"): its total changes with
   * the clock as well as with writes, so a store that keeps totals (store/sql/collection.ts) counts it each time.
   */
  moving?: boolean;
}

/**
 * One collection of the store, read as documents of type `T` (its record kind's document: EventDoc,
 * TermDoc…, given once where the collection is opened, recordsOf); `Doc` when the kind is open.
 */
export interface Collection<T extends Doc = Doc> {
  find(query: Query, opts?: FindOptions): Promise<T[]>;
  /** The documents with these ids, in no particular order. */
  findByIds(ids: readonly unknown[]): Promise<T[]>;
  count(query: Query, opts?: CountOptions): Promise<number>;
  /** The sum of the totals of disjoint parts (a list's total in parts, lib/events/due-events.ts `dueCountParts`). */
  countParts(parts: readonly CountPart[]): Promise<number>;
  /** The ids of the documents whose `field` equals `value`. */
  idsWhere(field: string, value: unknown): Promise<unknown[]>;
  findOne(query: Query): Promise<T | null>;
  /** Stores a new document (its `_id` set by the caller); a taken unique key throws UniqueViolation. */
  insert(doc: Doc, opts?: InsertOptions): Promise<T>;
  /**
   * Stores a new document under the next number of this collection's own sequence; answers it with its
   * `_id`. With `carry`, the store also sets `doc[carry.into]` to the `carry.from` field of the newest
   * document whose `carry.match` field equals this one's (null when none), in the same statement.
   */
  append(doc: Doc, carry?: Carry): Promise<T>;
  /**
   * `append` of several documents in one statement, numbered in their order (PostgreSQL; a store without
   * it appends one by one). A taken unique key throws and stores none of them.
   */
  appendAll?(docs: readonly Doc[]): Promise<T[]>;
  /** Applies `update` ($set/$unset/$inc/$push/$pull/$addToSet) to the first match, atomically; returns the updated doc. */
  updateOne(query: Query, update: Doc, opts?: UpdateOptions<T>): Promise<T | null>;
  /** `updateOne`, answering the document as the update found it (read under the same lock) and as it left it. */
  updateOneChange(query: Query, update: Doc, opts?: UpdateOptions<T>): Promise<{ before: T; after: T } | null>;
  updateMany(query: Query, update: Doc): Promise<number>;
  removeMany(query: Query): Promise<number>;
  ensureIndex(field: string, opts?: { unique?: boolean; sparse?: boolean }): Promise<void>;
}

/**
 * `col` read as documents of type `T`: the one place a stored document takes its record kind's type. The
 * stores keep what a service wrote and answer it as it was written, so the collection of a kind holds
 * that kind's documents; nothing is checked at run time.
 */
export function recordsOf<T extends Doc>(col: Collection): Collection<T> {
  return col as Collection<T>;
}

/**
 * Stored documents read elsewhere (a change-feed entry's `doc`, handed over with a call) as documents of
 * their record kind `T`: the feed keeps each record's document as its service wrote it.
 */
export function storedAs<T extends Doc>(docs: Doc[]): T[] {
  return docs as T[];
}
