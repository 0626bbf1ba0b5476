/** lib/imports/batch-reads.ts: what the writes of one batch read once. */
import { batchReadsOf, readOnce, type BatchReads } from "../../lib/imports/batch-reads";

describe("reads shared by a batch's writes", () => {
  test("a key is read once for the batch, each key on its own", async () => {
    const reads: BatchReads = new Map();
    let n = 0;
    const read = async () => ++n;
    expect(await Promise.all([readOnce(reads, "a", read), readOnce(reads, "a", read), readOnce(reads, "b", read)])).toEqual([1, 1, 2]);
    expect(await readOnce(reads, "a", read)).toBe(1);
    expect(n).toBe(2);
  });

  test("without a batch every call reads", async () => {
    let n = 0;
    await readOnce(undefined, "a", async () => ++n);
    await readOnce(undefined, "a", async () => ++n);
    expect(n).toBe(2);
  });

  test("a failed read is not kept: the next write reads again", async () => {
    const reads: BatchReads = new Map();
    await expect(readOnce(reads, "a", async () => { throw new Error("no"); })).rejects.toThrow("no");
    expect(await readOnce(reads, "a", async () => 7)).toBe(7);
  });

  test("only a map on the call's meta is a batch's reads (a call from another node carries a plain object)", () => {
    const reads: BatchReads = new Map();
    expect(batchReadsOf({ batchReads: reads })).toBe(reads);
    expect(batchReadsOf({ batchReads: {} })).toBeUndefined();
    expect(batchReadsOf(undefined)).toBeUndefined();
  });
});
