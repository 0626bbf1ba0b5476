import { boundedEach } from "../../lib/async/bounded-each";

const tick = (ms: number) => new Promise(r => setTimeout(r, ms));

describe("boundedEach", () => {
  test("runs every item, never more than `width` at once, starting them in order", async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const done = new Set<number>();
    await boundedEach([5, 1, 4, 2, 3, 1, 2, 5, 1, 1], 3, async (ms, i) => {
      started.push(i);
      running++;
      most = Math.max(most, running);
      await tick(ms);
      running--;
      done.add(i);
    });
    expect(most).toBe(3);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(done.size).toBe(10);
  });

  test("after a failure starts nothing new, lets the running ones settle, then throws the first failure", async () => {
    const settled: number[] = [];
    const started: number[] = [];
    const run = boundedEach([0, 1, 2, 3, 4, 5], 2, async (_x, i) => {
      started.push(i);
      await tick(i === 1 ? 1 : 10);
      if (i === 1) throw new Error("first");
      if (i === 2) throw new Error("second");
      settled.push(i);
    });
    await expect(run).rejects.toThrow("first");
    // 1 failed while 0 was still running: neither lane started 2
    expect(started).toEqual([0, 1]);
    expect(settled).toEqual([0]);
  });

  test("no items, and a width below one, are fine", async () => {
    await expect(boundedEach([], 4, async () => { throw new Error("never"); })).resolves.toBeUndefined();
    const seen: number[] = [];
    await boundedEach([1, 2, 3], 0, async x => { seen.push(x); });
    expect(seen).toEqual([1, 2, 3]);
  });
});
