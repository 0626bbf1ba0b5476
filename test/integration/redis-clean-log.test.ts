/**
 * The log of cleans of a shared Redis cacher (lib/cache/redis-clean-log.ts), against the local Redis
 * (127.0.0.1:6379, keys under a prefix of this run's own, deleted afterwards); and a read held across a
 * write with `CACHER=redis://…`, whose answer must not outlive the write (docs/caching.md#a-read-that-crosses-a-write).
 */
import Redis from "ioredis";
import { RedisCleanLog, acquireCleanLog } from "../../lib/cache/redis-clean-log";
import { startService, succeed, Running } from "../helpers/harness";
import { holdNext } from "../helpers/hold";

const REDIS_URL = "redis://127.0.0.1:6379";

describe("the Redis log of cleans", () => {
  const prefix = `CLTEST-${process.pid}-${Date.now().toString(36)}:`;
  let redis: Redis;
  let log: RedisCleanLog;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    log = new RedisCleanLog(REDIS_URL, prefix);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    log.close();
    redis.disconnect();
  });

  test("counts cleans and tells which keys those since a mark covered", async () => {
    const mark = (await log.mark())!;
    expect(typeof mark).toBe("number");
    expect(await log.cleanedSince(mark, "ACT:1:V7:x")).toBe(false);
    await log.record(["ACT:1:V7:**", "ACT:1:S:**"]);
    expect(await log.mark()).toBe(mark + 1);
    expect(await log.cleanedSince(mark, "ACT:1:V7:venues.embed:h")).toBe(true);
    expect(await log.cleanedSince(mark, "ACT:1:V8:venues.embed:h")).toBe(false);
    expect(await log.cleanedSince(mark + 1, "ACT:1:V7:venues.embed:h")).toBe(false);
  });

  test("a mark older than the 256 cleans remembered, or a count that went back (the log lost), counts as cleaned", async () => {
    const mark = (await log.mark())!;
    for (let i = 0; i < 260; i++) await log.record([`ACT:9:E${i}:**`]);
    expect(await log.cleanedSince(mark, "ACT:1:V1:x")).toBe(true);
    expect(await log.cleanedSince(mark + 10, "ACT:1:V1:x")).toBe(false);
    await redis.del(`${prefix}cleans`);
    expect(await log.cleanedSince(mark + 10, "ACT:1:V1:x")).toBe(true);
  });

  test("one connection per Redis and prefix in a process, closed by its last user", async () => {
    const a = acquireCleanLog(REDIS_URL, `${prefix}shared:`);
    const b = acquireCleanLog(REDIS_URL, `${prefix}shared:`);
    expect(a.log).toBe(b.log);
    a.release();
    a.release(); // twice is once
    expect(await b.log.mark()).toBe(0);
    b.release();
    const c = acquireCleanLog(REDIS_URL, `${prefix}shared:`);
    expect(c.log).not.toBe(a.log);
    c.release();
  });

  test("Redis away: no mark (nothing is kept), and every check answers cleaned (what was kept is dropped)", async () => {
    const away = new RedisCleanLog("redis://127.0.0.1:1", prefix);
    try {
      expect(await away.mark()).toBeUndefined();
      expect(await away.cleanedSince(0, "ACT:1:V1:x")).toBe(true);
    } finally {
      away.close();
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
    const hold = holdNext(svc.broker, "venues", "presentMany");
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
