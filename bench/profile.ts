/**
 * Where an uncached row's time goes (issue 43's rows that miss their targets): the service started from
 * dist/ with `node --cpu-prof` on a store that already holds a calendar, loaded with the given paths
 * (cycling) for a while, stopped; then its profile summed up: the server's own CPU per request, the share of
 * the busy time in each part (the project's files by folder, each package, the engine's native work, the
 * garbage collector), and the functions with the most time of their own and with the most time under them.
 *
 * `node dist/bench/profile.js <label> <path>...` with the store's settings in the environment (DATA_DIR, or
 * DATABASE_URL); PROFILE_SECONDS (10), PROFILE_CONNECTIONS (8), CACHER (off unless set), PROFILE_WRITES
 * (title writes per second beside the load, bench/writes-beside.ts) of events PROFILE_IDS (`first-last`). Prints the summary
 * and writes it to bench/results/profile-<label>.txt.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { load, ROOT, settle, startServer } from "./common";
import { writesBeside } from "./writes-beside";

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; hitCount?: number; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

/** The part of the process a frame belongs to. */
function partOf(f: CallFrame): string {
  const u = f.url;
  if (!u) return f.functionName.startsWith("(") ? f.functionName : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  if (pkg) return pkg[1];
  const own = /\/dist\/([^/]+)\//.exec(u);
  if (own) return `project ${own[1]}/`;
  if (u.startsWith("node:")) return "node internals";
  return u;
}

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

async function main(): Promise<void> {
  const [label, ...paths] = process.argv.slice(2);
  if (!label || !paths.length) throw new Error("usage: node dist/bench/profile.js <label> <path>...");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-profile-"));
  const server = await startServer({ CACHER: process.env.CACHER ?? "off", BENCH_NODE_ARGS: `--cpu-prof --cpu-prof-dir=${dir}` } as Record<string, string>);
  let requests = 0;
  try {
    let i = 0;
    const next = () => paths[i++ % paths.length];
    await load(server.base, { connections: 4, duration: 2, path: next });
    await settle(server.base);
    const [first, last] = (process.env.PROFILE_IDS ?? "1-1").split("-").map(Number);
    const ids = Array.from({ length: last - first + 1 }, (_, k) => first + k);
    const during = load(server.base, { connections: Number(process.env.PROFILE_CONNECTIONS ?? 8), duration: Number(process.env.PROFILE_SECONDS ?? 10), path: next });
    const { result: m, writes } = await writesBeside(server.base, ids, Number(process.env.PROFILE_WRITES ?? 0), during);
    requests = m.completed + Math.round((writes?.perSec ?? 0) * Number(process.env.PROFILE_SECONDS ?? 10));
    process.stderr.write(`${label}: ${m.rps} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms over ${m.completed} requests${writes ? `; writes ${writes.perSec}/s, p50 ${writes.p50}, p99 ${writes.p99} ms` : ""}\n`);
  } finally {
    await server.stop();
  }
  const file = fs.readdirSync(dir).find(f => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile written in ${dir}`);
  // the warm-up's requests are in the profile too: their share is small beside the measured load's
  const lines = [`${label} (${new Date().toISOString()}; ${paths.length} paths, e.g. ${paths[0]})`, ...summarise(JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as CpuProfile, requests)];
  const text = lines.join("\n");
  console.log(text);
  fs.writeFileSync(path.join(ROOT, "bench", "results", `profile-${label}.txt`), `${text}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
}

if (require.main === module) {
  main().catch(err => {
    console.error(err);
    process.exit(1);
  });
}
