/**
 * lib/documents/kept-totals.ts: a total is answered again only while the store's mark reads what it was counted
 * under; one count runs per stale total at a time, and a request never takes the answer of a count that
 * began before a write it saw.
 */
import { KeptTotals, MarkedTotal, queryKey } from "../../lib/documents/kept-totals";

/** A store stand-in: `rows` counted, `mark` moved on by each write. */
function fakeStore() {
  const s = { rows: 10, mark: 1, counts: 0, gate: undefined as Promise<void> | undefined };
  return {
    s,
    write(n = 1) { s.rows += n; s.mark++; },
    mark: async () => s.mark,
    count: async (): Promise<MarkedTotal> => {
      s.counts++;
      // the count's snapshot is taken when it starts; it may answer later
      const snapshot = { total: s.rows, mark: s.mark };
      if (s.gate) await s.gate;
      return snapshot;
    }
  };
}

describe("kept totals", () => {
  test("kept while the mark reads the same, counted again once it moved", async () => {
    const kept = new KeptTotals(8);
    const f = fakeStore();
    expect(await kept.total("q", f.mark, f.count)).toBe(10);
    expect(await kept.total("q", f.mark, f.count)).toBe(10);
    expect(f.s.counts).toBe(1);
    f.write(3);
    expect(await kept.total("q", f.mark, f.count)).toBe(13);
    expect(f.s.counts).toBe(2);
  });

  test("32 requests for one stale total run one count", async () => {
    const kept = new KeptTotals(8);
    const f = fakeStore();
    let open!: () => void;
    f.s.gate = new Promise(resolve => { open = resolve; });
    const answers = Array.from({ length: 32 }, () => kept.total("q", f.mark, f.count));
    await new Promise(resolve => setImmediate(resolve));
    open();
    expect(await Promise.all(answers)).toEqual(Array(32).fill(10));
    expect(f.s.counts).toBe(1);
  });

  test("a request that saw a write does not take the answer of a count begun before it", async () => {
    const kept = new KeptTotals(8);
    const f = fakeStore();
    let open!: () => void;
    f.s.gate = new Promise(resolve => { open = resolve; });
    const early = kept.total("q", f.mark, f.count);
    await new Promise(resolve => setImmediate(resolve));
    f.write(5);
    f.s.gate = undefined;
    const late = kept.total("q", f.mark, f.count);
    open();
    expect(await early).toBe(10);
    expect(await late).toBe(15);
    expect(f.s.counts).toBe(2);
    // the newer total is the one kept
    expect(await kept.total("q", f.mark, f.count)).toBe(15);
    expect(f.s.counts).toBe(2);
  });

  test("a total counted without a mark (a store that could not read one) is answered but never kept", async () => {
    const kept = new KeptTotals(8);
    let counts = 0;
    const count = async (): Promise<MarkedTotal> => { counts++; return { total: 4 }; };
    expect(await kept.total("q", async () => 1, count)).toBe(4);
    expect(await kept.total("q", async () => 1, count)).toBe(4);
    expect(counts).toBe(2);
    expect(kept.keptCount).toBe(0);
  });

  test("a count that fails fails its requests and keeps nothing", async () => {
    const kept = new KeptTotals(8);
    const failing = async (): Promise<MarkedTotal> => { throw new Error("store down"); };
    await expect(kept.total("q", async () => 1, failing)).rejects.toThrow("store down");
    expect(await kept.total("q", async () => 1, async () => ({ total: 2, mark: 1 }))).toBe(2);
  });

  test("at most `size` totals are kept, the least recently used dropped first", async () => {
    const kept = new KeptTotals(2);
    const at = (n: number) => async (): Promise<MarkedTotal> => ({ total: n, mark: 1 });
    const one = async () => 1;
    await kept.total("a", one, at(1));
    await kept.total("b", one, at(2));
    await kept.total("a", one, at(99));
    await kept.total("c", one, at(3));
    expect(kept.keptCount).toBe(2);
    // "b" was the least recently used: counted again; "a" still kept
    expect(await kept.total("a", one, at(100))).toBe(1);
    expect(await kept.total("b", one, at(20))).toBe(20);
  });

  test("query keys tell regular expressions apart", () => {
    expect(queryKey({ title: /jazz/i })).not.toBe(queryKey({ title: /rock/i }));
    expect(queryKey({ title: /jazz/i })).not.toBe(queryKey({ title: /jazz/ }));
    expect(queryKey({ a: 1, b: [2] })).toBe(queryKey({ a: 1, b: [2] }));
  });
});
