/**
 * What the benches share: a store of their own (a SQLite directory or a PostgreSQL database, dropped
 * afterwards), the service started from dist/ on a port, readiness, load through autocannon, the raw
 * node:http baseline of the same run (C47: what the bench measures) and resident memory.
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Client } from "pg";
import { freePort } from "./free-port";

// autocannon has no bundled types
 
const autocannon = require("autocannon");

export const ROOT = path.resolve(__dirname, "..", "..");
export const KEY = "bench-admin";
export const NS = "/wp-json/calendar/events/v1";
export const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export type StoreKind = "sqlite" | "postgres";

export interface BenchStore {
  kind: StoreKind;
  /** The settings that point the service at it. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

async function adminQuery(sql: string): Promise<void> {
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** An empty store of that kind for one bench case. */
export async function benchStore(kind: StoreKind, label: string): Promise<BenchStore> {
  if (kind === "postgres") {
    const name = `calendar_bench_${label}_${process.pid}`.replace(/[^a-z0-9_]/g, "_");
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await adminQuery(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    return { kind, env: { DATABASE_URL: url.toString(), DATA_DIR: ":memory:" }, drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${label}-`));
  return { kind, env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface Server {
  child: ChildProcess;
  base: string;
  stop(): Promise<void>;
}

/** The service (dist/server.js) on a free port of 127.0.0.1, answered once `readyPath` answers 200. */
export async function startServer(env: Record<string, string>, o: { readyPath?: string; readyTimeoutMs?: number } = {}): Promise<Server> {
  const port = await freePort();
  // another build's service when asked (BENCH_SERVER_ROOT: a checkout with its dist/, bench/search.ts)
  const root = env.BENCH_SERVER_ROOT || ROOT;
  // as `npm start` runs it: with its heap limit (HEAP_MB, default 512)
  const child = spawn(process.execPath, [`--max-old-space-size=${process.env.HEAP_MB || 512}`, ...(process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean), path.join(root, "dist", "server.js")], {
    cwd: root,
    env: { ...process.env, API_KEYS: `${KEY}:administrator:1`, METRICS_PORT: "0", LOG_LEVEL: "warn", HOST: "127.0.0.1", PORT: String(port), ...env },
    stdio: ["ignore", "ignore", "inherit"]
  });
  const base = `http://127.0.0.1:${port}`;
  const stop = await stoppableOnceReady(child, `${base}${o.readyPath ?? "/health/ready"}`, o.readyTimeoutMs ?? 180_000);
  return { child, base, stop };
}

/** Waits until `readyUrl` answers 200 and gives the stop of `child` (SIGTERM, resolved on exit); stops it when it never gets ready. */
export async function stoppableOnceReady(child: ChildProcess, readyUrl: string, timeoutMs: number): Promise<() => Promise<void>> {
  const stop = () => new Promise<void>(resolve => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
  try {
    await waitFor(readyUrl, timeoutMs);
  } catch (err) {
    await stop();
    throw err;
  }
  return stop;
}

export async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch { /* not yet */ }
    await new Promise(r => setTimeout(r, 20));
  }
  throw new Error(`${url} not ready`);
}

/**
 * Waits until the server has answered what it still had queued when a load stopped (a slow case leaves
 * requests in progress that would slow the next one down): a cheap request answered fast twice in a row.
 */
export async function settle(base: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let fast = 0;
  while (fast < 2 && Date.now() < until) {
    const t = Date.now();
    await fetch(`${base}/health/live`).catch(() => undefined);
    fast = Date.now() - t < 20 ? fast + 1 : 0;
    await new Promise(r => setTimeout(r, 50));
  }
}

/** `completed`: requests answered within the window. */
export interface Measure { rps: number; p50: number; p99: number; mean: number; errors: number; non2xx: number; completed: number }

export interface LoadOptions {
  connections: number;
  duration: number;
  /** A path per request (a mix, ids cycling); the URL's own path otherwise. */
  path?: () => string;
}

/** The part of autocannon's result the benches read. */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; mean: number };
  errors: number;
  non2xx: number;
}

export function load(url: string, o: LoadOptions): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const requests = o.path ? [{ method: "GET", setupRequest: (req: Record<string, unknown>) => ({ ...req, path: o.path!() }) }] : undefined;
    autocannon({ url, connections: o.connections, duration: o.duration, requests }, (err: Error, r: AutocannonResult) => {  
      if (err) return reject(err);
      resolve({ rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, mean: +r.latency.mean.toFixed(3), errors: r.errors, non2xx: r.non2xx, completed: r.requests.total });
    });
  });
}

/** The baseline (C47: what the bench measures): a raw node:http server of its own process answering `body` as JSON; the faster of two runs. */
export async function baseline(body: string, o: LoadOptions): Promise<Measure> {
  const file = path.join(os.tmpdir(), `bench-baseline-${process.pid}.json`);
  fs.writeFileSync(file, body);
  const port = await freePort();
  const code = `const http=require("http");const b=require("fs").readFileSync(${JSON.stringify(file)});http.createServer((q,s)=>{s.writeHead(200,{"Content-Type":"application/json; charset=utf-8","Content-Length":b.length});s.end(b)}).listen(${port},"127.0.0.1")`;
  const child = spawn(process.execPath, ["-e", code], { stdio: "ignore" });
  try {
    await new Promise(r => setTimeout(r, 400));
    const a = await load(`http://127.0.0.1:${port}/`, o);
    const b = await load(`http://127.0.0.1:${port}/`, o);
    return a.rps >= b.rps ? a : b;
  } finally {
    child.kill();
    fs.rmSync(file, { force: true });
  }
}

export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** CPU time a process has used so far (user and system), in ms, from /proc (Linux). */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  // utime and stime: the 14th and 15th fields of the line, in clock ticks (100 a second)
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export function percentile(xs: readonly number[], p: number): number {
  if (!xs.length) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** Runs `work(i)` for i < count with `width` in flight; answers the rate (per second). */
export async function inParallel(count: number, work: (i: number) => Promise<void>, width = 32, label?: string): Promise<number> {
  let next = 0;
  let done = 0;
  const started = Date.now();
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) {
      const i = next++;
      await work(i);
      done++;
      if (label && (done % 1000 === 0 || done === count)) process.stderr.write(`\r  ${label} ${done}/${count}${done === count ? "\n" : ""}`);
    }
  }));
  return count / ((Date.now() - started) / 1000);
}

export async function post(base: string, route: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${NS}${route}`, { method: "POST", headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (res.status !== 200 && res.status !== 201) throw new Error(`POST ${route}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}
