/**
 * Opt-in timing of SQL statements, for profiling only (bench/profile.ts): with `SQL_STATEMENT_TIMES` set to
 * a file path, the drivers of store/sql/driver.ts time each data statement they run (SQLite: the statement's
 * time on the event loop; PostgreSQL: from the call to its answer, the server's wait included), summed by
 * the statement's text, and the totals are written to that file as JSON when the process exits. Unset, the
 * drivers run their statements untimed. SQLite's statements also note the process's CPU time they took
 * (`cpuMs`): on a machine shared with other work the wall time includes the waits for a core, which grow
 * and shrink with the neighbours' load, while the CPU time is the statement's own.
 */
import * as fs from "fs";

interface Tally { calls: number; ms: number; cpuMs?: number }

const file = process.env.SQL_STATEMENT_TIMES;
const tallies = new Map<string, Tally>();

function note(sql: string, startedAt: number, cpuAt?: NodeJS.CpuUsage): void {
  const t = tallies.get(sql) ?? { calls: 0, ms: 0 };
  t.calls++;
  t.ms += performance.now() - startedAt;
  if (cpuAt) {
    const used = process.cpuUsage(cpuAt);
    t.cpuMs = (t.cpuMs ?? 0) + (used.user + used.system) / 1000;
  }
  tallies.set(sql, t);
}

/** Runs `run` (a statement's synchronous execution), noting its time under `sql` when timing is on. */
export function timedSync<T>(sql: string, run: () => T): T {
  if (!file) return run();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  try {
    return run();
  } finally {
    note(sql, t0, cpu0);
  }
}

/** Awaits `run` (a statement sent to the server), noting its time under `sql` when timing is on. */
export async function timedAsync<T>(sql: string, run: () => Promise<T>): Promise<T> {
  if (!file) return run();
  const t0 = performance.now();
  try {
    return await run();
  } finally {
    note(sql, t0);
  }
}

if (file) {
  process.on("exit", () => fs.writeFileSync(file, JSON.stringify([...tallies].map(([sql, t]) => ({ sql: sql.replace(/\s+/g, " ").trim(), ...t })))));
}
