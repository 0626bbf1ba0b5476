/**
 * The planner's statistics on SQLite, kept without their samples. ANALYZE (and `PRAGMA optimize`, which
 * runs it) writes the row counts of each index (sqlite_stat1), by which the planner chooses a list's index —
 * its date range or the link table (docs/lists.md#event-filters) — and, as better-sqlite3 builds SQLite,
 * samples of each index's keys (sqlite_stat4). With samples there, SQLite compiles a statement again
 * before every run whose bound values it could look up in them: each list's date range, each count, each
 * stored rendering's key. That compiling cost several times the statement's own work (docs/benchmarks.md
 * "Statements compiled once"). The samples are removed after every analysis and the statistics read again,
 * so the planner chooses by the row counts alone and a prepared statement stays compiled.
 */
import type { SqlRunner } from "./runner";

/** Runs `analysis` (an ANALYZE or a `PRAGMA optimize`), then removes the samples it wrote and reloads the statistics. */
export async function analyzedWithoutSamples(driver: Pick<SqlRunner, "all" | "run">, analysis: string): Promise<void> {
  await driver.run(analysis);
  const [samples] = await driver.all<{ n: number | string }>("SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = 'sqlite_stat4'");
  if (!Number(samples.n)) return;
  await driver.run("DELETE FROM sqlite_stat4");
  await driver.run("ANALYZE sqlite_schema");
}
