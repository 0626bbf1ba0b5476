/**
 * Term counts kept by the store (store/sql/term-counts.ts): a term's `count` is the number of published
 * events carrying it, its `tree_count` that count plus its descendants'. After any sequence of creates,
 * term changes, status changes, moves between sites and deletes of events, and of a term moved under
 * another parent, every term holds what the events say, counted here from the test's own copy of them.
 * Both SQL stores; the terms form a tree three levels deep, and an event may carry a term and its ancestor.
 */
import type { Store } from "../../store";
import type { Collection } from "../../store/collection";
import type { Doc } from "../../lib/documents/store-query";
import { openTestStore, TestStore } from "../helpers/test-store";
import { seededRandom } from "../helpers/seeded-random";

const SITE = 1;
const OTHER = 2;

/** The categories: 1 ← 2 ← 3 (3's parent is 2, 2's is 1), 4 ← 5, and 6 alone; the tags 10 and 11. */
const PARENTS: Record<number, number> = { 1: 0, 2: 1, 3: 2, 4: 0, 5: 4, 6: 0 };
const TAGS = [10, 11];

function suite(kind: "sqlite" | "postgres") {
  describe(`term counts on ${kind}`, () => {
    let opened: TestStore | undefined;
    let store: Store;
    let terms: Collection;
    let events: Collection;
    let other: Collection;
    const parents = { ...PARENTS };
    const docs = new Map<string, Doc & { site: number }>();
    const next = seededRandom(11);
    const skipped = () => console.warn("PostgreSQL is not reachable: skipped");

    const pick = (): Doc => {
      const categories = Object.keys(PARENTS).map(Number).filter(() => next() < 0.3);
      return { status: next() < 0.8 ? "publish" : "draft", categories, tags: TAGS.filter(() => next() < 0.5) };
    };

    /** What each term of site 1 should hold, from the test's copy of the events and the tree. */
    function expected(): Record<number, { count: number; tree_count: number }> {
      const count: Record<number, number> = {};
      for (const id of [...Object.keys(parents).map(Number), ...TAGS]) count[id] = 0;
      for (const d of docs.values()) {
        if (d.site !== SITE || d.status !== "publish") continue;
        for (const t of new Set([...(d.categories as number[]), ...(d.tags as number[])])) count[t]++;
      }
      const out: Record<number, { count: number; tree_count: number }> = {};
      for (const id of Object.keys(count).map(Number)) out[id] = { count: count[id], tree_count: 0 };
      for (const id of Object.keys(count).map(Number)) {
        // each term's count reaches itself and every ancestor
        for (let a = id; a > 0; a = parents[a] ?? 0) out[a].tree_count += count[id];
      }
      return out;
    }

    async function held(): Promise<Record<number, { count: number; tree_count: number }>> {
      const out: Record<number, { count: number; tree_count: number }> = {};
      for (const t of await terms.find({})) out[Number(t._id)] = { count: Number(t.count ?? 0), tree_count: Number(t.tree_count ?? 0) };
      return out;
    }

    beforeAll(async () => {
      opened = await openTestStore(kind, "termcounts");
      if (!opened) return;
      store = opened.store;
      terms = store.collection("terms", [], SITE);
      events = store.collection("events", [], SITE);
      other = store.collection("events", [], OTHER);
      for (const [id, parent] of Object.entries(PARENTS)) await terms.insert({ _id: Number(id), taxonomy: "category", slug: `c${id}`, tax_slug: `category:c${id}`, parent, count: 0, tree_count: 0 });
      for (const id of TAGS) await terms.insert({ _id: id, taxonomy: "tag", slug: `t${id}`, tax_slug: `tag:t${id}`, count: 0, tree_count: 0 });
    });
    afterAll(async () => {
      await opened?.close();
    });

    test("creates, term and status changes, moves between sites and deletes: every term holds what the events say", async () => {
      if (!opened) return skipped();
      for (let id = 1; id <= 120; id++) {
        const doc = { _id: id, ...pick() };
        docs.set(`${SITE}:${id}`, { ...doc, site: SITE });
        await events.insert(doc);
      }
      expect(await held()).toEqual(expected());
      for (let step = 0; step < 150; step++) {
        const id = 1 + Math.floor(next() * 120);
        const key = `${SITE}:${id}`;
        if (!docs.has(key)) continue;
        const r = next();
        if (r < 0.6) {
          const change = pick();
          await events.updateOne({ _id: id }, { $set: change });
          docs.set(key, { ...docs.get(key)!, ...change });
        } else if (r < 0.8) {
          await events.removeMany({ _id: id });
          docs.delete(key);
        } else {
          // the event leaves for another site: its terms there are not site 1's
          const doc = docs.get(key)!;
          await events.removeMany({ _id: id });
          await other.insert({ _id: id, status: doc.status, categories: doc.categories, tags: doc.tags });
          docs.delete(key);
          docs.set(`${OTHER}:${id}`, { ...doc, site: OTHER });
        }
      }
      expect(await held()).toEqual(expected());
    });

    test("a term moved under another parent, and a term deleted: the ancestors' tree counts follow", async () => {
      if (!opened) return skipped();
      // 3 (under 2 under 1) moves under 5 (under 4)
      await terms.updateOne({ _id: 3 }, { $set: { parent: 5 } });
      parents[3] = 5;
      expect(await held()).toEqual(expected());
      // events carrying it still move the new ancestors
      const id = 500;
      const doc = { _id: id, status: "publish", categories: [3, 4], tags: [] };
      await events.insert(doc);
      docs.set(`${SITE}:${id}`, { ...doc, site: SITE });
      expect(await held()).toEqual(expected());
      // 2 is deleted: its own tree count leaves 1 (3 is no longer under it)
      const before = await held();
      await terms.removeMany({ _id: 2 });
      expect((await held())[1].tree_count).toBe(before[1].tree_count - before[2].tree_count);
    });
  });
}

suite("sqlite");
suite("postgres");
