import { KeyedQueue, SlugHolds } from "../../lib/posts/write-order";

const tick = () => new Promise(r => setTimeout(r, 1));

describe("write order (lib/posts/write-order.ts)", () => {
  test("runs of one key never overlap; other keys run alongside; a failure does not stop the queue", async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const job = (key: string, name: string, fail = false) => q.run(key, async () => {
      log.push(`${name}+`);
      await tick();
      log.push(`${name}-`);
      if (fail) throw new Error(name);
      return name;
    });
    const results = await Promise.allSettled([job("a", "a1"), job("a", "a2", true), job("b", "b1"), job("a", "a3")]);
    expect(results.map(r => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    const a = log.filter(l => l.startsWith("a"));
    expect(a).toEqual(["a1+", "a1-", "a2+", "a2-", "a3+", "a3-"]);
    expect(log.indexOf("b1+")).toBeLessThan(log.indexOf("a1-"));
    expect(q.size).toBe(0);
  });

  test("parallel holds of one base get different slugs; a released slug is free again", async () => {
    const stored = new Set(["party"]);
    const holds = new SlugHolds();
    const taken = async (s: string) => { await tick(); return stored.has(s); };
    const got = await Promise.all(Array.from({ length: 5 }, () => holds.hold("party", taken)));
    expect(got.map(h => h.slug).sort()).toEqual(["party-2", "party-3", "party-4", "party-5", "party-6"]);
    got.forEach(h => h.release());
    expect(holds.size).toBe(0);
    expect((await holds.hold("party", taken)).slug).toBe("party-2");
    const feed = await holds.hold("feed", async () => false);
    expect(feed.slug).toBe("feed-2");
  });
});
