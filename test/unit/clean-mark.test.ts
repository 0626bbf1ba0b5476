/**
 * A value computed across a clean of its key is not kept (cache/clean-mark.ts): the in-process cacher
 * is its own log of cleans, and any log checks and keeps in one step.
 */
import { ServiceBroker } from "moleculer";
import { BoundedMemoryCacher } from "../../cache/bounded-cacher";
import { cleanMark, keepUnlessCleaned, type CleanLog } from "../../cache/clean-mark";

describe("the in-process cacher as its log of cleans", () => {
  let broker: ServiceBroker;
  let cacher: BoundedMemoryCacher;
  beforeEach(async () => {
    cacher = new BoundedMemoryCacher({ ttl: 60, maxBytes: 100_000, maxEntries: 100 });
    broker = new ServiceBroker({ logger: false, cacher });
    await broker.start();
  });
  afterEach(() => broker.stop());

  test("a clean since the mark covers the keys its patterns match, no others", async () => {
    const mark = cacher.mark();
    expect(cacher.cleanedSince(mark, "RESP:1:E12:x")).toBe(false);
    await cacher.clean(["RESP:1:S:**", "RESP:1:E7:**", "RESP:1:B:**,7,**"]); // event 7 written
    expect(cacher.cleanedSince(mark, "RESP:1:E12:x")).toBe(false);
    expect(cacher.cleanedSince(mark, "RESP:1:B:h:40:,3,12,")).toBe(false);
    expect(cacher.cleanedSince(mark, "RESP:1:E7:x")).toBe(true);
    expect(cacher.cleanedSince(mark, "RESP:1:B:h:40:,3,7,9,")).toBe(true);
    expect(cacher.cleanedSince(mark, "RESP:1:S:x")).toBe(true);
    await cacher.clean("RESP:1:**"); // the whole site
    expect(cacher.cleanedSince(mark, "RESP:1:E12:x")).toBe(true);
    expect(cacher.cleanedSince(mark, "RESP:2:E12:x")).toBe(false);
    // a mark taken after the cleans sees none of them
    expect(cacher.cleanedSince(cacher.mark(), "RESP:1:E7:x")).toBe(false);
  });

  test("a mark older than the cleans remembered counts as cleaned; deletes of single keys are no cleans", async () => {
    const mark = cacher.mark();
    for (let i = 0; i < 300; i++) await cacher.clean(`RESP:9:E${i}:**`);
    expect(cacher.cleanedSince(mark, "RESP:1:E1:x")).toBe(true);
    const recent = cacher.mark();
    await cacher.clean("RESP:9:E1:**");
    await cacher.del("RESP:1:E1:x");
    expect(cacher.mark()).toBe(recent + 1);
    expect(cacher.cleanedSince(recent, "RESP:1:E1:x")).toBe(false);
  });

  test("keepUnlessCleaned keeps what no clean covered, and nothing that one did", async () => {
    const mark = await cleanMark(cacher);
    await cacher.clean("ACT:1:V7:**");
    expect(await keepUnlessCleaned(cacher, cacher, mark, "ACT:1:V8:x", "eight")).toBe(true);
    expect(await keepUnlessCleaned(cacher, cacher, mark, "ACT:1:V7:x", "seven")).toBe(false);
    expect(await cacher.get("ACT:1:V8:x")).toBe("eight");
    expect(await cacher.get("ACT:1:V7:x")).toBeUndefined();
  });
});

describe("keeping with any log", () => {
  /** A log whose answers the test sets, and a cacher that records what it was asked. */
  function fixture(cleaned: boolean | "unreadable") {
    const calls: string[] = [];
    const log: CleanLog = {
      mark: () => (cleaned === "unreadable" ? undefined : 5),
      keepIfClean: async (mark, key) => { calls.push(`keepIfClean ${mark} ${key}`); return cleaned === false; }
    };
    const cacher = { set: async (k: string) => { calls.push(`set ${k}`); } };
    return { log, cacher, calls };
  }

  test("the log checks and keeps in one step, from the reader's mark", async () => {
    const stale = fixture(true);
    expect(await keepUnlessCleaned(stale.cacher, stale.log, await cleanMark(stale.log), "k", 1)).toBe(false);
    expect(stale.calls).toEqual(["keepIfClean 5 k"]);
    const fresh = fixture(false);
    expect(await keepUnlessCleaned(fresh.cacher, fresh.log, await cleanMark(fresh.log), "k", 1)).toBe(true);
    expect(fresh.calls).toEqual(["keepIfClean 5 k"]);
  });

  test("a log that cannot be read keeps nothing; no log at all (no way to tell) keeps as before", async () => {
    const away = fixture("unreadable");
    const mark = await cleanMark(away.log);
    expect(mark).toBeUndefined();
    expect(await keepUnlessCleaned(away.cacher, away.log, mark, "k", 1)).toBe(false);
    expect(away.calls).toEqual([]);
    const none = fixture(false);
    expect(await keepUnlessCleaned(none.cacher, undefined, await cleanMark(undefined), "k", 1)).toBe(true);
    expect(none.calls).toEqual(["set k"]);
  });
});
