/**
 * `npm run bench:store` (also the first part of `npm run bench`): the store's figures on each SQL store,
 * the whole service in one process (`node dist/server.js`) as `npm start` runs it:
 * - creates/s: N events created through the HTTP API by 32 concurrent clients (each with its own title);
 * - start-up: the process restarted on the store now holding N events, until the namespace root answers 200;
 * - resident memory (VmRSS) after the restart and a short read load (default list, single events).
 * The raw node:http baseline of run.ts is not needed here: these are absolute figures (C47: what the bench measures), read on
 * this machine kind.
 *
 * Settings: BENCH_STORE_N (default 100000), BENCH_STORES (default sqlite,postgres), PG_ADMIN_URL.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { benchStore, NS, KEY, percentile, ROOT, rssMb, startServer, StoreKind } from "./common";

const N = Number(process.env.BENCH_STORE_N ?? 100_000);
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",").map(s => s.trim()).filter(Boolean) as StoreKind[];
const CLIENTS = 32;

interface StoreRow { store: string; n: number; createsPerSec: number; createP99Ms: number; startupMs: number; rssMb: number; readsPerSec: number }

async function createAll(base: string, n: number): Promise<{ perSec: number; p99: number }> {
  let next = 0;
  const latencies: number[] = [];
  const began = Date.now();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < n) {
      const i = next++;
      const day = String(1 + (i % 28)).padStart(2, "0");
      const month = String(1 + (Math.floor(i / 28) % 12)).padStart(2, "0");
      const body = JSON.stringify({ title: `Bench event ${i}`, description: `Seeded event number ${i}`, start_date: `2027-${month}-${day} 10:00:00`, end_date: `2027-${month}-${day} 12:00:00` });
      const t0 = performance.now();
      const res = await fetch(`${base}${NS}/events`, { method: "POST", headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" }, body });
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`create ${i}: ${res.status}`);
      latencies.push(performance.now() - t0);
      if (i % 10_000 === 0) process.stderr.write(`\r  created ${i}/${n}`);
    }
  }));
  process.stderr.write(`\r  created ${n}/${n}\n`);
  return { perSec: Math.round(n / ((Date.now() - began) / 1000)), p99: Math.round(percentile(latencies, 0.99)) };
}

async function readLoad(base: string, seconds: number, maxId: number): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (Date.now() < until) {
      const path = done % 2 === 0 ? `${NS}/events?per_page=10` : `${NS}/events/${1 + Math.floor(Math.random() * maxId)}`;
      const res = await fetch(`${base}${path}`);
      await res.arrayBuffer();
      done++;
    }
  }));
  return Math.round(done / seconds);
}

async function benchOne(kind: StoreKind): Promise<StoreRow> {
  const store = await benchStore(kind, "store");
  // ready = the namespace root answers (what a client waits for)
  const ready = { readyPath: NS, readyTimeoutMs: 120_000 };
  try {
    process.stderr.write(`${kind}: ${N} creates by ${CLIENTS} clients\n`);
    let server = await startServer({ ...store.env, LOG_LEVEL: "error" }, ready);
    const creates = await createAll(server.base, N);
    await server.stop();
    const t0 = Date.now();
    server = await startServer({ ...store.env, LOG_LEVEL: "error" }, ready);
    const startupMs = Date.now() - t0;
    const readsPerSec = await readLoad(server.base, 20, N);
    const rss = rssMb(server.child.pid!);
    await server.stop();
    return { store: kind, n: N, createsPerSec: creates.perSec, createP99Ms: creates.p99, startupMs, rssMb: rss, readsPerSec };
  } finally {
    await store.drop();
  }
}

export async function runStoreBench(): Promise<StoreRow[]> {
  const rows: StoreRow[] = [];
  for (const kind of STORES) rows.push(await benchOne(kind));
  const lines = [
    `store bench (${new Date().toISOString()}, ${os.cpus().length} cores, node ${process.version})`,
    "store     | events | creates/s | create p99 ms | start-up ms | RSS MB (after 20 s of reads) | reads/s (list + single event, cache on)",
    ...rows.map(r => `${r.store.padEnd(9)} | ${String(r.n).padStart(6)} | ${String(r.createsPerSec).padStart(9)} | ${String(r.createP99Ms).padStart(13)} | ${String(r.startupMs).padStart(11)} | ${String(r.rssMb).padStart(28)} | ${r.readsPerSec}`)
  ];
  console.log(lines.join("\n"));
  const dir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "store-latest.txt"), lines.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "store-latest.json"), JSON.stringify({ at: new Date().toISOString(), rows }, null, 2) + "\n");
  return rows;
}

if (require.main === module) {
  runStoreBench().catch(err => {
    console.error(err);
    process.exit(1);
  });
}
