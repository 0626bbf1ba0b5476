/**
 * A value few records hold, read through its field's index (FindOptions `rare`, store/sql/collection.ts):
 * SQLite's statistics keep each index's mean number of records per value and no samples
 * (store/sql/sqlite-statistics.ts), so on a calendar whose events are all published the planner takes
 * `status = 'future'` to hold for all of them and scans the table. The due-publication lookup
 * (domain/events/event-commands.ts `publishDue`) runs before the writes of events, and a list's total
 * counts its due `future` events each time (lib/events/due-events.ts `dueCountParts`): asked as rare, both
 * read the status index. The answers are the same with and without the hint, on SQLite and PostgreSQL.
 */
import type { IndexSpec, Store } from "../../store";
import type { Collection } from "../../store/collection";
import type { Doc } from "../../lib/documents/store-query";
import { analyzedWithoutSamples } from "../../store/sql/sqlite-statistics";
import { openTestStore, TestStore } from "../helpers/test-store";

const SITE = 1;
const EVENTS = 3000;
const FUTURE = [17, 1500, 2999];
const INDEXES: IndexSpec[] = [{ field: "status" }, { field: "start_date" }, { field: "categories", array: true }];

function eventDoc(id: number, future = false): Doc {
  return {
    _id: id, title: `Event ${id}`, status: future ? "future" : "publish", start_date: "2030-01-01 10:00:00", end_date: "2030-01-01 12:00:00",
    date_utc: future ? (id === 2999 ? "2031-01-01 00:00:00" : "2020-01-01 00:00:00") : "2020-01-01 00:00:00", categories: [1 + (id % 3)], tags: [], venues: [10 + (id % 2)], organizers: []
  };
}

const DUE = { status: "future", date_utc: { $lte: "2026-12-03 00:00:00" } };

function suite(kind: "sqlite" | "postgres") {
  describe(`a rare value on ${kind}`, () => {
    let opened: TestStore | undefined;
    let store: Store;
    let events: Collection;
    const skipped = () => console.warn("PostgreSQL is not reachable: skipped");

    beforeAll(async () => {
      opened = await openTestStore(kind, "rarevalue");
      if (!opened) return;
      store = opened.store;
      await store.ensureIndexes("events", INDEXES);
      events = store.collection("events", INDEXES, SITE);
      const row = kind === "sqlite" ? `(${SITE}, ?, jsonb(?))` : `(${SITE}, ?::bigint, ?::jsonb)`;
      await store.sql!.transaction(async tx => {
        for (let from = 1; from <= EVENTS; from += 500) {
          const ids = Array.from({ length: Math.min(500, EVENTS - from + 1) }, (_, k) => from + k);
          await tx.run(`INSERT INTO events (site, id, doc) VALUES ${ids.map(() => row).join(", ")}`, ids.flatMap(id => { const { _id, ...rest } = eventDoc(id); return [id, JSON.stringify(rest)]; }));
        }
      }, { unbounded: true });
      // the statistics made while every event was published, as on a calendar that has no `future` event most of the time
      await (kind === "sqlite" ? analyzedWithoutSamples(store.sql!, "ANALYZE") : store.sql!.run("ANALYZE events"));
      for (const id of FUTURE) {
        const { _id, ...rest } = eventDoc(id, true);
        await events.updateOne({ _id: id }, { $set: rest });
      }
    }, 120_000);

    afterAll(async () => {
      await opened?.close();
    });

    test("the due lookup answers the same with the hint and without it", async () => {
      if (!opened) return skipped();
      const ids = (docs: Doc[]) => docs.map(d => d._id as number).sort((a, b) => a - b);
      expect(ids(await events.find(DUE, { rare: "status" }))).toEqual([17, 1500]);
      expect(ids(await events.find(DUE))).toEqual([17, 1500]);
      expect(ids(await events.find({ status: { $in: ["future"] } }, { rare: "status" }))).toEqual(FUTURE);
      // a condition the index cannot take is read as any other query
      expect(await events.find({ status: { $ne: "publish" } }, { rare: "status", limit: 5 })).toHaveLength(3);
      // a field without an index of its own is read as any other query
      expect(ids(await events.find({ title: "Event 17" }, { rare: "title" }))).toEqual([17]);
    });

    test("a list's due part is counted the same through the status index", async () => {
      if (!opened) return skipped();
      // a list's query for the `future` status with its due condition (lib/events/due-events.ts dueCountParts)
      const due = { start_date: { $gte: "2029-01-01 00:00:00" }, $and: [{ hide_from_listings: { $ne: true } }, { status: { $in: ["future"] } }, { $or: [{ status: { $ne: "future" } }, { date_utc: { $lte: "2026-12-03 00:00:00" } }] }] };
      expect(await events.countParts([{ query: due, moving: true, rare: "status" }])).toBe(2);
      expect(await events.countParts([{ query: due, moving: true }])).toBe(2);
      const published = { ...due, $and: [due.$and[0], { status: { $in: ["publish"] } }] };
      expect(await events.countParts([{ query: published }, { query: due, moving: true, rare: "status" }])).toBe(EVENTS - FUTURE.length + 2);
      // filtered by a category and a venue (the links drive the read): 17 is in category 3 at venue 11, 1500 in 1 at 10
      const linked = (q: typeof due) => ({ ...q, $and: [...q.$and, { categories: { $in: [3] } }, { venues: { $in: [11] } }] });
      expect(await events.countParts([{ query: linked(due), moving: true, rare: "status" }])).toBe(1);
      expect(await events.countParts([{ query: linked(due), moving: true }])).toBe(1);
      expect((await events.find(linked(due), { rare: "status" })).map(d => d._id)).toEqual([17]);
    });

    if (kind === "sqlite") {
      test("SQLite reads a rare status through its index, which its statistics alone would not choose", async () => {
        const driver = store.sql!;
        const seen: Array<{ sql: string; params?: unknown[] }> = [];
        const all = driver.all.bind(driver);
        const spy = jest.spyOn(driver, "all").mockImplementation((sql, params) => { seen.push({ sql, params }); return all(sql, params); });
        // a count with the write mark is read on its own terms (driver `readCommitted`)
        const committed = driver.readCommitted!.bind(driver);
        const spyCommitted = jest.spyOn(driver, "readCommitted").mockImplementation((sql, params) => { seen.push({ sql, params }); return committed(sql, params); });
        try {
          await events.find(DUE, { rare: "status" });
          await events.find(DUE);
          await events.countParts([{ query: { $and: [{ status: { $in: ["future"] } }, { categories: { $in: [3] } }, { venues: { $in: [11] } }] }, moving: true, rare: "status" }]);
        } finally {
          spy.mockRestore();
          spyCommitted.mockRestore();
        }
        const [hinted, plain] = seen.filter(s => s.sql.startsWith("SELECT id"));
        // a count filtered by two links (whose own conditions no index answers) still reads the status index by its value
        const counted = seen.find(s => s.sql.includes("COUNT(*)"))!;
        expect(counted.sql).toMatch(/FROM events INDEXED BY ix_events_status WHERE/);
        const countPlan = (await driver.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${counted.sql}`, counted.params as never[])).map(r => r.detail).join("\n");
        expect(countPlan).toMatch(/SEARCH events USING INDEX ix_events_status \(site=\? AND <expr>=\?\)/);
        const planOf = async (s: { sql: string; params?: unknown[] }) => (await driver.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${s.sql}`, s.params as never[])).map(r => r.detail).join("\n");
        expect(await planOf(hinted)).toMatch(/SEARCH events USING INDEX ix_events_status \(site=\? AND <expr>=\?\)/);
        // what the hint is for: without it, every event is read
        expect(await planOf(plain)).toMatch(/^SCAN events$/m);
      });
    }
  });
}

suite("sqlite");
suite("postgres");
