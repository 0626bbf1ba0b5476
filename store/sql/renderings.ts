/**
 * The stored renderings on the SQL stores (store/renderings.ts): the `renderings` table, the triggers that
 * remove a record's renderings in the transaction of every write of it (and a site's, with a mark moved
 * on, when its custom field definitions change), and the statements that keep and read them.
 *
 * Keeping one is guarded by the store, not by the caller: the rendering is stored only where its record's
 * row still holds the document it was made from (PostgreSQL locks that row while it compares, so a write
 * not yet committed is waited for and then seen) and the site's mark still reads what it read before the
 * definitions were asked. A write after the comparison removes it again with its triggers.
 * (No question mark in the trigger texts: the driver numbers each `?` as a parameter.)
 */
import type { Doc } from "../collection";
import type { ComposedAnswer, Rendering, RenderedKind, Renderings, Stitched, StoredRendering } from "../renderings";
import type { Dialect, SqlDriver } from "./driver";

export const RENDERINGS = "renderings";
const MARKS = "rendering_marks";
/** When each site's variant was last read or kept (ms since the epoch), for forgetUnread. */
const VARIANTS = "rendering_variants";
/**
 * How long a process goes before noting again that it read a variant: a read notes it only when this long
 * has passed since its last note, so a variant in use is never more than this old in the table.
 */
export const SEEN_NOTED_EVERY_MS = 6 * 3_600_000;
export const RENDERED_TABLES: readonly RenderedKind[] = ["events", "venues", "organizers", "terms"];
/** What changes every rendering of a site: its custom field definitions. */
const SITE_WIDE = "field_definitions";

function sqliteTriggers(): string[] {
  const forget = (t: string) => `DELETE FROM ${RENDERINGS} WHERE site = old.site AND kind = '${t}' AND id = old.id;`;
  const site = (r: string) => `DELETE FROM ${RENDERINGS} WHERE site = ${r}.site; INSERT INTO ${MARKS} (site, n) VALUES (${r}.site, 1) ON CONFLICT (site) DO UPDATE SET n = ${MARKS}.n + 1;`;
  return [
    ...RENDERED_TABLES.flatMap(t => [
      `CREATE TRIGGER IF NOT EXISTS ${t}_renderings_au AFTER UPDATE ON ${t} BEGIN ${forget(t)} END`,
      `CREATE TRIGGER IF NOT EXISTS ${t}_renderings_ad AFTER DELETE ON ${t} BEGIN ${forget(t)} END`
    ]),
    `CREATE TRIGGER IF NOT EXISTS ${SITE_WIDE}_renderings_ai AFTER INSERT ON ${SITE_WIDE} BEGIN ${site("new")} END`,
    `CREATE TRIGGER IF NOT EXISTS ${SITE_WIDE}_renderings_au AFTER UPDATE ON ${SITE_WIDE} BEGIN ${site("old")} ${site("new")} END`,
    `CREATE TRIGGER IF NOT EXISTS ${SITE_WIDE}_renderings_ad AFTER DELETE ON ${SITE_WIDE} BEGIN ${site("old")} END`
  ];
}

function postgresTriggers(): string[] {
  const site = (r: string) => `DELETE FROM ${RENDERINGS} WHERE site = ${r}.site; INSERT INTO ${MARKS} (site, n) VALUES (${r}.site, 1) ON CONFLICT (site) DO UPDATE SET n = ${MARKS}.n + 1;`;
  return [
    `CREATE OR REPLACE FUNCTION renderings_forget() RETURNS trigger LANGUAGE plpgsql AS $rf$ BEGIN
    DELETE FROM ${RENDERINGS} WHERE site = OLD.site AND kind = TG_TABLE_NAME::text AND id = OLD.id;
    RETURN NULL;
    END $rf$`,
    ...RENDERED_TABLES.flatMap(t => [
      `DROP TRIGGER IF EXISTS ${t}_renderings ON ${t}`,
      `CREATE TRIGGER ${t}_renderings AFTER UPDATE OR DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION renderings_forget()`
    ]),
    `CREATE OR REPLACE FUNCTION renderings_site() RETURNS trigger LANGUAGE plpgsql AS $rs$ BEGIN
    IF TG_OP <> 'INSERT' THEN ${site("OLD")} END IF;
    IF TG_OP <> 'DELETE' THEN ${site("NEW")} END IF;
    RETURN NULL;
    END $rs$`,
    `DROP TRIGGER IF EXISTS ${SITE_WIDE}_renderings ON ${SITE_WIDE}`,
    `CREATE TRIGGER ${SITE_WIDE}_renderings AFTER INSERT OR UPDATE OR DELETE ON ${SITE_WIDE} FOR EACH ROW EXECUTE FUNCTION renderings_site()`
  ];
}

/** The column types the renderings tables share: keys compared byte for byte, ids and times as 64-bit integers. */
function columnTypes(dialect: Dialect): { text: string; bigint: string } {
  return dialect === "sqlite" ? { text: "TEXT", bigint: "INTEGER" } : { text: 'TEXT COLLATE "C"', bigint: "BIGINT" };
}

/**
 * The migration's statements: the tables and the triggers. SQLite's table keeps its rows by rowid, not by
 * its key: in a key-ordered table a row too large for its page (an answer of a few kilobytes) is read whole,
 * overflow pages included, at every comparison of a lookup, which made one lookup cost several plain ones.
 */
export function renderingStatements(dialect: Dialect): string[] {
  const { text, bigint } = columnTypes(dialect);
  return [
    `CREATE TABLE IF NOT EXISTS ${RENDERINGS} (site INTEGER NOT NULL, kind ${text} NOT NULL, id ${bigint} NOT NULL, variant ${text} NOT NULL, ` +
      `body TEXT NOT NULL, refs TEXT, PRIMARY KEY (site, kind, id, variant))`,
    `CREATE TABLE IF NOT EXISTS ${MARKS} (site INTEGER NOT NULL PRIMARY KEY, n ${bigint} NOT NULL)`,
    ...(dialect === "sqlite" ? sqliteTriggers() : postgresTriggers())
  ];
}

/**
 * Each rendering numbered by its keep (`ver`: SQLite's rowid, never reused; a PostgreSQL identity), and a
 * record's answer composed from its renderings kept on its own row with the numbers of those it was
 * composed from (`answer_vers`), its `modified_utc` and the hash its ETags are made of. SQLite's table is
 * made again for its rowid (its renderings dropped: each is kept again by the read that next makes it).
 */
export function renderingAnswerStatements(dialect: Dialect): string[] {
  if (dialect === "postgres") {
    return [`ALTER TABLE ${RENDERINGS} ADD COLUMN IF NOT EXISTS ver BIGINT GENERATED ALWAYS AS IDENTITY, ADD COLUMN IF NOT EXISTS answer TEXT, ` +
      "ADD COLUMN IF NOT EXISTS answer_vers TEXT, ADD COLUMN IF NOT EXISTS answer_modified TEXT, ADD COLUMN IF NOT EXISTS answer_tag TEXT"];
  }
  return [
    `DROP TABLE IF EXISTS ${RENDERINGS}`,
    `CREATE TABLE ${RENDERINGS} (ver INTEGER PRIMARY KEY AUTOINCREMENT, site INTEGER NOT NULL, kind TEXT NOT NULL, id INTEGER NOT NULL, variant TEXT NOT NULL, ` +
      "body TEXT NOT NULL, refs TEXT, answer TEXT, answer_vers TEXT, answer_modified TEXT, answer_tag TEXT, UNIQUE (site, kind, id, variant))"
  ];
}

/** A record's answer without its JSON-LD composed beside the whole one (the lists' answer by default). */
export function renderingPlainAnswerStatements(): string[] {
  return [`ALTER TABLE ${RENDERINGS} ADD COLUMN answer_plain TEXT`, `ALTER TABLE ${RENDERINGS} ADD COLUMN answer_plain_tag TEXT`];
}

/** The table of the variants' last reads, with a row for each variant already kept (taken as read now). */
export function renderingVariantStatements(dialect: Dialect): string[] {
  const { text, bigint } = columnTypes(dialect);
  const now = dialect === "sqlite" ? "CAST(unixepoch('subsec') * 1000 AS INTEGER)" : "(extract(epoch FROM now()) * 1000)::bigint";
  return [
    `CREATE TABLE IF NOT EXISTS ${VARIANTS} (site INTEGER NOT NULL, variant ${text} NOT NULL, seen ${bigint} NOT NULL, PRIMARY KEY (site, variant))`,
    `INSERT INTO ${VARIANTS} (site, variant, seen) SELECT DISTINCT site, variant, ${now} FROM ${RENDERINGS} WHERE true ON CONFLICT (site, variant) DO NOTHING`
  ];
}

/** SQLite's table made again by rowid (its renderings are dropped: each is kept again by the read that next makes it). */
export function renderingsByRowid(dialect: Dialect): string[] {
  return dialect === "sqlite" ? [`DROP TABLE IF EXISTS ${RENDERINGS}`, ...renderingStatements(dialect)] : [];
}

/** A stored document's JSON as the collections write it (store/sql/collection.ts), to compare with the row's. */
function docBody(doc: Doc): string {
  const { _id, ...rest } = doc;
  return JSON.stringify(rest);
}

interface Row { asked: number | string; kind: RenderedKind; id: number | string; body: string; refs: string | null; ver: number | string }

export function sqlRenderings(driver: SqlDriver): Renderings {
  const sqlite = driver.dialect === "sqlite";
  // the reads below name their rows by key: their plans do not depend on the ids asked
  const lookups = driver.lookups ?? driver;
  const lock = sqlite ? "" : " FOR SHARE";
  // SQLite compares the document's text (two binary forms of one document may differ: an edit in place
  // keeps its element sizes); PostgreSQL's jsonb compares by value
  const sameDoc = sqlite ? "json(doc) = ?" : "doc = ?::jsonb";
  const keepStatement = (kind: RenderedKind) => {
    if (!RENDERED_TABLES.includes(kind)) throw new Error(`not a rendered kind: ${kind}`);
    return `INSERT INTO ${RENDERINGS} (site, kind, id, variant, body, refs) SELECT ?, ?, ?, ?, ?, ? ` +
      `WHERE EXISTS (SELECT 1 FROM ${kind} WHERE site = ? AND id = ? AND ${sameDoc}${lock}) ` +
      `AND COALESCE((SELECT n FROM ${MARKS} WHERE site = ?${lock}), 0) = ? ON CONFLICT (site, kind, id, variant) DO NOTHING`;
  };
  // the records each asked one refers to, each once however many of the page's records refer to it
  const referred = sqlite
    ? `SELECT DISTINCT json_extract(j.value, '$[0]') AS k, json_extract(j.value, '$[1]') AS i FROM ${RENDERINGS} AS e CROSS JOIN json_each(e.refs) AS j`
    : `SELECT DISTINCT j.v ->> 0 AS k, (j.v ->> 1)::bigint AS i FROM ${RENDERINGS} AS e, LATERAL jsonb_array_elements(e.refs::jsonb) AS j(v)`;
  // one record by its key, or a page of them named by one JSON array of ids (one statement either way);
  // CROSS JOIN: SQLite joins in the order written, each referred rendering looked up by its key
  const stitchedSql = (page: boolean) => {
    const own = page ? `e.id IN (${sqlite ? "SELECT value FROM json_each(?)" : "SELECT jsonb_array_elements_text(?::jsonb)::bigint"})` : "e.id = ?";
    const asked = `e.site = ? AND e.kind = ? AND e.variant = ? AND ${own}`;
    return `SELECT 1 AS asked, e.kind, e.id, e.body, e.refs, e.ver FROM ${RENDERINGS} AS e WHERE ${asked} ` +
      `UNION ALL SELECT 0, r.kind, r.id, r.body, NULL, r.ver FROM (${referred} WHERE ${asked}) AS w ${sqlite ? "CROSS JOIN" : ","} ${RENDERINGS} AS r ` +
      "WHERE r.site = ? AND r.kind = w.k AND r.id = w.i AND r.variant = ?";
  };
  const [oneSql, pageSql] = [stitchedSql(false), stitchedSql(true)];
  // the numbers of the renderings a record refers to as they are now, in its `refs` order, beside its composed answer
  const versNow = sqlite
    ? `SELECT group_concat(r.ver, ',' ORDER BY j.key) FROM json_each(e.refs) AS j CROSS JOIN ${RENDERINGS} AS r ` +
      "WHERE r.site = e.site AND r.kind = json_extract(j.value, '$[0]') AND r.id = json_extract(j.value, '$[1]') AND r.variant = e.variant"
    : `SELECT string_agg(r.ver::text, ',' ORDER BY j.n) FROM jsonb_array_elements(e.refs::jsonb) WITH ORDINALITY AS j(v, n) JOIN ${RENDERINGS} AS r ` +
      "ON r.site = e.site AND r.kind = j.v ->> 0 AND r.id = (j.v ->> 1)::bigint AND r.variant = e.variant";
  const composedSql = `SELECT e.answer, e.answer_vers, e.answer_modified, e.answer_tag, (${versNow}) AS vers FROM ${RENDERINGS} AS e ` +
    "WHERE e.site = ? AND e.kind = ? AND e.variant = ? AND e.id = ? AND e.answer IS NOT NULL";
  // a page's composed texts, the ids named by one JSON array
  const composedPageSql = (column: "answer" | "answer_plain") => `SELECT e.id, e.${column} AS text, e.${column}_tag AS tag, e.answer_vers, e.answer_modified, (${versNow}) AS vers ` +
    `FROM ${RENDERINGS} AS e WHERE e.site = ? AND e.kind = ? AND e.variant = ? AND e.id IN (${sqlite ? "SELECT value FROM json_each(?)" : "SELECT jsonb_array_elements_text(?::jsonb)::bigint"}) ` +
    `AND e.${column} IS NOT NULL`;
  const composedPage = { answer: composedPageSql("answer"), answer_plain: composedPageSql("answer_plain") };
  // The rendering read (by its number) unless its answers were composed from these renderings already.
  // PostgreSQL: one compose at a time per row, the others skip it (the readers of a page first read
  // together would each wait for the one before to commit its write of the same texts).
  const composable = `site = ? AND kind = ? AND id = ? AND variant = ? AND ver = ? AND (answer IS NULL OR answer_vers ${sqlite ? "IS NOT" : "IS DISTINCT FROM"} ?)`;
  const composeSql = `UPDATE ${RENDERINGS} SET answer = ?, answer_tag = ?, answer_plain = ?, answer_plain_tag = ?, answer_vers = ?, answer_modified = ? ` +
    (sqlite ? `WHERE ${composable}` : `WHERE site = ? AND kind = ? AND id = ? AND variant = ? AND ver = (SELECT ver FROM ${RENDERINGS} WHERE ${composable} FOR UPDATE SKIP LOCKED)`);
  /** Whether a composed row's answer was composed from the renderings stored now (their numbers as it kept them). */
  const current = (row: { answer_vers: string | null; vers: string | null }) => (row.answer_vers ?? null) === (row.vers ?? null);
  /** The numbers of the renderings an answer is composed from, as the composed statement reads them. */
  const versOf = (refs: readonly StoredRendering[]) => (refs.length ? refs.map(r => r.ver).join(",") : null);
  // When this process last noted each site's variant as read (a saving of statements only: the table is
  // what forgetUnread reads, and a variant is noted again once SEEN_NOTED_EVERY_MS has passed).
  const noted = new Map<string, number>();
  const noteSeen = async (site: number, variant: string) => {
    const key = `${site} ${variant}`;
    const now = Date.now();
    if (now - (noted.get(key) ?? -Infinity) < SEEN_NOTED_EVERY_MS) return;
    noted.set(key, now);
    // a read answers whether or not its note is written: the note only keeps its renderings from forgetUnread
    await driver.run(`INSERT INTO ${VARIANTS} (site, variant, seen) VALUES (?, ?, ?) ON CONFLICT (site, variant) DO UPDATE SET seen = excluded.seen`, [site, variant, now])
      .catch(() => noted.delete(key));
  };
  const stored = (r: Row): StoredRendering => ({ kind: r.kind, id: Number(r.id), body: r.body, ver: Number(r.ver) });
  /** Each asked record's own rendering with those it refers to that are there, for the records whose own is there. */
  const stitchedMany = async (site: number, variant: string, kind: RenderedKind, asked: readonly number[]) => {
    await noteSeen(site, variant);
    const one = asked.length === 1;
    const named = one ? asked[0] : JSON.stringify(asked);
    const rows = await lookups.all<Row>(one ? oneSql : pageSql, [site, kind, variant, named, site, kind, variant, named, site, variant]);
    const referredRows = new Map(rows.filter(r => Number(r.asked) === 0).map(r => [`${r.kind}:${Number(r.id)}`, r]));
    const found = new Map<number, Stitched>();
    for (const own of rows) {
      if (Number(own.asked) !== 1) continue;
      const wanted = own.refs ? (JSON.parse(own.refs) as Array<[string, number]>) : [];
      const refs = wanted.map(([k, i]) => referredRows.get(`${k}:${i}`)).filter((r): r is Row => r !== undefined);
      found.set(Number(own.id), { own: stored(own), refs: refs.map(stored), complete: refs.length === wanted.length });
    }
    return found;
  };
  return {
    async mark(site) {
      const [row] = await driver.all<{ n: number | string }>(`SELECT n FROM ${MARKS} WHERE site = ?`, [site]);
      if (row) return Number(row.n);
      // a row to lock from now on: a first change of the definitions then waits for a keep comparing with it
      await driver.run(`INSERT INTO ${MARKS} (site, n) VALUES (?, 0) ON CONFLICT (site) DO NOTHING`, [site]);
      const [made] = await driver.all<{ n: number | string }>(`SELECT n FROM ${MARKS} WHERE site = ?`, [site]);
      return Number(made.n);
    },
    async keep(site, variant, mark, renderings: readonly Rendering[]) {
      await noteSeen(site, variant);
      await Promise.all(renderings.map(r => driver.run(keepStatement(r.kind),
        [site, r.kind, r.id, variant, r.body, r.refs ? JSON.stringify(r.refs) : null, site, r.id, docBody(r.doc), site, mark])));
    },
    async stitched(site, variant, kind, id) {
      const found = (await stitchedMany(site, variant, kind, [id])).get(id);
      return found?.complete ? found : undefined;
    },
    stitchedMany,
    async composed(site, variant, kind, id): Promise<ComposedAnswer | undefined> {
      await noteSeen(site, variant);
      const [row] = await lookups.all<{ answer: string; answer_vers: string | null; answer_modified: string | null; answer_tag: string; vers: string | null }>(composedSql, [site, kind, variant, id]);
      if (!row || !current(row)) return undefined;
      return { text: row.answer, modified: row.answer_modified, tag: row.answer_tag };
    },
    async composedMany(site, variant, kind, ids, jsonLd) {
      const found = new Map<number, ComposedAnswer>();
      if (!ids.length) return found;
      await noteSeen(site, variant);
      const rows = await lookups.all<{ id: number | string; text: string; tag: string; answer_vers: string | null; answer_modified: string | null; vers: string | null }>(
        composedPage[jsonLd ? "answer" : "answer_plain"], [site, kind, variant, JSON.stringify(ids)]);
      for (const row of rows) if (current(row)) found.set(Number(row.id), { text: row.text, modified: row.answer_modified, tag: row.tag });
      return found;
    },
    async compose(site, variant, from, answer) {
      if (!from.complete) return;
      const vers = versOf(from.refs);
      const row = [site, from.own.kind, from.own.id, variant];
      await driver.run(composeSql, [answer.text, answer.tag, answer.plain, answer.plainTag, vers, answer.modified, ...(sqlite ? [] : row), ...row, from.own.ver, vers]);
    },
    async forgetUnread(before) {
      noted.clear();
      // a variant with no row (one kept while its row was being removed) counts as unread
      const unread = `NOT EXISTS (SELECT 1 FROM ${VARIANTS} AS v WHERE v.site = ${RENDERINGS}.site AND v.variant = ${RENDERINGS}.variant AND v.seen >= ?)`;
      const removed = await driver.run(`DELETE FROM ${RENDERINGS} WHERE ${unread}`, [before]);
      await driver.run(`DELETE FROM ${VARIANTS} WHERE seen < ?`, [before]);
      return removed;
    }
  };
}
