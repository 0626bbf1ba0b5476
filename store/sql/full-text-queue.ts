/**
 * SQLite: a record table's full-text index written once per transaction instead of at each write of a
 * record. The index (FTS5) writes what it was given when a savepoint ends, and every create runs in a
 * savepoint of its own (the driver's group commit, store/sql/driver.ts `unit`): each create wrote a piece of
 * index of its own and paid a step of the index's merging, a cost that grew with the calendar
 * (docs/benchmarks.md "The full-text index's merges and the page cache").
 *
 * Now the record table's triggers note the rows a write touched in a queue table, in the write's own
 * savepoint; the driver runs `fullTextDrain` at the end of every write transaction, before its commit and
 * outside every savepoint: the rows that were indexed before the transaction are taken out of the index,
 * those that exist now are put in with their texts as they are now, and the queue is emptied. The index
 * changes in the transaction that changed the records, so no committed state has one without the other,
 * whatever node or crash; only a read inside the open transaction (none of the store's do) could see a
 * record before its index does.
 * (No question mark in these texts: the driver numbers each `?` as a parameter.)
 */
import { FTS_SITE_STRIDE } from "./text-plans";

/** The rows of the record tables whose full-text rows are to be written before the commit. */
export const FULL_TEXT_QUEUE = "full_text_queue";

export interface FullTextTable {
  table: string;
  columns: readonly string[];
}

/** A record row's rowid in a full-text table (`r`: the row's name in the statement). */
export const ftsRow = (r: string): string => `${r}.site * ${FTS_SITE_STRIDE} + ${r}.id`;

/** A record row's folded texts, in the full-text table's column order. */
export const ftsValues = (r: string, fts: FullTextTable): string => fts.columns.map(c => `fold(json_extract(${r}.doc, '$.${c}'))`).join(", ");

/**
 * The queue and the record table's triggers that fill it, in place of those that wrote the index at once.
 * A queued row names the record table, the record's full-text rowid and whether the record was in the
 * index before this write (`indexed`: an update or a delete) or not (an insert).
 */
export function fullTextQueueStatements(record: string, fts: FullTextTable): string[] {
  const queued = (r: "new" | "old", indexed: 0 | 1) => `INSERT INTO ${FULL_TEXT_QUEUE} (tbl, rid, indexed) VALUES ('${record}', ${ftsRow(r)}, ${indexed});`;
  return [
    `CREATE TABLE IF NOT EXISTS ${FULL_TEXT_QUEUE} (seq INTEGER PRIMARY KEY, tbl TEXT NOT NULL, rid INTEGER NOT NULL, indexed INTEGER NOT NULL)`,
    ...["ai", "au", "ad"].map(x => `DROP TRIGGER IF EXISTS ${fts.table}_${x}`),
    `CREATE TRIGGER ${fts.table}_ai AFTER INSERT ON ${record} BEGIN ${queued("new", 0)} END`,
    // a record moved to another key leaves the old rowid and takes the new one
    `CREATE TRIGGER ${fts.table}_au AFTER UPDATE OF doc, site, id ON ${record} BEGIN ${queued("old", 1)} ` +
      `INSERT INTO ${FULL_TEXT_QUEUE} (tbl, rid, indexed) SELECT '${record}', ${ftsRow("new")}, 0 WHERE ${ftsRow("new")} <> ${ftsRow("old")}; END`,
    `CREATE TRIGGER ${fts.table}_ad AFTER DELETE ON ${record} BEGIN ${queued("old", 1)} END`
  ];
}

/**
 * The statements that bring the index up to the queue, in order, then empty it. A rowid's first entry in
 * the queue says whether it was in the index when the transaction began: only then is it taken out (a row
 * the index never held is not asked for). Its texts are read from the record as it stands now: a record
 * written twice is indexed once, a record made and removed in the transaction not at all.
 */
export function fullTextDrain(record: string, fts: FullTextTable): string[] {
  const cols = fts.columns.join(", ");
  const mine = `tbl = '${record}'`;
  // the rowids whose first entry is one of a record the index held
  const held = `SELECT rid FROM ${FULL_TEXT_QUEUE} WHERE ${mine} GROUP BY rid HAVING MIN(seq) = MIN(CASE WHEN indexed = 1 THEN seq END)`;
  return [
    `DELETE FROM ${fts.table} WHERE rowid IN (${held})`,
    // each record looked up by its key (the rowid is the site and the id)
    `INSERT INTO ${fts.table} (rowid, ${cols}) SELECT ${ftsRow("r")}, ${ftsValues("r", fts)} FROM (SELECT DISTINCT rid FROM ${FULL_TEXT_QUEUE} WHERE ${mine}) AS q ` +
      `CROSS JOIN ${record} AS r WHERE r.site = q.rid / ${FTS_SITE_STRIDE} AND r.id = q.rid % ${FTS_SITE_STRIDE}`,
    `DELETE FROM ${FULL_TEXT_QUEUE} WHERE ${mine}`
  ];
}

/** Whether the queue holds anything: the drain's statements run only then. */
export const FULL_TEXT_QUEUED = `SELECT EXISTS (SELECT 1 FROM ${FULL_TEXT_QUEUE}) AS queued`;
