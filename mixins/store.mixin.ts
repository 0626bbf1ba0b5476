/**
 * The store mixin: moleculer-db on the embedded NeDB adapter (one file per collection under DATA_DIR,
 * nothing on disk for `:memory:`) or on MongoDB when MONGO_URI is set (with a start-up deadline and a
 * clear message). It gives the service `this.store` (lib-level query API over either backend), integer
 * ids from the store's own counters, and the declared indexes, created on connect.
 */
import * as fs from "fs";
import * as path from "path";
import type { ServiceSchema } from "moleculer";
import DbService from "moleculer-db";
import MongoAdapter from "moleculer-db-adapter-mongo";
import { settings } from "../lib/settings";
import { Collection, mongoCollection, nedbCollection } from "./store/collection";
import { embeddedRegistry, IdRegistry, mongoRegistry, Sequence } from "./store/id-registry";
import { CacheMixin } from "./cache.mixin";
import "./store/append-handles";
import "./store/fast-load";
import { checkDataFile } from "./store/recovery";
import { FREEZE_STORED, observeDatastore, WriteObserver } from "./store/write-observer";

export interface IndexSpec {
  field: string;
  unique?: boolean;
  sparse?: boolean;
  /** false: only MongoDB needs it (on the embedded store an index of the service's own answers those queries). */
  embedded?: boolean;
}

export interface StoreOptions {
  collection: string;
  /** Every field a lookup or list filter uses. */
  indexes: IndexSpec[];
}

// moleculer-db's typings do not fit `mixins` under strict mode: cast once, here.
const DbMixin = DbService as unknown as ServiceSchema;
const MemoryAdapter = (DbService as any).MemoryAdapter;

/** moleculer-db's generic actions would store anything a caller sends: every service writes its own. */
const DISABLED_ACTIONS = Object.fromEntries(["find", "count", "list", "create", "insert", "get", "update", "remove"].map(a => [a, false]));

function adapterFor(collection: string, warn: (msg: string) => void): unknown {
  const s = settings();
  if (s.mongoUri) return new MongoAdapter(s.mongoUri, { useUnifiedTopology: true, serverSelectionTimeoutMS: 5000 });
  if (s.dataDir === ":memory:") return new MemoryAdapter({ inMemoryOnly: true });
  fs.mkdirSync(s.dataDir, { recursive: true });
  // A line torn by a crash is moved aside (reported); any other damage stops the start-up (store/recovery.ts).
  const filename = path.join(s.dataDir, `${collection}.db`);
  checkDataFile(filename, warn, { lastLineFirst: true });
  // corruptAlertThreshold 0: a data file with corrupt lines stops the start-up instead of being trimmed (C27).
  return new MemoryAdapter({ filename, corruptAlertThreshold: 0 });
}

/** What the whole check of a data file finds wrong with it, if anything. */
function damageOf(filename: string): string | undefined {
  try {
    checkDataFile(filename);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
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
    updateOne: after(col.updateOne),
    updateMany: after(col.updateMany),
    removeMany: after(col.removeMany)
  };
}

export function StoreMixin(opts: StoreOptions): ServiceSchema {
  return {
    name: "store",
    mixins: [DbMixin, CacheMixin],
    collection: opts.collection,
    settings: { idField: "_id" },
    actions: DISABLED_ACTIONS as any,
    methods: {
      /** moleculer-db retries forever; give MongoDB a deadline and say clearly what failed. */
      connect(this: any) {
        this.connectStartedAt ??= Date.now();
        const embedded = !settings().mongoUri;
        return this.adapter.connect().then(async () => {
          // Embedded store: open the shared id registry now, so a damaged ids.db stops the start-up as well.
          if (embedded) await this.idRegistry();
          return this.schema.afterConnected?.call(this);
        }, (err: Error) => {
          const s = settings();
          if (s.mongoUri && Date.now() - this.connectStartedAt > s.mongoConnectTimeout) {
            this.broker.fatal(`MongoDB at ${s.mongoUri.replace(/\/\/[^@]*@/, "//***@")} could not be reached within ${s.mongoConnectTimeout} ms: ${err.message}`, err, true);
          }
          throw err;
        }).catch((err: Error) => {
          // A file that cannot be loaded will not load on a retry either: stop with the reason (which lines
          // are damaged, when that is it), do not retry forever.
          if (embedded) {
            const reason = damageOf(path.join(settings().dataDir, `${opts.collection}.db`)) ?? err.message;
            this.broker.fatal(`The embedded store under ${settings().dataDir} could not be opened (${this.name}): ${reason}`, err, true);
          }
          throw err;
        });
      },
      /** The next id of a sequence, shared with every service drawing from it. */
      allocateId(this: any, seq: Sequence, type: string): Promise<number> {
        return (this.idRegistry() as Promise<IdRegistry>).then(reg => reg.allocate(seq, type));
      },
      /** Which post type owns an id (D2), undefined when none. */
      typeOfId(this: any, id: number): Promise<string | undefined> {
        return (this.idRegistry() as Promise<IdRegistry>).then(reg => reg.typeOf(id));
      },
      /**
       * Follows every change of the embedded store (this process owns it); false on MongoDB, where
       * other processes write the same collection and only the database sees every change.
       */
      observeWrites(this: any, observer: WriteObserver): boolean {
        if (settings().mongoUri) return false;
        observeDatastore(this.adapter.db, observer);
        return true;
      },
      idRegistry(this: any): Promise<IdRegistry> {
        const s = settings();
        return s.mongoUri ? Promise.resolve(mongoRegistry(this.adapter.db)) : embeddedRegistry(s.dataDir, (msg: string) => this.logger.warn(msg));
      }
    },
    created(this: any) {
      // Chosen when the service is created (not at import), so tests and processes pick their own store.
      this.adapter = adapterFor(opts.collection, (msg: string) => this.logger.warn(msg));
      this.adapter.init(this.broker, this);
    },
    async afterConnected(this: any) {
      const embedded = !settings().mongoUri;
      // Stored documents are frozen before anything reads them without a copy (Collection.findByIds).
      if (embedded) observeDatastore(this.adapter.db, FREEZE_STORED);
      const raw: Collection = embedded ? nedbCollection(this.adapter.db) : mongoCollection(this.adapter.collection);
      const store = cleaningWrites(raw, () => this.cleanCaches());
      this.store = store;
      for (const index of opts.indexes) if (!embedded || index.embedded !== false) await store.ensureIndex(index.field, index);
      // The service's own start-up work on its store (e.g. the events list index).
      await this.storeConnected?.();
    }
  } as ServiceSchema;
}
