/**
 * The server's CPU per request of a few rows, for comparing two builds of the request path:
 * a calendar seeded once as bench/speed.ts seeds it (kept in a store of its own), then for each row and
 * each build in turn, BENCH_REPEATS times (2): the service started with the cache off (from this checkout's
 * dist/, or the checkout BENCH_BASE names, built), 2 s of warm-up, then BENCH_DURATION seconds (5) at
 * BENCH_CONNECTIONS (32); the process's CPU (user + system, /proc/<pid>/stat) over the measured requests,
 * and the load generator's own CPU per request beside it (it shares the machine's cores); on PostgreSQL the
 * server's processes' CPU per request too (a local server: its backends share the cores as well).
 *
 * Process CPU is what the profiles' busy time misreads on a loaded machine: a sampled `writev` counts the
 * time the process waited for a core after waking the client.
 *
 * `BENCH_BASE=<checkout with dist/> BENCH_STORES=sqlite,postgres BENCH_SIZE=2000 node dist/bench/request-cpu.js`;
 * rows: `/health/live`, the single event by random id and the filtered list of bench/speed.ts, or those
 * BENCH_ROWS names (parts of bench/speed.ts's row names, separated by `;`; a row's own settings and the
 * paths it reads first are its own). Writes bench/results/request-cpu-<stores>.txt.
 */
import * as fs from "fs";
import * as path from "path";
import { benchStore, load, ROOT, startServer, StoreKind } from "./common";
import { Calendar, grow, primed, rowDefs, type RowDef } from "./speed";

const STORES = (process.env.BENCH_STORES ?? "sqlite").split(",").map(s => s.trim()).filter(Boolean) as StoreKind[];
const SIZE = Number(process.env.BENCH_SIZE ?? 2000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 2);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const BASE = process.env.BENCH_BASE;
const ROWS = (process.env.BENCH_ROWS ?? "/health/live;single event;filtered list").split(";").map(r => r.trim()).filter(Boolean);

/** User + system CPU of a process so far, in µs (Linux). */
function cpuMicros(pid: number | string): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

/**
 * The CPU so far of every process of this machine's PostgreSQL server (its backends, one per connection,
 * and its own workers), in µs, keyed by pid. A backend that ends between two readings is missed (the
 * service's idle connections stay open for seconds); one that starts between them is counted whole, its
 * start included.
 */
function databaseCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of fs.readdirSync("/proc").filter(p => /^\d+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres") out.set(pid, cpuMicros(pid));
    } catch {
      // gone between the listing and the reading
    }
  }
  return out;
}

/** The CPU the server's processes spent between two readings, in µs (a process new since the first counted whole). */
function databaseCpuSince(before: Map<string, number>): number {
  let sum = 0;
  for (const [pid, us] of databaseCpu()) sum += us - (before.get(pid) ?? 0);
  return sum;
}

async function measure(env: Record<string, string>, d: RowDef, kind: StoreKind): Promise<string> {
  const next = d.next;
  const server = await startServer({ ...env, ...(d.env ?? {}), CACHER: "off" });
  try {
    if (d.prime) await primed(server.base, d.prime());
    await load(server.base, { connections: 4, duration: 2, path: next });
    const pid = server.child.pid!;
    const db0 = kind === "postgres" ? databaseCpu() : undefined;
    const c0 = cpuMicros(pid);
    const l0 = process.cpuUsage();
    const m = await load(server.base, { connections: CONNECTIONS, duration: DURATION, path: next });
    const serverUs = (cpuMicros(pid) - c0) / m.completed;
    const l = process.cpuUsage(l0);
    const dbUs = db0 ? `; database CPU ${(databaseCpuSince(db0) / m.completed).toFixed(1)} µs` : "";
    return `${m.rps} req/s, p50 ${m.p50} p99 ${m.p99} ms; server CPU ${serverUs.toFixed(1)} µs a request${dbUs}; load generator ${((l.user + l.system) / m.completed).toFixed(1)} µs`;
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const lines: string[] = [`request CPU (${new Date().toISOString()}; ${SIZE} events, ${CONNECTIONS} connections, ${DURATION} s a measure; base ${BASE ?? "none"})`];
  const say = (line: string) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  };
  for (const kind of STORES) {
    const store = await benchStore(kind, "request-cpu");
    try {
      const c: Calendar = { venues: [], organizers: [], categories: [], tags: [], eventIds: [] };
      const server = await startServer(store.env);
      try {
        await grow(server.base, c, SIZE, []);
      } finally {
        await server.stop();
      }
      for (const d of rowDefs(c, name => ROWS.some(r => name.includes(r)))) {
        for (let i = 1; i <= REPEATS; i++) {
          if (BASE) say(`${kind} ${d.name} #${i} base:   ${await measure({ ...store.env, BENCH_SERVER_ROOT: BASE }, d, kind)}`);
          say(`${kind} ${d.name} #${i} branch: ${await measure(store.env, d, kind)}`);
        }
      }
    } finally {
      await store.drop();
    }
  }
  fs.writeFileSync(path.join(ROOT, "bench", "results", `request-cpu-${STORES.join("-")}.txt`), `${lines.join("\n")}\n`);
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
