/**
 * A value computed across a clean of its key is not kept (lib/cache/clean-mark.ts): the in-process cacher
 * counts its cleans and remembers their patterns, and a mark taken before a read says whether one since
 * covered the key.
 */
import { ServiceBroker } from "moleculer";
import { BoundedMemoryCacher } from "../../lib/cache/bounded-cacher";
import { cleanMark, mayKeep } from "../../lib/cache/clean-mark";

describe("the clean mark", () => {
  let broker: ServiceBroker;
  let cacher: BoundedMemoryCacher;
  beforeEach(async () => {
    cacher = new BoundedMemoryCacher({ ttl: 60, maxBytes: 100_000, maxEntries: 100 });
    broker = new ServiceBroker({ logger: false, cacher });
    await broker.start();
  });
  afterEach(() => broker.stop());

  test("a value may be kept unless a clean since the mark matched its key", async () => {
    const mark = cleanMark(cacher);
    expect(mark).toBe(cacher.cleans());
    expect(mayKeep(cacher, mark, "RESP:1:E12:x")).toBe(true);
    await cacher.clean(["RESP:1:S:**", "RESP:1:E7:**", "RESP:1:B:**,7,**"]); // event 7 written
    expect(mayKeep(cacher, mark, "RESP:1:E12:x")).toBe(true);
    expect(mayKeep(cacher, mark, "RESP:1:B:h:40:,3,12,")).toBe(true);
    expect(mayKeep(cacher, mark, "RESP:1:E7:x")).toBe(false);
    expect(mayKeep(cacher, mark, "RESP:1:B:h:40:,3,7,9,")).toBe(false);
    expect(mayKeep(cacher, mark, "RESP:1:S:x")).toBe(false);
    await cacher.clean("RESP:1:**"); // the whole site
    expect(mayKeep(cacher, mark, "RESP:1:E12:x")).toBe(false);
    expect(mayKeep(cacher, mark, "RESP:2:E12:x")).toBe(true);
    // a mark taken after the cleans sees none of them
    expect(mayKeep(cacher, cleanMark(cacher), "RESP:1:E7:x")).toBe(true);
  });

  test("a mark older than the cleans remembered counts as cleaned", async () => {
    const mark = cleanMark(cacher);
    for (let i = 0; i < 300; i++) await cacher.clean(`RESP:9:E${i}:**`);
    expect(mayKeep(cacher, mark, "RESP:1:E1:x")).toBe(false);
    const recent = cleanMark(cacher);
    await cacher.clean("RESP:9:E1:**");
    expect(mayKeep(cacher, recent, "RESP:1:E1:x")).toBe(true);
  });

  test("every clean counts, deletes of single keys do not", async () => {
    const before = cacher.cleans();
    await cacher.clean(["a:**", "b:**"]);
    await cacher.clean();
    await cacher.del("c");
    expect(cacher.cleans()).toBe(before + 2);
  });

  test("a cacher that keeps no count (Redis) gives no mark, and everything may be kept", () => {
    expect(cleanMark({ get: () => null })).toBeUndefined();
    expect(cleanMark(null)).toBeUndefined();
    expect(mayKeep({ get: () => null }, undefined, "k")).toBe(true);
    const counting = { cleans: () => 3, cleanedSince: (mark: number) => mark < 3 };
    expect(mayKeep(counting, 3, "k")).toBe(true);
    expect(mayKeep(counting, 2, "k")).toBe(false);
  });
});
