/**
 * `npm run bench:speed` (part of `npm run bench`): the speed table of docs/benchmarks.md, each row beside the framework floor of C60 (a bare moleculer-web gateway).
 *
 * For each SQL store (BENCH_STORES) one calendar is seeded through the HTTP API, each event with a venue, an
 * organizer, a category and a tag (one venue and one organizer per 100 events, 20 categories, 50 tags; the
 * texts, dates and links of run.ts), first to the smallest size, measured, then grown to the next size and
 * measured again (BENCH_SIZES, default 10 000 and 100 000). The seeding's create rate is recorded per tenth
 * of each stage ("creates with links": the last tenth is the rate on the way to that size).
 *
 * At each size, BENCH_ROUNDS rounds (default 3, the median of three of C47 (what the bench measures)), each with the machine's load
 * (`uptime`) recorded and:
 * - after a restart with the cache off (uncached as C47 (what the bench measures) defines it): `/health/live`, the default list, a filtered list
 *   (category + venue, values cycling), the same with a filterable custom field's value beside the category
 *   (`meta[stage]`: a `choice` field of nine values the calendar's events hold, made before them), a single event by random id, search with single words (run.ts's
 *   list, cycling) and with a word and a number (`concert 4821`, the number an event's at random), the
 *   recurrence bench's month (`start_date` and `end_date` a month apart, 50 a page, bench/recurrence.ts);
 * - with the cache on: the read mix of run.ts (40 % list pages, 30 % single events, 20 % filtered lists, 10 %
 *   venue pages) at 5 and 50 title writes per second, the writes' p50 and p99.
 * Every row is followed by its floor (bench/floor.ts: a bare moleculer-web gateway answering the row's own
 * answers, sampled from the service at the round's start) and the raw node:http reference answering the
 * same bytes; the row's `floor` share is its req/s over its floor's. Then, BENCH_ROUNDS times, BENCH_CREATES
 * (default 2 000) creates with links on top of the calendar (so the next size's seeding starts a little
 * further on; the rows of a size are all measured before them). Each restart of a round is timed to its first
 * ready answer and its resident memory noted when it stops: the slowest and the largest are reported per size.
 *
 * Settings (docs/benchmarks.md "Running the speed bench"): BENCH_STORES (sqlite,postgres), BENCH_SIZES
 * (10000,100000), BENCH_ROUNDS (3), BENCH_ROWS (every row; else parts of row names separated by `;` (names hold commas), `creates`
 * for the creates on top), BENCH_API_UP_TO (10000: events past it are written straight into the store by
 * bench/seed-straight.ts, the service stopped), BENCH_SHAPE (`city`: 50 venues and 50 organizers at every size), BENCH_DURATION seconds per measure (5), BENCH_WARMUP
 * seconds (1), BENCH_RAW_DURATION (2), BENCH_CONNECTIONS (32), BENCH_CREATES (2000), BENCH_OUT (the
 * results' name, speed-<stores>). Writes bench/results/<name>.txt and .json after every round (a run
 * stopped early keeps its rounds).
 */
import { execSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { benchStore, cpuMs, load, LoadOptions, Measure, NS, percentile, post, ROOT, settle, startServer, StoreKind } from "./common";
import { startReference } from "./floor";
import { eventBody, Links, seedEvents, Stage } from "./seed-straight";
import { openPostgres, openSqlite } from "../store/sql/driver";
import { sqliteFile } from "../store";
import { writesBeside, WritesMeasure } from "./writes-beside";

const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",").map(s => s.trim()).filter(Boolean) as StoreKind[];
const SIZES = (process.env.BENCH_SIZES ?? "10000,100000").split(",").map(Number).sort((a, b) => a - b);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
// 2 s (was 3): the whole run at both sizes on both stores within 40 minutes (docs/benchmarks.md)
const RAW_DURATION = Number(process.env.BENCH_RAW_DURATION ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const CREATES = Number(process.env.BENCH_CREATES ?? 2000);
/** Events past this count are written straight into the store (bench/seed-straight.ts), not through the API. */
const API_UP_TO = Number(process.env.BENCH_API_UP_TO ?? 10000);
/**
 * `city`: 50 venues and 50 organizers whatever the size, as a city's calendar over a few years (the shape
 * of the measurement from outside, whose category + venue pairs are mostly empty intersections); else one
 * venue and one organizer per 100 events.
 */
const SHAPE = process.env.BENCH_SHAPE ?? "";
/** The rows measured: those whose name holds one of these (any case); `creates` for the creates on top. Every row when unset. */
const ROWS = (process.env.BENCH_ROWS ?? "").split(";").map(s => s.trim().toLowerCase()).filter(Boolean);
const chosen = (name: string) => ROWS.length === 0 || ROWS.some(r => name.toLowerCase().includes(r));
const LOAD: LoadOptions = { connections: CONNECTIONS, duration: DURATION };
/** run.ts's search words (C47: a fixed list of words of 3+ letters). */
const WORDS = ["jazz", "concert", "benchmark", "number", "event", "night", "café", "music"];
const DAY = 86_400_000;
const OUT = process.env.BENCH_OUT || `speed-${STORES.join("-")}`;

/** `stage`: the events' filterable custom field (made with a calendar begun here; a calendar kept from before may lack it). */
export interface Calendar { venues: number[]; organizers: number[]; categories: Array<{ id: number; slug: string }>; tags: number[]; eventIds: number[]; stage?: Stage }

/**
 * The stage field's values: nine, prime to the 20 categories (event i's category is i mod 20), so a
 * category and a stage together keep one event in 180 as independent filters would.
 */
const STAGES = Array.from({ length: 9 }, (_, k) => `stage_${k + 1}`);

/** `cpuUs`: the service's own CPU per create (µs; its process alone, the database server's not counted), less moved by a loaded machine than the rate. */
export interface Creates { from: number; to: number; perSec: number; p50: number; p99: number; clients: number; how: string; cpuUs?: number }

interface Row {
  store: StoreKind;
  n: number;
  round: number;
  case: string;
  measure: Measure;
  floor: Measure;
  raw: Measure;
  /** req/s over the floor's (C60: the framework floor of the bench). */
  ofFloor: number;
  /** req/s over the raw reference's. */
  ofRaw: number;
  floorOfRaw: number;
  writes?: WritesMeasure;
  load: string;
}

const NOW = Date.now();
const uptime = () => execSync("uptime").toString().trim().replace(/^.*load average/, "load average");

/** The links of the calendar as bench/seed-straight.ts takes them. */
const linksOf = (c: Calendar): Links => ({ venues: c.venues, organizers: c.organizers, categories: c.categories.map(x => x.id), tags: c.tags, stage: c.stage });

/** `count` events with their links created through the API by `clients` clients; their rate and latency. */
export async function create(base: string, c: Calendar, count: number, clients: number, how: string, pid?: number): Promise<Creates> {
  const from = c.eventIds.length;
  const cpu0 = pid ? cpuMs(pid) : 0;
  const latencies: number[] = [];
  let next = 0;
  const began = Date.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < count) {
      const i = from + next++;
      const t0 = performance.now();
      const ev = await post(base, "/events", eventBody(i, linksOf(c), NOW));
      latencies.push(performance.now() - t0);
      c.eventIds[i] = ev.id as number;
    }
  }));
  const cpuUs = pid ? Math.round((1000 * (cpuMs(pid) - cpu0)) / count) : undefined;
  return { from, to: from + count, perSec: Math.round(count / ((Date.now() - began) / 1000)), p50: Math.round(percentile(latencies, 0.5)), p99: Math.round(percentile(latencies, 0.99)), clients, how, cpuUs };
}

/** `fn` again after a failure, up to three tries. */
async function retried<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 3) throw err;
      process.stderr.write(`  retried after: ${(err as Error).message.slice(0, 120)}\n`);
      await new Promise(r => setTimeout(r, 1000));
    }
  }
}

/**
 * The calendar grown to `n` events (links first: one venue and organizer per 100 events, or 50 of each for
 * BENCH_SHAPE=city), in tenths.
 */
export async function grow(base: string, c: Calendar, n: number, log: Creates[]): Promise<void> {
  const linked = SHAPE === "city" ? 50 : Math.max(10, Math.round(n / 100));
  // 8 at a time, each tried three times: 32 at once timed out (504) on a loaded machine (docs/benchmarks.md)
  const more = async (xs: number[], make: (i: number) => Promise<number>) => {
    for (let i = xs.length; i < linked; i += 8) {
      const batch = Array.from({ length: Math.min(8, linked - i) }, (_, k) => i + k);
      const ids = await Promise.all(batch.map(j => retried(() => make(j))));
      batch.forEach((j, k) => { xs[j] = ids[k]; });
    }
  };
  await more(c.venues, async i => (await post(base, "/venues", { venue: `Venue ${i}`, city: "Paris", country: "France" })).id as number);
  await more(c.organizers, async i => (await post(base, "/organizers", { organizer: `Organizer ${i}` })).id as number);
  for (let i = c.categories.length; i < 20; i++) {
    const t = await post(base, "/categories", { name: `Category ${i}` });
    c.categories[i] = { id: t.id as number, slug: t.slug as string };
  }
  for (let i = c.tags.length; i < 50; i++) c.tags[i] = (await post(base, "/tags", { name: `Tag ${i}` })).id as number;
  if (!c.stage && !c.eventIds.length) {
    const options = STAGES.map((value, k) => ({ value, label: `Stage ${k + 1}` }));
    const field = await post(base, "/fields", { key: "stage", object_type: "event", type: "choice", label: "Stage", options, filterable: true });
    c.stage = { field: field.id as number, key: "stage", values: STAGES };
  }
  const upTo = Math.min(n, API_UP_TO);
  const tenth = Math.ceil((upTo - c.eventIds.length) / 10);
  while (c.eventIds.length < upTo) {
    const done = await create(base, c, Math.min(tenth, upTo - c.eventIds.length), CONNECTIONS, "seeding");
    log.push(done);
    process.stderr.write(`  seeded ${done.to}/${n}: ${done.perSec}/s, p99 ${done.p99} ms (${uptime()})\n`);
  }
}

/** The rest of the way to `n` written straight into the store (the service stopped). */
export async function growStraight(kind: StoreKind, env: Record<string, string>, c: Calendar, n: number): Promise<void> {
  if (c.eventIds.length >= n) return;
  const t0 = Date.now();
  const driver = kind === "sqlite" ? openSqlite(sqliteFile(env.DATA_DIR)) : openPostgres(env.DATABASE_URL);
  try {
    // the stage tokens the API's writes put in the site's dictionary (domain/fields/field-tokens.ts)
    if (c.stage) {
      const rows = await driver.all<{ id: number | string; token: string }>(`SELECT id, ${kind === "sqlite" ? "json_extract(doc, '$.token')" : "doc ->> 'token'"} AS token FROM field_tokens WHERE site = 1`);
      c.stage.tokens = Object.fromEntries(rows.map(r => [r.token, Number(r.id)]));
    }
    // one at a time: a million ids spread as arguments overflow the stack
    for (const id of await seedEvents(driver, linksOf(c), c.eventIds.length, n, NOW)) c.eventIds.push(id);
  } finally {
    await driver.close();
  }
  process.stderr.write(`  written straight to ${n} in ${Math.round((Date.now() - t0) / 1000)} s\n`);
}

export interface RowDef {
  name: string;
  next: () => string;
  samples: number;
  rate?: number;
  /** Settings of the service for this row (an uncached row: the service restarted with them, cache off). */
  env?: Record<string, string>;
  /** Paths read once before the row's warm-up (the stored renderings kept by a first read of every event). */
  prime?: () => string[];
}

function cycling(make: (i: number) => string): () => string {
  let i = 0;
  return () => make(i++);
}

export function rowDefs(c: Calendar, wanted = chosen): RowDef[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)];
  const n = c.eventIds.length;
  const filtered = cycling(i => `${NS}/events?categories=${c.categories[i % c.categories.length].slug}&venue=${c.venues[(i * 7) % c.venues.length]}`);
  const stage = c.stage;
  const byField = cycling(i => `${NS}/events?categories=${c.categories[i % c.categories.length].slug}&${encodeURIComponent(`meta[${stage!.key}]`)}=${stage!.values[(i * 4) % stage!.values.length]}`);
  const single = () => `${NS}/events/${pick(c.eventIds)}`;
  const page = cycling(i => `${NS}/events?page=${1 + (i % 10)}`);
  const venue = () => `${NS}/venues/${pick(c.venues)}`;
  const mix = () => cycling(i => {
    const k = i % 10;
    return k < 4 ? page() : k < 7 ? single() : k < 9 ? filtered() : venue();
  });
  const from = new Date(NOW + 30 * DAY).toISOString().slice(0, 10);
  const to = new Date(NOW + 60 * DAY).toISOString().slice(0, 10);
  const COMPUTED = { STORED_RENDERINGS: "0" };
  const all: RowDef[] = [
    { name: "/health/live", next: () => "/health/live", samples: 1 },
    // the rows named without "stored renderings" compute every answer (STORED_RENDERINGS=0), as before the renderings were kept
    { name: "default list", next: () => `${NS}/events`, samples: 1, env: COMPUTED },
    { name: "filtered list (category+venue)", next: filtered, samples: 5, env: COMPUTED },
    // the same list with a filterable custom field's value beside the category (docs/lists.md#custom-field-filters)
    ...(stage ? [{ name: "filtered list (category+meta)", next: byField, samples: 5, env: COMPUTED }] : []),
    { name: "single event, random id", next: single, samples: 5, env: COMPUTED },
    // the same reads answered from the stored renderings (docs/caching.md#stored-renderings), every event read twice before
    // (the first read keeps its renderings, the second its whole answer)
    { name: "single event, stored renderings", next: single, samples: 5, env: { STORED_RENDERINGS: "1" }, prime: () => [1, 2].flatMap(() => c.eventIds.map(id => `${NS}/events/${id}`)) },
    // the list pages answered from the stored renderings, each page read twice before (the first read keeps its
    // events' renderings, the second their composed texts, which the measured reads send)
    { name: "default list, stored renderings", next: () => `${NS}/events`, samples: 1, env: { STORED_RENDERINGS: "1" }, prime: () => [`${NS}/events`, `${NS}/events`] },
    { name: "filtered list, stored renderings", next: filtered, samples: 5, env: { STORED_RENDERINGS: "1" }, prime: () => Array.from({ length: 100 }, () => filtered()) },
    { name: "recurrence month, stored renderings", next: () => `${NS}/events?start_date=${from}&end_date=${to}&per_page=50`, samples: 1, env: { STORED_RENDERINGS: "1" }, prime: () => [1, 2].map(() => `${NS}/events?start_date=${from}&end_date=${to}&per_page=50`) },
    { name: "search, single words", next: cycling(i => `${NS}/events?search=${encodeURIComponent(WORDS[i % WORDS.length])}`), samples: WORDS.length },
    { name: "search, a word and a number", next: cycling(i => `${NS}/events?search=${encodeURIComponent(`${WORDS[i % WORDS.length]} ${Math.floor(Math.random() * n)}`)}`), samples: 5 },
    { name: "recurrence month (50 a page)", next: () => `${NS}/events?start_date=${from}&end_date=${to}&per_page=50`, samples: 1, env: COMPUTED },
    { name: "read mix, 5 writes/s (cache on)", next: mix(), samples: 10, rate: 5 },
    { name: "read mix, 50 writes/s (cache on)", next: mix(), samples: 10, rate: 50 }
  ];
  return all.filter(d => wanted(d.name));
}

async function answers(base: string, defs: RowDef[]): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for (const d of defs) {
    const xs: unknown[] = [];
    for (let k = 0; k < d.samples; k++) {
      const res = await fetch(`${base}${d.next()}`);
      if (res.status !== 200) throw new Error(`${d.name}: ${res.status} ${await res.text()}`);
      xs.push(await res.json());
    }
    out.push(xs);
  }
  return out;
}

/**
 * Reads each path as often as it is named, CONNECTIONS paths at a time; the reads of one path one after
 * another (a second read then finds what the first kept). A read that failed (its connection reset: seen
 * once at 1 000 000 events, where a filtered page takes seconds under 32 clients) is tried again, twice at most.
 */
export async function primed(base: string, named: string[]): Promise<void> {
  const times = new Map<string, number>();
  for (const p of named) times.set(p, (times.get(p) ?? 0) + 1);
  const paths = [...times.keys()];
  let next = 0;
  const read = async (url: string, tries = 3): Promise<void> => {
    try {
      await (await fetch(url)).arrayBuffer();
    } catch (err) {
      if (tries <= 1) throw err;
      await read(url, tries - 1);
    }
  };
  const worker = async () => {
    while (next < paths.length) {
      const p = paths[next++];
      for (let k = 0; k < times.get(p)!; k++) await read(`${base}${p}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

/** A restart of the service in a round: how long it took to answer ready, and its resident memory when stopped. */
interface Restart { store: StoreKind; n: number; round: number; readyMs: number; rssMb: number }
const restarts: Restart[] = [];

/** The process's resident memory now, in MB (Linux). */
function rssMb(pid: number | undefined): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

async function round(kind: StoreKind, env: Record<string, string>, c: Calendar, n: number, r: number, rows: Row[]): Promise<void> {
  const loadAvg = uptime();
  const began = Date.now();
  process.stderr.write(`  round ${r} at N=${c.eventIds.length} (${loadAvg})\n`);
  const defs = rowDefs(c);
  if (!defs.length) return;
  // each restart timed to its first ready answer; its memory noted when it stops
  const start = async (e: Record<string, string>) => {
    const t = Date.now();
    const s = await startServer(e);
    const restart: Restart = { store: kind, n, round: r, readyMs: Date.now() - t, rssMb: 0 };
    restarts.push(restart);
    return { ...s, stop: () => ((restart.rssMb = rssMb(s.child.pid)), s.stop()) };
  };
  let server = await start({ ...env, CACHER: "off" });
  let serverEnv = "{}";
  const file = path.join(os.tmpdir(), `bench-speed-${process.pid}.json`);
  const sampled = await answers(server.base, defs);
  const floor = await startReference("floor", sampled, file);
  const raw = await startReference("raw", sampled, file);
  try {
    let cached = false;
    let warmMix = true;
    for (const [i, d] of defs.entries()) {
      if (d.rate !== undefined && !cached) {
        await server.stop();
        server = await start(env);
        cached = true;
      }
      if (d.rate === undefined && JSON.stringify(d.env ?? {}) !== serverEnv) {
        await server.stop();
        server = await start({ ...env, CACHER: "off", ...d.env });
        serverEnv = JSON.stringify(d.env ?? {});
      }
      if (d.prime) await primed(server.base, d.prime());
      await load(server.base, { ...LOAD, duration: d.rate !== undefined && warmMix ? 2 * WARMUP + 1 : WARMUP, path: d.next });
      warmMix = warmMix && d.rate === undefined;
      await settle(server.base);
      const { result: m, writes } = await writesBeside(server.base, c.eventIds, d.rate ?? 0, load(server.base, { ...LOAD, path: d.next }));
      await settle(server.base);
      await load(floor.url(i), { ...LOAD, duration: WARMUP });
      const f = await load(floor.url(i), LOAD);
      const w = await load(raw.url(i), { ...LOAD, duration: RAW_DURATION });
      const row: Row = { store: kind, n, round: r, case: d.name, measure: m, floor: f, raw: w, ofFloor: +(m.rps / f.rps).toFixed(3), ofRaw: +(m.rps / w.rps).toFixed(3), floorOfRaw: +(f.rps / w.rps).toFixed(3), writes, load: loadAvg };
      rows.push(row);
      process.stderr.write(`    ${d.name}: ${m.rps} req/s (p50 ${m.p50}, p99 ${m.p99} ms${m.errors + m.non2xx ? `, ${m.errors + m.non2xx} failed` : ""}), floor ${f.rps}, raw ${w.rps}: ${row.ofFloor} of the floor${writes ? `; writes ${writes.perSec}/s p50 ${writes.p50} p99 ${writes.p99} ms` : ""}\n`);
    }
  } finally {
    await server.stop();
    await floor.stop();
    await raw.stop();
    fs.rmSync(file, { force: true });
    process.stderr.write(`  round ${r} took ${Math.round((Date.now() - began) / 1000)} s\n`);
  }
}

const median = (xs: number[]) => percentile(xs, 0.5);
const pad = (s: string | number, w: number) => String(s).padStart(w);

function report(rows: Row[], creates: Record<string, Creates[]>, started: string): void {
  const lines = [`speed bench (issue 43; started ${started}, written ${new Date().toISOString()}, ${os.cpus().length} cores, node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s per measure after ${WARMUP} s of warm-up, raw ${RAW_DURATION} s)`, ""];
  lines.push("Medians over the rounds (req/s, p50/p99/mean ms of the row; `floor` = req/s over its floor's, C60; floor and raw req/s):");
  lines.push(`${"store".padEnd(8)} ${"N".padStart(6)} ${"case".padEnd(34)} ${"#".padStart(2)} ${"req/s".padStart(7)} ${"p50".padStart(6)} ${"p99".padStart(6)} ${"mean".padStart(8)} ${"floor".padStart(6)} ${"range".padStart(12)} ${"floor/s".padStart(8)} ${"raw/s".padStart(7)}  writes p50/p99`);
  const keys = [...new Set(rows.map(r => `${r.store}|${r.n}|${r.case}`))];
  const med: Record<string, { mean: number }> = {};
  for (const k of keys) {
    const rs = rows.filter(r => `${r.store}|${r.n}|${r.case}` === k);
    const [store, n, name] = k.split("|");
    const f = rs.map(r => r.ofFloor);
    const w = rs.filter(r => r.writes).map(r => r.writes!);
    const mean = median(rs.map(r => r.measure.mean));
    med[k] = { mean };
    lines.push(`${store.padEnd(8)} ${pad(n, 6)} ${name.padEnd(34)} ${pad(rs.length, 2)} ${pad(median(rs.map(r => r.measure.rps)), 7)} ${pad(median(rs.map(r => r.measure.p50)), 6)} ${pad(median(rs.map(r => r.measure.p99)), 6)} ${pad(mean.toFixed(1), 8)} ${pad(median(f).toFixed(3), 6)} ${pad(`${Math.min(...f).toFixed(2)}–${Math.max(...f).toFixed(2)}`, 12)} ${pad(median(rs.map(r => r.floor.rps)), 8)} ${pad(median(rs.map(r => r.raw.rps)), 7)}  ${w.length ? `${median(w.map(x => x.p50))}/${median(w.map(x => x.p99))}` : ""}`);
  }
  lines.push("", "Mean latency at the largest size over the smallest (uncached list rows; target ≤ 1.3):");
  const [small, large] = [SIZES[0], SIZES[SIZES.length - 1]];
  for (const store of STORES) for (const name of ["default list", "filtered list (category+venue)", "filtered list (category+meta)", "recurrence month (50 a page)", "search, single words", "search, a word and a number", "single event, random id", "single event, stored renderings"]) {
    const a = med[`${store}|${small}|${name}`];
    const b = med[`${store}|${large}|${name}`];
    if (a && b) lines.push(`  ${store} ${name}: ${(b.mean / a.mean).toFixed(2)}×`);
  }
  lines.push("", "The service at each size (restarts of the rounds: the slowest to answer ready, the most resident memory when stopped):");
  for (const store of STORES) for (const n of SIZES) {
    const rs = restarts.filter(x => x.store === store && x.n === n);
    if (rs.length) lines.push(`  ${store} ${n}: ready in ≤ ${Math.max(...rs.map(x => x.readyMs))} ms (median ${median(rs.map(x => x.readyMs))} ms) over ${rs.length} restarts; RSS ≤ ${Math.max(...rs.map(x => x.rssMb))} MB`);
  }
  lines.push("", "Creates with links (events from–to: creates/s, p50/p99 ms, clients, the service's CPU per create, how):");
  for (const [store, cs] of Object.entries(creates)) for (const x of cs) lines.push(`  ${store} ${x.from}–${x.to}: ${x.perSec}/s, ${x.p50}/${x.p99} ms, ${x.clients} clients, ${x.cpuUs === undefined ? "" : `${x.cpuUs} µs CPU, `}${x.how}`);
  lines.push("", "Every round (req/s, floor req/s, raw req/s, share of the floor, load):");
  for (const r of rows) lines.push(`  ${r.store} ${r.n} #${r.round} ${r.case}: ${r.measure.rps} (p50 ${r.measure.p50}, p99 ${r.measure.p99}${r.measure.errors + r.measure.non2xx ? `, ${r.measure.errors + r.measure.non2xx} failed` : ""}), floor ${r.floor.rps}, raw ${r.raw.rps}, ${r.ofFloor}${r.writes ? `, writes ${r.writes.perSec}/s ${r.writes.p50}/${r.writes.p99} ms${r.writes.errors ? ` (${r.writes.errors} failed)` : ""}` : ""}; ${r.load}`);
  const text = lines.join("\n");
  const dir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${OUT}.txt`), `${text}\n`);
  fs.writeFileSync(path.join(dir, `${OUT}.json`), `${JSON.stringify({ started, written: new Date().toISOString(), node: process.version, cpus: os.cpus().length, duration_s: DURATION, warmup_s: WARMUP, raw_duration_s: RAW_DURATION, connections: CONNECTIONS, rows, creates }, null, 2)}\n`);
  console.log(text);
}

async function main(): Promise<void> {
  const started = new Date().toISOString();
  const rows: Row[] = [];
  const creates: Record<string, Creates[]> = {};
  for (const kind of STORES) {
    const store = await benchStore(kind, "speed");
    const log: Creates[] = (creates[kind] = []);
    const c: Calendar = { venues: [], organizers: [], categories: [], tags: [], eventIds: [] };
    try {
      process.stderr.write(`\n${kind}\n`);
      for (const n of SIZES) {
        let server = await startServer(store.env);
        try {
          await grow(server.base, c, n, log);
        } finally {
          await server.stop();
        }
        await growStraight(kind, store.env, c, n);
        for (let r = 1; r <= ROUNDS; r++) {
          await round(kind, store.env, c, n, r, rows);
          report(rows, creates, started);
        }
        server = await startServer(store.env);
        try {
          for (let r = 1; r <= ROUNDS && CREATES > 0 && chosen("creates"); r++) {
            const done = await create(server.base, c, CREATES, CONNECTIONS, `on top, round ${r} (${uptime()})`, server.child.pid);
            log.push(done);
            process.stderr.write(`  creates on top ${done.from}–${done.to}: ${done.perSec}/s, p99 ${done.p99} ms, ${done.cpuUs} µs of the service's CPU each\n`);
          }
        } finally {
          await server.stop();
        }
        report(rows, creates, started);
      }
    } finally {
      await store.drop();
    }
  }
}

if (require.main === module) {
  main().catch(err => {
    console.error(err);
    process.exit(1);
  });
}
