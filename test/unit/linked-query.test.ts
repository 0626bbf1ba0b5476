import { memoryCollection, TestCollection } from "../helpers/memory-store";
import { allOf, escapeRegex, idCondition, searchFragments, searchQuery, statusCondition } from "../../lib/linked/query";
import type { Json } from "../helpers/json";

describe("searchFragments (docs/lists.md#venue-and-organizer-filters)", () => {
  test.each([
    ["temple avenue", ["temple", "avenue"]],
    ["@common.com", ["common", "com"]],
    ["  Via Roma, 1 ", ["Via", "Roma", "1"]],
    ["jean-luc", ["jean-luc"]],
    ["Café", ["Caf"]],
    ["(.*", ["(.*"]],
    ["   ", []]
  ])("%j → %j", (input, expected) => {
    expect(searchFragments(input)).toEqual(expected);
  });
});

test("escapeRegex makes every regex character literal", () => {
  const s = "a.b*c+d?e^f$g{h}i(j)k|l[m]n\\o/p-q";
  expect(new RegExp(escapeRegex(s)).test(s)).toBe(true);
  expect(new RegExp(`^${escapeRegex(".*")}$`).test("ab")).toBe(false);
});

describe("queries against the embedded store", () => {
  let db: TestCollection;
  const now = "2025-06-01 12:00:00";
  beforeAll(async () => {
    db = await memoryCollection("venues");
    await db.insertAsync([
      { _id: 1, status: "publish", name: "Temple hall", address: "100, Avenue du Temple", city: "Paris", date_utc: "2025-01-01 00:00:00" },
      { _id: 2, status: "publish", name: "Other", address: "Temple street", city: "Avenue town", date_utc: "2025-01-01 00:00:00" },
      { _id: 3, status: "draft", name: "Secret avenue temple", description: "x", post_password: "pw", date_utc: "2025-01-01 00:00:00" },
      { _id: 4, status: "publish", name: "Locked", description: "temple avenue", post_password: "pw", date_utc: "2025-01-01 00:00:00" },
      { _id: 5, status: "future", name: "Past future", date_utc: "2025-05-01 00:00:00" },
      { _id: 6, status: "future", name: "Real future", date_utc: "2025-07-01 00:00:00" }
    ]);
  });
  const ids = async (q: Record<string, unknown>) => (await db.findAsync(q)).map((d: Json) => d._id).sort();
  const fields = ["name", "description", "address", "city"];
  const guarded = ["description", "address", "city"];

  test("a record matches when ONE field holds every fragment", async () => {
    expect(await ids(searchQuery("temple avenue", fields, guarded, false))).toEqual([1, 3]);
    expect(await ids(searchQuery("TEMPLE", fields, guarded, false))).toEqual([1, 2, 3]);
  });

  test("D34: protected records match only through unguarded fields, unless unrestricted", async () => {
    expect(await ids(searchQuery("temple avenue", fields, guarded, true))).toEqual([1, 3, 4]);
  });

  test("regex characters are literal", async () => {
    expect(await ids(searchQuery(".*", fields, guarded, false))).toEqual([]);
  });

  test("statusCondition applies C13: a passed future counts as publish", async () => {
    expect(await ids(statusCondition(["publish"], now))).toEqual([1, 2, 4, 5]);
    expect(await ids(statusCondition(["future"], now))).toEqual([6]);
    expect(await ids(statusCondition(["future", "publish"], now))).toEqual([1, 2, 4, 5, 6]);
    expect(await ids(statusCondition(["draft", "future"], now))).toEqual([3, 6]);
  });

  test("idCondition intersects the include sets and drops the exclude set", async () => {
    expect(idCondition([])).toBeUndefined();
    expect(await ids(idCondition([[1, 2, 3], [2, 3, 4]], [3])!)).toEqual([2]);
    expect(await ids(idCondition([], [1, 2])!)).toEqual([3, 4, 5, 6]);
    expect(await ids(idCondition([[]])!)).toEqual([]);
  });

  test("allOf combines conditions with $and", async () => {
    expect(allOf([])).toEqual({});
    expect(allOf([{ a: 1 }, undefined])).toEqual({ a: 1 });
    expect(await ids(allOf([statusCondition(["publish"], now), idCondition([[1, 3, 5]]), searchQuery("temple", fields, guarded, false)]))).toEqual([1]);
  });
});
