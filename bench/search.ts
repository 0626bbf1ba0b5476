/**
 * `npm run bench:search`: uncached search at 10 000 and 100 000 events on each SQL store, beside
 * the gateway floor of the same run (`/health/live`, run.ts's floor column; C60: the framework floor of the bench).
 *
 * The calendar: venues, organizers, categories and tags made through the HTTP API (one per 100 events, 20
 * categories, 50 tags), then the events written straight into the store's tables through the store's own
 * driver (its triggers keep the links and the text indexes, as every write does), with the texts, dates and
 * links run.ts's seeding gives them. Seeding 100 000 events through the API takes ten minutes or more per
 * store on this machine; written straight it takes under two. The term counts are not moved (no row here
 * reads them).
 *
 * Rows (cache off, 32 connections): search with single words (run.ts's list, cycling), and with a word and a
 * number (`concert 4821`: the word cycling, the number an event's at random). `BENCH_SERVER_ROOT` starts the
 * service from another build (its `dist/`) on the same stores, so two builds can be measured alternately in
 * one sitting: `BENCH_SEARCH_BUILDS=/path/a,/path/b` runs every row once per build, in turn, `BENCH_ROUNDS`
 * times (default 1).
 *
 * Settings: BENCH_STORES (sqlite,postgres), BENCH_SIZES (10000,100000), BENCH_DURATION seconds per row (5),
 * BENCH_CONNECTIONS (32), BENCH_KEEP_STORE (1: the stores are kept, their settings printed). Writes bench/results/search-latest.json and .txt.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { benchStore, BenchStore, inParallel, load, LoadOptions, Measure, NS, post, ROOT, settle, startServer, StoreKind } from "./common";
import { openPostgres, openSqlite } from "../store/sql/driver";
import { Links, seedEvents } from "./seed-straight";
import { sqliteFile } from "../store";

const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",").map(s => s.trim()).filter(Boolean) as StoreKind[];
const SIZES = (process.env.BENCH_SIZES ?? "10000,100000").split(",").map(Number);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const BUILDS = (process.env.BENCH_SEARCH_BUILDS ?? ROOT).split(",").map(s => s.trim()).filter(Boolean);
const LOAD: LoadOptions = { connections: CONNECTIONS, duration: DURATION };
/** run.ts's search words (C47: words of 3+ letters). */
const WORDS = ["jazz", "concert", "benchmark", "number", "event", "night", "café", "music"];

async function seedLinks(base: string, n: number): Promise<Links> {
  const linked = Math.max(10, Math.round(n / 100));
  const l: Links = { venues: [], organizers: [], categories: [], tags: [] };
  await inParallel(linked, async i => { l.venues[i] = (await post(base, "/venues", { venue: `Venue ${i}`, city: "Paris", country: "France" })).id as number; });
  await inParallel(linked, async i => { l.organizers[i] = (await post(base, "/organizers", { organizer: `Organizer ${i}` })).id as number; });
  await inParallel(20, async i => { l.categories[i] = (await post(base, "/categories", { name: `Category ${i}` })).id as number; });
  await inParallel(50, async i => { l.tags[i] = (await post(base, "/tags", { name: `Tag ${i}` })).id as number; });
  return l;
}

interface Row { store: StoreKind; n: number; build: string; round: number; case: string; measure: Measure; ofFloor?: number }

async function benchSize(kind: StoreKind, n: number, rows: Row[]): Promise<void> {
  const store: BenchStore = await benchStore(kind, `search_${n}`);
  try {
    process.stderr.write(`\n${kind}, N = ${n}\n`);
    const t0 = Date.now();
    const server = await startServer(store.env);
    const l = await seedLinks(server.base, n);
    await server.stop();
    const driver = kind === "sqlite" ? openSqlite(sqliteFile(store.env.DATA_DIR)) : openPostgres(store.env.DATABASE_URL);
    try {
      await seedEvents(driver, l, 0, n);
    } finally {
      await driver.close();
    }
    process.stderr.write(`  seeded in ${Math.round((Date.now() - t0) / 1000)} s\n`);
    let r = 0;
    const single = () => `${NS}/events?search=${encodeURIComponent(WORDS[r++ % WORDS.length])}`;
    const withNumber = () => `${NS}/events?search=${encodeURIComponent(`${WORDS[r++ % WORDS.length]} ${Math.floor(Math.random() * n)}`)}`;
    const cases: Array<[string, () => string]> = [
      ["gateway floor (/health/live)", () => "/health/live"],
      ["search, single words", single],
      ["search, a word and a number", withNumber]
    ];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const build of BUILDS) {
        const s = await startServer({ ...store.env, CACHER: "off", BENCH_SERVER_ROOT: build });
        try {
          let floor = 0;
          for (const [name, next] of cases) {
            await load(s.base, { ...LOAD, duration: 2, path: next }); // warm-up
            await settle(s.base);
            const m = await load(s.base, { ...LOAD, path: next });
            await settle(s.base);
            if (name.startsWith("gateway")) floor = m.rps;
            const label = path.basename(build);
            rows.push({ store: kind, n, build: label, round, case: name, measure: m, ...(name.startsWith("gateway") ? {} : { ofFloor: +(m.rps / floor).toFixed(3) }) });
            process.stderr.write(`  [${label} #${round}] ${name}: ${m.rps} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms${m.errors + m.non2xx ? `, ${m.errors + m.non2xx} failed` : ""}\n`);
          }
        } finally {
          await s.stop();
        }
      }
    }
  } finally {
    // BENCH_KEEP_STORE=1: the seeded store stays for profiling (its settings printed)
    if (process.env.BENCH_KEEP_STORE) process.stderr.write(`  kept: ${JSON.stringify(store.env)}\n`);
    else await store.drop();
  }
}

function report(rows: Row[]): void {
  const lines = [`search bench (${new Date().toISOString()}, ${os.cpus().length} cores, node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s per row, cache off)`, ""];
  lines.push(`${"store".padEnd(9)} ${"N".padStart(7)} ${"build".padEnd(10)} ${"#".padStart(2)} ${"case".padEnd(30)} ${"req/s".padStart(7)} ${"p50".padStart(6)} ${"p99".padStart(6)} ${"err".padStart(4)} ${"floor".padStart(6)}`);
  for (const r of rows) {
    lines.push(`${r.store.padEnd(9)} ${String(r.n).padStart(7)} ${r.build.padEnd(10)} ${String(r.round).padStart(2)} ${r.case.padEnd(30)} ${String(r.measure.rps).padStart(7)} ${String(r.measure.p50).padStart(6)} ${String(r.measure.p99).padStart(6)} ${String(r.measure.errors + r.measure.non2xx).padStart(4)} ${(r.ofFloor?.toFixed(3) ?? "").padStart(6)}`);
  }
  const text = lines.join("\n");
  console.log(text);
  const dir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "search-latest.txt"), `${text}\n`);
  fs.writeFileSync(path.join(dir, "search-latest.json"), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, duration_s: DURATION, connections: CONNECTIONS, rows }, null, 2)}\n`);
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const kind of STORES) for (const n of SIZES) await benchSize(kind, n, rows);
  report(rows);
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
