/**
 * A search's page read from its order's first candidates (store/sql/collection.ts `walkedPage`, SQLite):
 * whether those candidates fill the page (a common word) or not (a rare one, read as before from the
 * full-text index), every page is the slice of the whole ordered answer, on documents of every shape. On
 * PostgreSQL the same pages are asked for, read as they always were: both stores answer the same.
 */
import type { IndexSpec } from "../../store";
import type { Collection } from "../../store/collection";
import { sqlCollection } from "../../store/sql/collection";
import { FTS_TABLES } from "../../store/sql/schema";
import type { SqlDriver } from "../../store/sql/driver";
import { buildEventQuery, eventSort } from "../../lib/events/event-query";
import type { Doc } from "../../lib/documents/store-query";
import { openTestStore, TestStore } from "../helpers/test-store";

const SITE = 1;
const INDEXES: IndexSpec[] = [{ field: "start_date" }, { field: "start_date", then: ["date"] }];
const pad = (n: number) => String(n).padStart(3, "0");

/**
 * 1 700 events, in start order by id (an hour apart): `alpha` in most early titles and `late` in every
 * event past the 500th (each in more than FEW_MATCHES events: the walk is tried), `beta` and `gamma` in
 * fewer (their ids drive), accents, odd values.
 */
function documents(): Doc[] {
  const at = (hours: number) => new Date(Date.UTC(2030, 0, 2) + hours * 3_600_000).toISOString().replace("T", " ").slice(0, 19);
  return Array.from({ length: 1700 }, (_, k) => {
    const id = k + 1;
    const doc: Doc = {
      _id: id,
      status: id % 17 === 0 ? "draft" : "publish",
      start_date: at(id),
      end_date: at(id + 1),
      date: `2029-01-01 00:${pad(id % 60).slice(1)}:00`,
      title: id % 23 === 0 ? 4242 : `${id < 1400 && id % 9 !== 0 ? "Alpha" : "Other"} ${id > 1650 ? "béta" : ""} Café ${id}`,
      description: `${id % 3 === 0 ? "Gamma night" : "plain"} ${id > 500 ? "late" : "early"} ${id}`
    };
    if (id % 7 === 0) doc.excerpt = "ALPHA excerpt";
    if (id % 19 === 0) doc.hide_from_listings = true;
    return doc;
  });
}

function suite(kind: "sqlite" | "postgres") {
  describe(`a search's page on ${kind}`, () => {
    let opened: TestStore | undefined;
    let events: Collection;
    const seen = { walked: 0, full: 0 };

    beforeAll(async () => {
      opened = await openTestStore(kind, "walk");
      if (!opened) return;
      const { store } = opened;
      await store.ensureIndexes("events", INDEXES);
      const writer = store.collection("events", INDEXES, SITE);
      for (const doc of documents()) await writer.insert(doc);
      // the same table read through a driver that tells which way each page was read
      const driver = store.sql!;
      const counting: SqlDriver = {
        ...driver,
        all: (sql, params) => {
          if (/\) AS events WHERE/.test(sql)) seen.walked++;
          else if (/^SELECT id, json\(doc\) AS doc FROM events WHERE .*events_fts MATCH/.test(sql)) seen.full++;
          return driver.all(sql, params);
        }
      };
      events = kind === "sqlite"
        ? sqlCollection(counting, { table: "events", site: SITE, feedTable: "changes", arrays: new Set(), orders: [["start_date", "date", "_id"]],
          fts: { ...FTS_TABLES.events, site: SITE } })
        : writer;
    }, 120_000);

    afterAll(async () => {
      await opened?.close();
    });

    const skip = () => { console.warn("PostgreSQL is not reachable: skipped"); };

    test.each([
      ["a word in most early events", "alpha"],
      ["a word found only late", "beta"],
      ["a common word absent from the first candidates", "late"],
      ["a common word and a rare one", "late gamma"],
      ["two words", "alpha cafe"],
      ["a word of the descriptions", "gamma"],
      ["an accented word", "café"],
      ["a word and an excluded one", "cafe -gamma"]
    ])("%s: every page is the slice of the whole ordered answer", async (_name, search) => {
      if (!opened) return skip();
      const query = buildEventQuery({ statuses: ["publish"], bounds: { start_date: "2030-01-01 00:00:00" }, search, searchAccess: "all" });
      const sort = eventSort(false);
      const whole = (await events.find(query, { sort })).map(d => d._id);
      expect(whole.length).toBeGreaterThan(10);
      for (const [skipped, limit] of [[0, 10], [10, 10], [20, 5], [100, 20], [whole.length - 3, 10], [0, 50]]) {
        const page = (await events.find(query, { sort, skip: skipped, limit })).map(d => d._id);
        expect(page).toEqual(whole.slice(skipped, skipped + limit));
      }
    });

    test("both ways were taken (SQLite): the first candidates filled some pages, the index read the others", () => {
      if (kind !== "sqlite" || !opened) return;
      expect(seen.walked).toBeGreaterThan(0);
      expect(seen.full).toBeGreaterThan(0);
    });
  });
}

suite("sqlite");
suite("postgres");
