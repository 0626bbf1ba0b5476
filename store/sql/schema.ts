/**
 * The SQL schema, as numbered migrations. Each runs once, in order, under the store-wide lock (many
 * nodes may start at once) and is recorded in `schema_migrations`; a database written by an older
 * version is upgraded in place at start. Every record table is keyed by `(site, id)`: a site is one
 * calendar, and its records, ids, keys and feed never mix with another's.
 */
import type { SqlDriver } from "./driver";

/** The record tables (one per collection of the services), each `(site, id, doc)`. */
export const RECORD_TABLES: Record<string, { textId?: boolean }> = {
  events: {},
  venues: {},
  organizers: {},
  terms: {},
  translations: { textId: true },
  changes: {},
  venue_locations: {},
  idempotency_keys: { textId: true }
};

export const MIGRATION_LOCK = 72_410_001;

export interface Migration {
  version: number;
  name: string;
  up(driver: SqlDriver): string[];
}

const json = (d: SqlDriver) => (d.dialect === "sqlite" ? "BLOB" : "JSONB");
const bigint = (d: SqlDriver) => (d.dialect === "sqlite" ? "INTEGER" : "BIGINT");
const text = (d: SqlDriver) => (d.dialect === "sqlite" ? "TEXT" : 'TEXT COLLATE "C"');

/** The statement making a record table: the record as a JSON document, keyed by its site and id. */
export function recordTable(d: SqlDriver, table: string, o: { textId?: boolean }): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (site INTEGER NOT NULL, id ${o.textId ? text(d) : bigint(d)} NOT NULL, doc ${json(d)} NOT NULL, PRIMARY KEY (site, id))`;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "record tables, id sequences, post types and images",
    up: d => [
      // fold(): the case- and accent-insensitive form literal patterns compare (SQLite: a function of the connection).
      ...(d.dialect === "postgres"
        ? [
            "CREATE EXTENSION IF NOT EXISTS unaccent",
            "CREATE OR REPLACE FUNCTION fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fold$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, t)) $fold$"
          ]
        : []),
      ...Object.entries(RECORD_TABLES).map(([table, o]) => recordTable(d, table, o)),
      `CREATE TABLE IF NOT EXISTS sequences (site INTEGER NOT NULL, name ${text(d)} NOT NULL, value ${bigint(d)} NOT NULL, PRIMARY KEY (site, name))`,
      `CREATE TABLE IF NOT EXISTS post_types (site INTEGER NOT NULL, id ${bigint(d)} NOT NULL, type ${text(d)} NOT NULL, url ${text(d)}, extension ${text(d)}, PRIMARY KEY (site, id))`,
      "CREATE UNIQUE INDEX IF NOT EXISTS ix_post_types_url ON post_types (site, url)"
    ]
  },
  {
    version: 2,
    name: "sites and their API keys",
    up: d => [
      `CREATE TABLE IF NOT EXISTS sites (id ${bigint(d)} PRIMARY KEY, host ${text(d)} NOT NULL, doc ${json(d)} NOT NULL)`,
      "CREATE UNIQUE INDEX IF NOT EXISTS ix_sites_host ON sites (host)",
      `CREATE TABLE IF NOT EXISTS api_keys (site INTEGER NOT NULL, id ${bigint(d)} NOT NULL, hash ${text(d)} NOT NULL, role ${text(d)} NOT NULL, user_id ${bigint(d)} NOT NULL, PRIMARY KEY (site, id))`,
      "CREATE UNIQUE INDEX IF NOT EXISTS ix_api_keys_hash ON api_keys (hash)"
    ]
  }
];

export async function appliedVersions(driver: SqlDriver): Promise<number[]> {
  await driver.run(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name ${text(driver)} NOT NULL, applied_at ${text(driver)} NOT NULL)`);
  return (await driver.all<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version")).map(r => Number(r.version));
}

/** Brings the schema up to `upTo` (all migrations by default); answers the versions it applied. */
export async function migrate(driver: SqlDriver, upTo = Infinity): Promise<number[]> {
  return driver.withLock(MIGRATION_LOCK, async () => {
    const done = new Set(await appliedVersions(driver));
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (m.version > upTo || done.has(m.version)) continue;
      await driver.transaction(async tx => {
        // Another node may have applied it since (SQLite has no lock outside a transaction).
        if ((await tx.all("SELECT version FROM schema_migrations WHERE version = ?", [m.version])).length) return;
        for (const statement of m.up(driver)) await tx.run(statement);
        await tx.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", [m.version, m.name, new Date().toISOString()]);
      });
      applied.push(m.version);
    }
    return applied;
  });
}
