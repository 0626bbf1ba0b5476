/**
 * Compiled store queries (lib/query-match.ts) select exactly what NeDB selects: random documents
 * (absent fields, empty and non-empty arrays, strings, numbers, booleans) and random queries of the
 * store's subset, compared id by id with the store moleculer-db runs.
 */
import * as path from "path";
import { compileQuery, sortOrder, UnsupportedQuery } from "../../lib/query-match";

const Datastore = require(require.resolve("@seald-io/nedb", { paths: [path.dirname(require.resolve("moleculer-db"))] }));

function rng(seed: number) {
  let s = seed >>> 0;
  const next = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}
type R = ReturnType<typeof rng>;

const WORDS = ["jazz", "Jazz night", "concert", "", "rock", "salsa jazz"];

function randomDoc(r: R, id: number): Record<string, unknown> {
  const doc: Record<string, unknown> = { _id: id };
  if (r.next() < 0.8) doc.n = r.int(10);
  if (r.next() < 0.8) doc.s = r.pick(WORDS);
  if (r.next() < 0.8) doc.arr = Array.from({ length: r.int(4) }, () => r.int(6));
  if (r.next() < 0.7) doc.b = r.next() < 0.5;
  if (r.next() < 0.5) doc.p = r.pick(["", "secret", "other"]);
  if (r.next() < 0.3) doc.mixed = r.pick([1, "1", true, null]);
  return doc;
}

function randomCondition(r: R, depth: number): Record<string, unknown> {
  const roll = r.next();
  if (depth < 2 && roll < 0.15) return { [r.pick(["$and", "$or"])]: Array.from({ length: 1 + r.int(3) }, () => randomCondition(r, depth + 1)) };
  if (depth < 2 && roll < 0.22) return { $not: randomCondition(r, depth + 1) };
  const field = r.pick(["n", "s", "arr", "b", "p", "mixed", "_id"]);
  const value = () => (field === "s" || field === "p" ? r.pick(WORDS.concat(["secret"])) : field === "b" ? r.next() < 0.5 : r.int(8));
  switch (r.int(9)) {
    case 0: return { [field]: value() };
    case 1: return { [field]: { $in: [value(), value()] } };
    case 2: return { [field]: { $nin: [value(), value()] } };
    case 3: return { [field]: { $ne: value() } };
    case 4: return { [field]: { [r.pick(["$gt", "$gte", "$lt", "$lte"])]: value() } };
    case 5: return { [field]: { $gte: value(), $lt: value() } };
    case 6: return { [field]: { $exists: r.next() < 0.5 } };
    case 7: return { [field]: r.pick([/jazz/i, /^$/, /o/]) };
    default: return { [field]: { $exists: true, $ne: value() } };
  }
}

describe("compiled store queries", () => {
  it("select what NeDB selects", async () => {
    const r = rng(3);
    const db = new Datastore({ inMemoryOnly: true });
    const docs = Array.from({ length: 150 }, (_, i) => randomDoc(r, i + 1));
    await db.insertAsync(docs);
    let nonTrivial = 0;
    for (let i = 0; i < 1500; i++) {
      const query = randomCondition(r, 0);
      const expected = ((await db.findAsync(query)) as Array<{ _id: number }>).map(d => d._id).sort((a, b) => a - b);
      const match = compileQuery(query);
      const got = docs.filter(d => match(d)).map(d => d._id as number);
      if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`${JSON.stringify(query, (_k, v) => (v instanceof RegExp ? String(v) : v))}: compiled ${got}, NeDB ${expected}`);
      if (expected.length > 0 && expected.length < docs.length) nonTrivial++;
    }
    expect(nonTrivial).toBeGreaterThan(500);
  });

  it("an empty array matches no operator, as in NeDB", async () => {
    const db = new Datastore({ inMemoryOnly: true });
    await db.insertAsync([{ _id: 1, arr: [] }, { _id: 2, arr: [1] }, { _id: 3 }]);
    for (const q of [{ arr: { $exists: true } }, { arr: { $exists: false } }, { arr: { $ne: 5 } }, { arr: { $nin: [5] } }]) {
      const expected = ((await db.findAsync(q)) as Array<{ _id: number }>).map(d => d._id).sort();
      const match = compileQuery(q);
      expect([{ _id: 1, arr: [] }, { _id: 2, arr: [1] }, { _id: 3 }].filter(d => match(d)).map(d => d._id)).toEqual(expected);
    }
  });

  it("refuses what it does not know, so the caller asks the store", () => {
    expect(() => compileQuery({ $where: "1" })).toThrow(UnsupportedQuery);
    expect(() => compileQuery({ n: { $size: 1 } })).toThrow(UnsupportedQuery);
    expect(() => compileQuery({ "a.b": 1 })).toThrow(UnsupportedQuery);
  });

  it("sorts as NeDB sorts (absent values first, then by value, later keys breaking ties)", async () => {
    const r = rng(8);
    const db = new Datastore({ inMemoryOnly: true });
    const docs = Array.from({ length: 120 }, (_, i) => ({ _id: i + 1, ...(r.next() < 0.9 ? { date: `2030-01-0${1 + r.int(5)} 10:00:00` } : {}), n: r.int(4) }));
    await db.insertAsync(docs);
    for (const sort of [{ date: -1, _id: -1 }, { date: 1, _id: 1 }, { n: 1, date: -1, _id: 1 }] as Array<Record<string, 1 | -1>>) {
      const expected = ((await db.findAsync({}).sort(sort)) as Array<{ _id: number }>).map(d => d._id);
      expect([...docs].sort(sortOrder(sort)).map(d => d._id)).toEqual(expected);
    }
  });
});
