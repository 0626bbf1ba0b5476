/**
 * The shared Redis cacher (cache/redis-cacher.ts), against the local Redis (127.0.0.1:6379, keys under
 * prefixes of this run's own, deleted afterwards): values, cleans by group, its log of cleans and the keep
 * that no clean since a mark covered, checked and made in one step; and a read held across a write with
 * `CACHER=redis://…`, whose answer must not outlive the write (docs/caching.md#a-read-that-crosses-a-write).
 */
import Redis from "ioredis";
import { ServiceBroker, Utils } from "moleculer";
import { RedisCacher } from "../../cache/redis-cacher";
import { cleanMark, keepUnlessCleaned } from "../../cache/clean-mark";
import { startService, succeed, Running } from "../helpers/harness";
import { holdNext, holdNextOn, linkedOf } from "../helpers/hold";

const REDIS_URL = "redis://127.0.0.1:6379";

describe("the Redis cacher", () => {
  const run = `RCTEST-${process.pid}-${Date.now().toString(36)}`;
  const prefix = `MOL-${run}-`;
  const logPrefix = `CL-${run}:`;
  let redis: Redis;
  let broker: ServiceBroker;
  let cacher: RedisCacher;
  const allKeys = async () => [...await redis.keys(`${prefix}*`), ...await redis.keys(`${logPrefix}*`)];
  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    cacher = new RedisCacher({ url: REDIS_URL, prefix: `MOL-${run}`, logPrefix, ttl: 60 });
    broker = new ServiceBroker({ logger: false, cacher });
    await broker.start();
  });
  afterAll(async () => {
    await broker.stop();
    const keys = await allKeys();
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });
  beforeEach(async () => {
    const keys = await allKeys();
    if (keys.length) await redis.del(...keys);
  });

  test("keeps JSON under the prefix with the cache's time to live; a miss is undefined", async () => {
    await cacher.set("RESP:1:E7:h", { title: "Seven", n: [1, 2] });
    expect(await cacher.get("RESP:1:E7:h")).toEqual({ title: "Seven", n: [1, 2] });
    expect(JSON.parse((await redis.get(`${prefix}RESP:1:E7:h`))!)).toEqual({ title: "Seven", n: [1, 2] });
    const ttl = await redis.ttl(`${prefix}RESP:1:E7:h`);
    expect(ttl).toBeGreaterThan(50);
    expect(ttl).toBeLessThanOrEqual(60);
    expect(await cacher.get("RESP:1:E8:h")).toBeUndefined();
    await cacher.del("RESP:1:E7:h");
    expect(await cacher.get("RESP:1:E7:h")).toBeUndefined();
  });

  test("a clean deletes exactly the keys its patterns match, in the groups they reach, and counts itself", async () => {
    const keys = ["RESP:1:E7:a", "RESP:1:E7:b", "RESP:1:E12:a", "RESP:1:B:h:40:,3,7,9,", "RESP:1:B:h:40:,3,12,", "RESP:1:S:x", "RESP:2:E7:a", "ACT:1:V7:venues.embed:h",
      "RESP:1:B:h,7,x:40:,3,", "RESP:1:B:h,8,x:40:,3,"]; // the last two: bodies whose ids cannot be read from their keys
    for (const k of keys) await cacher.set(k, k);
    const mark = (await cacher.mark())!;
    await cacher.clean(["RESP:1:S:**", "RESP:1:E7:**", "RESP:1:B:**,7,**"]); // event 7 written
    expect(await cacher.mark()).toBe(mark + 1);
    const left = async () => (await Promise.all(keys.map(async k => ((await cacher.get(k)) === undefined ? undefined : k)))).filter(Boolean);
    expect(await left()).toEqual(["RESP:1:E12:a", "RESP:1:B:h:40:,3,12,", "RESP:2:E7:a", "ACT:1:V7:venues.embed:h", "RESP:1:B:h,8,x:40:,3,"]);
    await cacher.clean("RESP:1:**"); // the whole site's answers: every group under it
    expect(await left()).toEqual(["RESP:2:E7:a", "ACT:1:V7:venues.embed:h"]);
    await cacher.clean(); // everything
    expect(await left()).toEqual([]);
    expect(await cacher.mark()).toBe(mark + 3);
  });

  test("a clean deletes exactly the keys the framework's matcher matches, for every pattern the service cleans with", async () => {
    const keys = ["RESP:1:S:a", "RESP:1:S:b", "RESP:1:E12:x", "RESP:1:E120:x", "RESP:1:E2:x", "RESP:1:L:p", "RESP:1:B:p:3:,12,4,",
      "RESP:1:B:p:3:,4,120,", "RESP:2:B:p:1:,12,", "RESP:1:B:p,12,q:3:,4,", "RESP:1:B:p:3:12", "RESP:1:B:p:0:,,", "ACT:1:S:events:h",
      "ACT:1:V3:venues:h", "ACT:10:S:x", "plain", "two:parts"];
    const patterns = ["RESP:1:B:**,12,**", "RESP:1:B:**,4,**", "RESP:2:B:**,12,**", "RESP:1:E12:**", "RESP:1:E**", "RESP:1:**", "ACT:1:**",
      "**", "RESP:1:S:a", "pl**", "two:**", "RESP:1:L:**", "RESP:1:B:**"];
    for (const pattern of patterns) {
      for (const k of keys) await cacher.set(k, k);
      await cacher.clean(pattern);
      const left = (await Promise.all(keys.map(async k => ((await cacher.get(k)) === undefined ? undefined : k)))).filter(Boolean);
      expect({ pattern, left }).toEqual({ pattern, left: keys.filter(k => !Utils.match(k, pattern)) });
      await cacher.clean();
    }
  });

  test("a keep that a clean since its mark covered keeps nothing, and never sets the value, even for a moment", async () => {
    const monitor = await redis.monitor();
    const sets: string[] = [];
    // this run's keys only: other suites may use the same Redis meanwhile
    monitor.on("monitor", (_time: string, args: string[]) => { if (String(args[0]).toUpperCase() === "SET" && String(args[1]).startsWith(prefix)) sets.push(String(args[1])); });
    try {
      const mark = await cleanMark(cacher);
      await cacher.clean("ACT:1:V7:**"); // a write of venue 7 while the reads below were computed
      expect(await keepUnlessCleaned(cacher, cacher, mark, "ACT:1:V7:x", "seven, before the write")).toBe(false);
      expect(await keepUnlessCleaned(cacher, cacher, mark, "ACT:1:V8:x", "eight")).toBe(true);
      // a mark taken after the clean is not covered by it
      expect(await keepUnlessCleaned(cacher, cacher, await cleanMark(cacher), "ACT:1:V7:x", "seven, after")).toBe(true);
      await new Promise(r => setTimeout(r, 200)); // the monitor's lines arrive
      expect(sets).toEqual([`${prefix}ACT:1:V8:x`, `${prefix}ACT:1:V7:x`]);
      expect(await cacher.get("ACT:1:V7:x")).toBe("seven, after");
    } finally {
      monitor.disconnect();
    }
  });

  test("a mark older than the 256 cleans remembered, or a count that went back (the log lost), keeps nothing", async () => {
    const mark = (await cacher.mark())!;
    for (let i = 0; i < 260; i++) await cacher.clean([`ACT:9:E${i}:**`]);
    expect(await cacher.keepIfClean(mark, "ACT:1:V1:x", 1)).toBe(false);
    expect(await cacher.keepIfClean(mark + 10, "ACT:1:V1:x", 1)).toBe(true);
    await redis.del(`${logPrefix}cleans`);
    expect(await cacher.keepIfClean(mark + 10, "ACT:1:V2:x", 1)).toBe(false);
    expect(await cacher.get("ACT:1:V2:x")).toBeUndefined();
  });

  test("Redis away: reads miss, no mark (nothing is kept), a keep keeps nothing, a clean fails", async () => {
    const away = new RedisCacher({ url: "redis://127.0.0.1:1", prefix: `MOL-${run}-away`, logPrefix: `${logPrefix}away:`, ttl: 60 });
    const b = new ServiceBroker({ logger: false, cacher: away });
    await b.start();
    try {
      expect(await away.get("RESP:1:E1:x")).toBeUndefined();
      expect(await away.mark()).toBeUndefined();
      expect(await away.keepIfClean(0, "RESP:1:E1:x", 1)).toBe(false);
      await expect(away.clean("RESP:1:E1:**")).rejects.toBeTruthy();
    } finally {
      await b.stop();
    }
  });
});

describe("a read held across a write, with Redis as the cache", () => {
  let svc: Running;
  const namespace = `clredis-${process.pid}-${Date.now().toString(36)}`;
  beforeAll(async () => { svc = await startService({ RATE_LIMIT: "", CACHER: REDIS_URL, NAMESPACE: namespace }); });
  afterAll(async () => {
    await svc.stop();
    const redis = new Redis(REDIS_URL);
    const keys = [...await redis.keys(`MOL-${namespace}-*`), ...await redis.keys(`CL-${namespace}:*`)];
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  test("the answer of a read that began before the write is sent, and not kept past the write's answer", async () => {
    const venue = await succeed(svc, "POST", "/venues", { venue: "Redis Hall", status: "publish" });
    const hold = holdNextOn(linkedOf(svc.broker, "venues").presenter, "many");
    try {
      const inFlight = svc.get(`/venues/${venue.id}`);
      await hold.reached;
      await succeed(svc, "POST", `/venues/${venue.id}`, { venue: "Redis Hall, renamed" });
      hold.release();
      expect((await inFlight).body.venue).toBe("Redis Hall");
      expect((await svc.get(`/venues/${venue.id}`)).body.venue).toBe("Redis Hall, renamed");
      // and what is kept now is the renamed venue
      expect((await svc.get(`/venues/${venue.id}`)).body.venue).toBe("Redis Hall, renamed");
    } finally {
      hold.restore();
    }
  });

  test("a read of translations held across a translation write: answered, not kept past the write's answer", async () => {
    const values = () => svc.broker.call("i18n.values", { type: "venue", ids: [4343], language: "de" });
    const write = (name: string) => svc.broker.call("i18n.write", { type: "venue", id: 4343, language: "de", fields: { name }, originals: { name: "Original" }, original: "en" });
    await write("Vorher");
    const hold = holdNext(svc.broker, "i18n", "readValues", { after: true });
    try {
      const inFlight = values();
      await hold.reached;
      await write("Nachher");
      hold.release();
      expect(await inFlight).toEqual({ 4343: { name: "Vorher" } });
      expect(await values()).toEqual({ 4343: { name: "Nachher" } });
      expect(await values()).toEqual({ 4343: { name: "Nachher" } });
    } finally {
      hold.restore();
    }
  });
});
