/**
 * Sites (docs/sites.md, C48 to C50: the platform API, hosts, deleting a site): 50 sites in one running deployment, reached by their Host headers,
 * each with its own records, keys, settings and geolocation switch; nothing crosses sites. Runs on the
 * embedded store, (TEST_STORE=postgres, package.json `test:postgres`) on PostgreSQL, and on the MongoDB
 * store's code over the driver stand-in (test/integration/sites-mongo.test.ts runs this file).
 */
import type { Json } from "../helpers/json";
import * as http from "http";
import moment from "moment-timezone";
import { startService, Running, KEYS } from "../helpers/harness";

const PLATFORM_KEY = "pk-sites-test";
const SITES = 50;

interface Answer {
  status: number;
  body: Json;
  text: string;
  headers: http.IncomingHttpHeaders;
}

/** One HTTP request with an explicit Host header (fetch does not let a client choose it). */
function call(port: number, method: string, host: string, path: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const headers: Record<string, string> = { Host: host, ...(opts.headers ?? {}) };
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(body));
    }
    const req = http.request({ host: "127.0.0.1", port, method, path, headers }, res => {
      const chunks: Buffer[] = [];
      res.on("data", c => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: Json = text;
        try { parsed = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, body: parsed, text, headers: res.headers });
      });
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const NS = "/wp-json/calendar/events/v1";
/** A day inside the lists' default window. */
const DAY = moment.utc().add(10, "days").format("YYYY-MM-DD");
const utcOf = (local: string, zone: string) => moment.tz(local, zone).utc().format("YYYY-MM-DD HH:mm:ss");

async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 15000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > end) return v;
    await new Promise(r => setTimeout(r, 100));
  }
}

/** Runs `fn` over `items`, `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map((it, j) => fn(it, i + j)))));
  return out;
}

interface Site {
  id: number;
  host: string;
  key: string;
  zone: string;
  event: number;
  venue: number;
  category: number;
}

describe("sites: 50 calendars in one deployment", () => {
  let svc: Running;
  let port: number;
  let defaultHost: string;
  const sites: Site[] = [];
  const platform = (method: string, path: string, body?: unknown, key = PLATFORM_KEY) => call(port, method, "anything.example", `/platform/v1${path}`, { key, body });
  const on = (s: { host: string; key?: string }, method: string, path: string, body?: unknown, key = s.key) => call(port, method, s.host, NS + path, { key, body });

  beforeAll(async () => {
    svc = await startService({ PLATFORM_KEY, SITE_NAME: "Default Calendar" });
    port = svc.port;
    defaultHost = `localhost:${port}`; // BASE_URL defaults to http://localhost:{PORT}
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
  });

  test("before any site exists, the default site answers on every host (the contract unchanged)", async () => {
    const res = await call(port, "GET", "nobody.example", `${NS}/events`);
    expect(res.status).toBe(200);
    expect(res.body.events).toEqual([]);
    const made = await svc.request("POST", "/events", { as: "admin", body: { title: "Default opening", start_date: `${DAY} 10:00:00`, end_date: `${DAY} 11:00:00`, status: "publish" } });
    expect(made.status).toBe(201);
    expect(made.body.id).toBe(1);
  });

  test("the platform API: its key, its document, its errors", async () => {
    expect((await platform("GET", "/sites", undefined, "")).status).toBe(401);
    const wrong = await platform("GET", "/sites", undefined, "not-the-key");
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("rest_invalid_api_key");
    const doc = await call(port, "GET", "x.example", "/platform/v1/doc");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(["/sites", "/sites/{id}", "/sites/{id}/keys", "/sites/{id}/keys/{key_id}"]));
    // not in the site's own /doc (C33: sites and the default site)
    const siteDoc = await svc.get("/doc");
    expect(Object.keys(siteDoc.body.paths).some(p => p.includes("platform"))).toBe(false);

    const badHost = await platform("POST", "/sites", { host: "bad host!" });
    expect(badHost.status).toBe(400);
    expect(badHost.body.code).toBe("rest_invalid_param");
    expect(Object.keys(badHost.body.data.params)).toEqual(["host"]);
    const badZone = await platform("POST", "/sites", { host: "zone.example", timezone: "Mars/Olympus" });
    expect(badZone.status).toBe(400);
    expect(Object.keys(badZone.body.data.params)).toEqual(["timezone"]);
    expect((await platform("POST", "/sites", { host: defaultHost })).body.code).toBe("rest_site_exists");
    expect((await platform("GET", "/sites/999")).body.code).toBe("rest_site_not_found");
    const def = await platform("GET", "/sites/1");
    expect(def.body).toEqual({ id: 1, host: defaultHost, name: "Default Calendar", base_url: `http://localhost:${port}`, timezone: "UTC", geolocation: true });
    for (const [method, path] of [["POST", "/sites/1"], ["DELETE", "/sites/1"], ["POST", "/sites/1/keys"]]) {
      const res = await platform(method, path, { name: "x", role: "editor" });
      expect([path, res.status, res.body.code]).toEqual([path, 409, "rest_site_default"]);
    }
  });

  test(`${SITES} sites are created, each with its own administrator key`, async () => {
    const made = await inBatches(Array.from({ length: SITES }, (_, i) => i), 10, async i => {
      const zone = i % 2 ? "Europe/Paris" : "America/New_York";
      const res = await platform("POST", "/sites", { host: i === 3 ? "S3.Example:8080" : `s${i}.example`, name: `Calendar ${i}`, timezone: zone, geolocation: i === 0 });
      expect(res.status).toBe(201);
      return { res, zone };
    });
    for (const [i, { res, zone }] of made.entries()) {
      expect(res.body).toEqual({
        id: expect.any(Number), host: i === 3 ? "s3.example:8080" : `s${i}.example`, name: `Calendar ${i}`,
        base_url: i === 3 ? "http://s3.example:8080" : `http://s${i}.example`, timezone: zone, geolocation: i === 0, api_key: expect.any(String)
      });
      sites.push({ id: res.body.id, host: res.body.host, key: res.body.api_key, zone, event: 0, venue: 0, category: 0 });
    }
    expect(new Set(sites.map(s => s.id)).size).toBe(SITES);
    expect(sites.every(s => s.id > 1)).toBe(true);
    // a taken host, whatever its case
    const taken = await platform("POST", "/sites", { host: "S1.EXAMPLE" });
    expect([taken.status, taken.body.code]).toEqual([409, "rest_site_exists"]);
    const list = await platform("GET", "/sites?per_page=100");
    expect(list.body.total).toBe(SITES + 1);
    expect(list.body.sites[0].id).toBe(1);
    expect(list.body.sites.map((s: Json) => s.id).slice(1)).toEqual(sites.map(s => s.id).sort((a, b) => a - b));
    const page2 = await platform("GET", "/sites?per_page=20&page=2");
    expect(page2.body.sites.map((s: Json) => s.id)).toEqual(list.body.sites.slice(20, 40).map((s: Json) => s.id));
    // a page whose offset no store takes is a bad page, on every store (PostgreSQL answered 500)
    for (const page of ["99999999999999999999", String(Number.MAX_SAFE_INTEGER)]) {
      const far = await platform("GET", `/sites?per_page=100&page=${page}`);
      expect([far.status, far.body.code, Object.keys(far.body.data.params)]).toEqual([400, "rest_invalid_param", ["page"]]);
    }
  });

  test("hosts: unknown hosts answer 404 now; case and port matter as C49 says; health answers anywhere", async () => {
    const unknown = await call(port, "GET", "nobody.example", `${NS}/events`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "rest_site_not_found", data: { status: 404 } });
    expect((await call(port, "GET", "s3.example", `${NS}/events`)).status).toBe(404);
    expect((await call(port, "GET", "s3.example:8080", `${NS}/events`)).status).toBe(200);
    expect((await call(port, "GET", "S1.Example", `${NS}/events`)).status).toBe(200);
    expect((await call(port, "GET", "nobody.example", "/health/live")).status).toBe(200);
    // the default site keeps answering on BASE_URL's host
    const def = await call(port, "GET", defaultHost, `${NS}/events`);
    expect(def.body.events.map((e: Json) => e.title)).toEqual(["Default opening"]);
  });

  test("the same slugs and ids in every site, each with its own records, links and site time", async () => {
    await inBatches(sites, 10, async (s, i) => {
      const venue = await on(s, "POST", "/venues", { venue: "Town Hall", geo_lat: 48.8566, geo_lng: 2.3522, status: "publish" });
      expect(venue.status).toBe(201);
      const category = await on(s, "POST", "/categories", { name: "Music" });
      expect(category.status).toBe(201);
      const event = await on(s, "POST", "/events", {
        title: `Opening night ${i} zebra${i}`, start_date: `${DAY} 10:00:00`, end_date: `${DAY} 11:00:00`, status: "publish",
        venue: venue.body.id, categories: [category.body.id]
      });
      expect(event.status).toBe(201);
      Object.assign(s, { venue: venue.body.id, category: category.body.id, event: event.body.id });
      // created ten sites at a time: each site holds its own slugs
      expect(venue.body.slug).toBe("town-hall");
      expect(event.body.slug).toBe(`opening-night-${i}-zebra${i}`);
      // links: the site's base URL; dates: the site's zone
      expect(event.body.rest_url).toBe(`http://${s.host}${NS}/events/${event.body.id}`);
      expect(event.body.url.startsWith(`http://${s.host}/`)).toBe(true);
      expect(event.body.timezone).toBe(s.zone);
      expect(event.body.utc_start_date).toBe(utcOf(`${DAY} 10:00:00`, s.zone));
      expect(event.body.utc_start_date).not.toBe(`${DAY} 10:00:00`);
    });
    // numbered from 1 in each site: the same ids everywhere
    expect(new Set(sites.map(s => `${s.venue}/${s.event}`)).size).toBe(1);
    // the same slug in two sites, two records
    const sameSlug = await Promise.all([sites[1], sites[2]].map(s => on(s, "POST", "/venues", { venue: "Same Slug Hall", status: "publish" })));
    expect(sameSlug.map(r => r.body.slug)).toEqual(["same-slug-hall", "same-slug-hall"]);
    expect(sameSlug[0].body.id).toBe(sameSlug[1].body.id);
    await on(sites[2], "POST", `/venues/${sameSlug[1].body.id}`, { venue: "Same Slug Hall", phone: "222" });
    const [a, b] = await Promise.all([sites[1], sites[2]].map(s => on(s, "GET", "/venues/by-slug/same-slug-hall")));
    expect(b.body.phone).toBe("222");
    expect(a.body.phone).not.toBe("222");
  });

  test("translations are the site's own: one event id, a French title in one site, none in another", async () => {
    const [a, b] = [sites[4], sites[5]];
    expect(a.event).toBe(b.event);
    const translated = await on(a, "POST", `/events/${a.event}`, { i18n_language: "fr", title: "Soirée d'ouverture A" });
    expect(translated.status).toBe(200);
    // read in French in the translating site first (kept), then in the other
    expect((await on(a, "GET", `/events/${a.event}?i18n_language=fr`)).body.title).toBe("Soirée d'ouverture A");
    expect((await on(a, "GET", `/events?i18n_language=fr`)).body.events[0].title).toBe("Soirée d'ouverture A");
    const other = await on(b, "GET", `/events/${b.event}?i18n_language=fr`);
    expect(other.status).toBe(200);
    expect(other.body.title).toBe("Opening night 5 zebra5");
    expect((await on(b, "GET", `/events?i18n_language=fr`)).body.events[0].title).toBe("Opening night 5 zebra5");
    // both translated, same id, same language: each site reads its own values
    expect((await on(b, "POST", `/events/${b.event}`, { i18n_language: "fr", title: "Soirée d'ouverture B" })).status).toBe(200);
    expect((await on(a, "GET", `/events/${a.event}?i18n_language=fr&page=1`)).body.title).toBe("Soirée d'ouverture A");
    expect((await on(b, "GET", `/events/${b.event}?i18n_language=fr&page=1`)).body.title).toBe("Soirée d'ouverture B");
    expect((await on(a, "GET", `/events?i18n_language=fr&per_page=5`)).body.events[0].title).toBe("Soirée d'ouverture A");
    expect((await on(b, "GET", `/events?i18n_language=fr&per_page=5`)).body.events[0].title).toBe("Soirée d'ouverture B");
  });

  test("a key of one site is 401 on every other site, the default site's keys too", async () => {
    const [a, b] = sites;
    expect((await on(a, "GET", "/events?status=draft")).status).toBe(200);
    const cross = await on(b, "GET", "/events", undefined, a.key);
    expect([cross.status, cross.body.code]).toEqual([401, "rest_invalid_api_key"]);
    expect((await on(a, "GET", "/events", undefined, KEYS.admin)).status).toBe(401);
    expect((await call(port, "GET", defaultHost, `${NS}/events`, { key: a.key })).status).toBe(401);
    // a write with another site's key changes nothing
    expect((await on(b, "POST", `/events/${b.event}`, { title: "hijacked" }, a.key)).status).toBe(401);
    expect((await on(b, "GET", `/events/${b.event}`)).body.title).not.toBe("hijacked");
  });

  test("lists, search, counts, caches and ICS never cross sites", async () => {
    await inBatches(sites, 10, async (s, i) => {
      for (let round = 0; round < 2; round++) {
        // the second round is answered from the caches
        const list = await on(s, "GET", "/events");
        expect(list.body.events.map((e: Json) => e.title)).toEqual([`Opening night ${i} zebra${i}`]);
        expect(list.headers["x-wp-total"]).toBe("1");
        const search = await on(s, "GET", "/events?search=opening");
        expect(search.body.events.map((e: Json) => e.title)).toEqual([`Opening night ${i} zebra${i}`]);
        const other = await on(s, "GET", `/events?search=zebra${(i + 1) % SITES}`);
        expect(other.body.events).toEqual([]);
        const cats = await on(s, "GET", "/categories");
        expect(cats.body.categories.map((c: Json) => [c.slug, c.count])).toEqual([["music", 1]]);
        const ics = await on(s, "GET", "/events?format=ics");
        expect(ics.status).toBe(200);
        expect(ics.text).toContain(`X-WR-CALNAME:Calendar ${i}`);
        expect(ics.text.split("BEGIN:VEVENT").length - 1).toBe(1);
        expect(ics.text).toContain(`zebra${i}`);
      }
    });
    // a write in one site is seen there at once and nowhere else (caches cleaned, keys per site)
    const [a, b] = sites;
    await on(a, "POST", `/events/${a.event}`, { title: "Renamed in site A" });
    expect((await on(a, "GET", "/events")).body.events.map((e: Json) => e.title)).toEqual(["Renamed in site A"]);
    expect((await on(b, "GET", "/events")).body.events.map((e: Json) => e.title)).toEqual(["Opening night 1 zebra1"]);
    const def = await call(port, "GET", defaultHost, `${NS}/events`);
    expect(def.body.events.map((e: Json) => e.title)).toEqual(["Default opening"]);
  });

  test("the change feed of a site holds its own changes only", async () => {
    await inBatches(sites.slice(0, 10), 5, async (s, i) => {
      const feed = await on(s, "GET", "/changes?per_page=500");
      expect(feed.status).toBe(200);
      const events = feed.body.changes.filter((c: Json) => c.type === "event");
      expect(events.map((c: Json) => c.id)).toEqual(expect.arrayContaining([s.event]));
      for (const c of events) expect(c.record.title.endsWith(`zebra${i}`) || c.record.title === "Renamed in site A").toBe(true);
      expect(feed.body.changes.some((c: Json) => c.type === "venue" && c.record?.venue === "Town Hall")).toBe(true);
    });
    const def = await call(port, "GET", defaultHost, `${NS}/changes?per_page=500`, { key: KEYS.admin });
    expect(def.body.changes.map((c: Json) => `${c.type}:${c.id}`)).toEqual(["event:1"]);
  });

  test("idempotency keys are the site's own", async () => {
    const body = { title: "Idempotent", start_date: `${DAY} 12:00:00`, end_date: `${DAY} 13:00:00` };
    const [a, b] = sites;
    const first = await call(port, "POST", a.host, `${NS}/events`, { key: a.key, body, headers: { "Idempotency-Key": "same-key-1" } });
    const second = await call(port, "POST", b.host, `${NS}/events`, { key: b.key, body, headers: { "Idempotency-Key": "same-key-1" } });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers["idempotent-replayed"]).toBeUndefined();
    expect(second.body.rest_url.startsWith(`http://${b.host}/`)).toBe(true);
    const again = await call(port, "POST", b.host, `${NS}/events`, { key: b.key, body, headers: { "Idempotency-Key": "same-key-1" } });
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.body.id).toBe(second.body.id);
  });

  test("geolocation on for one site and off for another, switched with the service running", async () => {
    const [on0, off1] = sites;
    const near = "/events?geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=10";
    const yes = await until(() => on(on0, "GET", near), r => r.status === 200 && r.body.events?.length === 1);
    expect(yes.status).toBe(200);
    expect(yes.body.events.map((e: Json) => e.id)).toEqual([on0.event]);
    const no = await on(off1, "GET", near);
    expect([no.status, no.body.code]).toEqual([400, "geoloc-not-available"]);
    // switched on: the venue positions were kept all along, the next request answers
    expect((await platform("POST", `/sites/${off1.id}`, { geolocation: true })).body.geolocation).toBe(true);
    const now = await until(() => on(off1, "GET", near), r => r.status === 200 && r.body.events?.length === 1);
    expect(now.body.events.map((e: Json) => e.title)).toEqual(["Opening night 1 zebra1"]);
    // and off again, the cached answer not kept
    await platform("POST", `/sites/${on0.id}`, { geolocation: "false" });
    expect((await on(on0, "GET", near)).body.code).toBe("geoloc-not-available");
  });

  test("keys: made and revoked through the platform API, with ids and users", async () => {
    const s = sites[5];
    const made = await platform("POST", `/sites/${s.id}/keys`, { role: "editor" });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ id: expect.any(Number), key: expect.any(String), role: "editor", user_id: 2 });
    const author = await platform("POST", `/sites/${s.id}/keys`, { role: "author", user_id: 7 });
    expect(author.body.user_id).toBe(7);
    expect((await platform("POST", `/sites/${s.id}/keys`, { role: "overlord" })).status).toBe(400);
    expect((await on({ host: s.host, key: made.body.key }, "POST", `/events/${s.event}`, { title: "Edited by the editor" })).status).toBe(200);
    // the site's users are its keys' users (D15: users come from the API keys): author 7 exists here, 3 does not
    expect((await on(s, "POST", `/events/${s.event}`, { author: 7 })).status).toBe(200);
    expect((await on(s, "POST", `/events/${s.event}`, { author: 3 })).status).toBe(400);
    expect((await platform("DELETE", `/sites/${s.id}/keys/${made.body.id}`)).status).toBe(200);
    expect((await on({ host: s.host, key: made.body.key }, "GET", "/events")).status).toBe(401);
    expect((await platform("DELETE", `/sites/${s.id}/keys/${made.body.id}`)).status).toBe(404);
  });

  test("a site's settings change with the service running: base URL, name, time zone", async () => {
    const s = sites[6];
    const res = await platform("POST", `/sites/${s.id}`, { base_url: "https://cal.s6.example/", name: "Renamed 6" });
    expect(res.body).toMatchObject({ base_url: "https://cal.s6.example", name: "Renamed 6", host: s.host });
    const ev = await on(s, "GET", `/events/${s.event}`);
    expect(ev.body.rest_url).toBe(`https://cal.s6.example${NS}/events/${s.event}`);
    expect((await on(s, "GET", "/events?format=ics")).text).toContain("X-WR-CALNAME:Renamed 6");
    expect((await platform("POST", `/sites/${s.id}`, { host: sites[7].host })).body.code).toBe("rest_site_exists");
  });

  test("deleting a site: its host answers 404 at once, its records go, the others stay; its host is free again after", async () => {
    const gone = sites[9];
    const del = await platform("DELETE", `/sites/${gone.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: gone.id, deleted: true });
    expect((await on(gone, "GET", "/events")).status).toBe(404);
    expect((await platform("GET", `/sites/${gone.id}`)).status).toBe(404);
    expect((await platform("DELETE", `/sites/${gone.id}`)).status).toBe(404);
    const listed = await platform("GET", "/sites?per_page=100");
    expect(listed.body.sites.map((s: Json) => s.id)).not.toContain(gone.id);
    expect(listed.body.total).toBe(SITES);
    // the host is taken until the records are gone, then free
    const again = await until(() => platform("POST", "/sites", { host: gone.host }), r => r.status === 201);
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(gone.id);
    const fresh = { host: gone.host, key: again.body.api_key };
    expect((await on(fresh, "GET", "/events")).body.events).toEqual([]);
    expect((await on(fresh, "GET", "/categories")).body.categories).toEqual([]);
    // nothing of the deleted site is left in the store
    const { acquireStore, releaseStore } = require("../../store");
    const { storeConfig } = require("../../mixins/store.mixin");
    const store = await acquireStore(storeConfig());
    try {
      if (store.kind === "mongo") {
        // MongoDB: the site's database is dropped (store/mongo/store.ts); its keys are gone with its row
        for (const table of ["events", "venues", "terms", "changes", "post_types", "translations", "idempotency_keys"])
          expect([table, await store.collection(table, [], gone.id).count({})]).toEqual([table, 0]);
        expect(await store.sites.userIds(gone.id)).toEqual([]);
        expect(await store.sites.byId(gone.id)).toBeUndefined();
      }
      for (const table of store.kind === "mongo" ? [] : ["events", "venues", "terms", "changes", "post_types", "sequences", "api_keys"]) {
        const [row] = await store.sql.all(`SELECT COUNT(*) AS n FROM ${table} WHERE site = ?`, [gone.id]);
        expect([table, Number(row.n)]).toEqual([table, 0]);
      }
      if (store.kind === "postgres") {
        const seqs = await store.sql.all("SELECT relname FROM pg_class WHERE relkind = 'S' AND relname LIKE ?", [`seq\\_${gone.id}\\_%`]);
        expect(seqs).toEqual([]);
        const others = await store.sql.all("SELECT relname FROM pg_class WHERE relkind = 'S' AND relname LIKE ?", [`seq\\_${sites[0].id}\\_%`]);
        expect(others.length).toBeGreaterThan(0);
      }
    } finally {
      await releaseStore(storeConfig());
    }
    // the others untouched
    await inBatches(sites.filter(s => s !== gone), 10, async s => {
      const list = await on(s, "GET", "/events?per_page=50");
      expect(list.status).toBe(200);
      expect(list.body.events.map((e: Json) => e.id)).toContain(s.event);
    });
    expect((await call(port, "GET", defaultHost, `${NS}/events`)).body.events.map((e: Json) => e.title)).toEqual(["Default opening"]);
  });

  test("internal callers pass the site in meta; without one they act on the default site", async () => {
    const s = sites[10];
    const inSite: Json = await svc.broker.call("events.list", {}, { meta: { site: s.id, caller: undefined } });
    expect(inSite.events.map((e: Json) => e.title)).toEqual(["Opening night 10 zebra10"]);
    const dflt: Json = await svc.broker.call("events.list", {});
    expect(dflt.events.map((e: Json) => e.title)).toEqual(["Default opening"]);
    await expect(svc.broker.call("events.list", {}, { meta: { site: 987654 } })).rejects.toMatchObject({ type: "rest_site_not_found" });
  });
});
