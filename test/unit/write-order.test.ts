import { SlugHolds } from "../../lib/posts/write-order";
import { KeyedQueue } from "../../lib/async/queue";
import { RESERVED_SLUGS } from "../../lib/text/slug";

/** The slug one hold gets with nothing else held. */
const uniqueSlug = async (base: string, taken: (c: string) => boolean | Promise<boolean>) => (await new SlugHolds().hold(base, async c => taken(c))).slug;

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

  test("settled(key) waits for everything queued under that key so far, failures included, and never rejects", async () => {
    const q = new KeyedQueue();
    const done: string[] = [];
    void q.run("k", async () => { await tick(); done.push("one"); });
    q.run("k", async () => { await tick(); done.push("two"); throw new Error("two"); }).catch(() => undefined);
    void q.run("other", async () => { await tick(); await tick(); await tick(); done.push("other"); });
    await expect(q.settled("k")).resolves.toBeUndefined();
    expect(done).toEqual(["one", "two"]);
    await expect(q.settled("nothing queued")).resolves.toBeUndefined();
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

  test("a candidate another write is checking is skipped at once; a store error releases the candidate", async () => {
    const holds = new SlugHolds();
    const asked: string[] = [];
    const taken = async (s: string) => { asked.push(s); await tick(); return s === "gig"; };
    const got = await Promise.all(Array.from({ length: 4 }, () => holds.hold("gig", taken)));
    expect(got.map(h => h.slug).sort()).toEqual(["gig-2", "gig-3", "gig-4", "gig-5"]);
    // each candidate asked of the store once: none is checked twice by racing writes
    expect(asked.filter(s => s !== "gig").sort()).toEqual(["gig-2", "gig-3", "gig-4", "gig-5"]);
    got.forEach(h => h.release());
    await expect(holds.hold("broken", async () => { throw new Error("store down"); })).rejects.toThrow("store down");
    expect(holds.size).toBe(0);
    expect((await holds.hold("", async () => true)).slug).toBe("");
  });
});

describe("a slug held alone: the first free of base, base-2, base-3 …", () => {
  it("returns the base when free", async () => {
    await expect(uniqueSlug("jazz", () => false)).resolves.toBe("jazz");
  });

  it("appends -2, -3 … until free", async () => {
    const taken = new Set(["jazz", "jazz-2", "jazz-3"]);
    await expect(uniqueSlug("jazz", (c) => taken.has(c))).resolves.toBe("jazz-4");
  });

  it("past ten, crosses a run of taken suffixes in growing steps and finds the first free one by halves", async () => {
    const asked: string[] = [];
    const taken = (upTo: number) => (c: string) => { asked.push(c); const n = Number(c.split("-")[1] ?? 1); return n <= upTo; };
    await expect(uniqueSlug("jazz", taken(300))).resolves.toBe("jazz-301");
    expect(asked.length).toBeLessThan(40); // one by one: 301
    for (const upTo of [9, 10, 11, 12, 13, 16, 17, 40, 41]) {
      await expect(uniqueSlug("jazz", taken(upTo))).resolves.toBe(`jazz-${upTo + 1}`);
    }
  });

  it("while holds of one base are out, a later one starts past the highest suffix handed out beyond ten", async () => {
    const holds = new SlugHolds();
    const stored = new Set(["gig", ...Array.from({ length: 20 }, (_, i) => `gig-${i + 2}`)]);
    const first = await holds.hold("gig", async c => stored.has(c));
    expect(first.slug).toBe("gig-22");
    // another node took 23 … 200 meanwhile
    for (let n = 23; n <= 200; n++) stored.add(`gig-${n}`);
    const asked: string[] = [];
    const next = await holds.hold("gig", async c => { asked.push(c); return stored.has(c); });
    expect(next.slug).toBe("gig-201");
    expect(asked.length).toBeLessThan(20); // from the start: 25
    first.release();
    next.release();
  });

  it("once the holds of a base are released, the next starts again from the store's slugs: a freed suffix is taken", async () => {
    const holds = new SlugHolds();
    const stored = new Set(["gig", ...Array.from({ length: 20 }, (_, i) => `gig-${i + 2}`)]);
    const first = await holds.hold("gig", async c => stored.has(c));
    expect(first.slug).toBe("gig-22");
    stored.add("gig-22");
    first.release();
    first.release(); // twice is once
    stored.delete("gig-3"); // trashed: its slug given up
    const next = await holds.hold("gig", async c => stored.has(c));
    // what a fresh process (another node) answers for the same store
    expect(next.slug).toBe("gig-3");
    expect(next.slug).toBe((await new SlugHolds().hold("gig", async c => stored.has(c))).slug);
  });

  it("accepts an async predicate", async () => {
    const taken = new Set(["jazz"]);
    await expect(uniqueSlug("jazz", async (c) => taken.has(c))).resolves.toBe("jazz-2");
  });

  it("never uses a reserved word bare", async () => {
    expect(RESERVED_SLUGS).toEqual(["feed", "rdf", "rss", "rss2", "atom", "embed"]);
    for (const word of RESERVED_SLUGS) {
      await expect(uniqueSlug(word, () => false)).resolves.toBe(`${word}-2`);
    }
    const taken = new Set(["feed-2"]);
    await expect(uniqueSlug("feed", (c) => taken.has(c))).resolves.toBe("feed-3");
  });

  it("does not treat words containing a reserved word as reserved", async () => {
    await expect(uniqueSlug("feeds", () => false)).resolves.toBe("feeds");
    await expect(uniqueSlug("rss-feed", () => false)).resolves.toBe("rss-feed");
  });

  it("keeps an empty base empty", async () => {
    await expect(uniqueSlug("", () => true)).resolves.toBe("");
  });
});
