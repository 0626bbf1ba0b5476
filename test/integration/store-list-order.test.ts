/**
 * The lists' order index (IndexSpec `then`, store/sql/collection.ts; docs/lists.md#always-applied): the
 * events lists sort by start date, then publication date, then id, and the store keeps an index in that
 * order, so a page is read from it instead of sorting its whole date window. On SQLite and PostgreSQL:
 * pages (ties on start and publication date included, records without a publication date included)
 * come in exactly that order, and the index serves the lists' ORDER BY without a sort.
 */
import type { IndexSpec, Store } from "../../store";
import type { Collection } from "../../store/collection";
import { buildEventQuery, eventSort } from "../../lib/events/event-query";
import type { Doc } from "../../lib/documents/store-query";
import { QueryCompiler } from "../../store/sql/compile";
import { openTestStore, TestStore } from "../helpers/test-store";
import { analyzedWithoutSamples } from "../../store/sql/sqlite-statistics";

const SITE = 1;
// as the events service keeps them (services/events.service.ts, mixins/post.mixin.ts): the planner reads a
// field's statistics from its index
const INDEXES: IndexSpec[] = [{ field: "status" }, { field: "start_date" }, { field: "start_date", then: ["date"] }];
const N = 1200;

/** The lists' order, with an absent value first (as the store orders ascending). */
function byListOrder(a: Doc, b: Doc): number {
  const cmp = (x: unknown, y: unknown) => (x === y ? 0 : x === undefined ? -1 : y === undefined ? 1 : String(x) < String(y) ? -1 : 1);
  return cmp(a.start_date, b.start_date) || cmp(a.date, b.date) || a._id - b._id;
}

function suite(kind: "sqlite" | "postgres") {
  describe(`the lists' order index on ${kind}`, () => {
    let opened: TestStore | undefined;
    let store: Store;
    let events: Collection;
    const docs: Doc[] = [];

    beforeAll(async () => {
      opened = await openTestStore(kind, "order");
      if (!opened) return;
      store = opened.store;
      await store.ensureIndexes("events", INDEXES);
      events = store.collection("events", INDEXES, SITE);
      for (let id = 1; id <= N; id++) {
        // few distinct start dates and publication dates: many ties, broken by the next key
        const day = String(1 + (id % 9)).padStart(2, "0");
        const doc: Doc = { _id: id, status: "publish", start_date: `2030-04-${day} 10:00:00`, end_date: `2030-04-${day} 11:00:00` };
        if (id % 13 !== 0) doc.date = `2029-01-0${1 + (id % 4)} 00:00:00`;
        docs.push(doc);
        await events.insert(doc);
      }
      await (kind === "sqlite" ? analyzedWithoutSamples(store.sql!, "ANALYZE") : store.sql!.run("ANALYZE events"));
    }, 120_000);

    afterAll(async () => {
      await opened?.close();
    });

    const query = buildEventQuery({ statuses: ["publish"], bounds: { start_date: "2030-01-01 00:00:00" }, searchAccess: "all" });

    test("pages come in start date, publication date, id order, ties included", async () => {
      if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
      const expected = [...docs].sort(byListOrder).map(d => d._id);
      for (const skip of [0, 10, 595, N - 7]) {
        const page = await events.find(query, { sort: eventSort(false), skip, limit: 10 });
        expect(page.map(d => d._id)).toEqual(expected.slice(skip, skip + 10));
      }
      expect(await events.count(query)).toBe(N);
    });

    test("the plan reads the order index and does not sort the window", async () => {
      if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
      const compiler = new QueryCompiler(kind, { arrays: new Set() });
      const where = compiler.where(query);
      const sql = `SELECT id FROM events WHERE site = ? AND (${where.sql})${compiler.orderBy(eventSort(false))} LIMIT 10`;
      // Both planners take the index by themselves: PostgreSQL from the statistics of the JSON type tests
      // (migration 8, store/sql/schema.ts RANGED_FIELDS), without which it took the window for a row or two
      // and sorted a scan of the table instead.
      const explain = kind === "sqlite" ? "EXPLAIN QUERY PLAN" : "EXPLAIN";
      const rows = await store.sql!.all<{ detail?: string; "QUERY PLAN"?: string }>(`${explain} ${sql}`, [SITE, ...where.params]);
      const plan = rows.map(r => r.detail ?? r["QUERY PLAN"]).join("\n");
      expect(plan).toMatch(/ix_events_startdate_date_id/);
      expect(plan).not.toMatch(kind === "sqlite" ? /TEMP B-TREE FOR ORDER BY/ : /Sort Key/);
    });
  });
}

suite("sqlite");
suite("postgres");
