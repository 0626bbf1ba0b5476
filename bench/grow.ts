/**
 * A calendar grown through the API, as a city's calendar grows (the shape measured from outside): 50 venues, 50
 * organizers, 20 categories, event i at venue i mod 50, organizer 7i mod 50, category i mod 20, titles
 * `Mixed <word> <i>`, dates spread over 690 days, created by `GROW_CLIENTS` (16) clients, the service
 * as `npm start` runs it (metrics on, `CACHER=off` unless `GROW_CACHER` says otherwise). Prints the rate
 * of each tenth and the last tenth's over the first's: on a shared machine the ratio within one run is
 * what to read, not the rates.
 *
 * `GROW_EVENTS` (20 000), `GROW_STORE` (sqlite | postgres), `GROW_RESTART_AT` (a count: the service is
 * restarted there, so a cost kept in the process shows as a jump back up), `GROW_STATEMENTS=1` (each
 * tenth's statement times, store/sql/statement-times.ts: the service restarted at every tenth),
 * `GROW_READS_AT` (a count: there, as the outside measurement did after its first size, the read rows
 * run `GROW_READ_SECONDS` (5) each at 32 connections: the default and filtered lists, both searches, single
 * events), `BENCH_OUT` (bench/results/<name>.txt).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { benchStore, cpuMs, load, NS, percentile, post, ROOT, startServer, StoreKind, Server } from "./common";
import { freePort } from "./free-port";

const EVENTS = Number(process.env.GROW_EVENTS ?? 20_000);
const CLIENTS = Number(process.env.GROW_CLIENTS ?? 16);
const STORE = (process.env.GROW_STORE ?? "sqlite") as StoreKind;
const RESTART_AT = Number(process.env.GROW_RESTART_AT ?? 0);
const STATEMENTS = process.env.GROW_STATEMENTS === "1";
const READS_AT = Number(process.env.GROW_READS_AT ?? 0);
const READ_SECONDS = Number(process.env.GROW_READ_SECONDS ?? 5);
const OUT = process.env.BENCH_OUT ?? `grow-${STORE}-${EVENTS}`;
const WORDS = ["concert", "jazz", "theatre", "market", "festival", "lecture", "exhibition", "dance", "film", "workshop"];
const DAY = 86_400_000;

interface Shape { venues: number[]; organizers: number[]; categories: number[]; slugs: string[] }

function body(i: number, s: Shape, now: number): Record<string, unknown> {
  const start = now + DAY + (i % 690) * DAY + (i % 12) * 3_600_000;
  const iso = (t: number) => new Date(t).toISOString().slice(0, 19).replace("T", " ");
  return {
    title: `Mixed ${WORDS[i % WORDS.length]} ${i}`, description: `An event of the grown calendar, number ${i}`,
    start_date: iso(start), end_date: iso(start + 2 * 3_600_000), status: "publish",
    venue: s.venues[i % 50], organizer: [s.organizers[(7 * i) % 50]], categories: [s.categories[i % 20]]
  };
}

/** The read rows of the outside measurement, each `READ_SECONDS` at 32 connections (the rates printed only to show they ran). */
async function readRows(base: string, s: Shape, ids: number[], say: (line: string) => void): Promise<void> {
  let k = 0;
  const rows: Array<[string, () => string]> = [
    ["default list", () => `${NS}/events`],
    ["filtered list", () => `${NS}/events?categories=${s.slugs[k % 20]}&venue=${s.venues[(7 * k++) % 50]}`],
    ["search, single words", () => `${NS}/events?search=${WORDS[k++ % WORDS.length]}`],
    ["search, a word and a number", () => `${NS}/events?search=${encodeURIComponent(`${WORDS[k++ % WORDS.length]} ${Math.floor(Math.random() * ids.length)}`)}`],
    ["single event", () => `${NS}/events/${ids[Math.floor(Math.random() * ids.length)]}`]
  ];
  for (const [name, path] of rows) {
    const m = await load(`${base}/`, { connections: 32, duration: READ_SECONDS, path });
    say(`  read row "${name}": ${m.rps} req/s, p99 ${m.p99} ms, ${m.non2xx} not 2xx`);
  }
}

async function main(): Promise<void> {
  const store = await benchStore(STORE, "grow");
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  };
  const timesDir = fs.mkdtempSync(path.join(os.tmpdir(), "grow-times-"));
  let server: Server | undefined;
  let segment = 0;
  const start = async () => {
    const metricsPort = await freePort();
    const times: Record<string, string> = STATEMENTS ? { SQL_STATEMENT_TIMES: path.join(timesDir, `tenth-${segment++}.json`) } : {};
    server = await startServer({ ...store.env, CACHER: process.env.GROW_CACHER ?? "off", METRICS_PORT: String(metricsPort), RATE_LIMIT: "", ...times });
  };
  try {
    await start();
    const s: Shape = { venues: [], organizers: [], categories: [], slugs: [] };
    for (let i = 0; i < 50; i++) s.venues.push((await post(server!.base, "/venues", { venue: `Venue ${i}`, city: "Paris", country: "France" })).id as number);
    for (let i = 0; i < 50; i++) s.organizers.push((await post(server!.base, "/organizers", { organizer: `Organizer ${i}` })).id as number);
    for (let i = 0; i < 20; i++) {
      const t = await post(server!.base, "/categories", { name: `Category ${i}` });
      s.categories.push(t.id as number);
      s.slugs.push(t.slug as string);
    }
    const ids: number[] = [];
    const now = Date.now();
    const tenth = Math.ceil(EVENTS / 10);
    const rates: number[] = [];
    say(`grow ${STORE} to ${EVENTS} through the API, ${CLIENTS} clients, CACHER=${process.env.GROW_CACHER ?? "off"}, metrics on (${new Date().toISOString()})`);
    for (let from = 0; from < EVENTS; from += tenth) {
      const to = Math.min(EVENTS, from + tenth);
      if (READS_AT && from === READS_AT) await readRows(server!.base, s, ids, say);
      if ((RESTART_AT && from === RESTART_AT) || (STATEMENTS && from > 0)) {
        await server!.stop();
        await start();
      }
      let next = from;
      const latencies: number[] = [];
      const cpu0 = cpuMs(server!.child.pid!);
      const t0 = Date.now();
      await Promise.all(Array.from({ length: CLIENTS }, async () => {
        while (next < to) {
          const i = next++;
          const a = performance.now();
          ids[i] = (await post(server!.base, "/events", body(i, s, now))).id as number;
          latencies.push(performance.now() - a);
        }
      }));
      const secs = (Date.now() - t0) / 1000;
      const rate = (to - from) / secs;
      rates.push(rate);
      const cpu = Math.round((1000 * (cpuMs(server!.child.pid!) - cpu0)) / (to - from));
      say(`  ${from}–${to}: ${Math.round(rate)}/s, p50 ${Math.round(percentile(latencies, 0.5))} ms, p99 ${Math.round(percentile(latencies, 0.99))} ms, service CPU ${cpu} µs a create (${os.loadavg().map(l => l.toFixed(1)).join(" ")})`);
    }
    say(`last tenth over first: ${(rates[rates.length - 1] / rates[0]).toFixed(2)}; last over the second (the first warms the process): ${(rates[rates.length - 1] / rates[1]).toFixed(2)}`);
    await server!.stop();
    server = undefined;
    if (STATEMENTS) {
      // the statements whose time a create grew most from the second tenth to the last
      // SQLite's statements by their CPU time (store/sql/statement-times.ts), PostgreSQL's by their wall time
      const read = (k: number) => new Map((JSON.parse(fs.readFileSync(path.join(timesDir, `tenth-${k}.json`), "utf8")) as Array<{ sql: string; calls: number; ms: number; cpuMs?: number }>)
        .map(t => [t.sql, { ...t, ms: t.cpuMs ?? t.ms }]));
      const first = read(1);
      const last = read(segment - 1);
      const grown = [...last.values()].map(t => {
        const f = first.get(t.sql);
        return { sql: t.sql, last: t.ms / tenth, first: f ? f.ms / tenth : 0, calls: t.calls / tenth };
      }).sort((a, b) => (b.last - b.first) - (a.last - a.first));
      say(`statements by growth of their ${STORE === "sqlite" ? "CPU" : "wall"} time a create (ms), second tenth → last tenth:`);
      for (const g of grown.slice(0, 12)) say(`  ${g.first.toFixed(3)} → ${g.last.toFixed(3)} (${g.calls.toFixed(2)} calls a create) ${g.sql.slice(0, 220)}`);
    }
  } finally {
    await server?.stop();
    await store.drop();
    fs.rmSync(timesDir, { recursive: true, force: true });
  }
  fs.mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
  fs.writeFileSync(path.join(ROOT, "bench", "results", `${OUT}.txt`), `${lines.join("\n")}\n`);
}

main().catch(err => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
