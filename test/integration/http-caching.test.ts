/**
 * HTTP caching through the real gateway (C22: caching headers and shaping): a strong ETag on every GET (items and list pages), varying
 * with the caller and the language; `If-None-Match` → 304; `Last-Modified` (a list page's = the newest
 * `modified_utc` among its records) and `If-Modified-Since`; `If-Match` on updates and deletes → 412
 * `rest_precondition_failed` once the record moved on.
 */
import { startService, Running, KeyName } from "../helpers/harness";
import { dayAt, expectError, token } from "../helpers/events";
import type { Json } from "../helpers/json";

let svc: Running;

beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc.stop();
});

const STRONG = /^"[A-Za-z0-9_-]{16,}"$/;
const get = (path: string, headers: Record<string, string> = {}, as?: KeyName) => svc.request("GET", path, { headers, as });
const httpDate = (db: string) => new Date(`${db.replace(" ", "T")}Z`).toUTCString();
const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

async function create(path: string, body: Record<string, unknown>) {
  const res = await svc.request("POST", path, { as: "admin", body });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}
const event = (title: string) => create("/events", { title, start_date: dayAt(6, "18:00:00"), end_date: dayAt(6, "20:00:00") });

describe("ETag and If-None-Match", () => {
  test("a record: strong ETag, 304 when it matches, 200 with a new tag once the record changed", async () => {
    const ev = await event(`Etag ${token()}`);
    const first = await get(`/events/${ev.id}`);
    const tag = first.headers.get("etag")!;
    expect(tag).toMatch(STRONG);
    expect(first.headers.get("vary")).toContain("Authorization");
    const again = await get(`/events/${ev.id}`, { "If-None-Match": tag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(tag);
    expect((await get(`/events/${ev.id}`, { "If-None-Match": `"other", ${tag}` })).status).toBe(304);
    expect((await get(`/events/${ev.id}`, { "If-None-Match": "\"other\"" })).status).toBe(200);
    await svc.request("POST", `/events/${ev.id}`, { as: "admin", body: { title: "Changed" } });
    const after = await get(`/events/${ev.id}`, { "If-None-Match": tag });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(tag);
  });

  test("the tag varies with the caller and the language, and with _fields", async () => {
    const ev = await event(`Vary ${token()}`);
    const anonymous = (await get(`/events/${ev.id}`)).headers.get("etag");
    const subscriber = (await get(`/events/${ev.id}`, {}, "subscriber")).headers.get("etag");
    const editor = (await get(`/events/${ev.id}`, {}, "editor")).headers.get("etag");
    const french = (await get(`/events/${ev.id}?i18n_language=fr`)).headers.get("etag");
    const fields = (await get(`/events/${ev.id}?_fields=id,title`)).headers.get("etag");
    expect(new Set([anonymous, subscriber, editor, french, fields]).size).toBe(5);
    // the same caller and language again: the same tag (a tag belongs to exactly these bytes)
    expect((await get(`/events/${ev.id}`, {}, "editor")).headers.get("etag")).toBe(editor);
    // a tag made for another caller does not validate this caller's copy
    expect((await get(`/events/${ev.id}`, { "If-None-Match": editor! })).status).toBe(200);
  });

  test("a list page: ETag, 304, and a new tag when one of its records changes", async () => {
    const word = token("list");
    const a = await event(`${word} a`);
    await event(`${word} b`);
    const page = await get(`/events?search=${word}`);
    expect(page.body.events).toHaveLength(2);
    const tag = page.headers.get("etag")!;
    expect(tag).toMatch(STRONG);
    expect((await get(`/events?search=${word}`, { "If-None-Match": tag })).status).toBe(304);
    await svc.request("POST", `/events/${a.id}`, { as: "admin", body: { excerpt: "New excerpt" } });
    expect((await get(`/events?search=${word}`, { "If-None-Match": tag })).status).toBe(200);
  });

  test("every GET of the namespace carries one: venues, organizers, terms, the index, /doc, the change feed", async () => {
    const venue = await create("/venues", { venue: `Tagged ${token()}` });
    const cat = await create("/categories", { name: `Tagged ${token()}` });
    for (const path of [`/venues/${venue.id}`, "/venues", "/organizers", `/categories/${cat.id}`, "/categories", "/tags", svc.ns, "/doc", `${svc.ns}/changes`]) {
      const res = await get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      const tag = res.headers.get("etag")!;
      expect({ path, tag }).toEqual({ path, tag: expect.stringMatching(STRONG) });
      expect({ path, status: (await get(path, { "If-None-Match": tag })).status }).toEqual({ path, status: 304 });
    }
  });

  test("errors and writes carry none", async () => {
    expect((await get("/events/999999")).headers.get("etag")).toBeNull();
    const created = await svc.request("POST", "/tags", { as: "admin", body: { name: `No tag ${token()}` } });
    expect(created.headers.get("etag")).toBeNull();
  });
});

describe("Last-Modified and If-Modified-Since", () => {
  test("a record's Last-Modified is its modified_utc", async () => {
    const ev = await event(`Modified ${token()}`);
    const res = await get(`/events/${ev.id}`);
    expect(res.headers.get("last-modified")).toBe(httpDate(res.body.modified_utc));
    const since = res.headers.get("last-modified")!;
    expect((await get(`/events/${ev.id}`, { "If-Modified-Since": since })).status).toBe(304);
    expect((await get(`/events/${ev.id}`, { "If-Modified-Since": new Date(Date.parse(since) - 60_000).toUTCString() })).status).toBe(200);
  });

  test("a list page's Last-Modified is the newest modified_utc among its records", async () => {
    const word = token("newest");
    const old = await create("/venues", { venue: `${word} old` });
    await sleep(1100);
    const recent = await create("/venues", { venue: `${word} recent` });
    const list = await get(`/venues?search=${word}`);
    expect(list.body.venues.map((v: Json) => v.id).sort()).toEqual([old.id, recent.id].sort());
    expect(recent.modified_utc > old.modified_utc).toBe(true);
    expect(list.headers.get("last-modified")).toBe(httpDate(recent.modified_utc));
    const single = await get(`/venues?search=${word}&per_page=1&page=2`);
    expect(single.headers.get("last-modified")).toBe(httpDate(single.body.venues[0].modified_utc));
  });

  test("terms send their internal modified time", async () => {
    const tag = await create("/tags", { name: `Dated ${token()}` });
    const item = await get(`/tags/${tag.id}`);
    const lastModified = item.headers.get("last-modified")!;
    expect(Date.now() - Date.parse(lastModified)).toBeLessThan(60_000);
    expect((await get(`/tags/${tag.id}`, { "If-Modified-Since": lastModified })).status).toBe(304);
    expect((await get(`/tags?include=${tag.id}&hide_empty=false`)).headers.get("last-modified")).toBe(lastModified);
  });
});

describe("If-Match on updates and deletes", () => {
  test("the current tag passes; a stale or weak one is 412 rest_precondition_failed; * passes while the record exists", async () => {
    const ev = await event(`Match ${token()}`);
    const current = (await get(`/events/${ev.id}`, {}, "editor")).headers.get("etag")!;
    const ok = await svc.request("POST", `/events/${ev.id}`, { as: "editor", headers: { "If-Match": current }, body: { title: "First edit" } });
    expect(ok.status).toBe(200);
    const stale = await svc.request("POST", `/events/${ev.id}`, { as: "editor", headers: { "If-Match": current }, body: { title: "Lost update" } });
    expectError(stale, 412, "rest_precondition_failed");
    expect((await get(`/events/${ev.id}`)).body.title).toBe("First edit");
    const weak = await svc.request("PUT", `/events/${ev.id}`, { as: "editor", headers: { "If-Match": `W/${(await get(`/events/${ev.id}`, {}, "editor")).headers.get("etag")}` }, body: { title: "Weak" } });
    expectError(weak, 412, "rest_precondition_failed");
    const star = await svc.request("PATCH", `/events/${ev.id}`, { as: "editor", headers: { "If-Match": "*" }, body: { title: "Star" } });
    expect(star.status).toBe(200);
    const french = await svc.request("POST", `/events/${ev.id}?i18n_language=fr`, { as: "editor", headers: { "If-Match": "\"nope\"" }, body: { title: "x" } });
    expectError(french, 412, "rest_precondition_failed");
    expect(french.body.message).not.toBe(stale.body.message);
  });

  test("a tag is the record as this caller would GET it (another caller's tag does not match)", async () => {
    const ev = await event(`Callers ${token()}`);
    const adminTag = (await get(`/events/${ev.id}`, {}, "admin")).headers.get("etag")!;
    const res = await svc.request("POST", `/events/${ev.id}`, { as: "editor", headers: { "If-Match": adminTag }, body: { title: "x" } });
    expectError(res, 412, "rest_precondition_failed");
  });

  test("DELETE by id and by slug, venues, organizers and terms", async () => {
    const ev = await event(`Delete ${token()}`);
    const tag1 = (await get(`/events/${ev.id}`, {}, "admin")).headers.get("etag")!;
    await svc.request("POST", `/events/${ev.id}`, { as: "admin", body: { excerpt: "moved on" } });
    expectError(await svc.request("DELETE", `/events/${ev.id}`, { as: "admin", headers: { "If-Match": tag1 } }), 412, "rest_precondition_failed");
    const bySlug = await get(`/events/by-slug/${ev.slug}`, {}, "admin");
    expect(bySlug.headers.get("etag")).toMatch(STRONG);
    const del = await svc.request("DELETE", `/events/by-slug/${ev.slug}`, { as: "admin", headers: { "If-Match": bySlug.headers.get("etag")! } });
    expect(del.status).toBe(200);

    for (const [path, body] of [["/venues", { venue: `IfMatch ${token()}` }], ["/organizers", { organizer: `IfMatch ${token()}` }], ["/tags", { name: `IfMatch ${token()}` }], ["/categories", { name: `IfMatch ${token()}` }]] as const) {
      const rec = await create(path, body);
      const tag = (await get(`${path}/${rec.id}`, {}, "admin")).headers.get("etag")!;
      expectError(await svc.request("POST", `${path}/${rec.id}`, { as: "admin", headers: { "If-Match": "\"stale\"" }, body: { description: "x" } }), 412, "rest_precondition_failed");
      const upd = await svc.request("POST", `${path}/${rec.id}`, { as: "admin", headers: { "If-Match": tag }, body: { description: "Described" } });
      expect({ path, status: upd.status }).toEqual({ path, status: 200 });
      expectError(await svc.request("DELETE", `${path}/${rec.id}`, { as: "admin", headers: { "If-Match": tag } }), 412, "rest_precondition_failed");
      const fresh = (await get(`${path}/${rec.id}`, {}, "admin")).headers.get("etag")!;
      expect((await svc.request("DELETE", `${path}/${rec.id}`, { as: "admin", headers: { "If-Match": fresh } })).status).toBe(200);
    }
  });

  test("no record the caller may read: the operation answers as without the header", async () => {
    expectError(await svc.request("POST", "/events/987654", { as: "admin", headers: { "If-Match": "\"x\"" }, body: { title: "x" } }), 404, "rest-event-not-found");
    const ev = await event(`Gone ${token()}`);
    await svc.request("DELETE", `/events/${ev.id}`, { as: "admin" });
    expectError(await svc.request("DELETE", `/events/${ev.id}`, { as: "admin", headers: { "If-Match": "*" } }), 410, "event-is-in-trash");
  });
});
