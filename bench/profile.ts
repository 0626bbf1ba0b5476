/**
 * Where a row's time goes (the rows that miss their targets in docs/benchmarks.md): the service started from dist/ with
 * `node --cpu-prof` and its SQL statements timed (store/sql/statement-times.ts), under one row of bench/speed.ts's table, stopped; then
 * its profile summed up: the server's own CPU per request, the share of the busy time in each part (the
 * project's files by folder, each package, the engine's native work, the garbage collector), the functions
 * with the most time of their own and with the most time under them, and the SQL statements with the most
 * time (summed by text, with their calls).
 *
 * `npm run bench:profile` (docs/benchmarks.md "Profiling a row"): PROFILE_ROW (parts of row names,
 * separated by `;`, as BENCH_ROWS takes them, or `all`: each row profiled in turn on one calendar), PROFILE_STORE (sqlite), PROFILE_SIZE (10000; the calendar seeded as bench/speed.ts
 * seeds it, BENCH_API_UP_TO included), PROFILE_SECONDS (10), PROFILE_CONNECTIONS (BENCH_CONNECTIONS, 32);
 * `creates` (or `all`) profiles the creates with links on top as well (PROFILE_CREATES of them, 2 000,
 * after 100 to warm up); PROFILE_KEEP keeps each profile's folder (the .cpuprofile and sql.json);
 * PROFILE_SQL (`off`: the statements untimed), PROFILE_CALENDARS (a folder: the seeded calendar is kept there, its store left in place, and profiled
 * again next time without seeding).
 * The row's cache setting and writes are its own (the read mixes: cache on, their writes beside).
 * Writes bench/results/profile-<row>-<store>-<size>.txt.
 *
 * `node dist/bench/profile.js <label> <path>...` profiles given paths on a store that already holds a
 * calendar (DATA_DIR or DATABASE_URL in the environment), CACHER off unless set, PROFILE_WRITES title
 * writes per second of events PROFILE_IDS (`first-last`); it writes bench/results/profile-<label>.txt.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { benchStore, load, ROOT, settle, startServer, StoreKind } from "./common";
import { Calendar, create, Creates, grow, growStraight, primed, RowDef, rowDefs } from "./speed";
import { writesBeside } from "./writes-beside";

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; hitCount?: number; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

/** The part of the process a frame belongs to. */
function partOf(f: CallFrame): string {
  const u = f.url;
  // better-sqlite3's native statement work shows under the driver's frames that call it
  if (/\/dist\/store\/sql\/driver\.js$/.test(u)) return "store/sql/driver.ts (SQLite's native statement work shows here)";
  if (!u) return f.functionName.startsWith("(") ? f.functionName : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  if (pkg) return pkg[1];
  const own = /\/dist\/([^/]+)\//.exec(u);
  if (own) return `project ${own[1]}/`;
  if (u.startsWith("node:")) return "node internals";
  return u;
}

/** The address both services of a primed row answer for (its answers name it; no request goes there). */
const PRIMED_BASE_URL = "http://calendar.bench.test";

const name = (f: CallFrame) => `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(node_modules|dist)\//, "$1/")}:${f.lineNumber + 1}`;

export function summarise(p: CpuProfile, requests: number): string[] {
  const byId = new Map(p.nodes.map(n => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const total = new Map<number, number>();
  const sum = (id: number): number => {
    const n = byId.get(id)!;
    const t = (self.get(id) ?? 0) + (n.children ?? []).reduce((a, c) => a + sum(c), 0);
    total.set(id, t);
    return t;
  };
  sum(p.nodes[0].id);
  let busy = 0;
  const parts = new Map<string, number>();
  const selfBy = new Map<string, number>();
  for (const n of p.nodes) {
    const t = self.get(n.id) ?? 0;
    if (n.callFrame.functionName === "(idle)") continue;
    busy += t;
    parts.set(partOf(n.callFrame), (parts.get(partOf(n.callFrame)) ?? 0) + t);
    selfBy.set(name(n.callFrame), (selfBy.get(name(n.callFrame)) ?? 0) + t);
  }
  // time under each project function, counted once per stack (its outermost frame on a stack)
  const under = new Map<string, number>();
  const walk = (id: number, open: Set<string>) => {
    const n = byId.get(id)!;
    const k = name(n.callFrame);
    const own = /\/dist\//.test(n.callFrame.url) && !open.has(k);
    if (own) under.set(k, (under.get(k) ?? 0) + total.get(id)!);
    const next = own ? new Set(open).add(k) : open;
    for (const c of n.children ?? []) walk(c, next);
  };
  walk(p.nodes[0].id, new Set());
  const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)} %`;
  const top = (m: Map<string, number>, k: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k);
  const wall = (p.endTime - p.startTime) / 1e6;
  return [
    `profiled ${wall.toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s, ${requests} requests: ${requests ? Math.round(busy / requests) : 0} µs of server CPU each`,
    "", "busy time by part:", ...top(parts, 14).map(([k, t]) => `  ${pct(t)}  ${k}`),
    "", "most time of their own:", ...top(selfBy, 18).map(([k, t]) => `  ${pct(t)}  ${k}`),
    "", "project functions with most time under them:", ...top(under, 22).map(([k, t]) => `  ${pct(t)}  ${k}`)
  ];
}

interface SqlTime { sql: string; calls: number; ms: number }

/** The statements with the most time, summed by text (store/sql/statement-times.ts). */
function sqlLines(file: string, requests: number): string[] {
  if (!fs.existsSync(file)) return ["", "SQL statements: none timed (store/sql/statement-times.ts wrote nothing)"];
  const times = (JSON.parse(fs.readFileSync(file, "utf8")) as SqlTime[]).sort((a, b) => b.ms - a.ms);
  const total = times.reduce((a, t) => a + t.ms, 0);
  return [
    "", `SQL statements by total time (${times.reduce((a, t) => a + t.calls, 0)} calls, ${(total / 1000).toFixed(1)} s in all, ${requests ? Math.round((1000 * total) / requests) : 0} µs a request; SQLite: on the event loop, PostgreSQL: call to answer):`,
    ...times.slice(0, 15).map(t => `  ${(t.ms / 1000).toFixed(2).padStart(7)} s ${String(t.calls).padStart(8)} calls ${((1000 * t.ms) / t.calls).toFixed(0).padStart(7)} µs each  ${t.sql.slice(0, 220)}`)
  ];
}

/** The service under `paths` (cycling) with `--cpu-prof` and SQL timing; the summary's lines. */
async function profiled(env: Record<string, string>, next: () => string, o: { seconds: number; connections: number; rate: number; ids: readonly number[] }): Promise<string[]> {
  return profiledBy(env, async base => {
    await load(base, { connections: 4, duration: 2, path: next });
    await settle(base);
    const during = load(base, { connections: o.connections, duration: o.seconds, path: next });
    const { result: m, writes } = await writesBeside(base, o.ids, o.rate, during);
    return {
      requests: m.completed + Math.round((writes?.perSec ?? 0) * o.seconds),
      measured: `${m.rps} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms over ${m.completed} requests${m.errors + m.non2xx ? ` (${m.errors + m.non2xx} failed)` : ""}${writes ? `; writes ${writes.perSec}/s, p50 ${writes.p50}, p99 ${writes.p99} ms` : ""}`
    };
  });
}

/** The service with `--cpu-prof` and SQL timing under what `drive` sends it; the summary's lines. */
async function profiledBy(env: Record<string, string>, drive: (base: string) => Promise<{ requests: number; measured: string }>): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-profile-"));
  const sqlFile = path.join(dir, "sql.json");
  const prior = process.env.BENCH_NODE_ARGS;
  process.env.BENCH_NODE_ARGS = `${prior ?? ""} --cpu-prof --cpu-prof-dir=${dir}`;
  let requests = 0;
  let measured = "";
  try {
    // PROFILE_SQL=off: statements untimed (the timing's own clock reads are then not in the profile)
    const server = await startServer(process.env.PROFILE_SQL === "off" ? env : { ...env, SQL_STATEMENT_TIMES: sqlFile });
    try {
      ({ requests, measured } = await drive(server.base));
      process.stderr.write(`  ${measured}\n`);
    } finally {
      await server.stop();
    }
  } finally {
    if (prior === undefined) delete process.env.BENCH_NODE_ARGS;
    else process.env.BENCH_NODE_ARGS = prior;
  }
  const file = fs.readdirSync(dir).find(f => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile written in ${dir}`);
  // the warm-up's requests are in the profile too: their share is small beside the measured load's
  const lines = [measured, ...summarise(JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as CpuProfile, requests), ...sqlLines(sqlFile, requests)];
  // PROFILE_KEEP: the profile and the statement times kept (their folder named on stderr), to be read further
  if (process.env.PROFILE_KEEP) process.stderr.write(`  kept in ${dir}\n`);
  else fs.rmSync(dir, { recursive: true, force: true });
  return lines;
}

function write(name: string, lines: string[]): void {
  const text = lines.join("\n");
  console.log(text);
  fs.mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
  fs.writeFileSync(path.join(ROOT, "bench", "results", `profile-${name}.txt`), `${text}\n`);
}

/** The given paths on the store the environment names (the older form). */
async function paths(label: string, list: string[]): Promise<void> {
  let i = 0;
  const [first, last] = (process.env.PROFILE_IDS ?? "1-1").split("-").map(Number);
  const lines = await profiled({ CACHER: process.env.CACHER ?? "off" }, () => list[i++ % list.length], {
    seconds: Number(process.env.PROFILE_SECONDS ?? 10), connections: Number(process.env.PROFILE_CONNECTIONS ?? 8), rate: Number(process.env.PROFILE_WRITES ?? 0),
    ids: Array.from({ length: last - first + 1 }, (_, k) => first + k)
  });
  write(label, [`${label} (${new Date().toISOString()}; ${list.length} paths, e.g. ${list[0]})`, ...lines]);
}

/** One row of bench/speed.ts on a calendar of its size seeded as that bench seeds it. */
async function row(): Promise<void> {
  const wanted = (process.env.PROFILE_ROW ?? "").toLowerCase().split(";").map(w => w.trim()).filter(Boolean);
  const kind = (process.env.PROFILE_STORE ?? "sqlite") as StoreKind;
  const size = Number(process.env.PROFILE_SIZE ?? 10000);
  if (!wanted.length) throw new Error("PROFILE_ROW: parts of row names of bench/speed.ts, separated by `;` (e.g. \"default list;search, single\"), or \"all\"");
  // PROFILE_CALENDARS: a folder where the seeded calendar is kept (its store and its ids) and found again next time
  const kept = process.env.PROFILE_CALENDARS ? path.join(process.env.PROFILE_CALENDARS, `calendar-${kind}-${size}.json`) : undefined;
  const found = kept && fs.existsSync(kept) ? (JSON.parse(fs.readFileSync(kept, "utf8")) as { env: Record<string, string>; calendar: Calendar }) : undefined;
  const store = found ? { env: found.env, drop: async () => undefined } : await benchStore(kind, "profile");
  try {
    const c: Calendar = found?.calendar ?? { venues: [], organizers: [], categories: [], tags: [], eventIds: [] };
    if (!found) {
      const t0 = Date.now();
      const server = await startServer(store.env);
      try {
        await grow(server.base, c, size, [] as Creates[]);
      } finally {
        await server.stop();
      }
      await growStraight(kind, store.env, c, size);
      process.stderr.write(`  ${kind}: ${c.eventIds.length} events seeded in ${Math.round((Date.now() - t0) / 1000)} s\n`);
      if (kept) {
        fs.mkdirSync(path.dirname(kept), { recursive: true });
        fs.writeFileSync(kept, JSON.stringify({ env: store.env, calendar: c }));
        store.drop = async () => undefined;
      }
    }
    const defs: RowDef[] = rowDefs(c, name => wanted.includes("all") || wanted.some(w => name.toLowerCase().includes(w)));
    const creates = wanted.some(w => w === "all" || "creates with links".includes(w));
    if (!defs.length && !creates) throw new Error(`no row of bench/speed.ts named like "${wanted.join(", ")}"`);
    // one calendar, each row profiled in turn (a service of its own each)
    for (const d of defs) {
      process.stderr.write(`  ${d.name}\n`);
      const cached = d.rate !== undefined;
      const env: Record<string, string> = cached ? { ...store.env } : { ...store.env, CACHER: "off", ...d.env };
      // A row read after a first read of every event (the stored renderings): its renderings are kept for
      // the address the calendar is read at (docs/caching.md#stored-renderings), so both services are given
      // one address, and the first reads are made by a service of their own, outside the profile.
      if (d.prime) {
        env.BASE_URL = PRIMED_BASE_URL;
        const primer = await startServer(env);
        try {
          await primed(primer.base, d.prime());
        } finally {
          await primer.stop();
        }
      }
      const lines = await profiled(env, d.next, {
        seconds: Number(process.env.PROFILE_SECONDS ?? 10), connections: Number(process.env.PROFILE_CONNECTIONS ?? process.env.BENCH_CONNECTIONS ?? 32), rate: d.rate ?? 0, ids: c.eventIds
      });
      const slug = d.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
      write(`${slug}-${kind}-${size}`, [`${d.name}, ${kind}, ${c.eventIds.length} events, cache ${cached ? "on" : "off"} (${new Date().toISOString()}; e.g. ${d.next()})`, ...lines]);
    }
    // the creates on top, as bench/speed.ts makes them (PROFILE_CREATES of them, 100 first to warm up)
    if (creates) {
      process.stderr.write("  creates with links\n");
      const count = Number(process.env.PROFILE_CREATES ?? process.env.BENCH_CREATES ?? 2000);
      const clients = Number(process.env.PROFILE_CONNECTIONS ?? process.env.BENCH_CONNECTIONS ?? 32);
      const lines = await profiledBy(store.env, async base => {
        await create(base, c, 100, clients, "warm-up");
        const d = await create(base, c, count, clients, "profiled");
        return { requests: count + 100, measured: `${d.perSec} creates/s, p50 ${d.p50} ms, p99 ${d.p99} ms over ${count} creates (${clients} clients; the 100 of the warm-up in the profile too)` };
      });
      write(`creates-with-links-${kind}-${size}`, [`creates with links, ${kind}, ${size} events and on, cache on (${new Date().toISOString()})`, ...lines]);
    }
  } finally {
    await store.drop();
  }
}

async function main(): Promise<void> {
  const [label, ...list] = process.argv.slice(2);
  if (label) {
    if (!list.length) throw new Error("usage: node dist/bench/profile.js <label> <path>...");
    return paths(label, list);
  }
  return row();
}

if (require.main === module) {
  main().catch(err => {
    console.error(err);
    process.exit(1);
  });
}
