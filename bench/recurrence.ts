/**
 * `npm run bench:recurrence` (the last part of `npm run bench`): a calendar holding BENCH_SERIES (default
 * 1 000) weekly series without end, each materialised through the horizon (docs/recurrence.md#the-horizon:
 * about 105 occurrences each), then one month of it listed — `GET /events?start_date=…&end_date=…` — with
 * the response cache warm and with the cache off (a restart with CACHER=off), beside the raw node:http
 * baseline answering the same page's bytes (C47: what the bench measures). On SQLite and on PostgreSQL (BENCH_STORES). Prints
 * req/s, p50, p99 and the ratio to the baseline; writes bench/results/recurrence-latest.json.
 *
 * Settings (environment): BENCH_SERIES, BENCH_STORES (default sqlite,postgres), BENCH_DURATION seconds per
 * case (default 5), BENCH_CONNECTIONS (default 32).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { baseline, benchStore, inParallel, load, LoadOptions, Measure, post, ROOT, settle, startServer, StoreKind } from "./common";

const SERIES = Number(process.env.BENCH_SERIES ?? 1000);
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",") as StoreKind[];
const LOAD: LoadOptions = { connections: Number(process.env.BENCH_CONNECTIONS ?? 32), duration: Number(process.env.BENCH_DURATION ?? 5) };
const NS = "/wp-json/calendar/events/v1";
const DAY = 86_400_000;

interface Row { store: StoreKind; case: string; measure: Measure; ratio: number }

/** The series, 8 at a time (each create materialises about 105 occurrences); answers series per second. */
function seed(base: string): Promise<number> {
  return inParallel(SERIES, async i => {
    const start = new Date(Date.now() + (1 + (i % 7)) * DAY + (i % 12) * 3_600_000).toISOString().slice(0, 13).replace("T", " ");
    await post(base, "/events", { title: `Weekly ${i}`, start_date: `${start}:00:00`, end_date: `${start}:45:00`, timezone: "Europe/Rome", recurrence: ["RRULE:FREQ=WEEKLY"] });
  }, 8, "series");
}

async function one(kind: StoreKind): Promise<{ rows: Row[]; extra: Record<string, unknown> }> {
  const store = await benchStore(kind, "recurrence");
  const rows: Row[] = [];
  try {
    // one month, a month from now: every series has four or five occurrences in it
    const from = new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10);
    const to = new Date(Date.now() + 60 * DAY).toISOString().slice(0, 10);
    const route = `${NS}/events?start_date=${from}&end_date=${to}&per_page=50`;
    const cachedServer = await startServer({ ...store.env, SERIES_JOB_MS: "0" });
    const rate = await seed(cachedServer.base);
    const page = await fetch(`${cachedServer.base}${route}`);
    const total = Number(page.headers.get("x-wp-total"));
    const base = await baseline(await page.text(), LOAD);
    const cached = await load(`${cachedServer.base}${route}`, LOAD);
    rows.push({ store: kind, case: `month of ${SERIES} weekly series (cached)`, measure: cached, ratio: +(cached.rps / base.rps).toFixed(3) });
    await cachedServer.stop();

    const uncachedServer = await startServer({ ...store.env, SERIES_JOB_MS: "0", CACHER: "off" });
    await load(`${uncachedServer.base}${route}`, { ...LOAD, duration: 2 }); // warm-up
    await settle(uncachedServer.base);
    const uncached = await load(`${uncachedServer.base}${route}`, LOAD);
    rows.push({ store: kind, case: `month of ${SERIES} weekly series (cache off)`, measure: uncached, ratio: +(uncached.rps / base.rps).toFixed(3) });
    await uncachedServer.stop();
    return { rows, extra: { [`${kind}_series_per_s`]: +rate.toFixed(1), [`${kind}_month_total`]: total, [`${kind}_baseline_rps`]: base.rps } };
  } finally {
    await store.drop();
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const extra: Record<string, unknown> = {};
  for (const kind of STORES) {
    const out = await one(kind);
    rows.push(...out.rows);
    Object.assign(extra, out.extra);
  }
  const lines = [
    `${"store".padEnd(9)} ${"case".padEnd(42)} ${"req/s".padStart(8)} ${"p50".padStart(5)} ${"p99".padStart(5)} ${"ratio".padStart(7)} ${"errors".padStart(7)}`,
    ...rows.map(r => `${r.store.padEnd(9)} ${r.case.padEnd(42)} ${String(r.measure.rps).padStart(8)} ${String(r.measure.p50).padStart(5)} ${String(r.measure.p99).padStart(5)} ${String(r.ratio).padStart(7)} ${String(r.measure.errors + r.measure.non2xx).padStart(7)}`),
    "",
    ...Object.entries(extra).map(([k, v]) => `${k}: ${v}`)
  ];
  console.log(lines.join("\n"));
  const dir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  const json = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, series: SERIES, duration_s: LOAD.duration, connections: LOAD.connections, rows, extra };
  fs.writeFileSync(path.join(dir, "recurrence-latest.json"), JSON.stringify(json, null, 2));
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
