/**
 * What a store is, whichever backend opened it (store/index.ts opens one): its collections of one site,
 * the indexes a service asks of them, its id registry, its SQL driver and its sites. The backends
 * (store/sql/, store/mongo/) build to this contract, so it lives apart from the code that picks one.
 */
import type { Collection } from "./collection";
import type { IdRegistry } from "./registry";
import type { SqlDriver } from "./sql/driver";
import type { SiteStore } from "./sites";
import type { Renderings } from "./renderings";

export interface IndexSpec {
  field: string;
  unique?: boolean;
  /** Only the records holding the field are indexed (SQL: a partial index unless unique; store/sql/collection.ts indexStatements). */
  sparse?: boolean;
  /** The field holds an array of scalars (links, languages, cells). */
  array?: boolean;
  /** The index orders equal values by id (a lookup of the newest record with a value reads one entry). */
  thenById?: boolean;
  /** With `unique`: only among records whose status is none of these and whose value is not empty. */
  unlessStatus?: string[];
  /**
   * The index orders equal values by these fields, then by id: a list sorted that way reads its page from
   * the index and stops, instead of sorting its whole window first (docs/lists.md#always-applied, the order).
   */
  then?: string[];
}

export type StoreKind = "sqlite" | "postgres" | "mongo";


export interface Store {
  readonly kind: StoreKind;
  /** Where the records are, for messages (never a password). */
  readonly location: string;
  collection(name: string, indexes: readonly IndexSpec[], site?: number): Collection;
  /** Makes the indexes a service lists (idempotent; safe when many nodes start at once). */
  ensureIndexes(name: string, indexes: readonly IndexSpec[]): Promise<void>;
  registry(site?: number): IdRegistry;
  /**
   * Runs `fn` holding the store-wide lock `key`: on the SQL stores one holder across every node (the
   * driver's `withLock`); on MongoDB one holder in this process only. Re-entrant by call context
   * (store/lock-turns.ts).
   */
  withLock<T>(key: number, fn: () => Promise<T>): Promise<T>;
  /** The SQL driver (undefined on MongoDB). */
  readonly sql?: SqlDriver;
  /** Sites and their keys (docs/sites.md): SQL tables (store/sites.ts) or MongoDB collections (store/mongo/sites.ts). */
  readonly sites?: SiteStore;
  /** The records' stored renderings (store/renderings.ts): the SQL stores; undefined on MongoDB, whose reads are computed. */
  readonly renderings?: Renderings;
}
