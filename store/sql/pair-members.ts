/**
 * The records holding each pair of link elements ("events at venue 6 in category 15"), one row per record
 * and pair, kept by triggers on the record tables in the write's own transaction, as the link pairs'
 * counts are (store/sql/link-pairs.ts, whose element order and pair order these rows share).
 *
 * A list filtered by two links of different fields reads its records here (store/sql/link-plans.ts): the
 * events that hold both, found by one key range, where reading one side's links and probing each against the
 * other cost in proportion to that side (a venue's 2 000 events at 100 000 for a pair that holds 100;
 * docs/lists.md#event-filters). A pair no record holds is an empty range.
 *
 * A record with k link elements has k(k−1)/2 rows: an event with a venue, an organizer, a category and a tag
 * has six. A write moves its rows only when a link field, the site or the id changed, and finds the rows it
 * removes by their key (the pairs of the old document), so the table needs no second index. Each row is
 * its record's own: writers of different records never touch the same row.
 */
import type { Dialect } from "./driver";
import { FILL_INDEX, postgresPairs, postgresRecordPairs, postgresSame, sqliteChanged, sqlitePairJoin, sqlitePairs, sqliteTriggersAgain } from "./link-pairs";

export const PAIR_MEMBERS = "link_pair_members";

const COLUMNS = "site, type, a_field, a_target, b_field, b_target, id";

function table(dialect: Dialect): string {
  const [text, int, big] = dialect === "sqlite" ? ["TEXT", "INTEGER", "INTEGER"] : ["text COLLATE \"C\"", "integer", "bigint"];
  return `CREATE TABLE IF NOT EXISTS ${PAIR_MEMBERS} (site ${int} NOT NULL, type ${text} NOT NULL, a_field ${text} NOT NULL, a_target ${big} NOT NULL, ` +
    `b_field ${text} NOT NULL, b_target ${big} NOT NULL, id ${big} NOT NULL, PRIMARY KEY (${COLUMNS}))${dialect === "sqlite" ? " WITHOUT ROWID" : ""}`;
}

/** The statements adding the rows of `rec`'s document (`new`/`NEW`) and removing those of `old`/`OLD`'s, given its pairs' rows. */
function added(table: string, rec: string, pairs: string): string {
  return `INSERT INTO ${PAIR_MEMBERS} (${COLUMNS}) SELECT ${rec}.site, '${table}', p.fa, p.ta, p.fb, p.tb, ${rec}.id FROM (${pairs}) AS p WHERE true ON CONFLICT DO NOTHING;`;
}

function removed(table: string, rec: string, pairs: string): string {
  return `DELETE FROM ${PAIR_MEMBERS} WHERE site = ${rec}.site AND type = '${table}' AND (a_field, a_target, b_field, b_target) IN ` +
    `(SELECT p.fa, p.ta, p.fb, p.tb FROM (${pairs}) AS p) AND id = ${rec}.id;`;
}

function sqliteTriggers(table: string, fields: readonly string[]): string[] {
  const add = added(table, "new", sqlitePairs("new.doc", fields));
  const remove = removed(table, "old", sqlitePairs("old.doc", fields));
  return [
    `CREATE TRIGGER IF NOT EXISTS ${table}_members_ai AFTER INSERT ON ${table} BEGIN ${add} END`,
    `CREATE TRIGGER IF NOT EXISTS ${table}_members_au AFTER UPDATE ON ${table} WHEN ${sqliteChanged(fields)} BEGIN ${remove} ${add} END`,
    `CREATE TRIGGER IF NOT EXISTS ${table}_members_ad AFTER DELETE ON ${table} BEGIN ${remove} END`
  ];
}

function postgresTriggers(table: string, fields: readonly string[]): string[] {
  return [
    `CREATE OR REPLACE FUNCTION ${table}_members() RETURNS trigger LANGUAGE plpgsql SET plan_cache_mode = auto AS $members$
BEGIN
  IF TG_OP = 'UPDATE' AND ${postgresSame(fields)} THEN RETURN NULL; END IF;
  IF TG_OP <> 'INSERT' THEN ${removed(table, "OLD", postgresPairs("OLD.doc", fields))} END IF;
  IF TG_OP <> 'DELETE' THEN ${added(table, "NEW", postgresPairs("NEW.doc", fields))} END IF;
  RETURN NULL;
END $members$`,
    `DROP TRIGGER IF EXISTS ${table}_members ON ${table}`,
    `CREATE TRIGGER ${table}_members AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_members()`
  ];
}

/**
 * The rows of the records of `table` (optionally only those `where` selects, a condition on `r`, the
 * record): for a store made before they were, or records written with the triggers set aside (a bulk load).
 * SQLite reads them from the link table, PostgreSQL from each record's document (store/sql/link-pairs.ts
 * `sqlitePairJoin`, `postgresRecordPairs`: why each).
 */
export function pairMembersFill(dialect: Dialect, table: string, fields: readonly string[], where?: string): string {
  const into = `INSERT INTO ${PAIR_MEMBERS} (${COLUMNS})`;
  if (dialect === "sqlite") {
    const join = sqlitePairJoin(table, where);
    return `${into} SELECT a.site, '${table}', ${join.pair}, a.id ${join.sql} ON CONFLICT DO NOTHING`;
  }
  return `${into} SELECT r.site, '${table}', p.fa, p.ta, p.fb, p.tb, r.id ${postgresRecordPairs(table, fields, where)} ON CONFLICT DO NOTHING`;
}

/** Migration 37's statements: SQLite's member triggers of `tables` made again as written above (PostgreSQL's are unchanged). */
export const pairMemberTriggersAgain = (dialect: Dialect, tables: Readonly<Record<string, readonly string[]>>): string[] =>
  sqliteTriggersAgain(dialect, tables, "members", sqliteTriggers);

/** The migration's statements: the table, the triggers of every paired table, and the rows of the records already stored. */
export function pairMemberStatements(dialect: Dialect, tables: Readonly<Record<string, readonly string[]>>): string[] {
  const per = Object.entries(tables).flatMap(([name, fields]) => [
    ...(dialect === "sqlite" ? sqliteTriggers(name, fields) : postgresTriggers(name, fields)),
    pairMembersFill(dialect, name, fields)
  ]);
  return dialect === "sqlite" ? [table(dialect), FILL_INDEX.made, ...per, FILL_INDEX.dropped] : [table(dialect), ...per];
}
