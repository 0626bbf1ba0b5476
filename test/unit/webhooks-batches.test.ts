/**
 * The pure parts of the delivery loop (docs/webhooks.md#how-deliveries-are-made): results recorded in
 * batches as a group commit does (lib/webhooks/batches.ts), and the node's room shared out between
 * endpoints (lib/webhooks/rooms.ts).
 */
import { Batches } from "../../lib/webhooks/batches";
import { shareRoom } from "../../lib/webhooks/rooms";

describe("batches", () => {
  test("the first item is written alone at once; those arriving meanwhile go together next, each answered with its own result", async () => {
    const writes: number[][] = [];
    let open: () => void = () => undefined;
    const batches = new Batches<number, string>(async items => {
      writes.push(items);
      if (writes.length === 1) await new Promise<void>(resolve => { open = resolve; });
      return items.map(i => `r${i}`);
    }, 3);
    const first = batches.add(1);
    const later = [2, 3, 4, 5].map(i => batches.add(i));
    expect(writes).toEqual([[1]]);
    expect(batches.size).toBe(4);
    open();
    expect(await first).toBe("r1");
    expect(await Promise.all(later)).toEqual(["r2", "r3", "r4", "r5"]);
    expect(writes).toEqual([[1], [2, 3, 4], [5]]);
  });

  test("a failed write fails its batch's items only", async () => {
    let n = 0;
    const batches = new Batches<number, number>(async items => {
      if (n++ === 0) throw new Error("store down");
      return items;
    });
    const a = batches.add(1);
    const b = batches.add(2);
    await expect(a).rejects.toThrow("store down");
    expect(await b).toBe(2);
  });
});

describe("room shared between endpoints", () => {
  test("each endpoint its own room, within the node's, from the turn's endpoint round the list", () => {
    expect(shareRoom([4, 4, 4], 32, 0)).toEqual({ rooms: [4, 4, 4], unserved: false });
    expect(shareRoom([4, 4, 4], 6, 0)).toEqual({ rooms: [4, 2, 0], unserved: true });
    expect(shareRoom([4, 4, 4], 6, 2)).toEqual({ rooms: [2, 0, 4], unserved: true });
    expect(shareRoom([0, -1, 3], 2, 0)).toEqual({ rooms: [0, 0, 2], unserved: true });
    expect(shareRoom([4], 0, 0)).toEqual({ rooms: [0], unserved: true });
    expect(shareRoom([], 5, 0)).toEqual({ rooms: [], unserved: false });
  });
});
