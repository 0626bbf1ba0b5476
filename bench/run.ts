/**
 * `npm run bench`: seeds N events (with venues, organizers, categories and tags) through the service's
 * own HTTP API, then drives load at the real gateway with autocannon, next to a raw node:http server
 * answering the same JSON body (the baseline, measured in the same run, again for each N, so a ratio
 * compares figures taken minutes apart at most on a machine whose speed varies; twice, the faster kept). Prints per case and N:
 * requests/s, p50, p99, the ratio to the baseline and the growth from the smallest to the largest N;
 * writes the same as JSON under bench/results/.
 *
 * Every case runs twice per N: with the cache warm (the gateway answers from its response cache) and,
 * for the reads, with the cache off (CACHER=off: every request runs the services; the column "plan"
 * says what answers it). Growth is on mean latency, for both.
 *
 * Settings (environment): BENCH_SIZES (default 1000,10000,100000), BENCH_DURATION seconds per case
 * (default 5), BENCH_CONNECTIONS (default 32), BENCH_SPLIT=0 to skip the NATS variant.
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { freePort } from "./free-port";

// autocannon has no bundled types
const autocannon = require("autocannon");

const ROOT = path.resolve(__dirname, "..", "..");
const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,100000").split(",").map(Number);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const KEY = "bench-admin";
const NS = "/wp-json/calendar/events/v1";

/** `completed`: requests answered within the window (0: every one took longer than the window). */
interface Measure { rps: number; p50: number; p99: number; mean: number; errors: number; non2xx: number; completed: number }
interface Row { n: number; case: string; plan: string; measure: Measure; ratio: number }

/** What answers an uncached read (embedded store). */
const PLANS: Record<string, string> = {
  "events list (default)": "start-date index",
  "events list (filtered)": "start-date index, range",
  "events search": "window scan, text compared folded",
  "single event": "primary key",
  "venues only_with_upcoming": "events start-date index + venues by id"
};
const WARM = "response cache";

function progress(label: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r  ${label.padEnd(22)} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total}`);
  if (done === total) process.stderr.write("\n");
}

async function waitFor(url: string, timeoutMs = 60000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch { /* not yet */ }
    await new Promise(r => setTimeout(r, 100));
  }
  throw new Error(`${url} not ready`);
}

/**
 * Waits until the server has answered what it still had queued when the load stopped (a slow case such
 * as an uncached search leaves requests in progress that would slow the next case down): a cheap
 * request answered fast twice in a row.
 */
async function settle(base: string, timeoutMs = 120000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let fast = 0;
  while (fast < 2 && Date.now() < until) {
    const t = Date.now();
    await fetch(`${base}/health/live`).catch(() => undefined);
    fast = Date.now() - t < 20 ? fast + 1 : 0;
    await new Promise(r => setTimeout(r, 50));
  }
}

interface Proc { child: ChildProcess; port?: number; stop(): Promise<void> }

function startProcess(env: Record<string, string>, port?: number): Proc {
  const child = spawn(process.execPath, [path.join(ROOT, "dist", "server.js")], {
    cwd: ROOT,
    env: { ...process.env, API_KEYS: `${KEY}:administrator:1`, METRICS_PORT: "0", LOG_LEVEL: "warn", HOST: "127.0.0.1", ...(port ? { PORT: String(port) } : {}), ...env },
    stdio: ["ignore", "ignore", "inherit"]
  });
  return {
    child, port,
    stop: () => new Promise(resolve => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    })
  };
}

async function post(base: string, route: string, body: unknown): Promise<any> {
  const res = await fetch(`${base}${NS}${route}`, { method: "POST", headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`POST ${route}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function inParallel(count: number, label: string, work: (i: number) => Promise<void>, concurrency = 32): Promise<number> {
  let next = 0;
  let done = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await work(i);
      done++;
      if (done % 200 === 0 || done === count) progress(label, done, count);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return count / ((Date.now() - started) / 1000);
}

interface Seeded { venues: number[]; categories: Array<{ id: number; slug: string }>; eventIds: number[]; createRate: number }

async function seed(base: string, n: number): Promise<Seeded> {
  const venues: number[] = [];
  const organizers: number[] = [];
  const categories: Array<{ id: number; slug: string }> = [];
  const tags: number[] = [];
  const eventIds: number[] = [];
  const linked = Math.max(10, Math.round(n / 100));
  await inParallel(linked, "venues", async i => { venues[i] = (await post(base, "/venues", { venue: `Venue ${i}`, city: "Paris", country: "France" })).id; });
  await inParallel(linked, "organizers", async i => { organizers[i] = (await post(base, "/organizers", { organizer: `Organizer ${i}` })).id; });
  await inParallel(20, "categories", async i => { const c = await post(base, "/categories", { name: `Category ${i}` }); categories[i] = { id: c.id, slug: c.slug }; });
  await inParallel(50, "tags", async i => { tags[i] = (await post(base, "/tags", { name: `Tag ${i}` })).id; });
  const day = 24 * 3600 * 1000;
  const createRate = await inParallel(n, `events (N=${n})`, async i => {
    const start = new Date(Date.now() + day + (i % 700) * day + (i % 24) * 3600 * 1000);
    const s = start.toISOString().slice(0, 19).replace("T", " ");
    const e = new Date(start.getTime() + 2 * 3600 * 1000).toISOString().slice(0, 19).replace("T", " ");
    const ev = await post(base, "/events", {
      title: `Event ${i} ${i % 7 === 0 ? "jazz" : "concert"}`, description: `Benchmark event number ${i}`,
      start_date: s, end_date: e, venue: venues[i % venues.length], organizer: organizers[i % organizers.length],
      categories: [categories[i % categories.length].id], tags: [tags[i % tags.length]], featured: i % 10 === 0
    });
    eventIds[i] = ev.id;
  });
  return { venues, categories, eventIds, createRate };
}

function load(url: string, opts: { method?: string; body?: string; headers?: Record<string, string>; duration?: number } = {}): Promise<Measure> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: opts.duration ?? DURATION, method: opts.method ?? "GET", body: opts.body, headers: opts.headers }, (err: Error, r: any) => {
      if (err) return reject(err);
      resolve({ rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, mean: +r.latency.mean.toFixed(3), errors: r.errors, non2xx: r.non2xx, completed: r.requests.total });
    });
  });
}

/** The baseline: a raw node:http server (own process) answering `body` as JSON. */
async function baseline(body: string): Promise<Measure> {
  const file = path.join(os.tmpdir(), `bench-baseline-${process.pid}.json`);
  fs.writeFileSync(file, body);
  const port = await freePort();
  const code = `const http=require("http");const b=require("fs").readFileSync(${JSON.stringify(file)});http.createServer((q,s)=>{s.writeHead(200,{"Content-Type":"application/json; charset=utf-8","Content-Length":b.length});s.end(b)}).listen(${port},"127.0.0.1")`;
  const child = spawn(process.execPath, ["-e", code], { stdio: "ignore" });
  await new Promise(r => setTimeout(r, 400));
  const m = await load(`http://127.0.0.1:${port}/`);
  child.kill();
  return m;
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const extra: Record<string, unknown> = {};
  const baselines: Record<number, Measure> = {};
  for (const n of SIZES) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${n}-`));
    const port = await freePort();
    const server = startProcess({ DATA_DIR: dataDir }, port);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${url}/health/ready`);
    process.stderr.write(`\nN = ${n}\n`);
    const seeded = await seed(url, n);
    extra[`create_rate_seed_${n}`] = Math.round(seeded.createRate);
    const cat = seeded.categories[1];
    const venue = seeded.venues[1];
    const from = new Date(Date.now() + 2 * 86400000).toISOString().slice(0, 10);
    const to = new Date(Date.now() + 200 * 86400000).toISOString().slice(0, 10);
    const listBody = await (await fetch(`${url}${NS}/events`)).text();
    // measured twice, the faster one kept: a stall of the machine during one would inflate every ratio of this N
    const [b1, b2] = [await baseline(listBody), await baseline(listBody)];
    const base = (baselines[n] = b1.rps >= b2.rps ? b1 : b2);
    const cases: Array<[string, string, { method?: string; body?: string; headers?: Record<string, string> }?]> = [
      ["events list (default)", `${NS}/events`],
      ["events list (filtered)", `${NS}/events?categories=${cat.slug}&start_date=${from}&end_date=${to}&venue=${venue}`],
      ["events search", `${NS}/events?search=jazz`],
      ["single event", `${NS}/events/${seeded.eventIds[Math.floor(n / 2)]}`],
      ["venues only_with_upcoming", `${NS}/venues?only_with_upcoming=1`],
      ["create event", `${NS}/events`, { method: "POST", headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" }, body: JSON.stringify({ title: "Load", start_date: "2031-01-01 10:00", end_date: "2031-01-01 11:00" }) }]
    ];
    for (const [name, route, opts] of cases) {
      process.stderr.write(`  load: ${name}\n`);
      if (!opts?.method) await fetch(`${url}${route}`); // the cache warm: one answer kept before the load
      const m = await load(`${url}${route}`, opts);
      await settle(url);
      rows.push({ n, case: name, plan: opts?.method === "POST" ? "store write" : WARM, measure: m, ratio: +(m.rps / base.rps).toFixed(3) });
    }
    extra[`rss_mb_${n}`] = rssMb(server.child.pid!);
    await server.stop();

    // The reads again with the cache off, on the same data (a restart loads it from the files).
    const p2 = await freePort();
    const nocache = startProcess({ DATA_DIR: dataDir, CACHER: "off" }, p2);
    // ready = every routed service has started (loading 100 000 events takes a while)
    await waitFor(`http://127.0.0.1:${p2}/health/ready`, 180000);
    for (const [name, route, opts] of cases) {
      if (opts?.method === "POST") continue;
      process.stderr.write(`  load (cache off): ${name}\n`);
      await load(`http://127.0.0.1:${p2}${route}`, { duration: 2 }); // warm-up (JIT, and the collector done with the freshly loaded store)
      const m = await load(`http://127.0.0.1:${p2}${route}`);
      await settle(`http://127.0.0.1:${p2}`);
      rows.push({ n, case: `${name}, cache off`, plan: PLANS[name], measure: m, ratio: +(m.rps / base.rps).toFixed(3) });
    }
    extra[`rss_mb_${n}_cache_off`] = rssMb(nocache.child.pid!);
    await nocache.stop();
    if ((n === 10000 || SIZES.length === 1) && process.env.BENCH_SPLIT !== "0") rows.push(...(await splitVariant(dataDir, n, rows)));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  report(rows, baselines, extra);
}

/** Gateway in one process, the services in another, over a real nats-server. */
async function splitVariant(dataDir: string, n: number, rows: Row[]): Promise<Row[]> {
  const natsPort = await freePort();
  const nats = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(natsPort)], { stdio: "ignore" });
  await new Promise(r => setTimeout(r, 300));
  const bus = { TRANSPORTER: `nats://127.0.0.1:${natsPort}`, NAMESPACE: `bench-${process.pid}`, DATA_DIR: dataDir };
  const services = startProcess({ ...bus, SERVICES: "events,venues,organizers,taxonomy,i18n,changes" });
  const port = await freePort();
  const gateway = startProcess({ ...bus, SERVICES: "api" }, port);
  await waitFor(`http://127.0.0.1:${port}/health/ready`);
  const m = await load(`http://127.0.0.1:${port}${NS}/events`);
  await gateway.stop();
  await services.stop();
  nats.kill();
  const one = rows.find(r => r.n === n && r.case === "events list (default)");
  return [{ n, case: "events list (default), split over NATS", plan: `${WARM} (ratio to one process)`, measure: m, ratio: one ? +(m.rps / one.measure.rps).toFixed(3) : 0 }];
}

function report(rows: Row[], baselines: Record<number, Measure>, extra: Record<string, unknown>): void {
  const lines: string[] = [];
  for (const [n, base] of Object.entries(baselines)) lines.push(`baseline before N=${n} (raw node:http, same body): ${base.rps} req/s, p50 ${base.p50} ms, p99 ${base.p99} ms`);
  lines.push("");
  lines.push(`${"case".padEnd(40)} ${"plan".padEnd(30)} ${"N".padStart(7)} ${"req/s".padStart(8)} ${"p50".padStart(5)} ${"p99".padStart(5)} ${"mean".padStart(7)} ${"ratio".padStart(7)} ${"errors".padStart(7)}`);
  const window = `>${DURATION * 1000}`;
  for (const r of rows) {
    // nothing answered within the window: latencies are unknown, only longer than it
    const [p50, p99, mean] = r.measure.completed ? [r.measure.p50, r.measure.p99, r.measure.mean] : [window, window, window];
    lines.push(`${r.case.padEnd(40)} ${r.plan.slice(0, 30).padEnd(30)} ${String(r.n).padStart(7)} ${String(r.measure.rps).padStart(8)} ${String(p50).padStart(5)} ${String(p99).padStart(5)} ${String(mean).padStart(7)} ${String(r.ratio).padStart(7)} ${String(r.measure.errors + r.measure.non2xx).padStart(7)}`);
  }
  const growth: Record<string, number | null> = {};
  const adjusted: Record<string, number | null> = {};
  const small = Math.min(...SIZES);
  const large = Math.max(...SIZES);
  if (small !== large) {
    lines.push("");
    lines.push(`growth of mean latency from N=${small} to N=${large} (autocannon's p50 is in whole ms); in brackets, the same`);
    lines.push(`divided by the growth of the baseline's mean latency between the two (the machine's own drift taken out):`);
    for (const r of rows.filter(x => x.n === large)) {
      const s = rows.find(x => x.n === small && x.case === r.case);
      if (!s) continue;
      if (!r.measure.completed || !s.measure.completed) {
        growth[r.case] = null;
        lines.push(`  ${r.case.padEnd(38)} unknown: no request answered within ${DURATION} s at N=${r.measure.completed ? small : large}`);
        continue;
      }
      const g = +(r.measure.mean / s.measure.mean).toFixed(2);
      const drift = baselines[large] && baselines[small] ? baselines[large].mean / baselines[small].mean : NaN;
      const a = Number.isFinite(drift) && drift > 0 ? +(g / drift).toFixed(2) : null;
      growth[r.case] = g;
      adjusted[r.case] = a;
      lines.push(`  ${r.case.padEnd(38)} ${g}x${a === null ? "" : ` (${a}x)`}`);
    }
  }
  lines.push("");
  for (const [k, v] of Object.entries(extra)) lines.push(`${k}: ${v}`);
  const text = lines.join("\n");
  console.log(text);
  const dir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  const json = JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, duration_s: DURATION, connections: CONNECTIONS, baselines, rows, growth, growth_baseline_adjusted: adjusted, extra }, null, 2);
  fs.writeFileSync(path.join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`), json);
  fs.writeFileSync(path.join(dir, "latest.json"), json);
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
