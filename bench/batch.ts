/**
 * The batch row of `npm run bench` (docs/api-policy.md#batch-requests): on each SQL store, the service from
 * dist/ with every service in one process, CREATES event creates sent by 32 clients two ways — one request
 * per create, then as batches of 25 (`POST /wp-json/batch/v1`) — and the rate of each with their ratio.
 * Every create is checked answered 201 (inside the batches too). `npm run bench:batch` runs it alone
 * (BATCH_BENCH_CREATES, default 1000; BATCH_BENCH_STORES=sqlite,postgres).
 */
import * as fs from "fs";
import * as path from "path";
import { benchStore, inParallel, KEY, NS, post, ROOT, startServer, StoreKind } from "./common";

const CREATES = Number(process.env.BATCH_BENCH_CREATES ?? 1000);
const PER_BATCH = 25;
const CLIENTS = 32;
const STORES = (process.env.BATCH_BENCH_STORES ?? "sqlite,postgres").split(",").map(s => s.trim()) as StoreKind[];

interface Row {
  store: StoreKind;
  creates: number;
  singleSeconds: number;
  singlePerSecond: number;
  batches: number;
  batchSeconds: number;
  batchPerSecond: number;
  /** Creates per second in batches over creates per second one by one. */
  ratio: number;
}

const eventBody = (label: string) => ({ title: `Bench ${label}`, start_date: "tomorrow 09:00", end_date: "tomorrow 10:00" });

async function batch(base: string, bodies: unknown[]): Promise<void> {
  const res = await fetch(`${base}/wp-json/batch/v1`, {
    method: "POST",
    headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ requests: bodies.map(body => ({ path: NS.replace("/wp-json", "") + "/events", body })) })
  });
  const answer = (await res.json()) as { responses?: Array<{ status: number; body: unknown }> };
  if (res.status !== 207 || !answer.responses || answer.responses.some(r => r.status !== 201)) {
    throw new Error(`batch: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
  }
}

async function run(kind: StoreKind): Promise<Row> {
  const store = await benchStore(kind, "batch");
  const server = await startServer(store.env);
  try {
    // warm both paths (the first requests compile and open what later ones reuse)
    await inParallel(PER_BATCH, async i => void (await post(server.base, "/events", eventBody(`warm ${i}`))), CLIENTS);
    await batch(server.base, Array.from({ length: PER_BATCH }, (_, i) => eventBody(`warm batch ${i}`)));
    let t = Date.now();
    await inParallel(CREATES, async i => void (await post(server.base, "/events", eventBody(`single ${i}`))), CLIENTS, `${kind} single`);
    const singleSeconds = (Date.now() - t) / 1000;
    const batches = Math.ceil(CREATES / PER_BATCH);
    t = Date.now();
    await inParallel(batches, async b => batch(server.base, Array.from({ length: Math.min(PER_BATCH, CREATES - b * PER_BATCH) }, (_, i) => eventBody(`batch ${b}.${i}`))), CLIENTS, `${kind} batches`);
    const batchSeconds = (Date.now() - t) / 1000;
    const singlePerSecond = Math.round(CREATES / singleSeconds);
    const batchPerSecond = Math.round(CREATES / batchSeconds);
    return { store: kind, creates: CREATES, singleSeconds: +singleSeconds.toFixed(2), singlePerSecond, batches, batchSeconds: +batchSeconds.toFixed(2), batchPerSecond, ratio: +(batchPerSecond / singlePerSecond).toFixed(2) };
  } finally {
    await server.stop();
    await store.drop();
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const kind of STORES) rows.push(await run(kind));
  const lines = [
    `batch: ${CREATES} event creates by ${CLIENTS} clients, one request each, then as ${Math.ceil(CREATES / PER_BATCH)} batches of ${PER_BATCH} (every service in one process)`,
    "store     single s  creates/s   batched s  creates/s   ratio (batched / single)",
    ...rows.map(r => `${r.store.padEnd(9)} ${String(r.singleSeconds).padStart(8)}  ${String(r.singlePerSecond).padStart(9)}   ${String(r.batchSeconds).padStart(9)}  ${String(r.batchPerSecond).padStart(9)}   ${r.ratio}`)
  ];
  console.log(lines.join("\n"));
  const dir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "batch-latest.json"), JSON.stringify({ at: new Date().toISOString(), rows }, null, 2));
  fs.writeFileSync(path.join(dir, "batch-latest.txt"), `${lines.join("\n")}\n`);
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
