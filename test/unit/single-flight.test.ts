/**
 * cache/single-flight.ts and its use by the action cache (cache/clean-mark.ts `keptOrComputed`):
 * reads of one key that miss while it is computed wait for that computation and take its value only when
 * it was kept; otherwise they compute again, together.
 */
import { Flights, MAX_WAITS } from "../../cache/single-flight";
import { keptOrComputed, type CleanLog } from "../../cache/clean-mark";

/** A promise and the function that settles it. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>(r => (resolve = r));
  return { promise, resolve };
}

describe("Flights", () => {
  test("reads arriving while a key is computed share that computation when its value was kept", async () => {
    const flights = new Flights<string>();
    const gate = deferred<void>();
    let computed = 0;
    const compute = async () => {
      computed += 1;
      await gate.promise;
      return { value: `v${computed}`, kept: true };
    };
    const reads = Array.from({ length: 32 }, () => flights.run("k", compute));
    expect(flights.size).toBe(1);
    gate.resolve();
    expect(await Promise.all(reads)).toEqual(Array(32).fill("v1"));
    expect(computed).toBe(1);
    expect(flights.size).toBe(0);
  });

  test("other keys are computed apart", async () => {
    const flights = new Flights<string>();
    let computed = 0;
    const compute = (v: string) => async () => {
      computed += 1;
      return { value: v, kept: true };
    };
    expect(await Promise.all([flights.run("a", compute("A")), flights.run("b", compute("B"))])).toEqual(["A", "B"]);
    expect(computed).toBe(2);
  });

  test("a value that was not kept (a write crossed it) is not handed to the reads that waited: they compute again, once", async () => {
    const flights = new Flights<string>();
    const first = deferred<void>();
    let computed = 0;
    const compute = async () => {
      computed += 1;
      const n = computed;
      if (n === 1) await first.promise;
      return { value: `v${n}`, kept: n > 1 };
    };
    const leader = flights.run("k", compute);
    const waiting = Array.from({ length: 8 }, () => flights.run("k", compute));
    first.resolve();
    // the first computation's own caller still gets its value (it was right when its read began)
    expect(await leader).toBe("v1");
    expect(await Promise.all(waiting)).toEqual(Array(8).fill("v2"));
    expect(computed).toBe(2);
  });

  test("a read waits on at most MAX_WAITS computations that keep nothing, then computes alone", async () => {
    const flights = new Flights<string>();
    let computed = 0;
    const never = async () => {
      computed += 1;
      await new Promise(r => setTimeout(r, 5));
      return { value: `v${computed}`, kept: false };
    };
    const reads = Array.from({ length: 4 }, () => flights.run("k", never));
    const values = await Promise.all(reads);
    expect(values.every(v => /^v\d+$/.test(v))).toBe(true);
    expect(computed).toBeLessThanOrEqual(1 + MAX_WAITS * 3);
  });

  test("a computation that fails ends its flight: the next read computes", async () => {
    const flights = new Flights<string>();
    await expect(flights.run("k", async () => { throw new Error("store down"); })).rejects.toThrow("store down");
    expect(flights.size).toBe(0);
    expect(await flights.run("k", async () => ({ value: "ok", kept: true }))).toBe("ok");
  });
});

describe("keptOrComputed (the action cache)", () => {
  /** A cacher with a clean log: `cleanNow()` covers every key (as a write's clean would). */
  function memoryCacher() {
    const kept = new Map<string, unknown>();
    let cleans = 0;
    const log: CleanLog = {
      mark: () => cleans,
      keepIfClean: async (mark, key, value) => {
        if (mark !== cleans) return false;
        kept.set(key, value);
        return true;
      }
    };
    const cacher = {
      get: async (key: string) => kept.get(key) ?? null,
      set: async (key: string, value: unknown) => void kept.set(key, value)
    };
    return { cacher, log, cleanNow: () => { cleans += 1; kept.clear(); } };
  }

  test("32 concurrent misses of one key compute it once", async () => {
    const { cacher, log } = memoryCacher();
    const gate = deferred<void>();
    let computed = 0;
    const compute = async () => {
      computed += 1;
      await gate.promise;
      return { page: computed };
    };
    const reads = Array.from({ length: 32 }, () => keptOrComputed(cacher, log, "RESP:1:L:x", compute));
    await new Promise(r => setImmediate(r));
    gate.resolve();
    const values = await Promise.all(reads);
    expect(computed).toBe(1);
    expect(values.every(v => v.page === 1)).toBe(true);
  });

  test("reads that arrive after a write's clean never take a value computed before it", async () => {
    const { cacher, log, cleanNow } = memoryCacher();
    const gate = deferred<void>();
    let version = 0;
    const compute = async () => {
      const seen = version;
      await gate.promise;
      return { version: seen };
    };
    const before = keptOrComputed(cacher, log, "k", compute);
    await new Promise(r => setImmediate(r));
    // a write commits and cleans while the first read computes; reads after it must see it
    version = 1;
    cleanNow();
    const after = Array.from({ length: 8 }, () => keptOrComputed(cacher, log, "k", compute));
    await new Promise(r => setImmediate(r));
    gate.resolve();
    expect((await before).version).toBe(0);
    for (const v of await Promise.all(after)) expect(v.version).toBe(1);
  });
});
