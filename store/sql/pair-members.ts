/**
 * SQLite: the records holding each pair of link elements ("events at venue 6 in category 15"), one row per
 * record and pair, kept by triggers on the record tables in the write's own transaction, as the link pairs'
 * counts are (store/sql/link-pairs.ts, whose element order and pair order these rows share).
 *
 * A list filtered by two links of different fields reads its records here (store/sql/link-plans.ts): the
 * events that hold both, found by one key range, where reading one side's links and probing each against the
 * other cost in proportion to that side (a venue's 2 000 events at 100 000 for a pair that holds 100;
 * docs/lists.md#event-filters). A pair no record holds is an empty range.
 *
 * A record with k link elements has k(k−1)/2 rows: an event with a venue, an organizer, a category and a tag
 * has six. A write moves its rows only when a link field, the site or the id changed, and finds the rows it
 * removes by their key (the pairs of the old document), so the table needs no second index.
 *
 * PostgreSQL keeps the counts only: its statement reads the smaller set's links or intersects the sets,
 * chosen by their size (link-plans.ts `linkedChosen`).
 */
import { FILL_INDEX, ORDERED, sqliteChanged, sqliteElements, sqlitePairJoin } from "./link-pairs";

export const PAIR_MEMBERS = "link_pair_members";

const COLUMNS = "site, type, a_field, a_target, b_field, b_target, id";

const TABLE = `CREATE TABLE IF NOT EXISTS ${PAIR_MEMBERS} (site INTEGER NOT NULL, type TEXT NOT NULL, a_field TEXT NOT NULL, a_target INTEGER NOT NULL, ` +
  `b_field TEXT NOT NULL, b_target INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (${COLUMNS})) WITHOUT ROWID`;

/** Every pair of `doc`'s elements, as rows `(f1, t1, f2, t2)`, the lesser element first. */
function pairsOf(doc: string, fields: readonly string[]): string {
  const elements = sqliteElements(doc, fields);
  return `SELECT a.f AS f1, a.t AS t1, b.f AS f2, b.t AS t2 FROM (${elements}) AS a, (${elements}) AS b WHERE ${ORDERED}`;
}

function added(table: string, fields: readonly string[]): string {
  return `INSERT INTO ${PAIR_MEMBERS} (${COLUMNS}) SELECT new.site, '${table}', p.f1, p.t1, p.f2, p.t2, new.id FROM (${pairsOf("new.doc", fields)}) AS p ` +
    "WHERE true ON CONFLICT DO NOTHING;";
}

function removed(table: string, fields: readonly string[]): string {
  return `DELETE FROM ${PAIR_MEMBERS} WHERE site = old.site AND type = '${table}' AND (a_field, a_target, b_field, b_target) IN ` +
    `(SELECT p.f1, p.t1, p.f2, p.t2 FROM (${pairsOf("old.doc", fields)}) AS p) AND id = old.id;`;
}

function triggers(table: string, fields: readonly string[]): string[] {
  return [
    `CREATE TRIGGER IF NOT EXISTS ${table}_members_ai AFTER INSERT ON ${table} BEGIN ${added(table, fields)} END`,
    `CREATE TRIGGER IF NOT EXISTS ${table}_members_au AFTER UPDATE ON ${table} WHEN ${sqliteChanged(fields)} BEGIN ${removed(table, fields)} ${added(table, fields)} END`,
    `CREATE TRIGGER IF NOT EXISTS ${table}_members_ad AFTER DELETE ON ${table} BEGIN ${removed(table, fields)} END`
  ];
}

/**
 * The rows of the records of `table` (optionally only those `where` selects, a condition on `r`) made from
 * the link table: for a store made before they were, or records written with the triggers set aside. Each
 * record's links are joined by its id (through FILL_INDEX when the migration made it).
 */
export function pairMembersFill(table: string, where?: string): string {
  return `INSERT INTO ${PAIR_MEMBERS} (${COLUMNS}) SELECT a.site, '${table}', a.field, a.target, b.field, b.target, a.id ${sqlitePairJoin(table, where)} ON CONFLICT DO NOTHING`;
}

/** The migration's statements (SQLite): the table, the triggers of every paired table, and the rows of the records already stored. */
export function pairMemberStatements(tables: Readonly<Record<string, readonly string[]>>): string[] {
  const per = Object.entries(tables).flatMap(([table, fields]) => [...triggers(table, fields), pairMembersFill(table)]);
  return [TABLE, FILL_INDEX.made, ...per, FILL_INDEX.dropped];
}
