/**
 * `npm run bench:linked-lists`: a list filtered by a category, a venue and a start date, read from the store
 * alone (no service, no HTTP), on a city-shaped calendar on each SQL store (`BENCH_STORES`, sqlite,postgres): 50 venues, 50 organizers, 20 categories and
 * 30 tags, an event holding one of each, start dates over three years (docs/lists.md#event-filters).
 * For each size, 200 such lists (their pairs cycling), a page of ten in the list's order and its total
 * counted afresh, timed over three runs after a warm-up; each answer's ids summed into a checksum, so two
 * builds can be seen to answer the same.
 *
 * The events are written straight into the events table; the store's triggers keep their links and the
 * rest, as for any writer. `BENCH_LINKED_BUILDS=/path/a,/path/b` (each a checkout with its `dist/`)
 * measures each build on a calendar of its own, in turn (default: this one). `BENCH_SIZES` (10000,100000).
 * Prints one line per build, size and read, and the largest tables.
 */
import * as path from "path";
import type { Store, StoreConfig } from "../store";
import type { Query } from "../lib/documents/store-query";
import { benchStore, ROOT, type StoreKind } from "./common";

const BUILDS = (process.env.BENCH_LINKED_BUILDS ?? ROOT).split(",").map(s => s.trim()).filter(Boolean);
const SIZES = (process.env.BENCH_SIZES ?? "10000,100000").split(",").map(Number);
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",").map(s => s.trim()).filter(Boolean) as StoreKind[];
const LISTS = 200;
const DAY = 86_400_000;
const FIRST = Date.parse("2026-01-01T00:00:00Z");
const dbDate = (t: number) => new Date(t).toISOString().slice(0, 19).replace("T", " ");

interface StoreModule {
  acquireStore(config: StoreConfig): Promise<Store>;
  releaseStore(config: StoreConfig): Promise<void>;
}

/** A small random source of its own, so every build gets the same calendar. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

async function seed(store: Store, n: number): Promise<void> {
  const json = store.sql!.dialect === "sqlite" ? "jsonb(?)" : "?::jsonb";
  const next = random(7);
  const pick = (from: number, of: number) => [from + Math.floor(next() * of)];
  for (let from = 0; from < n; from += 1000) {
    await store.sql!.transaction(async tx => {
      for (let i = from; i < Math.min(n, from + 1000); i++) {
        const start = FIRST + Math.floor(next() * 1095) * DAY + 10 * 3_600_000;
        const doc = {
          title: `Event ${i}`, status: "publish", start_date: dbDate(start), end_date: dbDate(start + 2 * 3_600_000), date: dbDate(FIRST - Math.floor(next() * 1e10)),
          venues: pick(1, 50), organizers: pick(101, 50), categories: pick(201, 20), tags: pick(301, 30)
        };
        await tx.run(`INSERT INTO events (site, id, doc) VALUES (?, ?, ${json})`, [1, i + 1, JSON.stringify(doc)]);
      }
    });
  }
  await store.sql!.run(store.sql!.dialect === "sqlite" ? "ANALYZE" : "VACUUM ANALYZE");
}

async function measure(kind: StoreKind, build: string, n: number): Promise<void> {
  const mod = require(path.join(build, "dist", "store")) as StoreModule;
  const made = await benchStore(kind, "linked");
  const config: StoreConfig = { dataDir: made.env.DATA_DIR, databaseUrl: made.env.DATABASE_URL, connectTimeoutMs: 5000 };
  const store = await mod.acquireStore(config);
  try {
    const began = Date.now();
    await seed(store, n);
    const seeded = Date.now() - began;
    const events = store.collection("events", [{ field: "start_date", then: ["date"] }, { field: "status" }]);
    const sort = { start_date: 1, date: 1, _id: 1 } as const;
    const lists: Query[] = Array.from({ length: LISTS }, (_, k) => ({
      $and: [{ categories: 201 + ((k * 7) % 20) }, { venues: 1 + ((k * 13) % 50) }, { start_date: { $gte: dbDate(FIRST + (k % 30) * 30 * DAY) } }, { status: "publish" }]
    }));
    let checksum = 0;
    const reads: Array<[string, (q: Query) => Promise<void>]> = [
      ["page", async q => { checksum += (await events.find(q, { sort, limit: 10 })).reduce((s, d) => s + Number(d._id), 0); }],
      ["count", async q => { checksum += await events.count(q, { moving: true }); }]
    ];
    for (const [label, read] of reads) {
      for (const q of lists.slice(0, 20)) await read(q);
      const runs: number[] = [];
      for (let r = 0; r < 3; r++) {
        const t = process.hrtime.bigint();
        for (const q of lists) await read(q);
        runs.push(Number(process.hrtime.bigint() - t) / 1e3 / LISTS);
      }
      console.log(`${kind} ${build} ${n} ${label}: ${runs.map(x => x.toFixed(0)).join(" / ")} µs a list`);
    }
    const tables = await store.sql!.all<{ name: string; bytes: number }>(kind === "sqlite" ? "SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 5"
      : "SELECT relname AS name, pg_total_relation_size(oid) AS bytes FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace ORDER BY 2 DESC LIMIT 5");
    console.log(`${kind} ${build} ${n}: seeded in ${seeded} ms; checksum ${checksum}; ${tables.map(t => `${t.name} ${(Number(t.bytes) / 1e6).toFixed(1)} MB`).join(", ")}`);
  } finally {
    await mod.releaseStore(config);
    await made.drop();
  }
}

async function main(): Promise<void> {
  for (const kind of STORES) for (const n of SIZES) for (const build of BUILDS) await measure(kind, build, n);
}

main().catch(err => {
  console.error(err);
  process.exit(1);
});
