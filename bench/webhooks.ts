/**
 * The webhooks row of `npm run bench` (docs/webhooks.md): on each SQL store, the service from dist/ with
 * every service in one process (the default topology), EVENTS events seeded, then
 * - the read mix (list pages and single events, 16 connections) alone;
 * - WEBHOOK_ENDPOINTS endpoints on a receiver of 127.0.0.1 (answering 200 at once), and CHANGES changes
 *   (title updates of the seeded events, 16 writers): the time from the first write until every delivery
 *   (CHANGES × endpoints) has arrived, and the read mix measured beside that load (the writes and their
 *   deliveries; `deliveredDuringReads` says how many deliveries went out meanwhile).
 * `npm run bench:webhooks` runs it alone (WEBHOOK_BENCH_CHANGES, WEBHOOK_BENCH_STORES=sqlite,postgres).
 */
import * as fs from "fs";
import * as http from "http";
import * as path from "path";
import type { AddressInfo } from "net";
import { benchStore, inParallel, load, Measure, NS, post, ROOT, settle, startServer, StoreKind } from "./common";

const CHANGES = Number(process.env.WEBHOOK_BENCH_CHANGES ?? 10_000);
const ENDPOINTS = Number(process.env.WEBHOOK_BENCH_ENDPOINTS ?? 10);
const EVENTS = 200;
const READ_SECONDS = 5;
const READ = { connections: 16, duration: READ_SECONDS };
const STORES = (process.env.WEBHOOK_BENCH_STORES ?? "sqlite,postgres").split(",").map(s => s.trim()) as StoreKind[];

interface Row {
  store: StoreKind;
  changes: number;
  endpoints: number;
  deliveries: number;
  writeSeconds: number;
  deliveredSeconds: number;
  deliveriesPerSecond: number;
  readAlone: Measure;
  readUnderDeliveries: Measure;
  /** Deliveries made while the read mix ran beside them. */
  deliveredDuringReads: number;
}

/** A receiver answering 200 at once, counting deliveries per endpoint path (and their distinct ids). */
async function receiver(): Promise<{ url(p: string): string; received(): number; distinct(): number; close(): Promise<void> }> {
  let count = 0;
  const ids = new Set<string>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      count++;
      ids.add(`${req.url}|${req.headers["webhook-id"]}`);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: p => `http://127.0.0.1:${port}${p}`,
    received: () => count,
    distinct: () => ids.size,
    close: () => new Promise(resolve => { server.closeAllConnections(); server.close(() => resolve()); })
  };
}

async function run(kind: StoreKind): Promise<Row> {
  const store = await benchStore(kind, "webhooks");
  const rx = await receiver();
  const server = await startServer({ ...store.env, OUTBOUND_ALLOW_PRIVATE: "1", WEBHOOK_POLL_MS: "200" });
  try {
    const ids: number[] = [];
    await inParallel(EVENTS, async i => {
      ids.push((await post(server.base, "/events", { title: `Bench ${i}`, start_date: "tomorrow 09:00", end_date: "tomorrow 10:00" })).id as number);
    }, 16);
    let n = 0;
    const mix = () => (n++ % 2 === 0 ? `${NS}/events?page=${1 + (n % 5)}` : `${NS}/events/${ids[n % ids.length]}`);
    await load(server.base, { ...READ, duration: 2, path: mix }); // warm-up
    await settle(server.base);
    const readAlone = await load(server.base, { ...READ, path: mix });
    await settle(server.base);

    // the webhooks routes answer once the optional service has started
    for (let i = 0; i < ENDPOINTS; i++) await post(server.base, "/webhooks", { url: rx.url(`/e${i}`) });
    const expected = CHANGES * ENDPOINTS;
    const started = Date.now();
    let reads: Promise<Measure> | undefined;
    let atReads = 0;
    let atReadsEnd = 0;
    await inParallel(CHANGES, async i => {
      await post(server.base, `/events/${ids[i % ids.length]}`, { title: `Bench change ${i}` });
      // the read mix beside that load (the writes and their deliveries), from a tenth of the writes on
      if (i === Math.floor(CHANGES / 10)) {
        atReads = rx.distinct();
        reads = load(server.base, { ...READ, path: mix }).then(m => {
          atReadsEnd = rx.distinct();
          return m;
        });
      }
    }, 16, "changes");
    const writeSeconds = (Date.now() - started) / 1000;
    const readUnderDeliveries = await reads!;
    const deliveredDuringReads = atReadsEnd - atReads;
    while (rx.distinct() < expected) {
      await new Promise(r => setTimeout(r, 50));
      if (Date.now() - started > 30 * 60_000) throw new Error(`only ${rx.distinct()} of ${expected} deliveries after 30 minutes`);
    }
    const deliveredSeconds = (Date.now() - started) / 1000;
    process.stderr.write(`  ${kind}: ${expected} deliveries in ${deliveredSeconds.toFixed(1)} s (${rx.received() - rx.distinct()} repeated; ${deliveredDuringReads} during the ${READ_SECONDS} s read mix)\n`);
    return {
      store: kind, changes: CHANGES, endpoints: ENDPOINTS, deliveries: expected, writeSeconds: +writeSeconds.toFixed(1), deliveredSeconds: +deliveredSeconds.toFixed(1),
      deliveriesPerSecond: Math.round(expected / deliveredSeconds), readAlone, readUnderDeliveries, deliveredDuringReads
    };
  } finally {
    await server.stop();
    await rx.close();
    await store.drop();
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const kind of STORES) rows.push(await run(kind));
  const lines = [
    `webhooks: ${CHANGES} changes to ${ENDPOINTS} endpoints on 127.0.0.1 (every service in one process, defaults: WEBHOOK_CONCURRENCY 32, 4 per endpoint)`,
    "store     deliveries  writes s  all delivered s  deliveries/s  read mix alone req/s (p99 ms)  read mix during deliveries req/s (p99 ms)",
    ...rows.map(r => `${r.store.padEnd(9)} ${String(r.deliveries).padStart(10)}  ${String(r.writeSeconds).padStart(8)}  ${String(r.deliveredSeconds).padStart(15)}  ${String(r.deliveriesPerSecond).padStart(12)}  ` +
      `${`${r.readAlone.rps} (${r.readAlone.p99})`.padStart(31)}  ${`${r.readUnderDeliveries.rps} (${r.readUnderDeliveries.p99})`.padStart(42)}`)
  ];
  console.log(lines.join("\n"));
  const dir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "webhooks-latest.json"), JSON.stringify({ at: new Date().toISOString(), rows }, null, 2));
  fs.writeFileSync(path.join(dir, "webhooks-latest.txt"), `${lines.join("\n")}\n`);
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
