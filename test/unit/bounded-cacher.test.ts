/**
 * The in-process cacher (cache/bounded-cacher.ts): bounded by kept bytes and entries, least recently
 * read out first, a time to live that reads never extend, and the cachers' patterns when cleaning.
 */
import { ServiceBroker, Utils } from "moleculer";
import { BoundedMemoryCacher } from "../../cache/bounded-cacher";

async function started(opts: { ttl?: number; maxBytes?: number; maxEntries?: number }) {
  const cacher = new BoundedMemoryCacher({ ttl: opts.ttl ?? 60, maxBytes: opts.maxBytes ?? 1_000_000, maxEntries: opts.maxEntries ?? 1000 });
  const broker = new ServiceBroker({ logger: false, cacher });
  await broker.start();
  return { cacher, broker };
}

describe("the bounded in-process cacher", () => {
  test("keeps what it is given until the bytes run out, then drops the least recently read", async () => {
    const { cacher, broker } = await started({ maxBytes: 3 * (1000 + 64 + 2) + 10 });
    const value = (c: string) => c.repeat(1000);
    await cacher.set("a", value("a"));
    await cacher.set("b", value("b"));
    await cacher.set("c", value("c"));
    expect(await cacher.get("a")).toBe(value("a")); // a is now the most recent read
    await cacher.set("d", value("d"));
    expect(await cacher.get("b")).toBeUndefined();
    for (const k of ["a", "c", "d"]) expect(await cacher.get(k)).toBe(value(k));
    expect(cacher.usage().entries).toBe(3);
    expect(cacher.usage().bytes).toBeLessThanOrEqual(3 * 1066 + 10);
    await broker.stop();
  });

  test("holds at most maxEntries; a value larger than the whole budget is not kept", async () => {
    const { cacher, broker } = await started({ maxEntries: 5, maxBytes: 500 });
    for (let i = 0; i < 20; i++) await cacher.set(`k${i}`, { i });
    expect(cacher.usage().entries).toBe(5);
    expect(await cacher.get("k19")).toEqual({ i: 19 });
    expect(await cacher.get("k0")).toBeUndefined();
    await cacher.set("huge", "x".repeat(1000));
    expect(await cacher.get("huge")).toBeUndefined();
    await broker.stop();
  });

  test("an entry's time to live counts from when it was kept; reads do not extend it", async () => {
    const { cacher, broker } = await started({ ttl: 0.15 });
    await cacher.set("t", { v: 1 });
    await new Promise(r => setTimeout(r, 80));
    expect(await cacher.get("t")).toEqual({ v: 1 });
    await new Promise(r => setTimeout(r, 100));
    expect(await cacher.get("t")).toBeUndefined();
    expect(cacher.usage()).toEqual({ bytes: 0, entries: 0 });
    await broker.stop();
  });

  test("cleans by the cachers' patterns and deletes by key", async () => {
    const { cacher, broker } = await started({});
    for (const k of ["RESP:1:S:x", "RESP:1:E5:y", "RESP:1:E55:y", "ACT:1:E5:events:z", "RESP:11:S:x"]) await cacher.set(k, k);
    await cacher.clean(["RESP:1:E5:**", "ACT:1:E5:**"]);
    expect((await cacher.getCacheKeys()).map(k => k.key).sort()).toEqual(["RESP:11:S:x", "RESP:1:E55:y", "RESP:1:S:x"]);
    await cacher.del("RESP:1:S:x");
    await cacher.clean("RESP:1:**");
    expect((await cacher.getCacheKeys()).map(k => k.key)).toEqual(["RESP:11:S:x"]);
    await cacher.clean();
    expect(cacher.usage().entries).toBe(0);
    await broker.stop();
  });

  test("a clean removes exactly the keys the framework's matcher matches, whichever groups they are in", async () => {
    // list bodies are also found by the ids they show; one whose other parts hold commas, or whose ids
    // cannot be read, by every clean of bodies
    const keys = ["RESP:1:S:a", "RESP:1:S:b", "RESP:1:E12:x", "RESP:1:E120:x", "RESP:1:E2:x", "RESP:1:L:p", "RESP:1:B:p:3:,12,4,",
      "RESP:1:B:p:3:,4,120,", "RESP:2:B:p:1:,12,", "RESP:1:B:p,12,q:3:,4,", "RESP:1:B:p:3:12", "RESP:1:B:p:0:,,", "ACT:1:S:events:h",
      "ACT:1:V3:venues:h", "ACT:10:S:x", "plain", "two:parts", "a.b"];
    const patterns = ["RESP:1:B:**,12,**", "RESP:1:B:**,4,**", "RESP:2:B:**,12,**", "RESP:1:E12:**", "RESP:1:E**", "RESP:1:**", "ACT:1:**", "**", "RESP:1:S:a", "pl**", "two:**",
      "RESP:*", "a.*", "RESP:1:L:**"];
    for (const pattern of patterns) {
      const { cacher, broker } = await started({});
      for (const k of keys) await cacher.set(k, k);
      await cacher.clean(pattern);
      const left = (await cacher.getCacheKeys()).map(k => k.key).sort();
      expect({ pattern, left }).toEqual({ pattern, left: keys.filter(k => !Utils.match(k, pattern)).sort() });
      expect(cacher.usage().entries).toBe(left.length);
      await broker.stop();
    }
  });

  test("serves a cached action through the broker's cache middleware", async () => {
    const { broker } = await started({});
    let runs = 0;
    broker.createService({ name: "probe", actions: { read: { cache: { keys: ["id"] }, handler: ctx => ({ id: ctx.params.id, runs: ++runs }) } } });
    await broker.waitForServices("probe");
    expect(await broker.call("probe.read", { id: 1 })).toEqual({ id: 1, runs: 1 });
    expect(await broker.call("probe.read", { id: 1 })).toEqual({ id: 1, runs: 1 });
    expect(await broker.call("probe.read", { id: 2 })).toEqual({ id: 2, runs: 2 });
    await broker.stop();
  });
});
