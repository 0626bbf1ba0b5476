/**
 * Counting a list (docs/lists.md#counting-a-list; store/sql/schema.ts LIST_COLUMNS): on SQLite and
 * PostgreSQL an events list's total is counted on typed columns generated from the documents, read from
 * their covering index, while its page is read from the documents. Both must select the same events,
 * whatever odd values a document holds (dates that are not strings, absent fields, flags that are not
 * booleans). And a list filtered by two links (a category and a venue) reads the intersection of the link
 * table's id sets, not every event of either.
 */
import type { IndexSpec, Store } from "../../store";
import type { Collection } from "../../store/collection";
import { buildEventQuery, EventListFilters } from "../../lib/events/event-query";
import type { Doc, Query } from "../../lib/documents/store-query";
import { QueryCompiler } from "../../store/sql/compile";
import { LINK_TABLE } from "../../store/sql/schema";
import { dueStatuses, withDueStatuses } from "../../lib/events/due-events";
import { openTestStore, TestStore } from "../helpers/test-store";
import { analyzedWithoutSamples } from "../../store/sql/sqlite-statistics";

const SITE = 1;
// in LINK_FIELDS' order (store/sql/schema.ts): on SQLite the first field asked drives a list filtered by several
const LINKS = ["venues", "organizers", "categories", "tags"];
const INDEXES: IndexSpec[] = [{ field: "start_date" }, { field: "start_date", then: ["date"] }, ...LINKS.map(field => ({ field, array: true }))];

/** Every shape of value the window's fields may hold, one document per combination (and a few plain ones). */
function documents(): Doc[] {
  const starts: unknown[] = ["2030-01-05 10:00:00", "2030-03-01 09:00:00", "2031-06-01 00:00:00", 20300105, null, undefined];
  const statuses: unknown[] = ["publish", "draft", "future", 7, undefined];
  const hidden: unknown[] = [true, false, "true", 1, undefined];
  const docs: Doc[] = [];
  let id = 0;
  for (const start of starts) for (const status of statuses) for (const hide of hidden) {
    id++;
    const doc: Doc = { _id: id, categories: [id % 3], venues: [10 + (id % 4)], tags: [], organizers: [] };
    if (start !== undefined) doc.start_date = start;
    if (typeof start === "string") doc.end_date = start.replace(/ \d\d:/, " 23:");
    if (status !== undefined) doc.status = status;
    if (hide !== undefined) doc.hide_from_listings = hide;
    docs.push(doc);
  }
  // `future` events due or not yet due at NOW (C13: a due `future` post counts as published), and publication dates of every shape
  for (const dateUtc of ["2030-01-01 08:00:00", "2030-02-01 00:00:00", "2030-06-01 08:00:00", 20300101, null, undefined]) for (const status of ["future", "publish"]) {
    id++;
    const doc: Doc = { _id: id, categories: [id % 3], venues: [10 + (id % 4)], tags: [], organizers: [], status, start_date: "2030-03-01 09:00:00", end_date: "2030-03-01 23:00:00" };
    if (dateUtc !== undefined) doc.date_utc = dateUtc;
    docs.push(doc);
  }
  return docs;
}

/** The reading time of the lists that read due `future` events as published. */
const NOW = "2030-02-01 00:00:00";
/** A list as the service asks for it: its statuses read as C13 (a due `future` post counts as published) says (domain/events/event-list-filters.ts `listQuery`). */
function asRead(f: Partial<EventListFilters> & { statuses: string[] }): Query {
  const due = dueStatuses(f.statuses, NOW);
  return withDueStatuses(filters({ ...f, statuses: due.statuses }), due.condition);
}

const filters = (f: Partial<EventListFilters>): Query => buildEventQuery({ statuses: ["publish"], bounds: {}, searchAccess: "all", ...f });

/** Lists as the service asks for them, and the direct conditions the columns answer. */
const QUERIES: Array<[string, Query]> = [
  ["the default window", filters({ bounds: { start_date: "2030-01-01 00:00:00", end_date: "2031-12-31 23:59:59" } })],
  ["a start bound only", filters({ bounds: { start_date: "2030-02-01 00:00:00" } })],
  ["an end bound only", filters({ bounds: { end_date: "2030-02-01 00:00:00" } })],
  ["no bounds, two statuses", filters({ statuses: ["publish", "draft"] })],
  ["a window and a category", filters({ bounds: { start_date: "2030-01-01 00:00:00" }, categoryIds: [1] })],
  ["a window, a category and a venue", filters({ bounds: { start_date: "2030-01-01 00:00:00" }, categoryIds: [1, 2], venueIds: [11] })],
  ["hidden ones", { hide_from_listings: true }],
  ["not hidden", { hide_from_listings: { $ne: true } }],
  ["status equal", { status: "draft" }],
  ["status not among", { status: { $nin: ["publish", "draft"] } }],
  ["a date equal", { start_date: "2030-03-01 09:00:00" }],
  ["a number bound on a date", { start_date: { $gte: 20300101 } }],
  ["the default window, due future events read as published", asRead({ statuses: ["publish"], bounds: { start_date: "2030-01-01 00:00:00", end_date: "2031-12-31 23:59:59" } })],
  ["future events not yet due", asRead({ statuses: ["future"] })],
  ["due ones in a window, a category and a venue", asRead({ statuses: ["publish"], bounds: { start_date: "2030-01-01 00:00:00" }, categoryIds: [1, 2], venueIds: [11] })]
];

function suite(kind: "sqlite" | "postgres") {
  describe(`counting lists on ${kind}`, () => {
    let opened: TestStore | undefined;
    let store: Store;
    let events: Collection;

    beforeAll(async () => {
      opened = await openTestStore(kind, "count");
      if (!opened) return;
      store = opened.store;
      await store.ensureIndexes("events", INDEXES);
      events = store.collection("events", INDEXES, SITE);
      for (const doc of documents()) await events.insert(doc);
      // another site's events are never counted
      const other = store.collection("events", INDEXES, SITE + 1);
      for (const doc of documents().slice(0, 40)) await other.insert(doc);
    }, 120_000);

    afterAll(async () => {
      await opened?.close();
    });

    test.each(QUERIES)("%s: the count (typed columns) agrees with the page (documents)", async (_name, query) => {
      if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
      const found = await events.find(query);
      expect(found.length).toBeGreaterThan(0);
      expect(await events.count(query)).toBe(found.length);
    });

    test("a list whose two links drive (its window read from the columns keyed by id): the documents' answer", async () => {
      if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
      const linked = QUERIES.filter(([name]) => name.includes("and a venue"));
      expect(linked.length).toBe(2);
      for (const [, query] of linked) {
        // one `$and` inside another: no longer two link filters at the top, so read and tested on the documents
        const byDocuments = (await events.find({ $and: [query] }, { sort: { _id: 1 } })).map(d => d._id);
        expect(byDocuments.length).toBeGreaterThan(0);
        expect((await events.find(query, { sort: { _id: 1 } })).map(d => d._id)).toEqual(byDocuments);
        expect((await events.find(query, { sort: { start_date: 1, _id: 1 }, limit: 3, skip: 1 })).map(d => d._id))
          .toEqual((await events.find({ $and: [query] }, { sort: { start_date: 1, _id: 1 }, limit: 3, skip: 1 })).map(d => d._id));
        expect(await events.count(query)).toBe(byDocuments.length);
      }
    });

    test("a range on a field few events hold reads its sparse index, not every event", async () => {
      if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
      // as the series' horizon job asks (domain/events/series-horizon.ts): most events hold no horizon at all
      await store.ensureIndexes("events", [{ field: "series_horizon", sparse: true }]);
      const holder = store.collection("events", INDEXES, SITE + 2);
      for (let i = 1; i <= 60; i++) await holder.insert({ _id: i, ...(i % 20 === 0 ? { series_horizon: `2030-0${i / 20}-01` } : {}) });
      const behind = { series_horizon: { $lt: "2030-01-15" } };
      expect((await holder.find(behind)).map(d => d._id)).toEqual([20]);
      if (kind !== "sqlite") return;
      await analyzedWithoutSamples(store.sql!, "ANALYZE");
      const where = new QueryCompiler(kind, { arrays: new Set(LINKS) }).where(behind);
      const plan = (await store.sql!.all<{ detail: string }>(`EXPLAIN QUERY PLAN SELECT id FROM events WHERE site = ? AND (${where.sql})`, [SITE + 2, ...where.params] as never[])).map(r => r.detail).join("\n");
      expect(plan).toMatch(/SEARCH events USING INDEX ix_events_series_horizon_present \(site=\? AND <expr><\?\)/);
    });

    test("the columns keep up with updates", async () => {
      if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
      const window = QUERIES[0][1];
      const before = await events.count(window);
      const [doc] = await events.find(window, { limit: 1 });
      await events.updateOne({ _id: doc._id }, { $set: { hide_from_listings: true } });
      expect(await events.count(window)).toBe(before - 1);
      await events.updateOne({ _id: doc._id }, { $set: { hide_from_listings: false, start_date: "2029-01-01 00:00:00" } });
      expect(await events.count(window)).toBe(before - 1);
      await events.updateOne({ _id: doc._id }, { $set: { start_date: doc.start_date } });
      expect(await events.count(window)).toBe(before);
    });

    test("a window's count is read from the window index alone; two links are answered from the link table", async () => {
      if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
      const columns = new Map([["hide_from_listings", "flag"], ["status", "text"], ["start_date", "text"], ["end_date", "text"], ["post_password", "text"], ["date_utc", "text"]] as const);
      const shape = { arrays: new Set(LINKS), links: { table: LINK_TABLE, type: "events", fields: new Set(LINKS), site: SITE },
        columns: new Map([...columns].map(([field, k]) => [field, { column: `c_${field}`, kind: k }])) };
      const window = new QueryCompiler(kind, shape).where(QUERIES[0][1]);
      expect(window.docFree).toBe(true);
      const linked = new QueryCompiler(kind, shape).where(QUERIES[5][1]);
      // PostgreSQL intersects the link sets; SQLite reads the venue's links and probes the categories' by key
      expect(linked.sql).toMatch(kind === "sqlite" ? /SELECT d\.id FROM links d WHERE .*d\.field = 'venues'.*EXISTS \(SELECT 1 FROM links p WHERE .*p\.field = 'categories'.*p\.id = d\.id\)/ : /INTERSECT/);
      if (kind !== "sqlite") return;
      const plan = async (sql: string, params: unknown[]) =>
        (await store.sql!.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, [SITE, ...params] as never[])).map(r => r.detail).join("\n");
      expect(await plan(`SELECT COUNT(*) FROM events INDEXED BY ix_events_window WHERE site = ? AND (${window.sql})`, window.params))
        .toMatch(/USING (COVERING )?INDEX ix_events_window \(site=\? AND c_hide_from_listings=\? AND c_status=\? AND c_start_date>\? AND c_start_date<\?\)/);
      // the window as the service asks for it (due `future` events read as published, C13: a due `future` post counts as published): the same index
      // alone (migration 15's date_utc among its columns), never a scan of the events
      const due = new QueryCompiler(kind, shape).where(QUERIES.find(([name]) => name.startsWith("the default window, due"))![1]);
      expect(due.docFree).toBe(true);
      const duePlan = await plan(`SELECT COUNT(*) FROM events INDEXED BY ix_events_window WHERE site = ? AND (${due.sql})`, due.params);
      expect(duePlan).toMatch(/USING (COVERING )?INDEX ix_events_window \(site=\? AND c_hide_from_listings=\? AND c_status=\? AND c_start_date>\? AND c_start_date<\?\)/);
      const linkedPlan = await plan(`SELECT COUNT(*) FROM events WHERE site = ? AND (${linked.sql})`, linked.params);
      expect(linkedPlan).toMatch(/SEARCH d USING PRIMARY KEY \(site=\? AND type=\? AND field=\? AND target=\?\)/);
      expect(linkedPlan).toMatch(/SEARCH p EXISTS USING PRIMARY KEY \(site=\? AND type=\? AND field=\? AND target=\? AND id=\?\)/);
      expect(linkedPlan).not.toMatch(/SCAN events/);
      // the linked events' window from the columns keyed by id (migration 11), each looked up by its key
      const counted = new QueryCompiler(kind, shape).where(QUERIES[5][1]);
      expect(await plan(`SELECT COUNT(*) FROM events INDEXED BY ix_events_id_window WHERE site = ? AND (${counted.sql})`, counted.params))
        .toMatch(/SEARCH events USING (COVERING )?INDEX ix_events_id_window \(site=\? AND id=\?\)/);
    });
  });
}

suite("sqlite");
suite("postgres");
