/**
 * Term counts derived by the database (C41: invariants under concurrency; C42: one transaction per write): a term's `count` is the number of published
 * events carrying it (docs/records.md#term-counts; each published occurrence of a series is an event row,
 * C35 (recurrence leaves other events unchanged)), and its `tree_count` that count plus its descendants' (what `hide_empty` reads). Triggers on the
 * `events` table move both, set the term's `modified_utc` and append the term's `updated` change-feed
 * entry, in the transaction of the event write itself, whatever statement or node made it; triggers on
 * `terms` carry a term's `tree_count` from its old ancestors to its new ones when its parent changes, and
 * take it from them when it is deleted. A crash can therefore never leave a count behind its events:
 * there is no second step to lose. The migration that makes them also recounts every term from the
 * events (`recountStatements`), which repairs a database the older, separate count pass left wrong.
 *
 * (No question mark in these texts: the driver numbers each `?` as a parameter.)
 */
import type { Dialect } from "./driver";

/** The change feed's table (store/collection.ts FEED_COLLECTION). */
const FEED = "changes";
/** PostgreSQL: an entry's id is its transaction's id times this, plus its place in the transaction (feed_id). */
export const FEED_ID_STRIDE = 65536;
/**
 * PostgreSQL: how far apart one transaction's own entries are (the ids between are for later changes of
 * their records): FEED_ID_STRIDE / FEED_ID_STEP entries fit in one transaction, 1 024, room for a batch
 * of records written in one transaction (store/sql/shared-transaction.ts) with the changes of the terms
 * they count.
 */
const FEED_ID_STEP = 64;

// ------------------------------------------------------------------------------------------------ SQLite

const sqliteNow = "strftime('%Y-%m-%d %H:%M:%S', 'now')";
const sqliteMs = "CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)";

/** The published terms of a row's document (`r`: `new` or `old`), one per row as `tid`. */
function sqlitePublished(r: string): string {
  const published = `json_extract(${r}.doc, '$.status') = 'publish'`;
  return ["categories", "tags"].map(f => `SELECT j.value AS tid FROM json_each(${r}.doc, '$.${f}') AS j WHERE j.type = 'integer' AND ${published}`).join(" UNION ");
}

/** The count deltas of a write: `(tid, delta)` for each term that gained or lost the event. */
function sqliteDeltas(rows: Array<"new" | "old">): string {
  const parts = rows.map(r => `SELECT tid, ${r === "new" ? 1 : -1} AS d FROM (${sqlitePublished(r)})`);
  return `SELECT tid, SUM(d) AS delta FROM (${parts.join(" UNION ALL ")}) GROUP BY tid HAVING SUM(d) <> 0`;
}

/**
 * `(a, delta)`: each term of `seed` (`(tid, delta)` rows) and each of its ancestors, with the delta summed;
 * `above`: its ancestors only.
 */
function sqliteUp(site: string, seed: string, above = false): string {
  const parent = (r: string) => `json_extract(${r}.doc, '$.parent')`;
  const first = above
    ? `SELECT s.tid, ${parent("p")}, s.delta FROM (${seed}) AS s JOIN terms AS p ON p.site = ${site} AND p.id = s.tid WHERE ${parent("p")} > 0`
    : `SELECT tid, tid, delta FROM (${seed})`;
  return `SELECT a, SUM(delta) AS delta FROM (WITH RECURSIVE up(src, a, delta) AS (${first} ` +
    `UNION SELECT up.src, ${parent("p")}, up.delta FROM up JOIN terms AS p ON p.site = ${site} AND p.id = up.a ` +
    `WHERE ${parent("p")} > 0) SELECT a, delta FROM up) GROUP BY a`;
}

const sqliteTree = (site: string, up: string): string =>
  `UPDATE terms SET doc = jsonb_set(doc, '$.tree_count', COALESCE(json_extract(doc, '$.tree_count'), 0) + u.delta) FROM (${up}) AS u WHERE terms.site = ${site} AND terms.id = u.a;`;

/** SQLite: the feed entries of the terms `ids` (a subquery of ids), in the statement's transaction. */
function sqliteTermEntries(site: string, ids: string): string {
  const previous = `(SELECT jsonb_extract(c.doc, '$.after') FROM ${FEED} AS c WHERE c.site = ${site} AND json_extract(c.doc, '$.key') = 'term:' || t.id ORDER BY c.id DESC LIMIT 1)`;
  const entry = `jsonb_set(jsonb_object('key', 'term:' || t.id, 'type', CASE WHEN json_extract(t.doc, '$.taxonomy') = 'tag' THEN 'tag' ELSE 'category' END, ` +
    `'id', t.id, 'action', 'updated', 'modified_utc', json_extract(t.doc, '$.modified_utc'), 'before', NULL, 'after', json('{}'), 'at', ${sqliteMs}), '$.before', ${previous})`;
  return `INSERT INTO ${FEED} (site, id, doc) SELECT ${site}, (SELECT COALESCE(MAX(id), 0) FROM ${FEED} WHERE site = ${site}) + ROW_NUMBER() OVER (ORDER BY t.id), ${entry} ` +
    `FROM terms AS t WHERE t.site = ${site} AND t.id IN (${ids}) ORDER BY t.id;`;
}

function sqliteEventTrigger(name: string, event: "INSERT" | "UPDATE" | "DELETE", when: string): string {
  const rows: Array<"new" | "old"> = event === "INSERT" ? ["new"] : event === "DELETE" ? ["old"] : ["new", "old"];
  const site = event === "DELETE" ? "old.site" : "new.site";
  const deltas = sqliteDeltas(rows);
  // A term's own count and tree_count move in one update (each update of a term rewrites its row and
  // every index of its document), then its ancestors' tree_count.
  return `CREATE TRIGGER IF NOT EXISTS ${name} AFTER ${event} ON events WHEN ${when} BEGIN ` +
    `UPDATE terms SET doc = jsonb_set(doc, '$.count', COALESCE(json_extract(doc, '$.count'), 0) + d.delta, ` +
    `'$.tree_count', COALESCE(json_extract(doc, '$.tree_count'), 0) + d.delta, '$.modified_utc', ${sqliteNow}) ` +
    `FROM (${deltas}) AS d WHERE terms.site = ${site} AND terms.id = d.tid; ` +
    `${sqliteTree(site, sqliteUp(site, deltas, true))} ` +
    `${sqliteTermEntries(site, `SELECT tid FROM (${deltas})`)} END`;
}

function sqliteTriggers(): string[] {
  const published = (r: string) => `json_extract(${r}.doc, '$.status') = 'publish'`;
  const moved = ["status", "categories", "tags"].map(f => `json_extract(old.doc, '$.${f}') IS NOT json_extract(new.doc, '$.${f}')`).join(" OR ");
  // a term's tree_count leaves its old ancestors and joins its new ones (its own count stays)
  const parentOf = (r: string) => `json_extract(${r}.doc, '$.parent')`;
  const treeOf = (r: string) => `COALESCE(json_extract(${r}.doc, '$.tree_count'), 0)`;
  const chain = (r: string, sign: string) => `SELECT ${parentOf(r)} AS tid, ${sign}${treeOf(r)} AS delta WHERE ${parentOf(r)} > 0`;
  return [
    sqliteEventTrigger("events_counts_ai", "INSERT", published("new")),
    sqliteEventTrigger("events_counts_au", "UPDATE", `(${published("old")} OR ${published("new")}) AND (${moved} OR old.site IS NOT new.site OR old.id IS NOT new.id)`),
    sqliteEventTrigger("events_counts_ad", "DELETE", published("old")),
    `CREATE TRIGGER IF NOT EXISTS terms_tree_au AFTER UPDATE ON terms WHEN ${parentOf("old")} IS NOT ${parentOf("new")} BEGIN ` +
      `${sqliteTree("new.site", sqliteUp("new.site", `${chain("old", "-")} UNION ALL ${chain("new", "")}`))} END`,
    `CREATE TRIGGER IF NOT EXISTS terms_tree_ad AFTER DELETE ON terms WHEN ${parentOf("old")} > 0 BEGIN ` +
      `${sqliteTree("old.site", sqliteUp("old.site", chain("old", "-")))} END`
  ];
}

// -------------------------------------------------------------------------------------------- PostgreSQL

/**
 * PostgreSQL: the next id of the change feed for a site and record key `k` in the current transaction:
 * in the transaction's own slot (its id, xid8, times FEED_ID_STRIDE; its entries FEED_ID_STEP apart), or
 * just past the record's newest entry when that lies higher (its writer had a later transaction id but
 * committed first: the record's changes stay in commit order, C43: the change feed on PostgreSQL). Either way an entry's id is at least
 * its transaction's id times the stride, so a reader that passes only entries below the oldest
 * transaction of the database still running (store/sql/feed.ts) never skips one still being committed,
 * however long its transaction ran.
 */
const FEED_ID_QUERY = `SELECT GREATEST(` +
  `(SELECT x.base + COALESCE((MAX(c.id) - x.base) / ${FEED_ID_STEP} + 1, 0) * ${FEED_ID_STEP} FROM (SELECT pg_current_xact_id()::text::bigint * ${FEED_ID_STRIDE} AS base) AS x ` +
  `LEFT JOIN ${FEED} AS c ON c.site = s AND c.id >= x.base AND c.id < x.base + ${FEED_ID_STRIDE} GROUP BY x.base), ` +
  `(SELECT c.id + 1 FROM ${FEED} AS c WHERE c.site = s AND (c.doc -> 'key') = k ORDER BY c.id DESC LIMIT 1))`;
const FEED_ID_FUNCTION = `CREATE OR REPLACE FUNCTION feed_id(s integer, k jsonb) RETURNS bigint LANGUAGE sql VOLATILE AS $fid$ ${FEED_ID_QUERY} $fid$`;

/**
 * PostgreSQL: the functions of every event write keep their statements' plans (migration 17; the write
 * marks' functions too, store/sql/write-marks.ts). The store's
 * connections plan each statement for its parameters (store/sql/driver.ts PLANNED, for the lists); inside
 * these functions that setting re-planned every statement of every trigger on every row, and `feed_id`, a
 * SQL function, was planned again at each call whatever the setting. Their statements look up rows by key,
 * where the kept plan is the one a custom plan would choose: `plan_cache_mode = auto` on each function,
 * and `feed_id` in PL/pgSQL, which keeps its plan for the connection. The same answers; an event insert's
 * triggers take a third less time (docs/benchmarks.md "Creates with links" has the measures).
 */
export function keptPlanStatements(linkTables: readonly string[]): string[] {
  return [
    feedIdFunction(),
    ...["events_term_counts()", "terms_tree_shift(integer, bigint[], bigint[])", "terms_tree_moves()", ...linkTables.map(t => `${t}_links()`)]
      .map(f => `ALTER FUNCTION ${f} SET plan_cache_mode = auto`)
  ];
}

/** PostgreSQL: `feed_id` as the store defines it now (PL/pgSQL, its plan kept: keptPlanStatements). */
export function feedIdFunction(): string {
  return `CREATE OR REPLACE FUNCTION feed_id(s integer, k jsonb) RETURNS bigint LANGUAGE plpgsql VOLATILE SET plan_cache_mode = auto AS $fid$ BEGIN RETURN (${FEED_ID_QUERY}); END $fid$`;
}

const PUBLISHED_TERMS =
  "CREATE OR REPLACE FUNCTION published_terms(d jsonb) RETURNS SETOF bigint LANGUAGE sql IMMUTABLE AS $pt$ " +
  "SELECT t FROM link_targets(d -> 'categories') AS t WHERE d ->> 'status' = 'publish' " +
  "UNION SELECT t FROM link_targets(d -> 'tags') AS t WHERE d ->> 'status' = 'publish' $pt$";

const pgParent = (r: string) => `(CASE WHEN jsonb_typeof(${r}.doc -> 'parent') = 'number' THEN (${r}.doc ->> 'parent')::numeric::bigint ELSE 0 END)`;
const pgTree = (r: string) => `COALESCE((${r}.doc ->> 'tree_count')::numeric::bigint, 0)`;

/**
 * PostgreSQL, inside a function of the site `s` and the term array `ids`: those terms and their ancestors locked in
 * id order (writers of overlapping terms never wait for each other in a circle).
 */
const PG_LOCK_UP = `PERFORM 1 FROM terms WHERE site = s AND id IN (
    WITH RECURSIVE up(a) AS (SELECT unnest(ids) UNION SELECT ${pgParent("p")} FROM up JOIN terms AS p ON p.site = s AND p.id = up.a WHERE ${pgParent("p")} > 0)
    SELECT a FROM up) ORDER BY id FOR UPDATE;`;

/** PostgreSQL: adds `ds[i]` to the tree_count of each ancestor of the term `ids[i]`, and of the term itself unless `above`. */
function pgTreeUpdate(above: boolean): string {
  const first = above
    ? `SELECT x.tid, ${pgParent("p")}, x.delta FROM unnest(ids, ds) AS x(tid, delta) JOIN terms AS p ON p.site = s AND p.id = x.tid WHERE ${pgParent("p")} > 0`
    : "SELECT x.tid, x.tid, x.delta FROM unnest(ids, ds) AS x(tid, delta)";
  return `UPDATE terms AS t SET doc = jsonb_set(t.doc, '{tree_count}', to_jsonb(${pgTree("t")} + u.delta)) FROM (
    WITH RECURSIVE up(src, a, delta) AS (
      ${first}
      UNION SELECT up.src, ${pgParent("p")}, up.delta FROM up JOIN terms AS p ON p.site = s AND p.id = up.a WHERE ${pgParent("p")} > 0)
    SELECT a, SUM(delta)::bigint AS delta FROM up GROUP BY a) AS u
  WHERE t.site = s AND t.id = u.a AND u.delta <> 0;`;
}

/** PostgreSQL: adds `ds[i]` to the tree_count of `ids[i]` and of each of its ancestors, the rows locked first. */
const TREE_FUNCTION = `CREATE OR REPLACE FUNCTION terms_tree_shift(s integer, ids bigint[], ds bigint[]) RETURNS void LANGUAGE plpgsql AS $ts$
BEGIN
  ${PG_LOCK_UP}
  ${pgTreeUpdate(false)}
END $ts$`;

// A term's own count and tree_count move in one update (each update of a term writes a new version of its
// row and of every index of its document), then its ancestors' tree_count.
const EVENTS_FUNCTION = `CREATE OR REPLACE FUNCTION events_term_counts() RETURNS trigger LANGUAGE plpgsql AS $tc$
DECLARE
  s integer;
  ids bigint[];
  ds bigint[];
  term record;
  k jsonb;
BEGIN
  s := CASE WHEN TG_OP = 'DELETE' THEN OLD.site ELSE NEW.site END;
  SELECT COALESCE(array_agg(tid ORDER BY tid), '{}'), COALESCE(array_agg(delta ORDER BY tid), '{}') INTO ids, ds FROM (
    SELECT tid, SUM(d)::bigint AS delta FROM (
      SELECT t AS tid, 1 AS d FROM published_terms(CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.doc END) AS t
      UNION ALL SELECT t, -1 FROM published_terms(CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.doc END) AS t) AS x
    GROUP BY tid HAVING SUM(d) <> 0) AS y;
  IF cardinality(ids) = 0 THEN RETURN NULL; END IF;
  ${PG_LOCK_UP}
  UPDATE terms AS t SET doc = jsonb_set(jsonb_set(jsonb_set(t.doc, '{count}', to_jsonb(COALESCE((t.doc ->> 'count')::numeric::bigint, 0) + x.delta)),
    '{tree_count}', to_jsonb(${pgTree("t")} + x.delta)),
    '{modified_utc}', to_jsonb(to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')))
  FROM unnest(ids, ds) AS x(tid, delta) WHERE t.site = s AND t.id = x.tid;
  ${pgTreeUpdate(true)}
  -- one entry a statement: each takes its id after the one before it (feed_id)
  FOR term IN SELECT t.id, t.doc FROM terms AS t WHERE t.site = s AND t.id = ANY(ids) ORDER BY t.id LOOP
    k := to_jsonb('term:' || term.id);
    INSERT INTO ${FEED} (site, id, doc) VALUES (s, feed_id(s, k), jsonb_build_object('key', k,
      'type', CASE WHEN term.doc ->> 'taxonomy' = 'tag' THEN 'tag' ELSE 'category' END, 'id', term.id, 'action', 'updated',
      'modified_utc', term.doc -> 'modified_utc',
      'before', COALESCE((SELECT c.doc -> 'after' FROM ${FEED} AS c WHERE c.site = s AND (c.doc -> 'key') = k ORDER BY c.id DESC LIMIT 1), 'null'::jsonb),
      'after', '{}'::jsonb, 'at', (extract(epoch FROM clock_timestamp()) * 1000)::bigint));
  END LOOP;
  RETURN NULL;
END $tc$`;

const TERMS_FUNCTION = `CREATE OR REPLACE FUNCTION terms_tree_moves() RETURNS trigger LANGUAGE plpgsql AS $tm$
BEGIN
  IF ${pgParent("OLD")} > 0 AND ${pgTree("OLD")} <> 0 THEN PERFORM terms_tree_shift(OLD.site, ARRAY[${pgParent("OLD")}], ARRAY[-${pgTree("OLD")}]); END IF;
  IF TG_OP = 'UPDATE' AND ${pgParent("NEW")} > 0 AND ${pgTree("NEW")} <> 0 THEN PERFORM terms_tree_shift(NEW.site, ARRAY[${pgParent("NEW")}], ARRAY[${pgTree("NEW")}]); END IF;
  RETURN NULL;
END $tm$`;

function pgTriggers(): string[] {
  const published = (r: string) => `${r}.doc ->> 'status' = 'publish'`;
  const moved = ["status", "categories", "tags"].map(f => `(OLD.doc -> '${f}') IS DISTINCT FROM (NEW.doc -> '${f}')`).join(" OR ");
  return [
    FEED_ID_FUNCTION, PUBLISHED_TERMS, TREE_FUNCTION, EVENTS_FUNCTION, TERMS_FUNCTION,
    ...["events_counts_i", "events_counts_u", "events_counts_d"].map(n => `DROP TRIGGER IF EXISTS ${n} ON events`),
    `CREATE TRIGGER events_counts_i AFTER INSERT ON events FOR EACH ROW WHEN (${published("NEW")}) EXECUTE FUNCTION events_term_counts()`,
    `CREATE TRIGGER events_counts_u AFTER UPDATE ON events FOR EACH ROW WHEN ((${published("OLD")} OR ${published("NEW")}) AND (${moved} OR OLD.site <> NEW.site OR OLD.id <> NEW.id)) EXECUTE FUNCTION events_term_counts()`,
    `CREATE TRIGGER events_counts_d AFTER DELETE ON events FOR EACH ROW WHEN (${published("OLD")}) EXECUTE FUNCTION events_term_counts()`,
    "DROP TRIGGER IF EXISTS terms_tree_u ON terms",
    "DROP TRIGGER IF EXISTS terms_tree_d ON terms",
    "CREATE TRIGGER terms_tree_u AFTER UPDATE ON terms FOR EACH ROW WHEN ((OLD.doc -> 'parent') IS DISTINCT FROM (NEW.doc -> 'parent')) EXECUTE FUNCTION terms_tree_moves()",
    "CREATE TRIGGER terms_tree_d AFTER DELETE ON terms FOR EACH ROW EXECUTE FUNCTION terms_tree_moves()"
  ];
}

// ------------------------------------------------------------------------------------------------ both

/**
 * Every term's `count` from the published events linking it (the link table, store/sql/schema.ts) and
 * its `tree_count` from the counts of itself and its descendants: at the migration that makes the
 * triggers, and after an import that stored counts and events side by side.
 */
export function recountStatements(d: Dialect): string[] {
  if (d === "sqlite") {
    return [
      "UPDATE terms SET doc = jsonb_set(doc, '$.count', (SELECT COUNT(DISTINCT l.id) FROM links AS l JOIN events AS e ON e.site = l.site AND e.id = l.id " +
        "WHERE l.site = terms.site AND l.type = 'events' AND l.field IN ('categories', 'tags') AND l.target = terms.id AND json_extract(e.doc, '$.status') = 'publish'))",
      "WITH RECURSIVE up(site, src, a) AS (SELECT site, id, id FROM terms UNION SELECT up.site, up.src, json_extract(p.doc, '$.parent') FROM up " +
        "JOIN terms AS p ON p.site = up.site AND p.id = up.a WHERE json_extract(p.doc, '$.parent') > 0), " +
        "tot AS (SELECT up.site, up.a, SUM(COALESCE(json_extract(t.doc, '$.count'), 0)) AS n FROM up JOIN terms AS t ON t.site = up.site AND t.id = up.src GROUP BY up.site, up.a) " +
        "UPDATE terms SET doc = jsonb_set(doc, '$.tree_count', COALESCE((SELECT n FROM tot WHERE tot.site = terms.site AND tot.a = terms.id), 0))"
    ];
  }
  return [
    "UPDATE terms AS t SET doc = jsonb_set(t.doc, '{count}', to_jsonb((SELECT COUNT(DISTINCT l.id) FROM links AS l JOIN events AS e ON e.site = l.site AND e.id = l.id " +
      "WHERE l.site = t.site AND l.type = 'events' AND l.field IN ('categories', 'tags') AND l.target = t.id AND e.doc ->> 'status' = 'publish')))",
    `WITH RECURSIVE up(site, src, a) AS (SELECT site, id, id FROM terms UNION SELECT up.site, up.src, ${pgParent("p")} FROM up ` +
      `JOIN terms AS p ON p.site = up.site AND p.id = up.a WHERE ${pgParent("p")} > 0), ` +
      "tot AS (SELECT up.site, up.a, SUM(COALESCE((t.doc ->> 'count')::numeric::bigint, 0)) AS n FROM up JOIN terms AS t ON t.site = up.site AND t.id = up.src GROUP BY up.site, up.a) " +
      "UPDATE terms AS t SET doc = jsonb_set(t.doc, '{tree_count}', to_jsonb(COALESCE((SELECT n FROM tot WHERE tot.site = t.site AND tot.a = t.id), 0)))"
  ];
}

/**
 * Migration 37's statements: the count triggers made again as written above (a term's own counts moved in
 * one update). What they keep is unchanged, so nothing is counted again.
 */
export function termCountTriggersAgain(d: Dialect): string[] {
  if (d === "sqlite") return [...["events_counts_ai", "events_counts_au", "events_counts_ad", "terms_tree_au", "terms_tree_ad"].map(n => `DROP TRIGGER IF EXISTS ${n}`), ...sqliteTriggers()];
  return [TREE_FUNCTION, EVENTS_FUNCTION, ...["events_term_counts()", "terms_tree_shift(integer, bigint[], bigint[])"].map(f => `ALTER FUNCTION ${f} SET plan_cache_mode = auto`)];
}

/** Migration 14's statements: the triggers, then every count recomputed. */
export function termCountStatements(d: Dialect): string[] {
  return [...(d === "sqlite" ? sqliteTriggers() : pgTriggers()), ...recountStatements(d)];
}
