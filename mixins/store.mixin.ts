/**
 * The store mixin: a service's records in the process's store (store/index.ts: SQLite under DATA_DIR by
 * default, PostgreSQL for DATABASE_URL, MongoDB for MONGO_URI). It gives the service `this.store` (its
 * collection of the default site, every write followed by a cache clean), ids from the store's
 * sequences, and the indexes the service lists, made when the store opens. Collections and ids are
 * the current site's (store/site-collection.ts, docs/sites.md): the site a request or bus call belongs to.
 */
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { serviceSchema } from "../broker/service-schema";
import { settings } from "../lib/settings";
import type { Collection, Doc } from "../store/collection";
import { changedFields, inSeries, stalePatterns, type Write } from "../cache/staleness";
import type { IdRegistry, Sequence } from "../store/registry";
import { acquireStore, releaseStore, IndexSpec, Store, StoreConfig } from "../store";
import { CacheMixin, type CacheMethods } from "./cache.mixin";
import { siteCollection, siteRegistry } from "../store/site-collection";
import { siteDirectory } from "../store/site-directory";
import { currentSiteId, DEFAULT_SITE_ID, runInSite } from "../lib/sites/scope";

export type { IndexSpec } from "../store";

export interface StoreOptions {
  collection: string;
  /** Every field a lookup or list filter uses. */
  indexes: IndexSpec[];
  /** What this service's store differs in from the process's (a PostgreSQL pool of its own: StoreConfig.pool). */
  config?: () => Partial<StoreConfig>;
  /**
   * Other collections the service opens later (on first use), by name: their indexes are made as the store
   * opens, under the store's migration lock, and not inside a request. A first use inside concurrent writes,
   * each holding a store lock of its own, waited for a lock connection those writes held until they timed out.
   */
  companions?: Companions;
}

/** Collections by name, with the indexes each needs (StoreOptions `companions`). */
export type Companions = Readonly<Record<string, readonly IndexSpec[]>>;

export function storeConfig(): StoreConfig {
  const s = settings();
  return { dataDir: s.dataDir, databaseUrl: s.databaseUrl, mongoUri: s.mongoUri, connectTimeoutMs: s.databaseConnectTimeout, poolMax: s.databasePoolMax, lookupMax: s.databaseLookupPoolMax, sqliteCacheMb: s.sqliteCacheMb };
}

/** A lock's number: a 31-bit hash of its name, above the store's own locks (store/sql/schema.ts). */
function lockKey(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return 100_000_000 + ((hash >>> 0) % 1_000_000_000);
}

/**
 * The collection with every write followed by a clean of what it made stale (kept answers never outlive
 * a write, cache/staleness.ts): one record's write names that record, a write of many the whole site.
 */
function cleaningWrites(collection: string, col: Collection, clean: (patterns: string[]) => Promise<void>): Collection {
  const one = (doc: Doc | null | undefined, before?: Doc | null): Write => {
    const id = typeof doc?._id === "number" ? doc._id : undefined;
    if (id === undefined) return { collection };
    return { collection, id, series: inSeries(doc) || inSeries(before), ...(before && doc ? { changed: changedFields(before, doc) } : {}) };
  };
  const after = <A extends unknown[], R>(write: (...args: A) => Promise<R>, written: (result: R) => Write) => async (...args: A): Promise<R> => {
    const result = await write(...args);
    await clean(stalePatterns(currentSiteId(), written(result)));
    return result;
  };
  const many = (): Write => ({ collection });
  return {
    ...col,
    insert: after(col.insert, doc => one(doc)),
    append: after(col.append, many),
    ...(col.appendAll ? { appendAll: after(col.appendAll, many) } : {}),
    updateOne: after(col.updateOne, doc => one(doc)),
    updateOneChange: after(col.updateOneChange, change => one(change?.after, change?.before)),
    updateMany: after(col.updateMany, many),
    removeMany: after(col.removeMany, many)
  };
}

type StoreSelf = Service & {
  storeHandle?: Store;
  store: Collection;
  cleanCaches(patterns?: string[]): Promise<void>;
  storeConnected?(): Promise<void> | void;
};

/** The methods the store mixin gives its service. */
const storeMethods = {
  /** The next id of a sequence, shared with every service drawing from it. */
  allocateId(this: StoreSelf, seq: Sequence, type: string): Promise<number> {
    return siteRegistry(this.storeHandle!).allocate(seq, type);
  },
  /**
   * Runs `fn` as the only holder of the store-wide lock `name` of the current site on every node: the one
   * lock services take (PostgreSQL: an advisory lock; SQLite: a row of the file's lock table; MongoDB: this
   * process alone). The holders of this process take turns in the order they asked, and `fn` taking the
   * same lock again runs at once (store/lock-turns.ts).
   */
  exclusive<T>(this: StoreSelf, name: string, fn: () => Promise<T>): Promise<T> {
    return this.storeHandle!.withLock(lockKey(`${currentSiteId()}:${name}`), fn);
  },
  idRegistry(this: StoreSelf): Promise<IdRegistry> {
    return Promise.resolve(siteRegistry(this.storeHandle!));
  },
  /** Runs `fn` as work of site `id` (background work of a site); skipped when the site is gone. */
  async inSite<T>(this: StoreSelf, id: number, fn: () => Promise<T>): Promise<T | undefined> {
    if (id === DEFAULT_SITE_ID) return runInSite(undefined, fn);
    const site = await siteDirectory(this.storeHandle!).forId(id);
    return site ? runInSite(site, fn) : undefined;
  },
  /** The default site and every live site of the store (background work that visits each). */
  async siteIds(this: StoreSelf): Promise<number[]> {
    // a job's timer that fires while the service stops finds its store released: no site to visit
    if (!this.storeHandle) return [];
    return [DEFAULT_SITE_ID, ...((await this.storeHandle!.sites?.liveIds()) ?? [])];
  },
  /** Another collection of the same store (the change feed's idempotency keys, say). */
  async storeCollection(this: StoreSelf, name: string, indexes: IndexSpec[] = []): Promise<Collection> {
    await this.storeHandle!.ensureIndexes(name, indexes);
    return siteCollection(this.storeHandle!, name, indexes);
  }
};

/** What a service with the store mixin has (its public face, with the cache mixin's). */
export type StoreFace<T extends Doc = Doc> = CacheMethods & typeof storeMethods & {
  /** The service's collection, read as its record kind's documents. */
  store: Collection<T>;
  /** The store opened when the service started (its SQL driver: `storeHandle.sql`). */
  storeHandle?: Store;
};

export function StoreMixin(opts: StoreOptions): ServiceSchema {
  const schema: ServiceSchema<ServiceSettingSchema, object, object, StoreSelf> = {
    name: "store",
    mixins: [CacheMixin],
    methods: storeMethods,
    async started(this: StoreSelf) {
      let store: Store;
      try {
        store = await acquireStore({ ...storeConfig(), ...opts.config?.(), onNotice: (msg: string, level?: "info" | "warn") => (level === "warn" ? this.logger.warn(msg) : this.logger.info(msg)) });
        await store.ensureIndexes(opts.collection, opts.indexes);
        for (const [name, indexes] of Object.entries(opts.companions ?? {})) await store.ensureIndexes(name, indexes);
      } catch (err) {
        this.broker.fatal(`${this.name}: ${(err as Error).message}`, err as Error, true);
        throw err;
      }
      this.storeHandle = store;
      this.store = siteCollection(store, opts.collection, opts.indexes, col => cleaningWrites(opts.collection, col, patterns => this.cleanCaches(patterns)));
      await this.storeConnected?.();
    },
    async stopped(this: StoreSelf) {
      if (this.storeHandle) await releaseStore({ ...storeConfig(), ...opts.config?.() });
      this.storeHandle = undefined;
    }
  };
  return serviceSchema(schema);
}
