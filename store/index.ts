/**
 * The store layer's front door: which backend the settings choose (C31: store selection; C38: store misconfiguration) — SQLite under DATA_DIR by
 * default, PostgreSQL for DATABASE_URL, MongoDB for MONGO_URI — opened once per process and shared by
 * every service in it (one SQLite connection per database file, one PostgreSQL pool), its schema
 * migrated at open. Services reach their records through `collection(name)` and their ids through
 * `registry()`, both for one site.
 */
import * as fs from "fs";
import * as path from "path";
import { FEED_COLLECTION } from "./collection";
import { openPostgres, openSqlite, SqlDriver } from "./sql/driver";
import { sqlCollection, indexStatements, storeTotals, type TableOptions } from "./sql/collection";
import { columnName, FOLDED_COLUMNS, foldedName, FTS_TABLES, ID_WINDOW_ORDER, LINK_FIELDS, LINK_TABLE, LIST_COLUMNS, PAIRED_LINKS, migrate, MIGRATION_LOCK, RECORD_TABLES, recordTable, refreshStatistics, windowIndexName, idWindowIndexName } from "./sql/schema";
import { sqlRegistry } from "./sql/registry";
import { sqlRenderings } from "./sql/renderings";
import { recountStatements } from "./sql/term-counts";
import { pgSequences } from "./sql/sequences";
import { MARKED } from "./sql/write-marks";
import { hasNedbData, importNedb } from "./sql/nedb-import";
import { caseFoldNotice, textOrderNotice } from "./sql/text-order";
import { openMongo, MongoStore } from "./mongo/store";
import { sqlSites } from "./sites";
import type { IndexSpec, Store, StoreKind } from "./store";

export type { IndexSpec, Store } from "./store";

export interface StoreConfig {
  dataDir: string;
  databaseUrl?: string;
  mongoUri?: string;
  /** How long the first connection may take before start-up gives up (ms). */
  connectTimeoutMs: number;
  /** PostgreSQL: the most connections this process opens for queries (DATABASE_POOL_MAX; default 10). */
  poolMax?: number;
  /**
   * PostgreSQL: the most connections this process opens for lookups by key, which keep one plan per
   * statement (DATABASE_LOOKUP_POOL_MAX; the service's default half of DATABASE_POOL_MAX; unset or 0 here:
   * they share the queries' connections).
   */
  lookupMax?: number;
  /** SQLite: the most megabytes of the database's pages the connection keeps in memory (SQLITE_CACHE_MB). */
  sqliteCacheMb?: number;
  /**
   * PostgreSQL: a pool of connections of its own under this name (its `poolMax` connections), so what a
   * service runs never queues behind the other services' statements (the webhooks' deliveries behind record
   * writes, WEBHOOK_DATABASE_POOL_MAX). The same database; SQLite and MongoDB ignore it (one store per process).
   */
  pool?: string;
  /** Told what the opening did or found worth knowing: an import (`info`), a database that orders text unlike the others (`warn`). */
  onNotice?: (message: string, level?: "info" | "warn") => void;
}

export const DEFAULT_SITE = 1;

/** The SQLite file of a DATA_DIR. */
export function sqliteFile(dataDir: string): string {
  return dataDir === ":memory:" ? ":memory:" : path.join(dataDir, "calendar.sqlite3");
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//***@");
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

async function openSql(config: StoreConfig): Promise<{ driver: SqlDriver; kind: StoreKind; location: string }> {
  if (config.databaseUrl) {
    const location = redact(config.databaseUrl);
    const deadline = Date.now() + config.connectTimeoutMs;
    for (;;) {
      // a named pool leaves the database's upkeep (store/sql/upkeep.ts) to the process's main one
      const driver = openPostgres(config.databaseUrl, { max: config.poolMax, lookupMax: config.pool ? 0 : config.lookupMax, connectTimeoutMs: Math.min(5000, config.connectTimeoutMs), upkeep: !config.pool });
      try {
        await migrate(driver, Infinity, () => config.onNotice?.(`PostgreSQL at ${location}: another node holds the schema lock (a migration or an index build); waiting for it`));
        await refreshStatistics(driver);
        for (const notice of [await textOrderNotice(driver, location), await caseFoldNotice(driver, location)]) if (notice) config.onNotice?.(notice, "warn");
        return { driver, kind: "postgres", location };
      } catch (err) {
        await driver.close().catch(() => undefined);
        if (Date.now() >= deadline) throw new Error(`PostgreSQL at ${location} could not be reached within ${config.connectTimeoutMs} ms (DATABASE_CONNECT_TIMEOUT): ${(err as Error).message}`);
        await sleep(500);
      }
    }
  }
  const file = sqliteFile(config.dataDir);
  if (file !== ":memory:") fs.mkdirSync(config.dataDir, { recursive: true });
  let driver: SqlDriver;
  try {
    const fresh = file === ":memory:" || !fs.existsSync(file);
    driver = openSqlite(file, { cacheMb: config.sqliteCacheMb });
    await migrate(driver);
    // A DATA_DIR of the NeDB version: its records are imported once, into the new database (C39: migrations and upgrades).
    if (fresh && file !== ":memory:" && hasNedbData(config.dataDir)) {
      const counts = await importNedb(driver, config.dataDir);
      // the imported terms' counts and the imported events' triggers both counted: counted again from the events
      for (const statement of recountStatements("sqlite")) await driver.run(statement);
      config.onNotice?.(`Imported the NeDB data of ${config.dataDir} into ${file}: ${Object.entries(counts).map(([k, n]) => `${k} ${n}`).join(", ")} (the old files are kept as *.db.imported)`);
    }
    await refreshStatistics(driver);
  } catch (err) {
    throw new Error(`The embedded store ${file} could not be opened: ${(err as Error).message} (check it with: sqlite3 ${file} "PRAGMA integrity_check")`);
  }
  return { driver, kind: "sqlite", location: file };
}

function tableName(name: string): string {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`not a collection name: ${name}`);
  return name;
}

/** A record table's typed columns and their covering index (store/sql/schema.ts LIST_COLUMNS), if it has them. */
function listColumnsOf(name: string): Pick<TableOptions, "columns" | "columnsIndex" | "idColumnsIndex" | "idColumnsOrder"> {
  if (!Object.hasOwn(LIST_COLUMNS, name)) return {};
  const held = [...LIST_COLUMNS[name], ...(Object.hasOwn(ID_WINDOW_ORDER, name) ? ID_WINDOW_ORDER[name] : [])];
  return {
    columns: new Map(LIST_COLUMNS[name].map(c => [c.field, { column: columnName(c.field), kind: c.kind }])),
    columnsIndex: windowIndexName(name),
    idColumnsIndex: idWindowIndexName(name),
    // a text column orders as its field does (NULL where the field is absent or not text)
    idColumnsOrder: new Map(held.filter(c => c.kind === "text").map(c => [c.field, columnName(c.field)]))
  };
}

function sqlStore(driver: SqlDriver, kind: StoreKind, location: string): Store {
  const sequences = driver.dialect === "postgres" ? pgSequences(driver) : undefined;
  // A link field (store/sql/schema.ts) is an array field whatever the caller lists; the link table answers it.
  const linksOf = (name: string) => new Set(Object.hasOwn(LINK_FIELDS, name) ? LINK_FIELDS[name] : []);
  const arraysOf = (name: string, indexes: readonly IndexSpec[]) => new Set([...indexes.filter(i => i.array).map(i => i.field), ...linksOf(name)]);
  // The indexes this process has made (or is making), by collection and index list: each is made once per
  // process, so a service opening a collection another service of the process has opened takes no lock.
  const made = new Map<string, Promise<void>>();
  const totals = storeTotals();
  return {
    kind,
    location,
    sql: driver,
    withLock: (key, fn) => driver.withLock(key, fn),
    renderings: sqlRenderings(driver),
    sites: sqlSites(driver),
    collection(name, indexes, site = DEFAULT_SITE) {
      const links = linksOf(name);
      return sqlCollection(driver, { table: tableName(name), site, arrays: arraysOf(name, indexes), textId: RECORD_TABLES[name]?.textId, feedTable: FEED_COLLECTION, sequences,
        fts: driver.dialect === "sqlite" && FTS_TABLES[name] ? { ...FTS_TABLES[name], site } : undefined,
        folded: driver.dialect === "postgres" && FOLDED_COLUMNS[name] ? new Map(FOLDED_COLUMNS[name].map(f => [f, foldedName(f)])) : undefined,
        links: links.size ? { table: LINK_TABLE, type: name, fields: links, site, pairs: PAIRED_LINKS.includes(name) } : undefined,
        orders: indexes.filter(i => i.then).map(i => [i.field, ...i.then!, "_id"]),
        indexed: new Set(indexes.filter(i => !i.unique && !i.sparse && !i.array && !i.thenById && !i.unlessStatus && !i.then).map(i => i.field)),
        marks: Object.hasOwn(MARKED, name) ? name : undefined, totals,
        ...listColumnsOf(name) });
    },
    ensureIndexes(name, indexes) {
      const key = `${name} ${JSON.stringify(indexes)}`;
      let making = made.get(key);
      if (!making) {
        making = makeIndexes(name, indexes);
        made.set(key, making);
        // a failed attempt is not kept: the next opening tries again
        making.catch(() => made.delete(key));
      }
      return making;
    },
    registry: (site = DEFAULT_SITE) => sqlRegistry(driver, site, sequences)
  };

  function makeIndexes(name: string, indexes: readonly IndexSpec[]): Promise<void> {
    // Under the store-wide lock, as migrations are: PostgreSQL's `IF NOT EXISTS` does not hold between
    // nodes creating the same table or index at once (one of them fails on the catalog's unique key).
    // The services of one process take turns for it (store/lock-turns.ts), so a process waits on that
    // lock with one connection.
    // An index new to a large table takes as long as it takes: neither the wait nor the build has a deadline.
    return driver.withLock(MIGRATION_LOCK, () => driver.transaction(async tx => {
      // A collection the schema does not list (a test's own) gets a table of the same shape.
      if (!RECORD_TABLES[name]) await tx.run(recordTable(driver, tableName(name), {}));
      // Link fields are answered from the link table (store/sql/schema.ts), not from an index of the document.
      const links = linksOf(name);
      for (const index of indexes) {
        if (index.array && links.has(index.field)) continue;
        for (const statement of indexStatements(driver, tableName(name), index.field, index)) await tx.run(statement);
      }
    }, { unbounded: true }), { unbounded: true });
  }
}

interface Opened {
  store: Promise<Store>;
  users: number;
  close(): Promise<void>;
}

const opened = new Map<string, Opened>();

function keyOf(config: StoreConfig): string {
  return config.mongoUri ? `mongo:${config.mongoUri}` : config.databaseUrl ? `pg:${config.databaseUrl}${config.pool ? `#${config.pool}` : ""}` : `sqlite:${sqliteFile(config.dataDir)}`;
}

/** The process's store for `config`, opened (and migrated) by its first user. Pair with releaseStore. */
export function acquireStore(config: StoreConfig): Promise<Store> {
  const key = keyOf(config);
  let entry = opened.get(key);
  if (!entry) {
    let closeIt: () => Promise<void> = async () => undefined;
    const store = (async (): Promise<Store> => {
      if (config.mongoUri) {
        const mongo: MongoStore = await openMongo(config.mongoUri, config.connectTimeoutMs);
        closeIt = () => mongo.close();
        return mongo;
      }
      const { driver, kind, location } = await openSql(config);
      closeIt = () => driver.close();
      return sqlStore(driver, kind, location);
    })();
    entry = { store, users: 0, close: () => closeIt() };
    opened.set(key, entry);
    store.catch(() => opened.delete(key));
  }
  entry.users++;
  return entry.store;
}

/** One user of the store is done with it; the last one closes it. */
export async function releaseStore(config: StoreConfig): Promise<void> {
  const key = keyOf(config);
  const entry = opened.get(key);
  if (!entry) return;
  if (--entry.users > 0) return;
  opened.delete(key);
  await entry.store.catch(() => undefined);
  await entry.close();
}
