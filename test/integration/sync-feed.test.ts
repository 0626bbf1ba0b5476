/**
 * The change feed's rules through HTTP (C20): the answer's shape, commit order, tokens, paging, what each
 * caller sees (a change to a record it may not read is left out, a record that becomes unreadable is a
 * `deleted` tombstone), the language of the records, the bus events of terms, and parameter errors.
 */
import { startService, Running } from "../helpers/harness";
import { dayAt, expectError, token } from "../helpers/events";
import { Change, feedPage, syncFeed } from "../helpers/sync-client";
import type { Json } from "../helpers/json";

let svc: Running;
const busEvents: Array<{ name: string; payload: Json }> = [];

beforeAll(async () => {
  svc = await startService();
  svc.broker.createService({
    name: "sync-listener",
    events: {
      "calendar.**"(ctx: Json) {
        busEvents.push({ name: ctx.eventName, payload: ctx.params });
      }
    }
  });
  await svc.broker.waitForServices(["sync-listener"]);
});
afterAll(async () => {
  await svc.stop();
});

async function ok(method: string, path: string, body?: Record<string, unknown>, as: "admin" | "author" = "admin") {
  const res = await svc.request(method, path, { as, body });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}
const event = (title: string, extra: Record<string, unknown> = {}) =>
  ok("POST", "/events", { title, start_date: dayAt(4, "10:00:00"), end_date: dayAt(4, "11:00:00"), ...extra });

/** The current end of the feed for a caller. */
async function tail(as?: "admin"): Promise<string> {
  return (await syncFeed(svc, new Map(), { as, perPage: 500 })).token;
}
async function changesSince(since: string, as?: "admin"): Promise<Change[]> {
  return (await syncFeed(svc, new Map(), { as, token: since, perPage: 500 })).seen;
}
const summary = (changes: Change[]) => changes.map(c => `${c.type}:${c.id}:${c.action}${c.record ? "+record" : ""}`);

describe("the answer", () => {
  test("shape and key order; the first page starts at the beginning", async () => {
    await event(`Shape ${token()}`);
    const res = await feedPage(svc, {});
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["changes", "next_token", "has_more"]);
    expect(typeof res.body.next_token).toBe("string");
    expect(typeof res.body.has_more).toBe("boolean");
    const first = res.body.changes[0];
    expect(Object.keys(first)).toEqual(["type", "id", "action", "modified_utc", "record"]);
    expect(first.modified_utc).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(first.record).toEqual(expect.objectContaining({ id: first.id }));
  });

  test("commit order, and the same changes whatever the page size (resumable from every token)", async () => {
    const start = await tail("admin");
    const v = await ok("POST", "/venues", { venue: `Order ${token()}` });
    const e = await event(`Order ${token()}`, { venue: v.id });
    const c = await ok("POST", "/categories", { name: `Order ${token()}` });
    await ok("POST", `/events/${e.id}`, { categories: [c.id] });
    const all = await changesSince(start, "admin");
    // the event's change is stored with the event itself (one transaction), then the category's count moves
    expect(summary(all)).toEqual([
      `venue:${v.id}:created+record`, `event:${e.id}:created+record`, `category:${c.id}:created+record`,
      `event:${e.id}:updated+record`, `category:${c.id}:updated+record`
    ]);
    expect(all.map(ch => ch.record!.id)).toEqual([v.id, e.id, c.id, e.id, c.id]);
    // one change per page, each page resumed from the previous page's token
    const paged = await syncFeed(svc, new Map(), { as: "admin", token: start, perPage: 1 });
    expect(paged.pages).toBeGreaterThanOrEqual(5);
    expect(summary(paged.seen)).toEqual(summary(all));
    // any token resumes exactly after it
    const second = await feedPage(svc, { since: start, per_page: 2 }, "admin");
    const rest = await changesSince(second.body.next_token, "admin");
    expect(summary(rest)).toEqual(summary(all).slice(2));
  });

  test("per_page: default 50, values above 500 reduced to 500, has_more while changes remain", async () => {
    for (let i = 0; i < 3; i++) await ok("POST", "/tags", { name: `Paging ${token()}` });
    const start = await feedPage(svc, {}, "admin");
    expect(start.body.changes.length).toBeLessThanOrEqual(50);
    const big = await feedPage(svc, { per_page: 5000 }, "admin");
    expect(big.status).toBe(200);
    const one = await feedPage(svc, { per_page: 1 }, "admin");
    expect(one.body.changes).toHaveLength(1);
    expect(one.body.has_more).toBe(true);
    const end = await feedPage(svc, { since: await tail("admin") }, "admin");
    expect(end.body).toEqual({ changes: [], next_token: expect.any(String), has_more: false });
  });

  test("bad parameters are 400 rest_invalid_param naming them", async () => {
    for (const since of ["nonsense", "", "MTIz", Buffer.from("chg1:-4").toString("base64url")]) {
      const res = await feedPage(svc, { since });
      expectError(res, 400, "rest_invalid_param");
      expect(Object.keys(res.body.data.params)).toEqual(["since"]);
    }
    for (const per_page of ["0", "-1", "abc", "1.5"]) {
      const res = await feedPage(svc, { per_page });
      expectError(res, 400, "rest_invalid_param");
      expect(Object.keys(res.body.data.params)).toEqual(["per_page"]);
    }
    const fr = await feedPage(svc, { since: "nonsense", i18n_language: "fr" });
    expect(fr.body.data.params.since).toBe("since n’est pas un jeton du flux de modifications.");
  });
});

describe("what each caller sees", () => {
  test("anonymous: drafts are left out; published, made private, trashed and restored show as created, deleted and updated", async () => {
    const start = await tail();
    const draft = await event(`Draft ${token()}`, { status: "draft" });
    await ok("POST", `/events/${draft.id}`, { title: "Still a draft" });
    const pub = await event(`Public ${token()}`);
    await ok("POST", `/events/${pub.id}`, { status: "private" });
    await ok("POST", `/events/${pub.id}`, { status: "publish" });
    await ok("DELETE", `/events/${pub.id}`);
    await ok("POST", `/events/${pub.id}`, { status: "publish" });
    expect(summary(await changesSince(start))).toEqual([
      `event:${pub.id}:created+record`, `event:${pub.id}:deleted`, `event:${pub.id}:updated+record`, `event:${pub.id}:deleted`, `event:${pub.id}:updated+record`
    ]);
    const admin = summary(await changesSince(start, "admin"));
    expect(admin).toContain(`event:${draft.id}:created+record`);
    expect(admin.filter(s => s.startsWith(`event:${pub.id}:`))).toHaveLength(5);
  });

  test("a change made to a record the caller may not read any more is left out: the later tombstone says so", async () => {
    const start = await tail();
    const ev = await event(`Soon private ${token()}`);
    await ok("POST", `/events/${ev.id}`, { title: "Renamed" });
    await ok("POST", `/events/${ev.id}`, { status: "private" });
    expect(summary(await changesSince(start))).toEqual([`event:${ev.id}:deleted`]);
  });

  test("records come in the request's language, as the lists show them", async () => {
    const start = await tail();
    const ev = await event(`Langue ${token()}`);
    const fr = await feedPage(svc, { since: start, i18n_language: "fr" });
    const change = fr.body.changes.find(c => c.id === ev.id)!;
    expect(change.record!.i18n_language).toBe("fr");
    const list = await svc.get(`/events?include=${ev.id}&i18n_language=fr`);
    expect(change.record).toEqual(list.body.events[0]);
  });

  test("term writes are recorded and told on the bus (calendar.<category|tag>.<action>)", async () => {
    const start = await tail();
    busEvents.length = 0;
    const tag = await ok("POST", "/tags", { name: `Bus ${token()}` });
    await ok("POST", `/tags/${tag.id}`, { description: "Described" });
    await ok("DELETE", `/tags/${tag.id}`);
    const cat = await ok("POST", "/categories", { name: `Bus ${token()}` });
    // the tag's earlier changes have no record to show any more: its tombstone stands for them
    expect(summary(await changesSince(start))).toEqual([`tag:${tag.id}:deleted`, `category:${cat.id}:created+record`]);
    await new Promise(r => setTimeout(r, 50));
    const names = busEvents.filter(e => e.payload?.id === tag.id || e.payload?.id === cat.id).map(e => `${e.name}:${e.payload.id}`);
    expect(names).toEqual([`calendar.tag.created:${tag.id}`, `calendar.tag.updated:${tag.id}`, `calendar.tag.deleted:${tag.id}`, `calendar.category.created:${cat.id}`]);
  });

  test("deleting a category records its children (new parent) and the events that lose it", async () => {
    const parent = await ok("POST", "/categories", { name: `Parent ${token()}` });
    const child = await ok("POST", "/categories", { name: `Child ${token()}`, parent: parent.id });
    const ev = await event(`Tagged ${token()}`, { categories: [parent.id] });
    const start = await tail();
    await ok("DELETE", `/categories/${parent.id}`);
    const changes = await changesSince(start);
    expect(summary(changes)).toEqual(expect.arrayContaining([`category:${parent.id}:deleted`, `category:${child.id}:updated+record`, `event:${ev.id}:updated+record`]));
    expect(changes.find(c => c.type === "category" && c.id === child.id)!.record!.parent).toBe(0);
    expect(changes.find(c => c.type === "event" && c.id === ev.id)!.record!.categories).toEqual([]);
  });
});
