/**
 * Text no store keeps alike (docs/errors.md#text-every-store-keeps): a NUL character or an unpaired
 * surrogate in any parameter, at any depth, is 400 `rest_invalid_param` naming it, on every route that
 * takes text and for internal callers (a Moleculer ValidationError), and nothing is written. And long
 * text (docs/records.md#event-slugs, #duplicates, #creating-terms): slugs keep 200 characters, names of
 * venues and organizers any length, term names at most 200. PostgreSQL answered 500 to each before (its
 * text cannot hold NUL, its indexes ~2 700 bytes an entry); runs on the embedded store and
 * (TEST_STORE=postgres, package.json `test:postgres`) on PostgreSQL.
 */
import { Errors } from "moleculer";
import * as http from "http";
import type { Json } from "../helpers/json";
import { startService, succeed, Running } from "../helpers/harness";

const PLATFORM_KEY = "pk-text-input";
const NUL = "a\u0000b";
const LONE = "a\ud800b";
const EVENT = { title: "Text check", start_date: "tomorrow 10:00", end_date: "tomorrow 11:00" };

let svc: Running;
beforeAll(async () => { svc = await startService({ PLATFORM_KEY }); });
afterAll(async () => { await svc.stop(); });

/** Every record the administrator can list, by collection: what a refused write must leave as it was. */
async function everything(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const c of ["events", "venues", "organizers", "categories", "tags"]) {
    const terms = c === "categories" || c === "tags";
    const query = terms ? "hide_empty=false" : `status=publish,draft,pending,private,future${c === "events" ? "&start_date=2000-01-01" : ""}`;
    const res = await svc.request("GET", `/${c}?per_page=50&${query}`, { as: "admin" });
    expect(res.status).toBe(200);
    const body = res.body;
    out[c] = ((body as Json)[c] as Json[]).map(r => [r.id, r.title ?? r.venue ?? r.organizer ?? r.name, r.count]);
  }
  return out;
}

function expectRefused(res: { status: number; body: Json }, param: string): void {
  expect({ status: res.status, code: res.body.code, params: Object.keys(res.body.data?.params ?? {}) }).toEqual({ status: 400, code: "rest_invalid_param", params: [param] });
  expect(res.body.data.params[param]).toMatch(/NUL/);
}

describe("text every store keeps", () => {
  test("writes through HTTP: each text parameter, nested ones included, is refused by name and nothing is written", async () => {
    const event = await succeed(svc, "POST", "/events", { ...EVENT, categories: ["Kept category"], venue: { venue: "Kept hall" } });
    const before = await everything();
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      ["POST", "/events", { ...EVENT, title: NUL }, "title"],
      ["POST", "/events", { ...EVENT, description: LONE }, "description"],
      ["POST", "/events", { ...EVENT, cost: "\udfff" }, "cost"],
      ["POST", "/events", { ...EVENT, venue: { venue: "Hall", address: NUL } }, "venue"],
      ["POST", "/events", { ...EVENT, organizer: [{ organizer: LONE }] }, "organizer"],
      ["POST", "/events", { ...EVENT, categories: ["New one", NUL] }, "categories"],
      ["POST", "/events", { ...EVENT, tags: NUL }, "tags"],
      ["POST", `/events/${event.id}`, { title: NUL }, "title"],
      ["PATCH", `/events/${event.id}`, { excerpt: LONE }, "excerpt"],
      ["POST", "/venues", { venue: "Hall", city: NUL }, "city"],
      ["POST", "/organizers", { organizer: LONE }, "organizer"],
      ["POST", "/categories", { name: NUL }, "name"],
      ["POST", "/tags", { name: "ok", description: LONE }, "description"]
    ];
    for (const [method, path, body, param] of cases) {
      const res = await svc.request(method, path, { as: "admin", body });
      expectRefused(res, param);
    }
    expect(await everything()).toEqual(before);
  });

  test("reads: a search or a filter carrying such text is refused by name", async () => {
    for (const [path, param] of [
      ["/events?search=a%00b", "search"], ["/events?search=%ED%A0%80", "search"], ["/venues?search=x%00", "search"],
      ["/organizers?search=%00", "search"], ["/categories?search=c%00", "search"], ["/tags?slug=t%00", "slug"]
    ] as const) {
      const res = await svc.request("GET", path);
      // %ED%A0%80 is a surrogate in UTF-8, which no decoder keeps: the search is then U+FFFD (answered 200)
      if (path.includes("%ED")) expect(res.status).toBe(200);
      else expectRefused(res, param);
    }
  });

  test("other text is kept as sent: control characters, emoji, astral characters", async () => {
    const title = "Tab\there \u0001 🎉 𨺱 end";
    const created = await succeed(svc, "POST", "/events", { ...EVENT, title, categories: ["Cat 🎉"] });
    const read = await svc.request("GET", `/events/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body.title).toBe(title);
    expect(read.body.categories[0].name).toBe("Cat 🎉");
    const found = await svc.request("GET", `/events?search=${encodeURIComponent("🎉")}`);
    expect(found.status).toBe(200);
    expect(found.body.events.map((e: Json) => e.id)).toContain(created.id);
  });

  test("internal callers: a ValidationError naming the parameter, from the broker and from another service", async () => {
    const direct: Json = await svc.broker.call("events.create", { ...EVENT, title: NUL }).catch(err => err);
    expect(direct).toBeInstanceOf(Errors.ValidationError);
    expect(direct.data).toEqual([expect.objectContaining({ type: "param.text", field: "title" })]);
    const other = svc.broker.createService({
      name: "billing-text-check",
      actions: { make(ctx) { return ctx.call("venues.create", { venue: "Hall", address: LONE }); } }
    });
    await svc.broker.waitForServices("billing-text-check");
    try {
      const viaService: Json = await svc.broker.call("billing-text-check.make").catch(err => err);
      expect(viaService).toBeInstanceOf(Errors.ValidationError);
      expect(viaService.data).toEqual([expect.objectContaining({ type: "param.text", field: "address" })]);
    } finally {
      await svc.broker.destroyService(other);
    }
    const search: Json = await svc.broker.call("events.list", { search: LONE }).catch(err => err);
    expect(search).toMatchObject({ type: "VALIDATION_ERROR", data: [expect.objectContaining({ field: "search" })] });
  });

  test("the platform API (no parameter schema of its own) refuses such text in a site", async () => {
    const body = JSON.stringify({ host: "text-check.example", name: NUL });
    const answer = await new Promise<{ status: number; body: Json }>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port: svc.port, method: "POST", path: "/platform/v1/sites",
        headers: { Host: "text-check.example", Authorization: `Bearer ${PLATFORM_KEY}`, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } }, res => {
        let text = "";
        res.on("data", d => { text += d; });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on("error", reject);
      req.end(body);
    });
    expectRefused(answer, "name");
    const list = await fetch(`${svc.base}/platform/v1/sites`, { headers: { Authorization: `Bearer ${PLATFORM_KEY}` } });
    expect(((await list.json()) as Json).sites.map((s: Json) => s.host)).not.toContain("text-check.example");
  });
});

/** Words that do not compress (an index entry of them is as long as they are). */
const words = (count: number, tail = ""): string => Array.from({ length: count }, (_, i) => `w${String(i).padStart(4, "0")}`).join(" ") + tail;

describe("long text", () => {
  test("a title of thousands of characters makes a slug of at most 200, found by it, and suffixed when taken", async () => {
    const title = words(600);
    const first = await succeed(svc, "POST", "/events", { ...EVENT, title });
    const second = await succeed(svc, "POST", "/events", { ...EVENT, title });
    expect(first.title).toBe(title);
    expect(first.slug.length).toBeLessThanOrEqual(200);
    expect(first.slug).toMatch(/^w0000-w0001-.*[^-]$/);
    expect(second.slug).toBe(`${first.slug}-2`);
    const bySlug = await svc.request("GET", `/events/by-slug/${first.slug}`);
    expect({ status: bySlug.status, id: bySlug.body.id }).toEqual({ status: 200, id: first.id });
    const renamed = await succeed(svc, "POST", `/events/${first.id}`, { slug: words(700) });
    expect(renamed.slug.length).toBeLessThanOrEqual(200);
  });

  test("venues and organizers keep long names; duplicates are told apart by the whole name", async () => {
    const a = await succeed(svc, "POST", "/venues", { venue: words(500, " A") });
    const b = await succeed(svc, "POST", "/venues", { venue: words(500, " B") });
    expect(b.id).not.toBe(a.id);
    expect(b.venue).toBe(words(500, " B"));
    const again = await succeed(svc, "POST", "/venues", { venue: words(500, " a") });
    expect(again.id).toBe(a.id);
    const inline = await succeed(svc, "POST", "/events", { ...EVENT, venue: { venue: words(500, " B") }, organizer: { organizer: words(400) } });
    expect(inline.venue.id).toBe(b.id);
    const organizer = await succeed(svc, "POST", "/organizers", { organizer: words(400) });
    expect(organizer.id).toBe(inline.organizer[0].id);
  });

  test("term names: 200 characters fit, a longer one is refused on every route that would store it", async () => {
    const fits = await svc.request("POST", "/categories", { as: "admin", body: { name: "🎉".repeat(200) } });
    expect(fits.status).toBe(201);
    const before = await everything();
    const tag = await succeed(svc, "POST", "/tags", { name: "Short tag" });
    const afterTag = await everything();
    for (const [method, path, body, param] of [
      ["POST", "/categories", { name: "🎉".repeat(201) }, "name"],
      ["POST", "/tags", { name: words(100) }, "name"],
      ["POST", `/tags/${tag.id}`, { name: words(100) }, "name"],
      ["POST", "/events", { ...EVENT, categories: [words(60)] }, "categories"],
      ["POST", "/events", { ...EVENT, tags: `ok, ${words(60)}` }, "tags"]
    ] as Array<[string, string, Record<string, unknown>, string]>) {
      const res = await svc.request(method, path, { as: "admin", body });
      expect({ path, status: res.status, code: res.body.code, params: Object.keys(res.body.data?.params ?? {}) }).toEqual({ path, status: 400, code: "rest_invalid_param", params: [param] });
      expect(res.body.data.params[param]).toMatch(/200/);
    }
    expect(await everything()).toEqual(afterTag);
    expect(before).not.toEqual(afterTag);
  });

  test("post passwords: 255 characters fit (and open the record), a longer one is refused on events, venues and organizers", async () => {
    const fits = "p".repeat(254) + "🔑";
    const event = await succeed(svc, "POST", "/events", { ...EVENT, title: "Locked long", post_password: fits });
    const open = await svc.request("GET", `/events/${event.id}?password=${encodeURIComponent(fits)}`);
    expect(open.status).toBe(200);
    const listed = await svc.request("GET", `/events?search=locked%20long&password=${encodeURIComponent(fits)}`);
    expect(listed.body.events.map((e: Json) => e.id)).toEqual([event.id]);
    const before = await everything();
    for (const [path, body] of [
      ["/events", { ...EVENT, post_password: "q".repeat(256) }],
      [`/events/${event.id}`, { post_password: "q".repeat(5000) }],
      ["/venues", { venue: "Locked hall", post_password: "q".repeat(256) }],
      ["/organizers", { organizer: "Locked org", post_password: "q".repeat(300) }]
    ] as Array<[string, Record<string, unknown>]>) {
      const res = await svc.request("POST", path, { as: "admin", body });
      expect({ path, status: res.status, params: Object.keys(res.body.data?.params ?? {}) }).toEqual({ path, status: 400, params: ["post_password"] });
      expect(res.body.data.params.post_password).toMatch(/255/);
    }
    expect(await everything()).toEqual(before);
  });
});

