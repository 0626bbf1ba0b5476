/**
 * The link table (store/sql/schema.ts, migration 5): membership in an events' link field (venues,
 * organizers, categories, tags) is answered from `links`, which triggers keep. On SQLite and on
 * PostgreSQL, after creates, updates that change links (and ones that do not), pulls and deletes, a list
 * filtered by several links finds exactly the records the documents say (MongoDB's meaning: an element of
 * the array, or a scalar stored in its place), in the list's order, with the same totals; records of
 * another site never match; the table holds exactly the records' integer elements; and the plan reads it
 * through its key.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { acquireStore, releaseStore, Store, StoreConfig } from "../../store";
import type { Collection } from "../../store/collection";
import { buildEventQuery, eventSort } from "../../lib/events/event-query";
import type { Doc, Query } from "../../lib/documents/store-query";
import { LINK_FIELDS, LINK_TABLE } from "../../store/sql/schema";
import { QueryCompiler } from "../../store/sql/compile";
import { createTestDatabase, TestDatabase } from "../helpers/postgres";
import { analyzedWithoutSamples } from "../../store/sql/sqlite-statistics";
import { seededRandom } from "../helpers/seeded-random";

const SITE = 1;
const OTHER = 2;
const FIELDS = LINK_FIELDS.events;
// the events service's list indexes (services/events.service.ts): the date ones a plan could walk instead
const INDEXES = [...FIELDS.map(field => ({ field, array: true })), ...["start_date", "end_date"].map(field => ({ field })), { field: "start_date", then: ["date"] }];

/** MongoDB's meaning of `{ field: { $in: values } }` on a stored value. */
function holdsAny(value: unknown, values: readonly unknown[]): boolean {
  return Array.isArray(value) ? value.some(e => values.includes(e)) : values.includes(value);
}

const byListOrder = (a: Doc, b: Doc) =>
  (a.start_date < b.start_date ? -1 : a.start_date > b.start_date ? 1 : 0) || (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) || a._id - b._id;

function suite(kind: "sqlite" | "postgres") {
  describe(`the link table on ${kind}`, () => {
    let db: TestDatabase | undefined;
    let dir: string | undefined;
    let config: StoreConfig;
    let store: Store;
    let events: Collection;
    let others: Collection;
    /** What the site's records hold, as the test wrote them. */
    const docs = new Map<number, Doc>();
    const next = seededRandom(kind === "sqlite" ? 7 : 11);
    const pick = (n: number) => 1 + Math.floor(next() * n);

    function linksOf(): Doc {
      const many = (n: number) => [...new Set(Array.from({ length: Math.floor(next() * 3) }, () => pick(n)))];
      const doc: Doc = { categories: many(6), tags: many(8), venues: many(5), organizers: many(5) };
      const r = next();
      // the shapes a document may hold: a scalar in place of the array, a text id, no field at all
      if (r < 0.05) doc.venues = pick(5);
      else if (r < 0.08) doc.venues = [String(pick(5)), pick(5)];
      else if (r < 0.1) delete doc.organizers;
      return doc;
    }

    function newDoc(id: number): Doc {
      const day = String(1 + (id % 28)).padStart(2, "0");
      return { _id: id, title: `Event ${id}`, status: id % 9 === 0 ? "draft" : "publish", start_date: `2030-03-${day} 10:00:00`, end_date: `2030-03-${day} 12:00:00`,
        date: `2029-01-01 00:00:${String(id % 60).padStart(2, "0")}`, hide_from_listings: id % 31 === 0, ...linksOf() };
    }

    beforeAll(async () => {
      if (kind === "postgres") {
        db = await createTestDatabase("links");
        config = { dataDir: ":memory:", databaseUrl: db.url, connectTimeoutMs: 5000 };
      } else {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "links-"));
        config = { dataDir: dir, connectTimeoutMs: 1000 };
      }
      store = await acquireStore(config);
      await store.ensureIndexes("events", INDEXES);
      events = store.collection("events", INDEXES, SITE);
      others = store.collection("events", INDEXES, OTHER);
      for (let id = 1; id <= 300; id++) {
        const doc = newDoc(id);
        docs.set(id, doc);
        await events.insert(doc);
        // the other site: the same ids, every link it could have
        await others.insert({ ...doc, status: "publish", hide_from_listings: false, categories: [1, 2, 3, 4, 5, 6], tags: [1, 2, 3, 4, 5, 6, 7, 8], venues: [1, 2, 3, 4, 5], organizers: [1, 2, 3, 4, 5] });
      }
    }, 120_000);

    afterAll(async () => {
      await releaseStore(config);
      await db?.drop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    /** Writes of every kind: links replaced, pushed, pulled, left as they were; records deleted and created. */
    async function churn(): Promise<void> {
      for (let id = 1; id <= 300; id += 3) {
        if (!docs.has(id)) continue;
        const changed = linksOf();
        await events.updateOne({ _id: id }, { $set: changed });
        Object.assign(docs.get(id)!, changed);
      }
      for (let id = 2; id <= 300; id += 7) {
        if (!docs.has(id)) continue;
        await events.updateOne({ _id: id }, { $set: { title: `Renamed ${id}` } });
        docs.get(id)!.title = `Renamed ${id}`;
      }
      // a venue deleted: pulled from every event that links it (domain/events/event-commands.ts `unlinkFrom`)
      const pulled = await events.updateMany({ venues: 3 }, { $pull: { venues: 3 } });
      let expected = 0;
      for (const d of docs.values()) {
        if (!holdsAny(d.venues, [3])) continue;
        expected++;
        d.venues = Array.isArray(d.venues) ? d.venues.filter((v: unknown) => v !== 3) : d.venues;
      }
      expect(pulled).toBe(expected);
      for (let id = 5; id <= 300; id += 11) {
        await events.removeMany({ _id: id });
        docs.delete(id);
      }
      for (let id = 301; id <= 330; id++) {
        const doc = newDoc(id);
        docs.set(id, doc);
        await events.insert(doc);
      }
    }

    /** The list's query with these link filters; answers the ids found (in order), the total and the expected ids. */
    async function list(f: { categoryIds?: number[]; tagIds?: number[]; venueIds?: number[]; organizerIds?: number[]; notVenues?: number[] }) {
      const query = buildEventQuery({ statuses: ["publish"], bounds: { start_date: "2030-03-03 00:00:00", end_date: "2030-03-25 23:59:59" }, searchAccess: "all",
        ...f, geoVenues: f.notVenues ? { notIn: f.notVenues } : undefined });
      const found = await events.find(query, { sort: eventSort(false) });
      const total = await events.count(query);
      const want = [...docs.values()].filter(d => d.status === "publish" && !d.hide_from_listings && d.start_date >= "2030-03-03 00:00:00" && d.end_date <= "2030-03-25 23:59:59" &&
        (!f.categoryIds || holdsAny(d.categories, f.categoryIds)) && (!f.tagIds || holdsAny(d.tags, f.tagIds)) &&
        (!f.venueIds || holdsAny(d.venues, f.venueIds)) && (!f.organizerIds || holdsAny(d.organizers, f.organizerIds)) &&
        (!f.notVenues || !holdsAny(d.venues, f.notVenues))).sort(byListOrder);
      return { ids: found.map(d => d._id), total, want: want.map(d => d._id) };
    }

    const FILTERS = [
      { categoryIds: [2] },
      { categoryIds: [1, 4], venueIds: [2] },
      { categoryIds: [3], venueIds: [1, 2, 5], tagIds: [4, 7] },
      { organizerIds: [2], tagIds: [1] },
      { venueIds: [3] },
      { categoryIds: [5], notVenues: [1, 4] },
      { categoryIds: [99] }
    ];

    async function expectTableMatchesRecords(): Promise<void> {
      const rows = await store.sql!.all<{ field: string; target: number | string; id: number | string }>(
        `SELECT field, target, id FROM ${LINK_TABLE} WHERE site = ? AND type = 'events'`, [SITE]);
      const got = rows.map(r => `${r.id}:${r.field}:${r.target}`).sort();
      const want = [...docs.values()].flatMap(d => FIELDS.flatMap(f => {
        const v = d[f];
        const elements = Array.isArray(v) ? v : v === undefined ? [] : [v];
        return [...new Set(elements.filter((e: unknown) => Number.isSafeInteger(e)))].map(e => `${d._id}:${f}:${e}`);
      })).sort();
      expect(got).toEqual(want);
    }

    test("filters by several links: the records the documents say, in the list's order, with their total", async () => {
      for (const f of FILTERS) {
        const { ids, total, want } = await list(f);
        expect({ f, ids }).toEqual({ f, ids: want });
        expect(total).toBe(want.length);
      }
      expect((await list({ categoryIds: [2] })).want.length).toBeGreaterThan(0);
      await expectTableMatchesRecords();
    });

    test("after updates that change links, pulls, deletes and new records: still the documents' answer", async () => {
      await churn();
      for (const f of FILTERS) {
        const { ids, total, want } = await list(f);
        expect({ f, ids }).toEqual({ f, ids: want });
        expect(total).toBe(want.length);
      }
      await expectTableMatchesRecords();
    });

    test("equality, $nin, $not and values that are not integer ids", async () => {
      const ids = async (q: Query) => (await events.find(q, { sort: { _id: 1 } })).map(d => d._id);
      const where = (keep: (d: Doc) => boolean) => [...docs.values()].filter(keep).map(d => d._id).sort((a, b) => a - b);
      expect(await ids({ venues: 2 })).toEqual(where(d => holdsAny(d.venues, [2])));
      expect(await ids({ categories: { $nin: [1, 2] } })).toEqual(where(d => !holdsAny(d.categories, [1, 2])));
      expect(await ids({ $not: { tags: { $in: [3] } } })).toEqual(where(d => !holdsAny(d.tags, [3])));
      expect(await ids({ venues: { $in: ["4", 1] } })).toEqual(where(d => holdsAny(d.venues, ["4", 1])));
      expect(await ids({ venues: "2" })).toEqual(where(d => holdsAny(d.venues, ["2"])));
      expect(await ids({ organizers: { $in: [] } })).toEqual([]);
      expect(await events.count({ organizers: { $exists: false } })).toBe(where(d => d.organizers === undefined).length);
    });

    test("records of another site never match, nor do their links count", async () => {
      const mine = await events.count({ categories: { $in: [1, 2, 3, 4, 5, 6] } });
      expect(mine).toBe([...docs.values()].filter(d => holdsAny(d.categories, [1, 2, 3, 4, 5, 6])).length);
      expect(await others.count({ categories: { $in: [1] }, venues: 5 })).toBe(300);
      await others.removeMany({ _id: { $lte: 100 } });
      expect(await others.count({ categories: 1 })).toBe(200);
      expect(await events.count({ categories: { $in: [1, 2, 3, 4, 5, 6] } })).toBe(mine);
      const rows = await store.sql!.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${LINK_TABLE} WHERE site = ? AND type = 'events' AND id <= 100`, [OTHER]);
      expect(Number(rows[0].n)).toBe(0);
      await expectTableMatchesRecords();
    });

    test("the plan of a filtered list reads the link table through its key", async () => {
      await (kind === "sqlite" ? analyzedWithoutSamples(store.sql!, "ANALYZE") : store.sql!.run("ANALYZE events"));
      if (kind === "postgres") await store.sql!.run(`ANALYZE ${LINK_TABLE}`);
      const compiler = new QueryCompiler(kind, { arrays: new Set(FIELDS), links: { table: LINK_TABLE, type: "events", fields: new Set(FIELDS), site: SITE } });
      const query = buildEventQuery({ statuses: ["publish"], bounds: { start_date: "2030-03-03 00:00:00", end_date: "2030-03-25 23:59:59" }, searchAccess: "all", categoryIds: [2], venueIds: [1] });
      const where = compiler.where(query);
      const sql = `SELECT id FROM events WHERE site = ? AND (${where.sql})${compiler.orderBy(eventSort(false), query)} LIMIT 10`;
      const plan = kind === "sqlite"
        ? (await store.sql!.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, [SITE, ...where.params])).map(r => r.detail).join("\n")
        : (await store.sql!.all<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`, [SITE, ...where.params])).map(r => r["QUERY PLAN"]).join("\n");
      expect(plan).toMatch(kind === "sqlite" ? /SEARCH d USING PRIMARY KEY \(site=\? AND type=\? AND field=\? AND target=\?\)/ : /Scan (using|on) links_pkey[\s\S]*Index Cond: .*field = 'categories'.*target = ANY/);
      // SQLite: the links drive, the events are read by id; walking a date index instead read the whole
      // window when the links matched few events (docs/lists.md#event-filters)
      if (kind === "sqlite") {
        const byId = /SEARCH events USING (INDEX sqlite_autoindex_events_1|PRIMARY KEY|COVERING INDEX sqlite_autoindex_events_1) \(site=\? AND id=\?\)/;
        expect(plan).toMatch(byId);
        // and without statistics (a store that grew since it opened): the date index was walked then
        await store.sql!.run("DELETE FROM sqlite_stat1");
        await store.sql!.run("ANALYZE sqlite_schema");
        const bare = (await store.sql!.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, [SITE, ...where.params])).map(r => r.detail).join("\n");
        expect(bare).toMatch(byId);
        await analyzedWithoutSamples(store.sql!, "ANALYZE");
      }
      // not the document's array, element by element (SQLite) or by containment (PostgreSQL)
      expect(plan).not.toMatch(kind === "sqlite" ? /json_each EXISTS/ : /@>/);
    });

    test("a list filtered by a venue of many events and a category: the same answer whichever way it is read", async () => {
      // PostgreSQL probes the other filters per link of the driving one (the venue) up to 500 links, and
      // intersects whole sets beyond (store/sql/link-plans.ts linkedChosen); SQLite always probes
      for (let id = 1001; id <= 1700; id++) {
        const doc = { ...newDoc(id), venues: id <= 1600 ? [7] : [8], categories: [1 + (id % 6)] };
        docs.set(id, doc);
        await events.insert(doc);
      }
      if (kind === "postgres") await store.sql!.run(`ANALYZE ${LINK_TABLE}`);
      for (const f of [{ venueIds: [7], categoryIds: [2] }, { venueIds: [8], categoryIds: [2, 3] }, { venueIds: [7, 8], categoryIds: [4], tagIds: [1, 2, 3] }, { venueIds: [8], organizerIds: [1] }]) {
        const { ids, total, want } = await list(f);
        expect({ f, ids }).toEqual({ f, ids: want });
        expect(total).toBe(want.length);
      }
      if (kind !== "postgres") return;
      const compiler = new QueryCompiler(kind, { arrays: new Set(FIELDS), links: { table: LINK_TABLE, type: "events", fields: new Set(FIELDS), site: SITE } });
      const ran = async (venueIds: number[]) => {
        const where = compiler.where(buildEventQuery({ statuses: ["publish"], bounds: { start_date: "2030-03-03 00:00:00" }, searchAccess: "all", categoryIds: [2], venueIds }));
        const plan = (await store.sql!.all<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, TIMING OFF) SELECT id FROM events WHERE site = ? AND (${where.sql})`, [SITE, ...where.params]))
          .map(r => r["QUERY PLAN"]).join("\n");
        return { probed: !/SubPlan[\s\S]*never executed[\s\S]*HashSetOp/.test(plan) && /HashSetOp Intersect[^\n]*never executed/.test(plan), intersected: !/HashSetOp Intersect[^\n]*never executed/.test(plan) };
      };
      expect(await ran([8])).toEqual({ probed: true, intersected: false }); // 100 links
      expect(await ran([7])).toEqual({ probed: false, intersected: true }); // 600 links
      expect(await ran([7, 8])).toEqual({ probed: false, intersected: true }); // 700 links
    });

    test("records read by their ids (embedded venues, organizers, terms) are read through the key, not a scan", async () => {
      // a small table (a site's venues), with the statistics a store gathers when it opens, as in a running
      // service: there a list of ids read from one JSON parameter made SQLite scan the table
      const venues = store.collection("venues", [], SITE);
      for (let id = 1; id <= 100; id++) await venues.insert({ _id: id, venue: `Venue ${id}` });
      await (kind === "sqlite" ? analyzedWithoutSamples(store.sql!, "ANALYZE") : store.sql!.run("ANALYZE venues"));
      const compiler = new QueryCompiler(kind, { arrays: new Set() });
      // short lists are read one key at a time on SQLite (store/sql/collection.ts POINT_READS_UP_TO), longer ones with IN
      const lists = [[7], [7, 8, 9], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8, 9], Array.from({ length: 200 }, (_, i) => i + 1)];
      for (const ids of lists) {
        expect((await venues.findByIds(ids)).map(d => d._id as number).sort((a, b) => a - b)).toEqual(ids.filter(id => id <= 100));
        if (kind !== "sqlite" || ids.length > 64) continue;
        const where = compiler.where({ _id: { $in: ids } });
        const plan = (await store.sql!.all<{ detail: string }>(`EXPLAIN QUERY PLAN SELECT id FROM venues WHERE site = ? AND (${where.sql})`, [SITE, ...where.params]))
          .map(r => r.detail).join("\n");
        expect(plan).toMatch(/SEARCH venues USING .*\(site=\? AND id=\?\)/);
        expect(plan).not.toMatch(/SCAN venues/);
      }
      // a short list naming an id twice, or one that is not there: each present record once
      expect((await venues.findByIds([9, 150, 9, 3])).map(d => [d._id, d.venue]).sort((a, b) => (a[0] as number) - (b[0] as number)))
        .toEqual([[3, "Venue 3"], [9, "Venue 9"]]);
      expect(await venues.findByIds([150, 151])).toEqual([]);
    });
  });
}

suite("sqlite");
suite("postgres");
