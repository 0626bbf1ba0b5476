import { ancestorIds, ancestorSlugs, loadAncestors, withDescendants } from "../../lib/terms/term-tree";

interface Node { _id: number; parent: number; slug: string }

// 1 music > 2 rock > 3 punk ; 4 jazz ; 5 > 6 > 5 is a (corrupt) cycle
const NODES: Node[] = [
  { _id: 1, parent: 0, slug: "music" }, { _id: 2, parent: 1, slug: "rock" }, { _id: 3, parent: 2, slug: "punk" },
  { _id: 4, parent: 0, slug: "jazz" }, { _id: 5, parent: 6, slug: "five" }, { _id: 6, parent: 5, slug: "six" }
];

function lookups() {
  const calls: number[][] = [];
  return {
    calls,
    byIds: async (ids: number[]) => { calls.push(ids); return NODES.filter(n => ids.includes(n._id)); },
    children: async (parents: number[]) => { calls.push(parents); return NODES.filter(n => parents.includes(n.parent)); }
  };
}

describe("loadAncestors", () => {
  it("loads every ancestor with one lookup per level", async () => {
    const l = lookups();
    const byId = await loadAncestors([NODES[2], NODES[3]], l.byIds);
    expect([...byId.keys()].sort()).toEqual([1, 2, 3, 4]);
    expect(l.calls).toEqual([[2], [1]]);
    expect(ancestorIds(NODES[2], byId)).toEqual([2, 1]);
    expect(ancestorSlugs(NODES[2], byId)).toEqual(["music", "rock"]);
    expect(ancestorSlugs(NODES[3], byId)).toEqual([]);
  });
  it("does not loop on a cycle", async () => {
    const l = lookups();
    const byId = await loadAncestors([NODES[4]], l.byIds);
    expect(ancestorIds(NODES[4], byId)).toEqual([6]);
    expect(l.calls.length).toBe(1);
  });
  it("stops at a missing parent", async () => {
    const byId = await loadAncestors([{ _id: 9, parent: 99, slug: "orphan" }], lookups().byIds);
    expect(ancestorSlugs({ _id: 9, parent: 99 }, byId)).toEqual([]);
  });
});

describe("withDescendants", () => {
  it("adds every descendant, level by level", async () => {
    const l = lookups();
    expect((await withDescendants([1], l.children)).sort()).toEqual([1, 2, 3]);
    expect(l.calls).toEqual([[1], [2], [3]]);
  });
  it("is cycle-safe and keeps the roots", async () => {
    expect((await withDescendants([5, 4], lookups().children)).sort()).toEqual([4, 5, 6]);
    expect(await withDescendants([], lookups().children)).toEqual([]);
  });
});
