/**
 * The store mixin: a service's records in the process's store (store/index.ts: SQLite under DATA_DIR by
 * default, PostgreSQL for DATABASE_URL, MongoDB for MONGO_URI). It gives the service `this.store` (its
 * collection of the default site, every write followed by a cache clean), ids from the store's
 * sequences, and the indexes the service lists, made when the store opens.
 */
import type { ServiceSchema } from "moleculer";
import { settings } from "../lib/settings";
import type { Collection } from "../store/collection";
import type { IdRegistry, Sequence } from "../store/registry";
import { acquireStore, releaseStore, IndexSpec, Store, StoreConfig } from "../store";
import { CacheMixin } from "./cache.mixin";

export type { IndexSpec } from "../store";

export interface StoreOptions {
  collection: string;
  /** Every field a lookup or list filter uses. */
  indexes: IndexSpec[];
}

export function storeConfig(): StoreConfig {
  const s = settings();
  return { dataDir: s.dataDir, databaseUrl: s.databaseUrl, mongoUri: s.mongoUri, connectTimeoutMs: s.databaseConnectTimeout };
}

/** The collection with every write followed by a cache clean (cached reads never outlive a write). */
function cleaningWrites(col: Collection, clean: () => Promise<void>): Collection {
  const after = <A extends unknown[], R>(write: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    const result = await write(...args);
    await clean();
    return result;
  };
  return {
    ...col,
    insert: after(col.insert),
    append: after(col.append),
    updateOne: after(col.updateOne),
    updateOneChange: after(col.updateOneChange),
    updateMany: after(col.updateMany),
    removeMany: after(col.removeMany)
  };
}

interface StoreSelf {
  name: string;
  logger: { info(msg: string): void };
  broker: { fatal(message: string, err?: Error, needExit?: boolean): void };
  storeHandle?: Store;
  store: Collection;
  cleanCaches(): Promise<void>;
  storeConnected?(): Promise<void> | void;
}

export function StoreMixin(opts: StoreOptions): ServiceSchema {
  return {
    name: "store",
    mixins: [CacheMixin],
    methods: {
      /** The next id of a sequence, shared with every service drawing from it. */
      allocateId(this: StoreSelf, seq: Sequence, type: string): Promise<number> {
        return this.storeHandle!.registry().allocate(seq, type);
      },
      /** Which post type owns an id, undefined when none. */
      typeOfId(this: StoreSelf, id: number): Promise<string | undefined> {
        return this.storeHandle!.registry().typeOf(id);
      },
      idRegistry(this: StoreSelf): Promise<IdRegistry> {
        return Promise.resolve(this.storeHandle!.registry());
      },
      /** Another collection of the same store (the change feed's idempotency keys, say). */
      async storeCollection(this: StoreSelf, name: string, indexes: IndexSpec[] = []): Promise<Collection> {
        await this.storeHandle!.ensureIndexes(name, indexes);
        return this.storeHandle!.collection(name, indexes);
      }
    },
    async started(this: StoreSelf) {
      let store: Store;
      try {
        store = await acquireStore({ ...storeConfig(), onNotice: (msg: string) => this.logger.info(msg) });
        await store.ensureIndexes(opts.collection, opts.indexes);
      } catch (err) {
        this.broker.fatal(`${this.name}: ${(err as Error).message}`, err as Error, true);
        throw err;
      }
      this.storeHandle = store;
      this.store = cleaningWrites(store.collection(opts.collection, opts.indexes), () => this.cleanCaches());
      await this.storeConnected?.();
    },
    async stopped(this: StoreSelf) {
      if (this.storeHandle) await releaseStore(storeConfig());
      this.storeHandle = undefined;
    }
  } as unknown as ServiceSchema;
}
