/**
 * `npm run bench` (after the store bench): the read side, on SQLite and on PostgreSQL, as the speed issue
 * words it. For each store and each N (default 10 000 and 100 000 events, with venues, organizers,
 * categories and tags, seeded through the HTTP API):
 * - with the cache on: the default list; the read mix of a calendar site (40 % list pages, 30 % single
 *   events, 20 % filtered lists, 10 % venue pages) with 0, 5 and 50 writes per second beside it (writes:
 *   a random event's title updated, C47: what the bench measures), the writes' own latency reported;
 * - after a restart with the cache off ("uncached" as C47 (what the bench measures) defines it): a single event, a filtered list (category +
 *   venue + start date, values cycling), search (a fixed list of words, cycling) and the default list;
 *   beside them the gateway's floor, `/health/live` (one call of an action that does nothing), the most
 *   any uncached row can reach on this gateway.
 * Each row's ratio is to a raw node:http server answering one real events page's bytes, measured in the
 * same run for each N (C47: what the bench measures), the faster of two measures taken while the service is stopped; each uncached
 * row also as a share of the gateway floor's req/s (column "floor"). The read mix
 * runs at the smallest N only (the issue's 10 000).
 *
 * Prints the table and writes it as JSON (bench/results/latest.json, latest.txt).
 * Settings: BENCH_STORES (sqlite,postgres), BENCH_SIZES (10000,100000), BENCH_DURATION seconds per row
 * (5), BENCH_CONNECTIONS (32).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { baseline, benchStore, inParallel, load, LoadOptions, Measure, NS, post, ROOT, rssMb, settle, startServer, StoreKind } from "./common";
import { writesBeside, WritesMeasure } from "./writes-beside";

const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",").map(s => s.trim()).filter(Boolean) as StoreKind[];
const SIZES = (process.env.BENCH_SIZES ?? "10000,100000").split(",").map(Number);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const LOAD: LoadOptions = { connections: CONNECTIONS, duration: DURATION };
/** C47: search is measured on a fixed list of words of 3+ letters. */
const SEARCH_WORDS = ["jazz", "concert", "benchmark", "number", "event", "night", "café", "music"];
const WRITE_RATES = [0, 5, 50];
const FLOOR_CASE = "gateway floor (/health/live)";

interface Row {
  store: StoreKind;
  n: number;
  case: string;
  measure: Measure;
  ratio: number;
  /**
   * An uncached row's req/s over the gateway floor's of the same store and N: how many requests of this
   * kind cost one call of an action that does nothing, whatever the machine's raw baseline that run.
   */
  ofFloor?: number;
  /** The writes beside a read mix: their own latency. */
  writes?: WritesMeasure;
}

interface Seeded { venues: number[]; categories: string[]; eventIds: number[] }

const day = 86_400_000;
const dbDate = (t: number) => new Date(t).toISOString().slice(0, 19).replace("T", " ");

async function seed(base: string, n: number): Promise<Seeded> {
  const linked = Math.max(10, Math.round(n / 100));
  const venues: number[] = [];
  const organizers: number[] = [];
  const categories: Array<{ id: number; slug: string }> = [];
  const tags: number[] = [];
  const eventIds: number[] = [];
  await inParallel(linked, async i => { venues[i] = (await post(base, "/venues", { venue: `Venue ${i}`, city: "Paris", country: "France" })).id as number; });
  await inParallel(linked, async i => { organizers[i] = (await post(base, "/organizers", { organizer: `Organizer ${i}` })).id as number; });
  await inParallel(20, async i => { const c = await post(base, "/categories", { name: `Category ${i}` }); categories[i] = { id: c.id as number, slug: c.slug as string }; });
  await inParallel(50, async i => { tags[i] = (await post(base, "/tags", { name: `Tag ${i}` })).id as number; });
  const now = Date.now();
  await inParallel(n, async i => {
    const start = now + day + (i % 700) * day + (i % 24) * 3_600_000;
    const ev = await post(base, "/events", {
      title: `Event ${i} ${i % 7 === 0 ? "jazz" : i % 11 === 0 ? "Café night" : "concert"}`, description: `Benchmark event number ${i} with music`,
      start_date: dbDate(start), end_date: dbDate(start + 2 * 3_600_000), venue: venues[i % venues.length], organizer: organizers[i % organizers.length],
      categories: [categories[i % categories.length].id], tags: [tags[i % tags.length]], featured: i % 10 === 0
    });
    eventIds[i] = ev.id as number;
  }, 32, `events (N=${n})`);
  return { venues, categories: categories.map(c => c.slug), eventIds };
}

/** Paths of one kind, cycling through their values. */
function cycling(make: (i: number) => string): () => string {
  let i = 0;
  return () => make(i++);
}

function paths(s: Seeded) {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)];
  const from = new Date(Date.now() + 2 * day).toISOString().slice(0, 10);
  const filtered = cycling(i => `${NS}/events?categories=${s.categories[i % s.categories.length]}&venue=${s.venues[(i * 7) % s.venues.length]}&start_date=${from}`);
  const single = () => `${NS}/events/${pick(s.eventIds)}`;
  const page = cycling(i => `${NS}/events?page=${1 + (i % 10)}`);
  const venue = () => `${NS}/venues/${pick(s.venues)}`;
  // the mix of a calendar site: 4 list pages, 3 single events, 2 filtered lists, 1 venue page in every 10
  const mix = cycling(i => {
    const k = i % 10;
    return k < 4 ? page() : k < 7 ? single() : k < 9 ? filtered() : venue();
  });
  const search = cycling(i => `${NS}/events?search=${encodeURIComponent(SEARCH_WORDS[i % SEARCH_WORDS.length])}`);
  return { filtered, single, mix, search };
}

async function benchSize(kind: StoreKind, n: number, rows: Row[], extra: Record<string, unknown>): Promise<void> {
  const store = await benchStore(kind, `speed_${n}`);
  try {
    process.stderr.write(`\n${kind}, N = ${n}\n`);
    let server = await startServer(store.env);
    const seeded = await seed(server.base, n);
    const p = paths(seeded);
    const listBody = await (await fetch(`${server.base}${NS}/events`)).text();
    // The baseline is measured twice, each time with the service stopped (after the seeding, and between
    // the cached and the uncached rows), and the faster is this N's: a machine busy for a moment (the store's
    // upkeep after the seeding, the database's own) once measured it below the gateway's floor.
    await server.stop();
    const baselines = [(await baseline(listBody, LOAD)).rps];
    server = await startServer(store.env);
    const measured: Row[] = [];
    const row = (name: string, m: Measure, writes?: Row["writes"]) => {
      measured.push({ store: kind, n, case: name, measure: m, ratio: 0, writes });
      process.stderr.write(`  ${name}: ${m.rps} req/s${writes ? `, writes p99 ${writes.p99} ms` : ""}\n`);
    };

    // the cache on; each row after a warm-up, as the uncached rows below (the seeding just before leaves
    // the process busy for a moment, and a row's first second otherwise holds its code's compilation)
    await load(`${server.base}${NS}/events`, { ...LOAD, duration: 2 });
    await settle(server.base);
    row("default list, cached", await load(`${server.base}${NS}/events`, LOAD));
    await settle(server.base);
    if (n === Math.min(...SIZES)) {
      await load(server.base, { ...LOAD, duration: 2, path: p.mix }); // warm-up
      for (const rate of WRITE_RATES) {
        const { result, writes } = await writesBeside(server.base, seeded.eventIds, rate, load(server.base, { ...LOAD, path: p.mix }));
        row(`read mix, ${rate} writes/s`, result, writes);
        await settle(server.base);
      }
    }
    extra[`${kind}_${n}_rss_mb_cached`] = rssMb(server.child.pid!);
    await server.stop();
    baselines.push((await baseline(listBody, LOAD)).rps);

    // the cache off (a restart)
    server = await startServer({ ...store.env, CACHER: "off" });
    const uncached: Array<[string, () => string]> = [
      // the floor under every uncached row: a request through the same gateway to an action that does nothing
      [FLOOR_CASE, () => "/health/live"],
      ["single event, uncached", p.single],
      ["filtered list, uncached", p.filtered],
      ["search, uncached", p.search],
      ["default list, uncached", () => `${NS}/events`]
    ];
    for (const [name, next] of uncached) {
      await load(server.base, { ...LOAD, duration: 2, path: next }); // warm-up
      await settle(server.base);
      row(name, await load(server.base, { ...LOAD, path: next }));
      await settle(server.base);
    }
    extra[`${kind}_${n}_rss_mb_uncached`] = rssMb(server.child.pid!);
    await server.stop();
    const base = Math.max(...baselines);
    extra[`${kind}_${n}_baseline_rps`] = base;
    extra[`${kind}_${n}_baseline_runs_rps`] = baselines.join(" / ");
    extra[`${kind}_${n}_baseline_body_bytes`] = Buffer.byteLength(listBody);
    const floor = measured.find(r => r.case === FLOOR_CASE)?.measure.rps;
    for (const r of measured) {
      const ofFloor = floor && r.case.endsWith(", uncached") ? { ofFloor: +(r.measure.rps / floor).toFixed(3) } : {};
      rows.push({ ...r, ratio: +(r.measure.rps / base).toFixed(3), ...ofFloor });
    }
    process.stderr.write(`  baseline ${base} req/s (runs: ${baselines.join(", ")})\n`);
  } finally {
    await store.drop();
  }
}

function report(rows: Row[], extra: Record<string, unknown>): void {
  const lines: string[] = [`read bench (${new Date().toISOString()}, ${os.cpus().length} cores, node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s per row)`, ""];
  lines.push(`${"store".padEnd(9)} ${"N".padStart(7)} ${"case".padEnd(28)} ${"req/s".padStart(7)} ${"p50".padStart(5)} ${"p99".padStart(5)} ${"ratio".padStart(6)} ${"err".padStart(4)} ${"floor".padStart(6)}  writes (rate, p50, p99 ms)`);
  for (const r of rows) {
    const w = r.writes ? `${r.writes.perSec}/s, ${r.writes.p50}, ${r.writes.p99}${r.writes.errors ? ` (${r.writes.errors} failed)` : ""}` : "";
    lines.push(`${r.store.padEnd(9)} ${String(r.n).padStart(7)} ${r.case.padEnd(28)} ${String(r.measure.rps).padStart(7)} ${String(r.measure.p50).padStart(5)} ${String(r.measure.p99).padStart(5)} ${r.ratio.toFixed(3).padStart(6)} ${String(r.measure.errors + r.measure.non2xx).padStart(4)} ${(r.ofFloor?.toFixed(3) ?? "").padStart(6)}  ${w}`);
  }
  // latency growth of the uncached filtered list from the smallest N to the largest (the issue's ≤ 1.5×)
  const small = Math.min(...SIZES);
  const large = Math.max(...SIZES);
  if (small !== large) {
    lines.push("");
    for (const kind of STORES) {
      for (const name of ["filtered list, uncached", "search, uncached", "single event, uncached"]) {
        const a = rows.find(r => r.store === kind && r.n === small && r.case === name);
        const b = rows.find(r => r.store === kind && r.n === large && r.case === name);
        if (a && b && a.measure.mean > 0) lines.push(`${kind}: mean latency of "${name}" grows ${(b.measure.mean / a.measure.mean).toFixed(2)}x from N=${small} to N=${large}`);
      }
    }
  }
  lines.push("");
  for (const [k, v] of Object.entries(extra)) lines.push(`${k}: ${v}`);
  const text = lines.join("\n");
  console.log(text);
  const dir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "latest.txt"), `${text}\n`);
  fs.writeFileSync(path.join(dir, "latest.json"), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, duration_s: DURATION, connections: CONNECTIONS, rows, extra }, null, 2)}\n`);
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const extra: Record<string, unknown> = {};
  for (const kind of STORES) for (const n of SIZES) await benchSize(kind, n, rows, extra);
  report(rows, extra);
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
