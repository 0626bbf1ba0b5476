/**
 * The webhooks row of `npm run bench` (docs/webhooks.md): on each SQL store, the service from dist/ with
 * every service in one process (the default topology), EVENTS events seeded, then
 * - the read mix (list pages and single events, 16 connections) alone;
 * - CHANGES changes (title updates of the seeded events, 16 writers) with no endpoint, the read mix beside
 *   them (the baseline: what the writes alone cost the reads);
 * - WEBHOOK_ENDPOINTS endpoints on a receiver of 127.0.0.1 (answering 200 at once), and the same CHANGES
 *   changes again: the time from the first write until every delivery (CHANGES × endpoints) has arrived,
 *   and the read mix measured beside that load (the writes and their deliveries; `deliveredDuringReads`
 *   says how many deliveries went out meanwhile), then once more beside the deliveries alone (the writes
 *   done, deliveries still going out).
 * The retention job runs throughout (WEBHOOK_BENCH_RETENTION_S, default 30: deliveries and payloads older
 * than that removed, the job looking every second), so the row includes its removals beside the load;
 * `removed` says how many rows it took away meanwhile.
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
/** Seconds deliveries and payloads are kept in the run (the retention job removing them beside the load). */
const RETENTION_S = Number(process.env.WEBHOOK_BENCH_RETENTION_S ?? 30);

interface Row {
  store: StoreKind;
  changes: number;
  endpoints: number;
  deliveries: number;
  /** Deliveries arrived (fewer than `deliveries` when the run gave up after 30 minutes). */
  arrived: number;
  /** The same writes without any endpoint (the baseline), then with the endpoints. */
  writeSecondsNoHooks: number;
  writeSeconds: number;
  deliveredSeconds: number;
  deliveriesPerSecond: number;
  readAlone: Measure;
  /** The read mix beside the writes alone (no endpoint: nothing to deliver). */
  readDuringWrites: Measure;
  /** The read mix beside the same writes and their deliveries. */
  readUnderDeliveries: Measure;
  /** Deliveries made while the read mix ran beside them. */
  deliveredDuringReads: number;
  /** The read mix beside the deliveries alone, once the writes were done (none left: undefined), and the deliveries made meanwhile. */
  readBesideDeliveries?: Measure;
  deliveredBesideReads: number;
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
  const server = await startServer({ ...store.env, OUTBOUND_ALLOW_PRIVATE: "1", WEBHOOK_POLL_MS: "200", WEBHOOK_RETENTION_DAYS: String(RETENTION_S / 86_400), WEBHOOK_RETENTION_JOB_MS: "1000" });
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

    /** CHANGES title updates (16 writers) with the read mix beside them from a tenth of the writes on. */
    const writesWithReads = async (label: string) => {
      const began = Date.now();
      let reads: Promise<Measure> | undefined;
      let atReads = 0;
      let atReadsEnd = 0;
      await inParallel(CHANGES, async i => {
        await post(server.base, `/events/${ids[i % ids.length]}`, { title: `Bench ${label} ${i}` });
        if (i === Math.floor(CHANGES / 10)) {
          atReads = rx.distinct();
          reads = load(server.base, { ...READ, path: mix }).then(m => {
            atReadsEnd = rx.distinct();
            return m;
          });
        }
      }, 16, label);
      const seconds = (Date.now() - began) / 1000;
      return { began, seconds, reads: await reads!, delivered: () => atReadsEnd - atReads };
    };

    // the baseline: the same writes, no endpoint yet (the webhooks service runs, with nothing to deliver)
    const plain = await writesWithReads("changes without endpoints");
    await settle(server.base);

    // the webhooks routes answer once the optional service has started
    for (let i = 0; i < ENDPOINTS; i++) await post(server.base, "/webhooks", { url: rx.url(`/e${i}`) });
    const expected = CHANGES * ENDPOINTS;
    const hooked = await writesWithReads("changes with endpoints");
    const started = hooked.began;
    const writeSeconds = hooked.seconds;
    const readUnderDeliveries = hooked.reads;
    const deliveredDuringReads = hooked.delivered();
    // the read mix beside the deliveries alone (the writes done, deliveries still going out)
    const atAfter = rx.distinct();
    const readBesideDeliveries = atAfter < expected ? await load(server.base, { ...READ, path: mix }) : undefined;
    const deliveredBesideReads = rx.distinct() - atAfter;
    // given up after 30 minutes: the row says how many arrived (the other store's row is kept)
    while (rx.distinct() < expected && Date.now() - started < 30 * 60_000) await new Promise(r => setTimeout(r, 50));
    const deliveredSeconds = (Date.now() - started) / 1000;
    const arrived = rx.distinct();
    process.stderr.write(`  ${kind}: ${arrived} of ${expected} deliveries in ${deliveredSeconds.toFixed(1)} s (${rx.received() - rx.distinct()} repeated; ${deliveredDuringReads} during the ${READ_SECONDS} s read mix)\n`);
    return {
      store: kind, changes: CHANGES, endpoints: ENDPOINTS, deliveries: expected, writeSecondsNoHooks: +plain.seconds.toFixed(1), writeSeconds: +writeSeconds.toFixed(1),
      deliveredSeconds: +deliveredSeconds.toFixed(1), deliveriesPerSecond: Math.round(arrived / deliveredSeconds), arrived, readAlone, readDuringWrites: plain.reads, readUnderDeliveries, deliveredDuringReads,
      readBesideDeliveries, deliveredBesideReads
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
  const cell = (m: Measure) => `${m.rps} (${m.p99})`;
  const lines = [
    `webhooks: ${CHANGES} changes (title updates, 16 writers) to ${ENDPOINTS} endpoints on 127.0.0.1 (every service in one process, defaults: WEBHOOK_CONCURRENCY 32, 4 per endpoint; retention ${RETENTION_S} s, its job every second)`,
    "read mix req/s (p99 ms): alone; beside the writes with no endpoint; beside the same writes and their deliveries; beside the deliveries alone after the writes",
    "store     deliveries  writes s (no endpoint)  all delivered s  deliveries/s  reads alone  reads + writes  reads + writes + deliveries (delivered meanwhile)  reads + deliveries (delivered meanwhile)",
    ...rows.map(r => `${r.store.padEnd(9)} ${String(r.deliveries).padStart(10)}  ${`${r.writeSeconds} (${r.writeSecondsNoHooks})`.padStart(22)}  ${`${r.deliveredSeconds}${r.arrived < r.deliveries ? ` (${r.arrived} arrived)` : ""}`.padStart(15)}  ${String(r.deliveriesPerSecond).padStart(12)}  ` +
      `${cell(r.readAlone).padStart(11)}  ${cell(r.readDuringWrites).padStart(14)}  ${`${cell(r.readUnderDeliveries)} (${r.deliveredDuringReads})`.padStart(47)}  ` +
      `${(r.readBesideDeliveries ? `${cell(r.readBesideDeliveries)} (${r.deliveredBesideReads})` : "none left").padStart(39)}`)
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
