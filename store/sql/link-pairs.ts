/**
 * Link pairs: for every two link elements some record holds together ("venue 6 and category 15"), how
 * many records hold both. Kept by triggers on the record tables, in the write's own transaction, as the
 * link table is (store/sql/schema.ts `links`), so every writer on any node keeps them.
 *
 * A list filtered by two links or more reads them before any link (store/sql/link-plans.ts): a category
 * and a venue that share no event answer an empty page at once, where reading either one's links would
 * cost in proportion to its size (docs/lists.md#event-filters). A positive count says only that the
 * records linked to both may be listed (it counts every record, whatever its status, dates or trash),
 * and the read goes on as it did.
 *
 * Each pair is kept once, its lesser element first: elements ordered by field name (byte order: SQLite's
 * default, `COLLATE "C"` on PostgreSQL), then by target. A pair's count is the sum of its rows: on
 * PostgreSQL a write moves a row no other transaction holds (`link_pair_move`, as store/sql/write-marks.ts
 * moves a mark), so two writers of events at the same venue and category never wait for each other;
 * SQLite has one writer at a time and one row a pair (shard 0).
 *
 * (No question mark in the trigger texts: the driver numbers each `?` as a parameter.)
 */
import type { Dialect, Param } from "./driver";
import { idsIn, type Compiled } from "./compiled";

export const LINK_PAIRS = "link_pairs";

/** One side of a pair as a query names it: a field and the targets any of which it holds. */
export interface PairSide {
  field: string;
  ids: readonly number[];
}

const KEY = "site, type, a_field, a_target, b_field, b_target, shard";

/** The pairs' table. */
function pairTable(dialect: Dialect): string {
  const text = dialect === "sqlite" ? "TEXT" : "text COLLATE \"C\"";
  return `CREATE TABLE IF NOT EXISTS ${LINK_PAIRS} (site INTEGER NOT NULL, type ${text} NOT NULL, a_field ${text} NOT NULL, a_target BIGINT NOT NULL, ` +
    `b_field ${text} NOT NULL, b_target BIGINT NOT NULL, shard INTEGER NOT NULL, n BIGINT NOT NULL, PRIMARY KEY (${KEY}))${dialect === "sqlite" ? " WITHOUT ROWID" : ""}`;
}

/** SQLite: the link elements of `doc` over `fields`, as rows `(f, t)` (a scalar in place of an array is its one element, as links reads it). */
function sqliteElements(doc: string, fields: readonly string[]): string {
  return fields.map(f => `SELECT '${f}' AS f, j.value AS t FROM json_each(${doc}, '$.${f}') AS j WHERE j.type = 'integer'`).join(" UNION ");
}

/** The lesser element first (field, then target), each pair once. */
const ORDERED = "(a.f < b.f OR (a.f = b.f AND a.t < b.t))";

/**
 * SQLite: the pairs of `doc`'s elements over `fields`, as rows `(fa, ta, fb, tb)`. The elements are read
 * from the document once and joined with themselves: written as two subqueries, the document's every
 * link field was unnested twice for each side of the join, at every write of a record.
 */
export function sqlitePairs(doc: string, fields: readonly string[]): string {
  return `WITH e(f, t) AS MATERIALIZED (${sqliteElements(doc, fields)}) SELECT a.f AS fa, a.t AS ta, b.f AS fb, b.t AS tb FROM e AS a, e AS b WHERE ${ORDERED}`;
}

/** SQLite: every pair of `doc`'s elements moved by `delta` for `site`. */
function sqliteMove(table: string, fields: readonly string[], site: string, doc: string, delta: 1 | -1): string {
  return `INSERT INTO ${LINK_PAIRS} (${KEY}, n) SELECT ${site}, '${table}', p.fa, p.ta, p.fb, p.tb, 0, ${delta} FROM (${sqlitePairs(doc, fields)}) AS p ` +
    `WHERE true ON CONFLICT (${KEY}) DO UPDATE SET n = ${LINK_PAIRS}.n + excluded.n;`;
}

/** SQLite: whether an update changed what the pairs count (a link field, the site or the id). */
export function sqliteChanged(fields: readonly string[]): string {
  return ["old.site IS NOT new.site", "old.id IS NOT new.id", ...fields.map(f => `json_extract(old.doc, '$.${f}') IS NOT json_extract(new.doc, '$.${f}')`)].join(" OR ");
}

function sqliteTriggers(table: string, fields: readonly string[]): string[] {
  return [
    `CREATE TRIGGER IF NOT EXISTS ${table}_pairs_ai AFTER INSERT ON ${table} BEGIN ${sqliteMove(table, fields, "new.site", "new.doc", 1)} END`,
    `CREATE TRIGGER IF NOT EXISTS ${table}_pairs_au AFTER UPDATE ON ${table} WHEN ${sqliteChanged(fields)} BEGIN ` +
      `${sqliteMove(table, fields, "old.site", "old.doc", -1)} ${sqliteMove(table, fields, "new.site", "new.doc", 1)} END`,
    `CREATE TRIGGER IF NOT EXISTS ${table}_pairs_ad AFTER DELETE ON ${table} BEGIN ${sqliteMove(table, fields, "old.site", "old.doc", -1)} END`
  ];
}

/**
 * PostgreSQL: moves one pair's count by `d`, never waiting for another transaction: a row of the pair no
 * other transaction holds (`SKIP LOCKED`), or, when every one is held, a row of its own under a random
 * shard.
 */
const MOVE_FUNCTION = `CREATE OR REPLACE FUNCTION link_pair_move(s integer, ty text, fa text, ta bigint, fb text, tb bigint, d integer) RETURNS void LANGUAGE plpgsql AS $lp$
DECLARE r tid;
BEGIN
  SELECT ctid INTO r FROM ${LINK_PAIRS} WHERE site = s AND type = ty AND a_field = fa AND a_target = ta AND b_field = fb AND b_target = tb FOR UPDATE SKIP LOCKED LIMIT 1;
  IF FOUND THEN
    UPDATE ${LINK_PAIRS} SET n = n + d WHERE ctid = r;
  ELSE
    INSERT INTO ${LINK_PAIRS} (${KEY}, n) VALUES (s, ty, fa, ta, fb, tb, 1 + floor(random() * 2000000000)::integer, d)
      ON CONFLICT (${KEY}) DO UPDATE SET n = ${LINK_PAIRS}.n + d;
  END IF;
END $lp$`;

/** PostgreSQL: the pairs of `doc`'s elements over `fields`, as rows `(fa, ta, fb, tb)` (link_targets: store/sql/schema.ts). */
export function postgresPairs(doc: string, fields: readonly string[]): string {
  const elements = `SELECT f COLLATE "C" AS f, t FROM unnest(ARRAY[${fields.map(f => `'${f}'`).join(", ")}]) AS f, LATERAL link_targets(${doc} -> f) AS t`;
  return `SELECT a.f AS fa, a.t AS ta, b.f AS fb, b.t AS tb FROM (${elements}) AS a, (${elements}) AS b WHERE ${ORDERED}`;
}

/** PostgreSQL: whether an update left what the pairs count as it was (the link fields, the site and the id). */
export function postgresSame(fields: readonly string[]): string {
  return ["OLD.site = NEW.site", "OLD.id = NEW.id", ...fields.map(f => `(OLD.doc -> '${f}') IS NOT DISTINCT FROM (NEW.doc -> '${f}')`)].join(" AND ");
}

function postgresTriggers(table: string, fields: readonly string[]): string[] {
  const same = postgresSame(fields);
  const move = (rec: "OLD" | "NEW", d: 1 | -1) =>
    `FOR p IN ${postgresPairs(`${rec}.doc`, fields)} LOOP PERFORM link_pair_move(${rec}.site, '${table}', p.fa, p.ta, p.fb, p.tb, ${d}); END LOOP;`;
  return [
    `CREATE OR REPLACE FUNCTION ${table}_pairs() RETURNS trigger LANGUAGE plpgsql SET plan_cache_mode = auto AS $pairs$
DECLARE p record;
BEGIN
  IF TG_OP = 'UPDATE' AND ${same} THEN RETURN NULL; END IF;
  IF TG_OP <> 'INSERT' THEN ${move("OLD", -1)} END IF;
  IF TG_OP <> 'DELETE' THEN ${move("NEW", 1)} END IF;
  RETURN NULL;
END $pairs$`,
    `DROP TRIGGER IF EXISTS ${table}_pairs ON ${table}`,
    `CREATE TRIGGER ${table}_pairs AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_pairs()`
  ];
}

/**
 * The pairs of the records of `table` (optionally only those `where` selects, a condition on `r`, the
 * record) counted and added to what is kept: for a store made before the pairs were, or records written
 * with the triggers set aside (a bulk load). `fields`: the table's link fields.
 */
export function linkPairsFill(dialect: Dialect, table: string, fields: readonly string[], where?: string): string {
  const into = `INSERT INTO ${LINK_PAIRS} (${KEY}, n)`;
  const conflict = `ON CONFLICT (${KEY}) DO UPDATE SET n = ${LINK_PAIRS}.n + excluded.n`;
  if (dialect === "sqlite") {
    const join = sqlitePairJoin(table, where);
    return `${into} SELECT a.site, '${table}', ${join.pair}, 0, COUNT(*) ${join.sql} GROUP BY a.site, ${join.pair} ${conflict}`;
  }
  return `${into} SELECT r.site, '${table}', p.fa, p.ta, p.fb, p.tb, 0, COUNT(*) ${postgresRecordPairs(table, fields, where)} GROUP BY r.site, p.fa, p.ta, p.fb, p.tb ${conflict}`;
}

/**
 * SQLite: every two links one record of `table` holds (optionally only those `where` selects, a condition
 * on `r`), the lesser first: the FROM and WHERE of a fill (`sql`), its rows `a` and `b` (each with `site` and
 * `id`), and the pair's four columns (`pair`). Each record's links are joined directly, so the join runs
 * through `FILL_INDEX` when a migration made it: the link table's key leads with the field and target, and
 * through it each link of a large store was compared with many others.
 */
export function sqlitePairJoin(table: string, where?: string): { sql: string; pair: string } {
  const records = where === undefined ? "" : ` JOIN ${table} AS r ON r.site = a.site AND r.id = a.id AND (${where})`;
  return {
    sql: `FROM links AS a JOIN links AS b ON b.type = a.type AND b.site = a.site AND b.id = a.id${records} ` +
      `WHERE a.type = '${table}' AND (a.field < b.field OR (a.field = b.field AND a.target < b.target))`,
    pair: "a.field, a.target, b.field, b.target"
  };
}

/**
 * PostgreSQL: the pairs of each record of `table` (`r`; optionally only those `where` selects) from its
 * document, as its trigger counts them (`p`: fa, ta, fb, tb): the FROM and WHERE of a fill. One pass over
 * the records, whatever the planner knows of the tables: the link table has no key by record, so a join of
 * it with itself read it whole for each batch of a bulk load, and right after one was planned as nested
 * loops over every link.
 */
export function postgresRecordPairs(table: string, fields: readonly string[], where?: string): string {
  return `FROM ${table} AS r, LATERAL (${postgresPairs("r.doc", fields)}) AS p WHERE ${where ?? "true"}`;
}

/** SQLite: the index a migration's fill joins each record's links through, made before it and dropped once it is done. */
export const FILL_INDEX = { made: "CREATE INDEX IF NOT EXISTS ix_links_pair_fill ON links (type, site, id, field, target)", dropped: "DROP INDEX IF EXISTS ix_links_pair_fill" };

/** The migration's statements: the table, the triggers of every paired table, and the pairs of the records already stored. */
export function linkPairStatements(dialect: Dialect, tables: Readonly<Record<string, readonly string[]>>): string[] {
  const per = Object.entries(tables).flatMap(([table, fields]) => [
    ...(dialect === "sqlite" ? sqliteTriggers(table, fields) : postgresTriggers(table, fields)),
    linkPairsFill(dialect, table, fields)
  ]);
  if (dialect === "sqlite") {
    return [pairTable(dialect), FILL_INDEX.made, ...per, FILL_INDEX.dropped];
  }
  return [pairTable(dialect), MOVE_FUNCTION, `ALTER FUNCTION link_pair_move(integer, text, text, bigint, text, bigint, integer) SET plan_cache_mode = auto`, ...per];
}

/**
 * SQLite: the triggers `<table>_<kind>_{ai,au,ad}` of each of `tables` dropped and made again by `make`
 * (PostgreSQL's trigger functions are replaced where they are defined).
 */
export function sqliteTriggersAgain(dialect: Dialect, tables: Readonly<Record<string, readonly string[]>>, kind: string,
  make: (table: string, fields: readonly string[]) => string[]): string[] {
  if (dialect !== "sqlite") return [];
  return Object.entries(tables).flatMap(([table, fields]) => [...["ai", "au", "ad"].map(x => `DROP TRIGGER IF EXISTS ${table}_${kind}_${x}`), ...make(table, fields)]);
}

/** Migration 37's statements: SQLite's pair triggers of `tables` made again as written above (PostgreSQL's are unchanged). */
export const linkPairTriggersAgain = (dialect: Dialect, tables: Readonly<Record<string, readonly string[]>>): string[] =>
  sqliteTriggersAgain(dialect, tables, "pairs", sqliteTriggers);

/** A side's targets, as a condition on the column `column` of the pairs' table. */
function targets(dialect: Dialect, column: string, side: PairSide | { column: string }): Compiled {
  if ("column" in side) return { sql: `${column} = ${side.column}`, params: [] };
  return idsIn(dialect, column, side.ids);
}

/**
 * Whether some record of `type` on `site` may hold an element of each side: the pairs' count of the two
 * sides is positive. `one` may name a column of the statement around (a driving link's target) in place
 * of ids. Two sides of one field that share a target are the caller's to tell apart (a record holding it
 * holds both, and no pair is kept of an element with itself).
 */
export function pairHeld(dialect: Dialect, site: number, type: string, one: { field: string } & (PairSide | { column: string }), other: PairSide): Compiled {
  const params: Param[] = [site];
  const part = (prefix: "a" | "b", side: { field: string } & (PairSide | { column: string })) => {
    const t = targets(dialect, `${prefix}_target`, side);
    params.push(...t.params);
    return `${prefix}_field = '${side.field}' AND ${t.sql}`;
  };
  const ordered = (first: typeof one, second: typeof one) => `${part("a", first)} AND ${part("b", second)}`;
  // one field: either side's target may be the lesser, so both orders are asked
  const match = one.field === other.field ? `((${ordered(one, other)}) OR (${ordered(other, one)}))`
    : one.field < other.field ? ordered(one, other) : ordered(other, one);
  return { sql: `(SELECT COALESCE(SUM(n), 0) FROM ${LINK_PAIRS} WHERE site = ? AND type = '${type}' AND ${match}) > 0`, params };
}
