/**
 * `npm run bench:sites` (also the last part of `npm run bench`): many calendars in one process
 * (docs/sites.md), the whole service as `npm start` runs it (`node dist/server.js`):
 * - many sites: S sites × E events each, created through the platform API and each site's own key, then
 *   reads (default list, single events) spread at random over the sites by their Host headers;
 * - one site: the default site with S × E events, the same reads;
 * - idle sites: resident memory of a fresh process before and after K sites are created and left unused
 *   (C50: 1 000 idle sites add at most 50 MB).
 * Each reports reads/s and the resident memory (VmRSS) after the reads.
 *
 * Settings: BENCH_SITES (100), BENCH_SITE_EVENTS (1000), BENCH_IDLE_SITES (1000), BENCH_SITES_READ_S (20),
 * BENCH_SITES_STORE (sqlite, or postgres with PG_ADMIN_URL).
 */
import type { ChildProcess } from "child_process";
import * as fs from "fs";
import * as http from "http";
import * as os from "os";
import * as path from "path";
import { benchStore, inParallel, KEY, NS, ROOT, rssMb, startServer, StoreKind } from "./common";

const SITES = Number(process.env.BENCH_SITES ?? 100);
const PER_SITE = Number(process.env.BENCH_SITE_EVENTS ?? 1000);
const IDLE = Number(process.env.BENCH_IDLE_SITES ?? 1000);
const READ_S = Number(process.env.BENCH_SITES_READ_S ?? 20);
const STORE = (process.env.BENCH_SITES_STORE ?? "sqlite") as StoreKind;
const CLIENTS = 32;
const PLATFORM_KEY = "bench-platform";
/** The default site's host (BASE_URL's): requests name their site by the Host header they send. */
const DEFAULT_HOST = "calendar.bench";

interface Row { case: string; sites: number; events: number; readsPerSec: number; rssMb: number; note?: string }

/** What the bench reads of an answer (the new site's host and key); the rest is only shown in errors. */
type Answer = { host?: string; api_key?: string } & Record<string, unknown>;

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

function request(port: number, method: string, host: string, urlPath: string, key?: string, body?: unknown): Promise<{ status: number; json: Answer }> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { Host: host };
    if (key) headers.Authorization = `Bearer ${key}`;
    if (text !== undefined) Object.assign(headers, { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(text)) });
    const req = http.request({ host: "127.0.0.1", port, method, path: urlPath, headers, agent }, res => {
      const chunks: Buffer[] = [];
      res.on("data", c => chunks.push(c));
      res.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        let json: Answer;
        try { json = JSON.parse(raw) as Answer; } catch { json = { text: raw }; }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on("error", reject);
    if (text !== undefined) req.write(text);
    req.end();
  });
}

/** Runs `n` jobs by CLIENTS concurrent workers. */
const parallel = (n: number, job: (i: number) => Promise<void>): Promise<number> => inParallel(n, job, CLIENTS);

function eventBody(i: number) {
  const day = String(1 + (i % 28)).padStart(2, "0");
  const month = String(1 + (Math.floor(i / 28) % 12)).padStart(2, "0");
  return { title: `Bench event ${i}`, description: `Seeded event number ${i}`, start_date: `2027-${month}-${day} 10:00:00`, end_date: `2027-${month}-${day} 12:00:00` };
}

async function seed(port: number, targets: Array<{ host: string; key: string }>, perTarget: number): Promise<void> {
  const total = targets.length * perTarget;
  await parallel(total, async i => {
    const t = targets[i % targets.length];
    const res = await request(port, "POST", t.host, `${NS}/events`, t.key, eventBody(Math.floor(i / targets.length)));
    if (res.status !== 201) throw new Error(`create ${i} on ${t.host}: ${res.status} ${JSON.stringify(res.json)}`);
    if (i % 5000 === 0) process.stderr.write(`\r  created ${i}/${total}`);
  });
  process.stderr.write(`\r  created ${total}/${total}\n`);
}

/** Reads (default list, single events) spread at random over `hosts` for READ_S seconds; answers reads/s. */
async function reads(port: number, hosts: string[], maxId: number): Promise<number> {
  const until = Date.now() + READ_S * 1000;
  let done = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (Date.now() < until) {
      const host = hosts[Math.floor(Math.random() * hosts.length)];
      const p = done % 2 === 0 ? `${NS}/events?per_page=10` : `${NS}/events/${1 + Math.floor(Math.random() * maxId)}`;
      const res = await request(port, "GET", host, p);
      if (res.status !== 200 && res.status !== 404) throw new Error(`read ${p} on ${host}: ${res.status}`);
      done++;
    }
  }));
  return Math.round(done / READ_S);
}

async function createSites(port: number, n: number, prefix: string): Promise<Array<{ host: string; key: string }>> {
  const out: Array<{ host: string; key: string }> = new Array(n);
  await parallel(n, async i => {
    const res = await request(port, "POST", "platform.bench", "/platform/v1/sites", PLATFORM_KEY, { host: `${prefix}${i}.bench.example` });
    if (res.status !== 201) throw new Error(`site ${i}: ${res.status} ${JSON.stringify(res.json)}`);
    out[i] = { host: String(res.json.host), key: String(res.json.api_key) };
  });
  return out;
}

async function withService<T>(label: string, fn: (port: number, proc: ChildProcess) => Promise<T>): Promise<T> {
  const store = await benchStore(STORE, `sites_${label}`);
  try {
    const server = await startServer({ ...store.env, BASE_URL: `http://${DEFAULT_HOST}`, PLATFORM_KEY, LOG_LEVEL: "error" });
    try {
      return await fn(Number(new URL(server.base).port), server.child);
    } finally {
      await server.stop();
    }
  } finally {
    await store.drop();
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  process.stderr.write(`sites bench on ${STORE}: ${SITES} sites × ${PER_SITE} events\n`);
  rows.push(await withService("many", async (port, proc) => {
    const sites = await createSites(port, SITES, "s");
    await seed(port, sites, PER_SITE);
    // each site numbers from 1: an event id is 1…PER_SITE in every site
    const perSec = await reads(port, sites.map(s => s.host), PER_SITE);
    return { case: "many sites, reads spread over them", sites: SITES, events: SITES * PER_SITE, readsPerSec: perSec, rssMb: rssMb(proc.pid!) };
  }));
  process.stderr.write(`one site with ${SITES * PER_SITE} events\n`);
  rows.push(await withService("one", async (port, proc) => {
    const host = DEFAULT_HOST;
    await seed(port, [{ host, key: KEY }], SITES * PER_SITE);
    const perSec = await reads(port, [host], SITES * PER_SITE);
    return { case: "one site", sites: 1, events: SITES * PER_SITE, readsPerSec: perSec, rssMb: rssMb(proc.pid!) };
  }));
  process.stderr.write(`${IDLE} idle sites\n`);
  rows.push(await withService("idle", async (port, proc) => {
    const host = DEFAULT_HOST;
    // the same short read load before and after, so both figures are of a warmed-up process
    await reads(port, [host], 1);
    const before = rssMb(proc.pid!);
    await createSites(port, IDLE, "idle");
    await new Promise(r => setTimeout(r, 2000));
    const perSec = await reads(port, [host], 1);
    const after = rssMb(proc.pid!);
    return { case: `${IDLE} idle sites (RSS after minus before)`, sites: IDLE, events: 0, readsPerSec: perSec, rssMb: after - before, note: `${before} MB → ${after} MB` };
  }));
  const lines = [
    `sites bench (${new Date().toISOString()}, ${STORE}, ${os.cpus().length} cores, node ${process.version}, ${READ_S} s of reads, ${CLIENTS} clients)`,
    "case                                         | sites | events  | reads/s | RSS MB",
    ...rows.map(r => `${r.case.padEnd(44)} | ${String(r.sites).padStart(5)} | ${String(r.events).padStart(7)} | ${String(r.readsPerSec).padStart(7)} | ${r.rssMb}${r.note ? ` (${r.note})` : ""}`)
  ];
  console.log(lines.join("\n"));
  const dir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "sites-latest.txt"), lines.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "sites-latest.json"), JSON.stringify({ at: new Date().toISOString(), store: STORE, readSeconds: READ_S, rows }, null, 2) + "\n");
  agent.destroy();
}

if (require.main === module) {
  main().catch(err => {
    console.error(err);
    process.exit(1);
  });
}
