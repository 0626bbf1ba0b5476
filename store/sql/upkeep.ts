/**
 * PostgreSQL upkeep where the server's autovacuum is off (README "Scaling out", docs/lists.md#counting-a-list):
 * the store vacuums its own tables, with the thresholds autovacuum would use. Without it nothing ever
 * vacuums them: every term count update leaves a dead version of the term (it changes the document all
 * the terms indexes are built on, so it is never a HOT update) and its index entries, no count is read
 * from an index alone (no visibility map), and the trigram indexes keep their pending lists. Where
 * autovacuum runs, this does nothing.
 */
import type { SqlRunner } from "./runner";

/** How often each node looks (the tables it finds due are vacuumed by whichever node gets there first). */
export const UPKEEP_EVERY_MS = 60_000;

/** The tables of this schema that autovacuum's default thresholds would vacuum now (dead or inserted rows). */
const DUE =
  "SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema() " +
  "AND (n_dead_tup > 50 + n_live_tup / 5 OR n_ins_since_vacuum > 1000 + n_live_tup / 5) ORDER BY relname";

/** Vacuums (and analyzes) the tables that are due when autovacuum is off; answers their names. */
export async function vacuumWhereNeeded(driver: SqlRunner): Promise<string[]> {
  if (driver.dialect !== "postgres") return [];
  const [setting] = await driver.all<{ autovacuum: string }>("SELECT current_setting('autovacuum') AS autovacuum");
  if (setting?.autovacuum !== "off") return [];
  const due = (await driver.all<{ relname: string }>(DUE)).map(r => r.relname).filter(name => /^[a-z_][a-z0-9_]*$/.test(name));
  // SKIP_LOCKED: a table another node is vacuuming right now is left to it
  for (const name of due) await driver.run(`VACUUM (ANALYZE, SKIP_LOCKED) ${name}`);
  return due;
}
