/**
 * Settings read from the environment (lib/settings.ts): SITE_NAME and its default (C57: the site's home), CACHER,
 * DATABASE_POOL_MAX.
 */
import { cacheKind, readSettings } from "../../lib/settings";

describe("SITE_NAME", () => {
  test.each([
    [{}, "localhost"],
    [{ PORT: "3917" }, "localhost"],
    [{ BASE_URL: "http://127.0.0.1:3917" }, "127.0.0.1"],
    [{ BASE_URL: "https://Calendar.Example.org:8443/sub/" }, "calendar.example.org"],
    [{ BASE_URL: "http://[::1]:3000" }, "[::1]"],
    [{ BASE_URL: "https://cal.example.org", SITE_NAME: "Jazz Club" }, "Jazz Club"],
    [{ SITE_NAME: "  Spaced  " }, "Spaced"],
    [{ BASE_URL: "https://cal.example.org", SITE_NAME: " " }, "cal.example.org"]
  ])("%j → %s", (env, name) => {
    expect(readSettings(env as NodeJS.ProcessEnv).siteName).toBe(name);
  });
});

describe("CACHER: where kept answers live", () => {
  test.each([
    [undefined, "memory"],
    ["memory", "memory"],
    ["off", "off"],
    ["none", "off"],
    ["redis://127.0.0.1:6379", "redis"],
    ["rediss://cache.example:6380/2", "redis"]
  ])("CACHER=%s → %s", (cacher, kind) => expect(cacheKind(readSettings({ CACHER: cacher }))).toBe(kind));
});

describe("SQLITE_CACHE_MB: the SQLite store's page cache", () => {
  test.each([
    [undefined, undefined],
    ["", undefined],
    ["64", 64],
    [" 512 ", 512],
    ["0.5", 0.5]
  ])("SQLITE_CACHE_MB=%j → %j", (value, mb) => expect(readSettings({ SQLITE_CACHE_MB: value }).sqliteCacheMb).toBe(mb));
  test.each(["0", "-2", "lots"])("SQLITE_CACHE_MB=%j stops the start with a message naming it", value => {
    expect(() => readSettings({ SQLITE_CACHE_MB: value })).toThrow(/SQLITE_CACHE_MB must be a positive number/);
  });
});

describe("DATABASE_POOL_MAX: PostgreSQL connections per process", () => {
  test.each([
    [undefined, 10],
    ["", 10],
    ["3", 3],
    [" 25 ", 25]
  ])("DATABASE_POOL_MAX=%j → %d", (value, max) => expect(readSettings({ DATABASE_POOL_MAX: value }).databasePoolMax).toBe(max));
  test.each(["0", "-2", "2.5", "many"])("DATABASE_POOL_MAX=%j stops the start with a message naming it", value => {
    expect(() => readSettings({ DATABASE_POOL_MAX: value })).toThrow(/DATABASE_POOL_MAX must be a whole number/);
  });
});

describe("DATABASE_LOOKUP_POOL_MAX: PostgreSQL connections for lookups by key per process", () => {
  test.each([
    [undefined, undefined, 5],
    [undefined, "4", 2],
    [undefined, "3", 2],
    [undefined, "1", 1],
    ["", "10", 5],
    ["0", undefined, 0],
    [" 7 ", "2", 7]
  ])("DATABASE_LOOKUP_POOL_MAX=%j beside DATABASE_POOL_MAX=%j → %d", (value, pool, max) =>
    expect(readSettings({ DATABASE_LOOKUP_POOL_MAX: value, DATABASE_POOL_MAX: pool }).databaseLookupPoolMax).toBe(max));
  test.each(["-1", "1.5", "some"])("DATABASE_LOOKUP_POOL_MAX=%j stops the start with a message naming it", value => {
    expect(() => readSettings({ DATABASE_LOOKUP_POOL_MAX: value })).toThrow(/DATABASE_LOOKUP_POOL_MAX must be a whole number/);
  });
});
