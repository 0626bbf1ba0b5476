/**
 * Write marks (C62: totals from maintained counts): a number per site and counted table that every write of the rows a count
 * reads moves on, in the write's own transaction (triggers, whatever statement or node made the write).
 * A total read in the same statement as the mark stays the total for as long as the mark reads the same:
 * a committed write always moves it on, a rolled-back one takes its move back with it, and nothing takes
 * a mark back otherwise (a site's purge leaves its marks: store/sites.ts purges only what SITE_TABLES and
 * the record tables name). store/sql/collection.ts keeps its counts so (lib/documents/kept-totals.ts).
 *
 * The marks of a counted table are the sum of a few rows: on PostgreSQL a write moves a row no other
 * transaction holds, so no writer ever waits for another's (`write_mark`); SQLite has one writer at a
 * time and one row.
 *
 * (No question mark in these texts: the driver numbers each `?` as a parameter.)
 */
import type { Dialect } from "./driver";

export const WRITE_MARKS = "write_marks";

/** What a counted table's marks follow: the tables whose rows its counts read (links and full-text rows follow the events by their own triggers). */
export const MARKED: Readonly<Record<string, readonly string[]>> = {
  events: ["events", "translations"]
};

const upsert = (site: string, counted: string, shard: string) =>
  `INSERT INTO ${WRITE_MARKS} (site, counted, shard, n) VALUES (${site}, '${counted}', ${shard}, 1) ` +
  `ON CONFLICT (site, counted, shard) DO UPDATE SET n = ${WRITE_MARKS}.n + 1`;

function sqliteTriggers(counted: string, table: string): string[] {
  const name = (op: string) => `${table}_marks_${counted}_${op}`;
  return [
    `CREATE TRIGGER IF NOT EXISTS ${name("ai")} AFTER INSERT ON ${table} BEGIN ${upsert("new.site", counted, "0")}; END`,
    `CREATE TRIGGER IF NOT EXISTS ${name("au")} AFTER UPDATE ON ${table} BEGIN ${upsert("new.site", counted, "0")}; END`,
    `CREATE TRIGGER IF NOT EXISTS ${name("am")} AFTER UPDATE ON ${table} WHEN old.site IS NOT new.site BEGIN ${upsert("old.site", counted, "0")}; END`,
    `CREATE TRIGGER IF NOT EXISTS ${name("ad")} AFTER DELETE ON ${table} BEGIN ${upsert("old.site", counted, "0")}; END`
  ];
}

/** PostgreSQL: the trigger function moving the marks of `counted` on a write of `table`. */
const markFunction = (counted: string, table: string): string => `${table}_marks_${counted}`;

/** PostgreSQL: every mark trigger function, called as ALTER FUNCTION names them (migration 17 keeps their plans). */
export function markFunctions(): string[] {
  return ["write_mark(integer, text)", ...Object.entries(MARKED).flatMap(([counted, tables]) => tables.map(t => `${markFunction(counted, t)}()`))];
}

/**
 * PostgreSQL: moves a site's marks of one counted table on by one, never waiting for another transaction:
 * it takes a row of those marks no other transaction holds (`SKIP LOCKED`), or, when every row is held
 * (writers running side by side, or one holding its transaction open), adds a row of its own under a
 * random number. A row stays locked until its transaction ends, so a writer waiting on another's row
 * would wait for as long as that transaction runs (a transaction held open 30 s, or a long import).
 */
const MARK_FUNCTION = `CREATE OR REPLACE FUNCTION write_mark(s integer, c text) RETURNS void LANGUAGE plpgsql AS $wm$
DECLARE r tid;
BEGIN
  SELECT ctid INTO r FROM ${WRITE_MARKS} WHERE site = s AND counted = c FOR UPDATE SKIP LOCKED LIMIT 1;
  IF FOUND THEN
    UPDATE ${WRITE_MARKS} SET n = n + 1 WHERE ctid = r;
  ELSE
    INSERT INTO ${WRITE_MARKS} (site, counted, shard, n) VALUES (s, c, 1 + floor(random() * 2000000000)::integer, 1)
      ON CONFLICT (site, counted, shard) DO UPDATE SET n = ${WRITE_MARKS}.n + 1;
  END IF;
END $wm$`;

function postgresTriggers(counted: string, table: string): string[] {
  const fn = markFunction(counted, table);
  return [
    `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM write_mark(OLD.site, '${counted}'); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.site <> OLD.site) THEN PERFORM write_mark(NEW.site, '${counted}'); END IF;
  RETURN NULL;
END $fn$`,
    `DROP TRIGGER IF EXISTS ${fn} ON ${table}`,
    `CREATE TRIGGER ${fn} AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${fn}()`
  ];
}

/** The migration's statements: the marks' table and the triggers of every table a counted table's marks follow. */
export function writeMarkStatements(dialect: Dialect): string[] {
  const table = `CREATE TABLE IF NOT EXISTS ${WRITE_MARKS} (site INTEGER NOT NULL, counted TEXT NOT NULL, shard INTEGER NOT NULL, n BIGINT NOT NULL, ` +
    "PRIMARY KEY (site, counted, shard))";
  const triggers = Object.entries(MARKED).flatMap(([counted, tables]) =>
    tables.flatMap(t => (dialect === "sqlite" ? sqliteTriggers(counted, t) : postgresTriggers(counted, t))));
  return [table, ...(dialect === "postgres" ? [MARK_FUNCTION] : []), ...triggers];
}

/** A subquery answering the marks of `counted` for the site bound to its one `?`. */
export function marksOf(counted: string): string {
  return `(SELECT COALESCE(SUM(n), 0) FROM ${WRITE_MARKS} WHERE site = ? AND counted = '${counted}')`;
}

/**
 * The statement moving the marks of `counted` on for the site bound to its `?`: for writes made with
 * the triggers set aside (a bulk load), so that no total kept before them is taken for current.
 */
export function markWrittenStatement(counted: string): string {
  return upsert("?", counted, "0");
}
