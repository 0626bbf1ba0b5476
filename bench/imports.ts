/**
 * Import rows of the bench (docs/imports.md): events per second imported
 *
 * - from a TEC-compatible source: another instance of this service (SQLite) holding BENCH_IMPORT_TEC
 *   events (default 1 000) with their venues, organizers and terms, read through its API page by page;
 * - from an iCalendar feed of BENCH_IMPORT_FEED events (default 10 000), sent as a text/calendar body;
 *
 * each into a fresh SQLite and a fresh PostgreSQL store (PostgreSQL skipped when it does not answer).
 * The time is from the POST to the import's `done`, polling every 100 ms. Run alone: `npm run bench:imports`.
 * BENCH_IMPORT_SQL_TIMES (a folder): the importing server's SQL statements timed (store/sql/statement-times.ts),
 * one file per store, to count the statements an imported event costs.
 */
import { benchStore, inParallel, KEY, NS, post, startServer, StoreKind } from "./common";

const TEC_EVENTS = Number(process.env.BENCH_IMPORT_TEC ?? 1000);
const FEED_EVENTS = Number(process.env.BENCH_IMPORT_FEED ?? 10_000);
/** The stores measured (BENCH_IMPORT_STORES, comma-separated; default both). */
const STORES = (process.env.BENCH_IMPORT_STORES ?? "sqlite,postgres").split(",").filter(Boolean) as StoreKind[];

async function seed(base: string, events: number): Promise<void> {
  const venues: unknown[] = [];
  const organizers: unknown[] = [];
  const categories: unknown[] = [];
  for (let i = 0; i < 20; i++) categories.push((await post(base, "/categories", { name: `Category ${i}` })).id);
  await inParallel(50, async i => { venues[i] = (await post(base, "/venues", { venue: `Venue ${i}`, city: "Springfield" })).id; }, 8);
  await inParallel(50, async i => { organizers[i] = (await post(base, "/organizers", { organizer: `Organizer ${i}` })).id; }, 8);
  await inParallel(events, async i => {
    const day = new Date(Date.UTC(2026, 0, 1) + i * 43_200_000).toISOString().slice(0, 10);
    await post(base, "/events", {
      title: `Event ${i}`, description: `Description ${i}`, start_date: `${day} 18:00:00`, end_date: `${day} 20:00:00`,
      venue: venues[i % 50], organizer: [organizers[i % 50]], categories: [categories[i % 20]]
    });
  }, 8, "seeding the source");
}

function feed(n: number): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//bench//EN", "X-WR-CALNAME:Bench feed"];
  for (let i = 0; i < n; i++) {
    const start = new Date(Date.UTC(2027, 0, 1) + i * 3_600_000 * 3).toISOString().replace(/[-:]/g, "").slice(0, 15);
    const end = new Date(Date.UTC(2027, 0, 1) + i * 3_600_000 * 3 + 3_600_000).toISOString().replace(/[-:]/g, "").slice(0, 15);
    lines.push("BEGIN:VEVENT", `UID:bench-${i}@example.org`, `DTSTART:${start}Z`, `DTEND:${end}Z`, `SUMMARY:Feed event ${i}`,
      `DESCRIPTION:Event ${i} of the bench feed`, `LOCATION:Hall ${i % 40}`, `CATEGORIES:Topic ${i % 10}`, "END:VEVENT");
  }
  lines.push("END:VCALENDAR");
  return lines.join("\r\n");
}

/** Waits for the optional imports service (not among the services /health/ready waits for). */
async function importsReady(base: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const res = await fetch(`${base}${NS}/imports`, { headers: { Authorization: `Bearer ${KEY}` } });
    await res.arrayBuffer();
    if (res.status === 200) return;
    await new Promise(r => setTimeout(r, 100));
  }
  throw new Error("the imports service did not start");
}

/** Seconds from the POST to `done`. */
async function timed(base: string, body: string, contentType: string): Promise<{ seconds: number; result: Record<string, unknown> }> {
  const started = Date.now();
  const res = await fetch(`${base}${NS}/imports`, { method: "POST", headers: { Authorization: `Bearer ${KEY}`, "Content-Type": contentType }, body });
  if (res.status !== 202) throw new Error(`POST /imports: ${res.status} ${await res.text()}`);
  const { id } = (await res.json()) as { id: number };
  let lastTrace = started;
  for (;;) {
    await new Promise(r => setTimeout(r, 100));
    let imp: Record<string, unknown>;
    try {
      imp = (await (await fetch(`${base}${NS}/imports/${id}`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as Record<string, unknown>;
    } catch {
      // a kept-alive connection the server closed while it parsed the feed (its event loop busy for seconds): asked again
      continue;
    }
    if (process.env.BENCH_IMPORT_TRACE && Date.now() - lastTrace >= 10_000) {
      lastTrace = Date.now();
      process.stderr.write(`  ${((Date.now() - started) / 1000).toFixed(0)} s: created ${imp.created}, unchanged ${imp.unchanged}, failed ${imp.failed}\n`);
    }
    if (imp.state === "done" || imp.state === "failed") return { seconds: (Date.now() - started) / 1000, result: imp };
  }
}

async function main(): Promise<void> {
  const rows: string[] = [];
  const push = (row: string) => { rows.push(row); process.stderr.write(`${row}\n`); };
  const sourceStore = await benchStore("sqlite", "import-source");
  const source = await startServer({ ...sourceStore.env, SQL_STATEMENT_TIMES: "" });
  try {
    await seed(source.base, TEC_EVENTS);
    const icsText = feed(FEED_EVENTS);
    for (const kind of STORES) {
      let store;
      try {
        store = await benchStore(kind, "imports");
      } catch (err) {
        push(`| ${kind} | (skipped: ${(err as Error).message}) | | |`);
        continue;
      }
      const times: Record<string, string> = process.env.BENCH_IMPORT_SQL_TIMES ? { SQL_STATEMENT_TIMES: `${process.env.BENCH_IMPORT_SQL_TIMES}/imports-${kind}.json` } : {};
      const importer = await startServer({ ...store.env, OUTBOUND_ALLOW_PRIVATE: "1", IMPORT_POLL_MS: "100", ...times });
      try {
        await importsReady(importer.base);
        if (TEC_EVENTS > 0) {
          const tec = await timed(importer.base, JSON.stringify({ url: `${source.base}/`, auth: { bearer: KEY } }), "application/json");
          push(`| ${kind} | TEC-compatible source, ${TEC_EVENTS} events (+120 terms, venues, organizers) | ${(TEC_EVENTS / tec.seconds).toFixed(1)} events/s | ${tec.seconds.toFixed(1)} s, ${tec.result.state}, created ${tec.result.created}, failed ${tec.result.failed} |`);
        }
        if (FEED_EVENTS > 0) {
          const ics = await timed(importer.base, icsText, "text/calendar");
          push(`| ${kind} | iCalendar feed, ${FEED_EVENTS} events | ${(FEED_EVENTS / ics.seconds).toFixed(1)} events/s | ${ics.seconds.toFixed(1)} s, ${ics.result.state}, created ${ics.result.created}, failed ${ics.result.failed} |`);
        }
      } finally {
        await importer.stop();
        await store.drop();
      }
    }
  } finally {
    await source.stop();
    await sourceStore.drop();
  }
  process.stdout.write(["", "Imports (events per second, POST to done)", "| store | source | rate | run |", "|---|---|---|---|", ...rows, ""].join("\n"));
}

main().catch(err => {
  process.stderr.write(`${(err as Error).stack} ${String((err as { cause?: unknown }).cause ?? "")}\n`);
  process.exit(1);
});
