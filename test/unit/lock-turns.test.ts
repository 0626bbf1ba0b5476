/**
 * This process's side of the store's lock (store/lock-turns.ts), which is the whole lock of the MongoDB
 * store: holders of one key take turns in the order they asked, a holder asking again for its key runs at
 * once, and work a holder started that asks after the holder let go waits like any other.
 */
import { lockTurns } from "../../store/lock-turns";

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

describe("the store lock's turns within one process", () => {
  test("holders of one key run one at a time, in the order they asked; other keys do not wait", async () => {
    const turns = lockTurns();
    const order: string[] = [];
    let inside = 0;
    let most = 0;
    const work = (name: string) => async () => {
      inside++;
      most = Math.max(most, inside);
      order.push(name);
      await sleep(5);
      inside--;
    };
    const other = turns.hold(2, async () => order.push("other key"));
    await Promise.all([0, 1, 2, 3].map(i => turns.hold(1, work(`holder ${i}`))));
    await other;
    expect(most).toBe(1);
    expect(order.filter(o => o.startsWith("holder"))).toEqual(["holder 0", "holder 1", "holder 2", "holder 3"]);
    expect(order.indexOf("other key")).toBeLessThan(order.indexOf("holder 1"));
  });

  test("a holder asking for its own key again runs at once; `across` is taken once, around the outer call", async () => {
    const turns = lockTurns();
    let taken = 0;
    const across = <T>(fn: () => Promise<T>) => { taken++; return fn(); };
    await expect(turns.hold(1, () => turns.hold(1, async () => "again", across), across)).resolves.toBe("again");
    expect(taken).toBe(1);
  });

  test("work a holder started that asks after the holder let go takes its turn", async () => {
    const turns = lockTurns();
    let inside = 0;
    let most = 0;
    const work = async () => {
      inside++;
      most = Math.max(most, inside);
      await sleep(30);
      inside--;
    };
    let late: Promise<void> | undefined;
    await turns.hold(1, async () => {
      late = sleep(10).then(() => turns.hold(1, work));
    });
    await Promise.all([turns.hold(1, work), late]);
    expect(most).toBe(1);
  });
});
