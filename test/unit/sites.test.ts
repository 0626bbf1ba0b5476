/**
 * The pure parts of sites (docs/sites.md): hosts (C49), site and key fields of the platform API (C48),
 * key hashing (C40: the generated administrator key), the site scope and the settings a site sees.
 */
import type { Json } from "../helpers/json";
import { hostOfUrl, isSiteless, isValidHost, normalizeHost, requestHost } from "../../lib/sites/host";
import { keyFields, siteFields } from "../../lib/sites/site-input";
import { hashApiKey, keyMatches, newApiKey, nextUserId } from "../../lib/sites/keys";
import { currentSite, currentSiteId, runInSite, SiteConfig, SiteLocal } from "../../lib/sites/scope";
import { readSettings, settings, useSettings } from "../../lib/settings";
import { isPlatformKey, pageOf } from "../../lib/platform/present";
import { platformDocument } from "../../lib/platform/openapi";
import { siteCollection } from "../../store/site-collection";
import type { Collection } from "../../store/collection";
import type { Store } from "../../store";
import type { SiteRow, SiteStore } from "../../store/sites";
import { SiteDirectory } from "../../store/site-directory";
import { execFileSync } from "child_process";
import * as path from "path";

const site = (id: number, extra: Partial<SiteConfig> = {}): SiteConfig =>
  ({ id, host: `s${id}.example`, name: `Site ${id}`, baseUrl: `http://s${id}.example`, timezone: "Europe/Paris", geolocation: false, userIds: [1], ...extra });

describe("hosts (C49)", () => {
  test.each([
    ["A.Example:8080", "a.example:8080"],
    ["  cal.EXAMPLE.org. ", "cal.example.org"],
    ["[::1]:3000", "[::1]:3000"],
    ["localhost", "localhost"]
  ])("normalizeHost(%j) → %s", (raw, host) => expect(normalizeHost(raw)).toBe(host));

  test.each([
    ["a.example", true], ["a.example:8080", true], ["localhost:1", true], ["[::1]:3000", true], ["10.0.0.1", true],
    ["", false], ["bad host", false], ["a.example:0", false], ["a.example:70000", false], ["-a.example", false],
    ["a..example", false], ["a.example/x", false], ["user@a.example", false], [`${"x".repeat(64)}.example`, false]
  ])("isValidHost(%j) = %s", (host, ok) => expect(isValidHost(host)).toBe(ok));

  test("the request's host: Host, or X-Forwarded-Host (its first value) only when the proxy is trusted", () => {
    const headers = { host: "Inner.Example:3000", "x-forwarded-host": "Outer.Example, proxy.example" };
    expect(requestHost(headers, false)).toBe("inner.example:3000");
    expect(requestHost(headers, true)).toBe("outer.example");
    expect(requestHost({ host: "a.example" }, true)).toBe("a.example");
    expect(requestHost({}, false)).toBeUndefined();
  });

  test("the host of a base URL keeps a port that is not the scheme's default", () => {
    expect(hostOfUrl("http://localhost:3000")).toBe("localhost:3000");
    expect(hostOfUrl("https://Cal.Example.org:443/sub")).toBe("cal.example.org");
    expect(hostOfUrl("not a url")).toBeUndefined();
  });

  test("health, metrics and the platform API answer on any host", () => {
    for (const p of ["/health/live", "/health", "/metrics", "/platform/v1/sites", "/platform/v1?x"]) expect([p, isSiteless(p)]).toEqual([p, true]);
    for (const p of ["/wp-json/calendar/events/v1/events", "/healthy", "/platform/v2", "/", "/fr/wp-json/"]) expect([p, isSiteless(p)]).toEqual([p, false]);
  });
});

describe("site fields of the platform API (C48)", () => {
  test("defaults: name = host, base_url = http://{host}, UTC, geolocation off", () => {
    expect(siteFields({ host: "Cal.Example:8080" })).toEqual({ host: "cal.example:8080", name: "cal.example:8080", base_url: "http://cal.example:8080", timezone: "UTC", geolocation: false });
  });
  test("given values, checked and normalised", () => {
    expect(siteFields({ host: "a.example", name: " Jazz ", base_url: "https://cal.a.example/", timezone: "europe/paris", geolocation: "yes" }))
      .toEqual({ host: "a.example", name: "Jazz", base_url: "https://cal.a.example", timezone: "Europe/Paris", geolocation: true });
  });
  test("every bad field is named in one 400", () => {
    let err: Json;
    try {
      siteFields({ host: "bad host", base_url: "ftp://x", timezone: "Mars/Base", geolocation: "maybe", name: "" });
    } catch (e) {
      err = e;
    }
    expect(err.type).toBe("rest_invalid_param");
    expect(err.code).toBe(400);
    expect(Object.keys(err.data.params).sort()).toEqual(["base_url", "geolocation", "host", "name", "timezone"]);
  });
  test("an update keeps what it does not send", () => {
    const current = siteFields({ host: "a.example", timezone: "Asia/Tokyo", geolocation: true });
    expect(siteFields({ name: "New" }, current)).toEqual({ ...current, name: "New" });
    expect(() => siteFields({ host: "" }, current)).toThrow();
  });
  test("keys: a role and an optional positive user id", () => {
    expect(keyFields({ role: "editor" })).toEqual({ role: "editor", userId: undefined });
    expect(keyFields({ role: "author", user_id: "7" })).toEqual({ role: "author", userId: 7 });
    expect(() => keyFields({ role: "overlord" })).toThrow();
    expect(() => keyFields({ role: "author", user_id: 0 })).toThrow();
    expect(() => keyFields({ role: "author", user_id: 1.5 })).toThrow();
  });
  test("paging of GET /sites", () => {
    expect(pageOf({})).toEqual({ page: 1, perPage: 20 });
    expect(pageOf({ page: "3", per_page: "100" })).toEqual({ page: 3, perPage: 100 });
    expect(pageOf({ per_page: "101" })).toEqual({ bad: "per_page" });
    expect(pageOf({ page: "0" })).toEqual({ bad: "page" });
    // past the safe integers (the page, or its offset) no store takes the offset
    expect(pageOf({ page: "99999999999999999999" })).toEqual({ bad: "page" });
    expect(pageOf({ page: String(Number.MAX_SAFE_INTEGER), per_page: "100" })).toEqual({ bad: "page" });
    expect(pageOf({ page: String(Number.MAX_SAFE_INTEGER), per_page: "1" })).toEqual({ page: Number.MAX_SAFE_INTEGER, perPage: 1 });
    expect(pageOf({ page: "99999999999999999999", per_page: "x" })).toEqual({ bad: "page" });
    expect(pageOf({ page: "2", per_page: "x" })).toEqual({ bad: "per_page" });
  });
});

describe("keys (C40: the generated administrator key)", () => {
  test("stored as a hash, compared in constant time, never equal to another key's", () => {
    const key = newApiKey();
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key);
    expect(keyMatches(key, hashApiKey(key))).toBe(true);
    expect(keyMatches(newApiKey(), hashApiKey(key))).toBe(false);
    expect(keyMatches(key, "abc")).toBe(false);
  });
  test("a key naming no user gets the smallest free id (D15: users come from the API keys)", () => {
    expect(nextUserId([])).toBe(1);
    expect(nextUserId([1, 2, 4])).toBe(3);
  });
  test("the platform key: Bearer only, exact", () => {
    expect(isPlatformKey("Bearer pk-1", "pk-1")).toBe(true);
    expect(isPlatformKey("bearer pk-1 ", "pk-1")).toBe(true);
    expect(isPlatformKey("Basic pk-1", "pk-1")).toBe(false);
    expect(isPlatformKey("Bearer pk-12", "pk-1")).toBe(false);
    expect(isPlatformKey(undefined, "pk-1")).toBe(false);
  });
  test("the platform document names every operation", () => {
    const doc = platformDocument("http://x") as Json;
    expect(doc.servers).toEqual([{ url: "http://x/platform/v1" }]);
    expect(Object.keys(doc.paths["/sites"])).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/sites/{id}"])).toEqual(["parameters", "get", "post", "delete"]);
  });
  test("the platform document is valid OpenAPI (both third-party validators, in a child process)", () => {
    const script = path.join(__dirname, "..", "helpers", "openapi-validators.mjs");
    const broken = platformDocument("http://x") as Json;
    delete broken.paths["/sites"].get.responses;
    const out = execFileSync(process.execPath, [script], { input: JSON.stringify([platformDocument("http://x"), broken]), timeout: 120_000 });
    const [good, bad] = JSON.parse(out.toString("utf8"));
    expect(good).toEqual({ seriousme: [], swaggerParser: null });
    expect(bad.swaggerParser).not.toBeNull();
  });
});

describe("the site scope", () => {
  test("work outside any scope is the default site's; a scope holds across awaits and timers", async () => {
    expect(currentSiteId()).toBe(1);
    const seen = await runInSite(site(7), async () => {
      await new Promise(r => setTimeout(r, 5));
      const inner = await new Promise<number>(r => setImmediate(() => r(currentSiteId())));
      return [currentSiteId(), inner, currentSite()?.host];
    });
    expect(seen).toEqual([7, 7, "s7.example"]);
    expect(currentSiteId()).toBe(1);
  });
  test("the default site's work leaves another site's scope, across awaits, and the outer scope holds after it", async () => {
    const seen = await runInSite(site(7), async () => {
      const inner = await runInSite(undefined, async () => {
        await new Promise(r => setTimeout(r, 2));
        return [currentSiteId(), currentSite(), await runInSite(undefined, async () => currentSiteId())];
      });
      return [inner, currentSiteId()];
    });
    expect(seen).toEqual([[1, undefined, 1], 7]);
    // a site whose id is the default's is the default site: no bearer kept, no scope of its own
    expect(runInSite(site(1), () => [currentSiteId(), currentSite()])).toEqual([1, undefined]);
    expect(await runInSite(site(7), () => runInSite(site(1), async () => currentSite()))).toBeUndefined();
  });
  test("parallel work of two sites never sees the other's", async () => {
    const both = await Promise.all([5, 6].map(id => runInSite(site(id), async () => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) {
        await new Promise(r => setTimeout(r, Math.random() * 3));
        ids.push(currentSiteId());
      }
      return ids;
    })));
    expect(both).toEqual([[5, 5, 5, 5, 5], [6, 6, 6, 6, 6]]);
  });
  test("SiteLocal keeps one value per site", () => {
    let made = 0;
    const local = new SiteLocal(() => ({ n: ++made }));
    const a = runInSite(site(2), () => local.current());
    const b = runInSite(site(3), () => local.current());
    expect(a).not.toBe(b);
    expect(runInSite(site(2), () => local.current())).toBe(a);
    expect(local.current()).toEqual({ n: 3 });
  });
  test("settings(): a site's base URL, zone, name and geolocation switch replace the environment's", () => {
    const env = readSettings({ BASE_URL: "http://main.example", SITE_TIMEZONE: "UTC", SITE_NAME: "Main" });
    useSettings(env);
    try {
      expect(settings()).toBe(env);
      const s = runInSite(site(4, { geolocation: true }), () => settings());
      expect(s).toMatchObject({ baseUrl: "http://s4.example", siteTimezone: "Europe/Paris", siteName: "Site 4", geolocation: true, restPrefix: env.restPrefix, port: env.port });
      expect(env.baseUrl).toBe("http://main.example");
      expect(settings().geolocation).toBe(true);
    } finally {
      useSettings(readSettings());
    }
  });
});

describe("a service's collection is the current site's (store/site-collection.ts)", () => {
  /** A store whose collections record each call: site, method and every argument. */
  function recordingStore(calls: unknown[][]): Store {
    const methods = ["find", "findByIds", "count", "countParts", "idsWhere", "findOne", "insert", "append", "updateOne", "updateOneChange", "updateMany", "removeMany", "ensureIndex"];
    return {
      collection: (_name: string, _indexes: unknown, site?: number) =>
        Object.fromEntries(methods.map(m => [m, async (...args: unknown[]) => void calls.push([site, m, ...args])])) as unknown as Collection
    } as unknown as Store;
  }

  test("each operation goes to the site of the work, with every argument it was given", async () => {
    const calls: unknown[][] = [];
    const col = siteCollection(recordingStore(calls), "events", []);
    const opts = { change: { id: 1 } };
    await col.updateOne({ _id: 1 }, { $set: { a: 1 } }, opts as never);
    await runInSite(site(9), () => col.insert({ _id: 2 }, opts as never));
    await runInSite(site(9), () => col.updateOneChange({ _id: 2 }, { $set: {} }, opts as never));
    await col.find({}, { limit: 1 });
    expect(calls).toEqual([
      [1, "updateOne", { _id: 1 }, { $set: { a: 1 } }, opts],
      [9, "insert", { _id: 2 }, opts],
      [9, "updateOneChange", { _id: 2 }, { $set: {} }, opts],
      [1, "find", {}, { limit: 1 }]
    ]);
  });
});

describe("topology on an in-memory store (services/index.ts)", () => {
  const { checkTopology } = require("../../services") as typeof import("../../services");
  const at = (services: string) => readSettings({ DATA_DIR: ":memory:", SERVICES: services });
  test("the platform service runs with the gateway and the record services, or not at all", () => {
    expect(checkTopology(at("all"))).toBeUndefined();
    expect(checkTopology(at("api,events,venues,organizers,taxonomy,i18n,changes"))).toBeUndefined();
    expect(checkTopology(at("platform"))).toMatch(/platform/);
    expect(checkTopology(at("api,platform"))).toMatch(/platform/);
    expect(checkTopology(readSettings({ DATA_DIR: "/tmp/x", SERVICES: "platform" }))).toBeUndefined();
  });
});

describe("the site directory's lease on the sites version (store/site-directory.ts)", () => {
  /** A sites store in memory that counts its version reads. */
  function countingStore(leaseMs: number) {
    const state = { version: 1, reads: 0, rows: new Map<string, SiteRow>() };
    const store = {
      leaseMs,
      async version() { state.reads++; return state.version; },
      async byHost(host: string) { return state.rows.get(host); },
      async byId(id: number) { return [...state.rows.values()].find(r => r.id === id); },
      async any() { return state.rows.size > 0; },
      async userIds() { return [1]; }
    } as unknown as SiteStore;
    return { state, store };
  }
  const row = (id: number, host: string): SiteRow => ({ id, host, name: host, base_url: `http://${host}`, timezone: "UTC", geolocation: false });

  test("without a lease every lookup reads the version, and a moved version drops what was kept", async () => {
    const { state, store } = countingStore(0);
    const directory = new SiteDirectory(store);
    state.rows.set("a.example", row(2, "a.example"));
    expect(await directory.forHost("a.example", "main.example")).toMatchObject({ kind: "site", site: { id: 2 } });
    state.rows.set("a.example", row(3, "a.example"));
    expect(await directory.forHost("a.example", "main.example")).toMatchObject({ site: { id: 2 } });
    state.version++;
    expect(await directory.forHost("a.example", "main.example")).toMatchObject({ site: { id: 3 } });
    expect(state.reads).toBe(3);
  });

  test("within a lease the version is read once; after it, again", async () => {
    // a lease long enough for 50 lookups on a loaded machine (80 ms once ran out under the whole suite)
    const { state, store } = countingStore(1000);
    const directory = new SiteDirectory(store);
    for (let i = 0; i < 50; i++) await directory.forHost("x.example", "main.example");
    expect(state.reads).toBe(1);
    await new Promise(r => setTimeout(r, 1100));
    await directory.forHost("x.example", "main.example");
    expect(state.reads).toBe(2);
  });
});
