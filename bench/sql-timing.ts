/**
 * Loaded into the service by bench/profile.ts (`node -r`, BENCH_SQL_TIMES set to a file): the time of each
 * SQL statement summed by its text, written to that file as JSON when the process exits. It wraps the
 * drivers' public calls only: better-sqlite3's statements (`run`, `all`, `get`, `iterate`: the CPU of the
 * statement on the event loop) and pg's `Client#query` (the wall time from the call to its answer, waiting
 * on the server included). Nothing else changes; without BENCH_SQL_TIMES it does nothing.
 */
import * as fs from "fs";

interface Tally { calls: number; ms: number }

const out = process.env.BENCH_SQL_TIMES;
const tally = new Map<string, Tally>();

function note(sql: unknown, t0: number): void {
  const key = String(sql ?? "?").replace(/\s+/g, " ").trim();
  const t = tally.get(key) ?? { calls: 0, ms: 0 };
  t.calls++;
  t.ms += performance.now() - t0;
  tally.set(key, t);
}

type Fn = (...args: unknown[]) => unknown;

function timeSqlite(): void {
  const Database = require("better-sqlite3") as { prototype: { prepare: Fn } };
  const prepare = Database.prototype.prepare;
  let wrapped = false;
  Database.prototype.prepare = function (this: unknown, ...args: unknown[]) {
    const statement = prepare.apply(this, args) as object;
    if (!wrapped) {
      wrapped = true;
      const proto = Object.getPrototypeOf(statement) as Record<string, Fn>;
      for (const m of ["run", "all", "get", "iterate"]) {
        const f = proto[m];
        proto[m] = function (this: { source: string }, ...a: unknown[]) {
          const t0 = performance.now();
          try {
            return f.apply(this, a);
          } finally {
            note(this.source, t0);
          }
        };
      }
    }
    return statement;
  };
}

function timePostgres(): void {
  const { Client } = require("pg") as { Client: { prototype: { query: Fn } } };
  const query = Client.prototype.query;
  Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now();
    const c = args[0] as string | { text?: string };
    const text = typeof c === "string" ? c : c?.text;
    const last = args.length - 1;
    if (typeof args[last] === "function") {
      const cb = args[last] as Fn;
      args[last] = (...r: unknown[]) => {
        note(text, t0);
        return cb(...r);
      };
      return query.apply(this, args);
    }
    const answer = query.apply(this, args) as Promise<unknown> | undefined;
    if (answer && typeof answer.then === "function") answer.then(() => note(text, t0), () => note(text, t0));
    return answer;
  };
}

if (out) {
  timeSqlite();
  timePostgres();
  process.on("exit", () => fs.writeFileSync(out, JSON.stringify([...tally].map(([sql, t]) => ({ sql, ...t })))));
}
