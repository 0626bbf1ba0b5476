/**
 * Link pairs (store/sql/link-pairs.ts): how many records hold each two link elements together, kept by
 * triggers in the write's own transaction. What is kept always equals what the link table says after
 * any sequence of creates, link changes and deletes; the migration counts a store's records
 * made before it; and a list filtered by several links answers exactly what the records hold, empty
 * intersections included, whether the pairs rule the read out or not. PostgreSQL: a writer of a pair
 * another open transaction holds does not wait for it.
 */
import type { IndexSpec, Store } from "../../store";
import type { Collection } from "../../store/collection";
import type { Doc, Query } from "../../lib/documents/store-query";
import { LINK_PAIRS, linkPairsFill } from "../../store/sql/link-pairs";
import { markWrittenStatement } from "../../store/sql/write-marks";
import { PAIR_MEMBERS, pairMembersFill } from "../../store/sql/pair-members";
import { LINK_FIELDS } from "../../store/sql/schema";
import { openTestStore, TestStore } from "../helpers/test-store";
import { seededRandom } from "../helpers/seeded-random";

const SITE = 1;
const OTHER = 2;
const INDEXES: IndexSpec[] = [{ field: "start_date" }, { field: "categories", array: true }, { field: "venues", array: true }];

function eventDoc(id: number, next: () => number): Doc {
  const pick = (n: number, of: number) => Array.from(new Set(Array.from({ length: n }, () => 1 + Math.floor(next() * of))));
  return {
    _id: id, title: `Event ${id}`, status: "publish", start_date: `2030-01-${String(1 + (id % 28)).padStart(2, "0")} 10:00:00`,
    categories: pick(Math.floor(next() * 3), 6), tags: pick(Math.floor(next() * 2), 4), venues: next() < 0.9 ? [1 + Math.floor(next() * 5)] : [],
    // a scalar stored in place of an array counts as its one element, as the link table reads it
    organizers: next() < 0.2 ? 1 + Math.floor(next() * 3) : pick(1, 3)
  };
}

/** The pairs' counts as kept, without the rows that sum to nothing. */
async function kept(store: Store): Promise<string[]> {
  const rows = await store.sql!.all<{ k: string; n: number | string }>(
    `SELECT site || ' ' || type || ' ' || a_field || ' ' || a_target || ' ' || b_field || ' ' || b_target AS k, SUM(n) AS n FROM ${LINK_PAIRS} ` +
    "GROUP BY site, type, a_field, a_target, b_field, b_target");
  return rows.filter(r => Number(r.n) !== 0).map(r => `${r.k} ${Number(r.n)}`).sort();
}

/** The pairs counted again from the link table. */
async function counted(store: Store): Promise<string[]> {
  const rows = await store.sql!.all<{ k: string; n: number | string }>(
    "SELECT a.site || ' ' || a.type || ' ' || a.field || ' ' || a.target || ' ' || b.field || ' ' || b.target AS k, COUNT(*) AS n FROM links AS a JOIN links AS b " +
    "ON b.site = a.site AND b.type = a.type AND b.id = a.id WHERE a.type = 'events' AND (a.field < b.field OR (a.field = b.field AND a.target < b.target)) " +
    "GROUP BY a.site, a.type, a.field, a.target, b.field, b.target");
  return rows.map(r => `${r.k} ${Number(r.n)}`).sort();
}

/** The records holding each pair, as kept (store/sql/pair-members.ts). */
async function members(store: Store): Promise<string[]> {
  const rows = await store.sql!.all<{ k: string }>(
    `SELECT site || ' ' || type || ' ' || a_field || ' ' || a_target || ' ' || b_field || ' ' || b_target || ' ' || id AS k FROM ${PAIR_MEMBERS}`);
  return rows.map(r => r.k).sort();
}

/** The records holding each pair, made again from the link table. */
async function memberOf(store: Store): Promise<string[]> {
  const rows = await store.sql!.all<{ k: string }>(
    "SELECT a.site || ' ' || a.type || ' ' || a.field || ' ' || a.target || ' ' || b.field || ' ' || b.target || ' ' || a.id AS k FROM links AS a JOIN links AS b " +
    "ON b.site = a.site AND b.type = a.type AND b.id = a.id WHERE a.type = 'events' AND (a.field < b.field OR (a.field = b.field AND a.target < b.target))");
  return rows.map(r => r.k).sort();
}

function holds(doc: Doc, field: string, ids: number[]): boolean {
  const v = doc[field];
  return (Array.isArray(v) ? v : [v]).some(x => ids.includes(x as number));
}

function suite(kind: "sqlite" | "postgres") {
  describe(`link pairs on ${kind}`, () => {
    let opened: TestStore | undefined;
    let store: Store;
    let events: Collection;
    let other: Collection;
    const docs = new Map<number, Doc>();
    const skipped = () => console.warn("PostgreSQL is not reachable: skipped");

    beforeAll(async () => {
      opened = await openTestStore(kind, "linkpairs");
      if (!opened) return;
      store = opened.store;
      await store.ensureIndexes("events", INDEXES);
      events = store.collection("events", INDEXES, SITE);
      other = store.collection("events", INDEXES, OTHER);
      const next = seededRandom(7);
      for (let id = 1; id <= 300; id++) {
        const doc = eventDoc(id, next);
        docs.set(id, doc);
        await events.insert(doc);
      }
      for (let id = 1; id <= 40; id++) await other.insert(eventDoc(id, next));
    }, 120_000);

    afterAll(async () => {
      await opened?.close();
    });

    test("the kept pairs are the link table's after creates, link changes and deletes", async () => {
      if (!opened) return skipped();
      expect((await kept(store)).length).toBeGreaterThan(50);
      expect(await kept(store)).toEqual(await counted(store));
      const next = seededRandom(11);
      for (let id = 1; id <= 300; id += 3) {
        const { _id, ...changed } = eventDoc(id, next);
        docs.set(id, { _id, ...changed });
        await events.updateOne({ _id: id }, { $set: changed });
      }
      // an update that changes no link moves no pair
      const before = await kept(store);
      await events.updateOne({ _id: 2 }, { $set: { title: "Renamed" } });
      expect(await kept(store)).toEqual(before);
      for (let id = 5; id <= 300; id += 10) {
        docs.delete(id);
        await events.removeMany({ _id: id });
      }
      await other.removeMany({ _id: { $lte: 20 } });
      expect(await kept(store)).toEqual(await counted(store));
      // the records holding each pair: every one the link table says, no other
      const held = await members(store);
      expect(held.length).toBeGreaterThan(300);
      expect(held).toEqual(await memberOf(store));
    });

    test("a list filtered by several links answers what the records hold, empty or not", async () => {
      if (!opened) return skipped();
      const sets: Array<[string, number[]]> = [];
      for (let c = 1; c <= 6; c++) sets.push(["categories", [c]]);
      for (let v = 1; v <= 5; v++) sets.push(["venues", [v]]);
      sets.push(["categories", [2, 5]], ["tags", [1]], ["tags", [3, 4]], ["organizers", [2]], ["categories", [9]]);
      let empty = 0;
      let full = 0;
      for (const [i, [fa, a]] of sets.entries()) {
        for (const [fb, b] of sets.slice(i + 1)) {
          const query: Query = { $and: [{ [fa]: a.length === 1 ? a[0] : { $in: a } }, { [fb]: b.length === 1 ? b[0] : { $in: b } }] };
          const expected = [...docs.values()].filter(d => holds(d, fa, a) && holds(d, fb, b)).map(d => d._id as number).sort((x, y) => x - y);
          const found = (await events.find(query, { sort: { start_date: 1 } })).map(d => d._id as number).sort((x, y) => x - y);
          expect({ query, found }).toEqual({ query, found: expected });
          expect(await events.count(query)).toBe(expected.length);
          if (expected.length) full++;
          else empty++;
        }
      }
      // both kinds were asked: pairs no event holds, and pairs some do
      expect(empty).toBeGreaterThan(5);
      expect(full).toBeGreaterThan(20);
      // three memberships, one field asked twice with a shared target
      const three: Query = { $and: [{ categories: { $in: [1, 2] } }, { categories: { $in: [2, 3] } }, { venues: { $in: [1, 2, 3] } }] };
      const expected = [...docs.values()].filter(d => holds(d, "categories", [1, 2]) && holds(d, "categories", [2, 3]) && holds(d, "venues", [1, 2, 3])).length;
      expect(expected).toBeGreaterThan(0);
      expect(await events.count(three)).toBe(expected);
    });

    test("the migration's fill counts records written without the triggers", async () => {
      if (!opened) return skipped();
      const now = await kept(store);
      const held = await members(store);
      await store.sql!.run(`DELETE FROM ${LINK_PAIRS} WHERE site = ?`, [SITE]);
      await store.sql!.run(`DELETE FROM ${PAIR_MEMBERS} WHERE site = ?`, [SITE]);
      expect(await kept(store)).not.toEqual(now);
      // the list reads the pairs first: without them it finds nothing (what the fill is there to prevent)
      const query: Query = { $and: [{ categories: 1 }, { venues: { $in: [1, 2, 3, 4, 5] } }] };
      expect(await events.count(query)).toBe(0);
      await store.sql!.run(linkPairsFill(kind, "events", LINK_FIELDS.events, `r.site = ${SITE}`));
      await store.sql!.run(pairMembersFill(kind, "events", LINK_FIELDS.events, `r.site = ${SITE}`));
      // as after any bulk load, the site's write marks moved on: no total kept before is taken for current
      await store.sql!.run(markWrittenStatement("events"), [SITE]);
      expect(await kept(store)).toEqual(now);
      expect(await members(store)).toEqual(held);
      expect(await events.count(query)).toBe([...docs.values()].filter(d => holds(d, "categories", [1]) && holds(d, "venues", [1, 2, 3, 4, 5])).length);
    });

    test("a page its links drive is in the list's order, ties and offsets included", async () => {
      if (!opened) return skipped();
      // events 3001–3400 at venue 31 or 32 and category 41 or 42, few start dates and publication dates (many ties), one without a publication date
      const mine = new Map<number, Doc>();
      for (let i = 3001; i <= 3400; i++) {
        const doc: Doc = { _id: i, title: `Ordered ${i}`, status: "publish", start_date: `2032-0${1 + (i % 4)}-01 10:00:00`, categories: [41 + (i % 2)], venues: [31 + (i % 3 === 0 ? 1 : 0)], tags: [], organizers: [] };
        if (i !== 3100) doc.date = `2031-0${1 + (i % 3)}-15 09:00:00`;
        mine.set(i, doc);
        await events.insert(doc);
      }
      const key = (d: Doc) => [String(d.start_date ?? ""), String(d.date ?? ""), String(d._id).padStart(8, "0")];
      const compare = (a: Doc, b: Doc) => { const x = key(a).join(" "); const y = key(b).join(" "); return x < y ? -1 : x > y ? 1 : 0; };
      for (const dir of [1, -1] as const) {
        const sort = { start_date: dir, date: dir, _id: dir };
        const query: Query = { start_date: { $gte: "2032-02-01 00:00:00" }, $and: [{ categories: 41 }, { venues: 31 }] };
        const expected = [...mine.values()].filter(d => String(d.start_date) >= "2032-02-01 00:00:00" && holds(d, "categories", [41]) && holds(d, "venues", [31]))
          .sort((a, b) => dir * compare(a, b)).map(d => d._id);
        expect(expected.length).toBeGreaterThan(60);
        for (const skip of [0, 7, 28, 63]) {
          const page = (await events.find(query, { sort, limit: 7, skip })).map(d => d._id);
          expect({ dir, skip, page }).toEqual({ dir, skip, page: expected.slice(skip, skip + 7) });
        }
        // no limit: every one, in order
        expect((await events.find(query, { sort })).map(d => d._id)).toEqual(expected);
      }
    });

    if (kind === "postgres") {
      test("a writer of a pair an open transaction holds does not wait for it", async () => {
        if (!opened) return skipped();
        const doc = (id: number) => ({ _id: id, title: `Held ${id}`, status: "publish", start_date: "2030-02-01 10:00:00", categories: [1], venues: [1], tags: [], organizers: [] });
        let release!: () => void;
        const held = new Promise<void>(r => { release = r; });
        let written!: () => void;
        const inside = new Promise<void>(r => { written = r; });
        const open = store.sql!.transaction(async tx => {
          await tx.run("INSERT INTO events (site, id, doc) VALUES (?, ?, ?::jsonb)", [SITE, 1001, JSON.stringify({ ...doc(1001), _id: undefined })]);
          written();
          await held;
        });
        await inside;
        const started = Date.now();
        await events.insert(doc(1002));
        const waited = Date.now() - started;
        release();
        await open;
        expect(waited).toBeLessThan(5_000);
        expect(await kept(store)).toEqual(await counted(store));
      }, 30_000);
    }
  });
}

suite("sqlite");
suite("postgres");
