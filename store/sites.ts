/**
 * Sites and their API keys on SQL (tables of migration 2, store/sql/schema.ts; docs/sites.md). Every
 * change of a site or of its keys moves the `sites` version (a row of `sequences` under site 0) in the
 * same transaction, so a reader on any node that finds the version unchanged knows its copy is current
 * (the gateways' host lookup, C50: deleting a site). Unique hosts and key hashes are constraints of the tables.
 *
 * Readers may go on using a version they read for `leaseMs` (counted from before the read), and every
 * change is answered only after `leaseMs` more: once a change is answered, no reader anywhere still
 * trusts a version older than it. On PostgreSQL a read per request would be one more round trip and
 * transaction for every request; on SQLite it is an in-process read, yet still a share of the CPU of a
 * request answered from the cache worth saving, so it has a short lease too (docs/sites.md).
 */
import type { SqlDriver, SqlRunner } from "./sql/driver";
import { FEATURE_TABLES, RECORD_TABLES } from "./sql/schema";
import { IMPORT_TABLES } from "./sql/import-tables";
import { nextUserId } from "../lib/sites/keys";
import { DEFAULT_SITE_ID as DEFAULT_SITE } from "../lib/sites/scope";
import type { SiteFields } from "../lib/sites/site-input";

export interface SiteRow extends SiteFields {
  id: number;
  /** Being removed (C50: deleting a site): its host answers 404 and stays taken until its records are gone. */
  deleting?: boolean;
}

export interface KeyRow {
  site: number;
  id: number;
  hash: string;
  role: string;
  user_id: number;
}

export interface SiteStore {
  /** How long a reader may use a version it read (from the moment it began the read); every change waits as long before it resolves. */
  readonly leaseMs: number;
  /** Moves on with every change of a site or key. */
  version(): Promise<number>;
  byHost(host: string): Promise<SiteRow | undefined>;
  byId(id: number): Promise<SiteRow | undefined>;
  /** Whether any site other than the default one exists (being deleted included). */
  any(): Promise<boolean>;
  /** A page of the sites that are not being deleted, by id, and how many there are. */
  list(offset: number, limit: number): Promise<{ rows: SiteRow[]; total: number }>;
  /** Ids of the sites that are not being deleted. */
  liveIds(): Promise<number[]>;
  /** Ids of the sites being deleted (their records still to remove). */
  deletingIds(): Promise<number[]>;
  /** A new site with its first key (an administrator of user id 1); a taken host throws UniqueViolation. */
  create(fields: SiteFields, keyHash: string): Promise<{ site: SiteRow; keyId: number }>;
  update(id: number, fields: SiteFields): Promise<SiteRow | undefined>;
  /** Marks a site as being deleted; false when there is no such live site. */
  markDeleting(id: number): Promise<boolean>;
  /** Removes up to `chunk` records of a site being deleted; the site's row goes last. Answers whether it is gone. */
  purgeChunk(id: number, chunk: number): Promise<boolean>;
  addKey(site: number, hash: string, role: string, userId?: number): Promise<KeyRow>;
  /**
   * The deployment's generated administrator key (C40): kept as the default site's key 0 unless one is kept
   * already (one unique row, whichever node is first); answers whether this call kept it, and the kept row.
   */
  keepGeneratedKey(hash: string): Promise<{ made: boolean; row: KeyRow | undefined }>;
  removeKey(site: number, keyId: number): Promise<boolean>;
  keyByHash(hash: string): Promise<KeyRow | undefined>;
  userIds(site: number): Promise<number[]>;
}

/** The id of the generated administrator key among the default site's keys (the platform API's start at 1). */
export const GENERATED_KEY_ID = 0;

/** The tables whose rows belong to a site, besides its record tables. */
/** What a purge removes besides the record tables: the site's own tables, then its services' data. */
const SITE_TABLES = ["post_types", "sequences", "api_keys", ...IMPORT_TABLES];

interface RawSite {
  id: number | string;
  host: string;
  doc: string | Record<string, unknown>;
}

/** The lease of a sites version read over the network (PostgreSQL): a site change takes this much longer to answer. */
export const REMOTE_SITES_LEASE_MS = 250;
/** The lease of a version read in process (SQLite): at most 20 reads a second per process, and a site change 50 ms longer. */
export const LOCAL_SITES_LEASE_MS = 50;

const pause = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

export function sqlSites(driver: SqlDriver): SiteStore {
  const sqlite = driver.dialect === "sqlite";
  const leaseMs = sqlite ? LOCAL_SITES_LEASE_MS : REMOTE_SITES_LEASE_MS;
  /** Runs a change and answers once every lease on the versions before it has run out. */
  const change = async <T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> => {
    const result = await driver.transaction(work);
    if (leaseMs > 0) await pause(leaseMs);
    return result;
  };
  const docCol = sqlite ? "json(doc) AS doc" : "doc";
  const docParam = sqlite ? "jsonb(?)" : "?::jsonb";
  const row = (r: RawSite): SiteRow => {
    const doc = (typeof r.doc === "string" ? JSON.parse(r.doc) : r.doc) as Record<string, unknown>;
    return {
      id: Number(r.id), host: r.host, name: String(doc.name), base_url: String(doc.base_url), timezone: String(doc.timezone),
      geolocation: doc.geolocation === true, ...(doc.deleting ? { deleting: true } : {})
    };
  };
  const body = (f: Omit<SiteRow, "id">) => JSON.stringify({ name: f.name, base_url: f.base_url, timezone: f.timezone, geolocation: f.geolocation, ...(f.deleting ? { deleting: true } : {}) });
  const bump = (tx: SqlRunner) => tx.run("INSERT INTO sequences (site, name, value) VALUES (0, 'sites', 1) ON CONFLICT (site, name) DO UPDATE SET value = sequences.value + 1");
  const nextValue = async (tx: SqlRunner, site: number, name: string, first: number): Promise<number> => {
    const [r] = await tx.all<{ value: number | string }>(
      "INSERT INTO sequences (site, name, value) VALUES (?, ?, ?) ON CONFLICT (site, name) DO UPDATE SET value = sequences.value + 1 RETURNING value", [site, name, first]);
    return Number(r.value);
  };
  const keyRow = (r: { site: number | string; id: number | string; hash: string; role: string; user_id: number | string }): KeyRow =>
    ({ site: Number(r.site), id: Number(r.id), hash: r.hash, role: r.role, user_id: Number(r.user_id) });
  const userIdsIn = async (tx: SqlRunner, site: number) =>
    (await tx.all<{ user_id: number | string }>("SELECT DISTINCT user_id FROM api_keys WHERE site = ? ORDER BY user_id", [site])).map(r => Number(r.user_id));
  // A site being deleted carries `deleting` in its document.
  const live = sqlite ? "json_extract(doc, '$.deleting') IS NULL" : "(doc ->> 'deleting') IS NULL";
  const one = async (tx: SqlRunner, sql: string, params: Array<string | number>) => {
    const [r] = await tx.all<RawSite>(sql, params);
    return r ? row(r) : undefined;
  };

  return {
    leaseMs,
    async version() {
      const [r] = await driver.all<{ value: number | string }>("SELECT value FROM sequences WHERE site = 0 AND name = 'sites'");
      return r ? Number(r.value) : 0;
    },
    byHost: host => one(driver, `SELECT id, host, ${docCol} FROM sites WHERE host = ?`, [host]),
    byId: id => one(driver, `SELECT id, host, ${docCol} FROM sites WHERE id = ?`, [id]),
    async any() {
      return (await driver.all("SELECT id FROM sites LIMIT 1")).length > 0;
    },
    async list(offset, limit) {
      const rows = await driver.all<RawSite>(`SELECT id, host, ${docCol} FROM sites WHERE ${live} ORDER BY id LIMIT ${Math.floor(limit)} OFFSET ${Math.floor(offset)}`);
      const [n] = await driver.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM sites WHERE ${live}`);
      return { rows: rows.map(row), total: Number(n.n) };
    },
    async liveIds() {
      return (await driver.all<{ id: number | string }>(`SELECT id FROM sites WHERE ${live} ORDER BY id`)).map(r => Number(r.id));
    },
    async deletingIds() {
      return (await driver.all<{ id: number | string }>(`SELECT id FROM sites WHERE NOT (${live}) ORDER BY id`)).map(r => Number(r.id));
    },
    create(fields, keyHash) {
      return change(async tx => {
        // Site ids come from a sequence (never reused); the default site is 1.
        const id = await nextValue(tx, 0, "site_ids", 2);
        await tx.run(`INSERT INTO sites (id, host, doc) VALUES (?, ?, ${docParam})`, [id, fields.host, body(fields)]);
        const keyId = await nextValue(tx, id, "api_keys", 1);
        await tx.run("INSERT INTO api_keys (site, id, hash, role, user_id) VALUES (?, ?, ?, 'administrator', 1)", [id, keyId, keyHash]);
        await bump(tx);
        return { site: { id, ...fields }, keyId };
      });
    },
    update(id, fields) {
      return change(async tx => {
        const found = await one(tx, `SELECT id, host, ${docCol} FROM sites WHERE id = ?${sqlite ? "" : " FOR UPDATE"}`, [id]);
        if (!found || found.deleting) return undefined;
        await tx.run(`UPDATE sites SET host = ?, doc = ${docParam} WHERE id = ?`, [fields.host, body(fields), id]);
        await bump(tx);
        return { id, ...fields };
      });
    },
    markDeleting(id) {
      return change(async tx => {
        const found = await one(tx, `SELECT id, host, ${docCol} FROM sites WHERE id = ?${sqlite ? "" : " FOR UPDATE"}`, [id]);
        if (!found || found.deleting) return false;
        await tx.run(`UPDATE sites SET doc = ${docParam} WHERE id = ?`, [body({ ...found, deleting: true }), id]);
        // Its keys go at once: nothing may call the site any more.
        await tx.run("DELETE FROM api_keys WHERE site = ?", [id]);
        await bump(tx);
        return true;
      });
    },
    async purgeChunk(id, chunk) {
      const found = await this.byId(id);
      if (!found) return true;
      if (!found.deleting) throw new Error(`site ${id} is not being deleted`);
      let left = chunk;
      for (const table of [...Object.keys(RECORD_TABLES), ...FEATURE_TABLES, ...SITE_TABLES]) {
        if (left <= 0) return false;
        const key = table === "sequences" ? "name" : "id";
        const removed = await driver.run(`DELETE FROM ${table} WHERE site = ? AND ${key} IN (SELECT ${key} FROM ${table} WHERE site = ? LIMIT ${left})`, [id, id]);
        left -= removed;
      }
      if (left <= 0) return false;
      // PostgreSQL numbers a site by sequence objects of its own (store/sql/sequences.ts): they go too.
      if (!sqlite) {
        const prefix = `seq_${id}_`;
        const seqs = await driver.all<{ relname: string }>("SELECT relname FROM pg_class WHERE relkind = 'S' AND left(relname, length(?)) = ?", [prefix, prefix]);
        for (const { relname } of seqs) if (/^seq_\d+_[a-z0-9_]+$/.test(relname)) await driver.run(`DROP SEQUENCE IF EXISTS ${relname}`);
      }
      await driver.transaction(async tx => {
        await tx.run("DELETE FROM sites WHERE id = ?", [id]);
        await bump(tx);
      });
      return true;
    },
    addKey(site, hash, role, userId) {
      return change(async tx => {
        const user = userId ?? nextUserId(await userIdsIn(tx, site));
        const keyId = await nextValue(tx, site, "api_keys", 1);
        await tx.run("INSERT INTO api_keys (site, id, hash, role, user_id) VALUES (?, ?, ?, ?, ?)", [site, keyId, hash, role, user]);
        await bump(tx);
        return { site, id: keyId, hash, role, user_id: user };
      });
    },
    async keepGeneratedKey(hash) {
      const made = await driver.all<{ id: number }>(
        "INSERT INTO api_keys (site, id, hash, role, user_id) VALUES (?, ?, ?, 'administrator', 1) ON CONFLICT (site, id) DO NOTHING RETURNING id",
        [DEFAULT_SITE, GENERATED_KEY_ID, hash]);
      const [row] = await driver.all<KeyRow>("SELECT site, id, hash, role, user_id FROM api_keys WHERE site = ? AND id = ?", [DEFAULT_SITE, GENERATED_KEY_ID]);
      return { made: made.length > 0, row: row && { site: Number(row.site), id: Number(row.id), hash: String(row.hash), role: String(row.role), user_id: Number(row.user_id) } };
    },
    removeKey(site, keyId) {
      return change(async tx => {
        const n = await tx.run("DELETE FROM api_keys WHERE site = ? AND id = ?", [site, keyId]);
        if (n) await bump(tx);
        return n > 0;
      });
    },
    async keyByHash(hash) {
      const [r] = await driver.all<KeyRow>("SELECT site, id, hash, role, user_id FROM api_keys WHERE hash = ?", [hash]);
      return r ? keyRow(r) : undefined;
    },
    userIds: site => userIdsIn(driver, site)
  };
}

