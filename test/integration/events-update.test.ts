/**
 * Updating and deleting events through HTTP (docs/records.md#updating-an-event, #deleting-an-event, #events-by-slug; D3 to D5: partial updates, the path selects the record, by-slug permissions; C13: trash as DELETE): the three update methods,
 * partial updates, dates and time zones on update, slugs, status changes, trash through update and
 * DELETE, by-slug operations, and the error codes of these operations.
 */
import { startService, Running } from "../helpers/harness";
import { createEvent, EVENT_KEYS, expectError, expectInvalid } from "../helpers/events";
import type { Json } from "../helpers/json";

describe("events: update and delete", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService(); });
  afterAll(async () => { await svc.stop(); });

  const update = (id: number | string, body: Record<string, unknown>, as: Json = "admin", method = "POST") => svc.request(method, `/events/${id}`, { as, body });

  describe("by id", () => {
    test.each(["POST", "PUT", "PATCH"])("%s updates and answers 200 with the record (no json_ld)", async method => {
      const ev = await createEvent(svc, { title: `Before ${method}` });
      const res = await update(ev.id, { title: `After ${method}` }, "admin", method);
      expect(res.status).toBe(200);
      expect(res.body.title).toBe(`After ${method}`);
      expect(res.body).not.toHaveProperty("json_ld");
      expect((await svc.get(`/events/${ev.id}`)).body.title).toBe(`After ${method}`);
    });

    test("D3: fields not sent are left unchanged (the slug follows neither a new title)", async () => {
      const ev = await createEvent(svc, {
        title: "Partial", description: "Desc", excerpt: "Exc", start_date: "2030-02-01 10:00", end_date: "2030-02-01 12:00", timezone: "Europe/Rome",
        cost: "$5", website: "http://example.org", show_map: true, show_map_link: true, sticky: true, featured: true, all_day: false,
        image: "https://cdn.example.org/partial.png", date: "2024-01-01 00:00:00"
      });
      const res = await update(ev.id, { title: "Partial renamed" });
      const changed = new Set(["title", "modified", "modified_utc"]);
      for (const key of EVENT_KEYS) if (!changed.has(key)) expect([key, res.body[key]]).toEqual([key, ev[key]]);
      expect(res.body.slug).toBe("partial");
    });

    test("dates: one date alone keeps the other; start after the stored end moves the end", async () => {
      const ev = await createEvent(svc, { start_date: "2030-03-01 10:00:00", end_date: "2030-03-01 12:00:00" });
      const start = await update(ev.id, { start_date: "2030-03-01 11:00:00" });
      expect([start.body.start_date, start.body.end_date]).toEqual(["2030-03-01 11:00:00", "2030-03-01 12:00:00"]);
      const end = await update(ev.id, { end_date: "2030-03-02 12:00:00" });
      expect([end.body.start_date, end.body.end_date]).toEqual(["2030-03-01 11:00:00", "2030-03-02 12:00:00"]);
      const late = await update(ev.id, { start_date: "2030-03-05 09:00:00" });
      expect([late.body.start_date, late.body.end_date, late.body.utc_end_date]).toEqual(["2030-03-05 09:00:00", "2030-03-05 09:00:00", "2030-03-05 09:00:00"]);
    });

    test("all_day alone converts the stored dates; all_day false alone keeps the times", async () => {
      const ev = await createEvent(svc, { start_date: "2030-04-01 10:00:00", end_date: "2030-04-02 12:00:00" });
      const on = await update(ev.id, { all_day: true });
      expect([on.body.all_day, on.body.start_date, on.body.end_date]).toEqual([true, "2030-04-01 00:00:00", "2030-04-02 23:59:59"]);
      const off = await update(ev.id, { all_day: "false" });
      expect([off.body.all_day, off.body.start_date, off.body.end_date]).toEqual([false, "2030-04-01 00:00:00", "2030-04-02 23:59:59"]);
      const moved = await update(ev.id, { all_day: true, start_date: "2030-04-03 15:00" });
      expect([moved.body.start_date, moved.body.end_date]).toEqual(["2030-04-03 00:00:00", "2030-04-03 23:59:59"]);
    });

    test("timezone alone keeps the wall clock and recomputes UTC and the abbreviation; \"\" resets to the site zone", async () => {
      const ev = await createEvent(svc, { start_date: "2030-01-15 09:00:00", end_date: "2030-01-15 10:00:00" });
      const ny = await update(ev.id, { timezone: "America/New_York" });
      expect(ny.body).toEqual(expect.objectContaining({ timezone: "America/New_York", timezone_abbr: "EST", start_date: "2030-01-15 09:00:00", utc_start_date: "2030-01-15 14:00:00", utc_end_date: "2030-01-15 15:00:00" }));
      const moved = await update(ev.id, { start_date: "2030-07-15 09:00:00", end_date: "2030-07-15 10:00:00" });
      expect([moved.body.timezone_abbr, moved.body.utc_start_date]).toEqual(["EDT", "2030-07-15 13:00:00"]);
      const fixed = await update(ev.id, { timezone: "UTC+2" });
      expect([fixed.body.timezone_abbr, fixed.body.utc_start_date]).toEqual(["UTC+2", "2030-07-15 07:00:00"]);
      const reset = await update(ev.id, { timezone: "" });
      expect([reset.body.timezone, reset.body.timezone_abbr, reset.body.utc_start_date]).toEqual(["UTC", "UTC", "2030-07-15 09:00:00"]);
      expectInvalid(await update(ev.id, { timezone: "Nowhere/Land" }), "timezone");
    });

    test("cost, website, flags, text and image are replaced when sent", async () => {
      const ev = await createEvent(svc, { cost: "20$", website: "http://a.example.org", featured: true, description: "one", image: "https://cdn.example.org/u1.png" });
      const res = await update(ev.id, { cost: ["€6.50", "€8.50"], website: "", featured: false, sticky: true, description: "two", excerpt: "short", image: "https://cdn.example.org/u2.png" });
      expect(res.body).toEqual(expect.objectContaining({
        cost: "€6.50 \u2013 €8.50", cost_details: { currency_symbol: "€", currency_code: "", currency_position: "prefix", values: ["6.50", "8.50"] },
        website: "", featured: false, sticky: true, description: "<p>two</p>", excerpt: "<p>short</p>"
      }));
      expect(res.body.image.url).toBe("https://cdn.example.org/u2.png");
      expectInvalid(await update(ev.id, { image: "" }), "image");
      expectInvalid(await update(ev.id, { description: "" }), "description");
      expect((await update(ev.id, { cost: "" })).body.cost).toBe("");
    });

    test("slug: normalised and unique excluding this event", async () => {
      const a = await createEvent(svc, { title: "Slug Holder" });
      const b = await createEvent(svc, { title: "Slug Mover" });
      expect((await update(b.id, { slug: "Slug Holder" })).body.slug).toBe("slug-holder-2");
      expect((await update(a.id, { slug: "slug-holder" })).body.slug).toBe("slug-holder");
      expect((await update(b.id, { slug: "Brand New!" })).body.slug).toBe("brand-new");
      expect((await update(b.id, { slug: "feed" })).body.slug).toBe("feed-2");
      expectInvalid(await update(b.id, { slug: "" }), "slug");
    });

    test("status: resolved per role; a date change re-applies the 60 s rule to published and future events", async () => {
      const ev = await createEvent(svc, { title: "Status flow" }, "author");
      expect((await update(ev.id, { status: "draft" }, "author")).body.status).toBe("draft");
      const own = await createEvent(svc, { title: "Contributor draft" }, "contributor");
      expect((await update(own.id, { status: "publish" }, "contributor")).body.status).toBe("pending");
      const fut = await update(ev.id, { status: "publish", date: "+2 days" }, "author");
      expect(fut.body.status).toBe("future");
      expect(fut.body.url).toContain("?post_type=tribe_events&p=");
      const back = await update(ev.id, { date: "-1 day" }, "author");
      expect(back.body.status).toBe("publish");
      expect((await update(ev.id, { status: "private" }, "admin")).body.status).toBe("private");
      expectInvalid(await update(ev.id, { status: "gone" }, "admin"), "status");
    });

    test("C13: a future event whose date has passed is published before anything reads it", async () => {
      const ev = await createEvent(svc, { title: "Due soon", date: "+1 day" });
      expect(ev.status).toBe("future");
      expectError(await svc.get(`/events/${ev.id}`), 403, "event-not-accessible");
      const store = (svc.broker as Json).getLocalService("events").store;
      await store.updateOne({ _id: ev.id }, { $set: { date_utc: "2020-01-01 00:00:00", date: "2020-01-01 00:00:00" } });
      await new Promise(r => setTimeout(r, 1100));
      const res = await svc.get(`/events/${ev.id}`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("publish");
    });

    test("the password parameter is accepted (non-empty) and otherwise unused", async () => {
      const ev = await createEvent(svc, {});
      expect((await update(ev.id, { title: "With password", password: "whatever" })).status).toBe(200);
      expectInvalid(await update(ev.id, { password: "" }), "password");
      expectInvalid(await svc.request("DELETE", `/events/${ev.id}?password=`, { as: "admin" }), "password");
    });

    test("errors: missing id 404 (after the general permission), non-event id 400, non-numeric id no route, validation first", async () => {
      const res = await update(987654, { title: "x" });
      expectError(res, 404, "rest-event-not-found");
      expect(res.body.message).toContain("987654");
      expectError(await update(0, { title: "x" }), 404, "rest-event-not-found");
      expectError(await update(987654, { title: "x" }, null), 401, "rest_forbidden");
      expectError(await update(987654, { title: "x" }, "subscriber"), 403, "rest_forbidden");
      const img = (await createEvent(svc, { image: "https://cdn.example.org/upd.png" })).image.id;
      expectError(await update(img, { title: "x" }), 400, "rest-invalid-event-id");
      expectError(await update("abc", { title: "x" }), 404, "rest_no_route");
      const ev = await createEvent(svc, {});
      expectInvalid(await update(ev.id, { title: "" }, null), "title");
      expectError(await update(ev.id, { title: "ok" }, null), 401, "rest_forbidden");
    });

    test("post_password is set and cleared by whoever may edit the event (D32: setting a password); post_parent can change (D31)", async () => {
      const ev = await createEvent(svc, { title: "Lockable" }, "author");
      expect((await update(ev.id, { post_password: "pw" }, "author")).status).toBe(200);
      expectError(await svc.get(`/events/${ev.id}`), 403, "event-password-protected");
      expect((await update(ev.id, { post_password: "" }, "author")).status).toBe(200);
      expect((await svc.get(`/events/${ev.id}`)).status).toBe(200);
      expectError(await update(ev.id, { post_password: "x" }, "author2"), 403, "rest_forbidden");
      const parent = await createEvent(svc, { title: "New parent" });
      await update(ev.id, { post_parent: parent.id }, "author");
      expect((await svc.get(`/events?post_parent=${parent.id}`)).body.events.map((e: Json) => e.id)).toEqual([ev.id]);
    });
  });

  describe("trash (docs/records.md#deleting-an-event, C13: a due future post counts as published)", () => {
    test("DELETE moves to the trash: status, suffixed slug and permalink, links kept; then 410; GET 403 for everyone", async () => {
      const ev = await createEvent(svc, { title: "To Trash", featured: true });
      const del = await svc.request("DELETE", `/events/${ev.id}`, { as: "admin" });
      expect(del.status).toBe(200);
      expect(del.body).toEqual(expect.objectContaining({ id: ev.id, status: "trash", slug: "to-trash__trashed", featured: true }));
      expect(del.body.url).toMatch(/\/event\/to-trash__trashed\/$/);
      expectError(await svc.request("DELETE", `/events/${ev.id}`, { as: "admin" }), 410, "event-is-in-trash");
      for (const as of [undefined, "subscriber", "author", "editor", "admin"] as const) expectError(await svc.get(`/events/${ev.id}`, as), 403, "event-no-longer-available");
      expectInvalid(await svc.get("/events/by-slug/to-trash"), "slug");
      expectError(await svc.get("/events/by-slug/to-trash__trashed", "admin"), 403, "event-no-longer-available");
      expect((await svc.get(`/events?status=trash&include=${ev.id}`, "admin")).body.events.map((e: Json) => e.id)).toEqual([ev.id]);
      expect((await svc.get(`/events?include=${ev.id}`, "admin")).body.events).toEqual([]);
    });

    test("status=trash through update does what DELETE does; a trashed event can be updated and leaves the trash with a unique slug", async () => {
      const ev = await createEvent(svc, { title: "Round Trip" });
      const trashed = await update(ev.id, { status: "trash" });
      expect([trashed.body.status, trashed.body.slug]).toEqual(["trash", "round-trip__trashed"]);
      expectError(await svc.request("DELETE", `/events/${ev.id}`, { as: "admin" }), 410, "event-is-in-trash");
      const edited = await update(ev.id, { title: "Round Trip edited" });
      expect([edited.status, edited.body.status, edited.body.slug]).toEqual([200, "trash", "round-trip__trashed"]);
      const taker = await createEvent(svc, { title: "Round Trip" });
      expect(taker.slug).toBe("round-trip");
      const restored = await update(ev.id, { status: "publish" });
      expect([restored.body.status, restored.body.slug]).toEqual(["publish", "round-trip-2"]);
      expect((await svc.get(`/events/${ev.id}`)).status).toBe(200);
      const draft = await createEvent(svc, { title: "Draft Trip", status: "draft", slug: "draft-trip" });
      await svc.request("DELETE", `/events/${draft.id}`, { as: "admin" });
      const back = await update(draft.id, { status: "draft" });
      expect([back.body.status, back.body.slug]).toEqual(["draft", "draft-trip"]);
    });

    test("a trashed event is judged by its prior status: the contributor may restore its own draft, not its own published event", async () => {
      const own = await createEvent(svc, { title: "Contributor trash" }, "contributor");
      expect((await svc.request("DELETE", `/events/${own.id}`, { as: "contributor" })).status).toBe(200);
      expect((await update(own.id, { status: "draft" }, "contributor")).body.status).toBe("draft");
      const pub = await createEvent(svc, { title: "Published for contributor", author: 5 });
      expectError(await update(pub.id, { status: "trash" }, "contributor"), 403, "rest_forbidden");
      await svc.request("DELETE", `/events/${pub.id}`, { as: "admin" });
      expectError(await update(pub.id, { status: "draft" }, "contributor"), 403, "rest_forbidden");
    });

    test("DELETE errors: missing 404, non-event 400, anonymous 401 (existing or not), validation of password first", async () => {
      expectError(await svc.request("DELETE", "/events/876543", { as: "admin" }), 404, "rest-event-not-found");
      expectError(await svc.request("DELETE", "/events/0", { as: "admin" }), 404, "rest-event-not-found");
      expectError(await svc.request("DELETE", "/events/876543"), 401, "rest_forbidden");
      expectError(await svc.request("DELETE", "/events/876543", { as: "subscriber" }), 403, "rest_forbidden");
      const img = (await createEvent(svc, { image: "https://cdn.example.org/del.png" })).image.id;
      expectError(await svc.request("DELETE", `/events/${img}`, { as: "admin" }), 400, "rest-invalid-event-id");
      const ev = await createEvent(svc, {});
      expectError(await svc.request("DELETE", `/events/${ev.id}`), 401, "rest_forbidden");
      expectInvalid(await svc.request("DELETE", `/events/${ev.id}?password=`), "password");
      expect((await svc.request("DELETE", `/events/${ev.id}?password=ignored`, { as: "admin" })).status).toBe(200);
    });
  });

  describe("by slug (docs/records.md#events-by-slug, D4: the path selects the record; D5: by-slug writes check the record's own permissions)", () => {
    test("GET by slug: normalised lookup, any status by permission, unknown slug 400", async () => {
      const ev = await createEvent(svc, { title: "Slug Read" });
      expect((await svc.get("/events/by-slug/Slug-Read")).body.id).toBe(ev.id);
      expect((await svc.get("/events/by-slug/slug-read/")).body.id).toBe(ev.id);
      expectInvalid(await svc.get("/events/by-slug/no-such-event"), "slug");
      expectInvalid(await svc.get("/events/by-slug/100%25"), "slug");
      const draft = await createEvent(svc, { title: "Slug Draft", status: "draft", slug: "slug-draft" }, "author");
      expectError(await svc.get("/events/by-slug/slug-draft"), 403, "event-not-accessible");
      expectError(await svc.get("/events/by-slug/slug-draft", "author2"), 403, "event-not-accessible");
      expect((await svc.get("/events/by-slug/slug-draft", "author")).body.id).toBe(draft.id);
      const venueLike = await svc.get("/events/by-slug/");
      expectError(venueLike, 404, "rest_no_route");
    });

    test.each(["POST", "PUT", "PATCH"])("%s by slug: the path selects, a body slug renames (D4: the path selects the record)", async method => {
      const ev = await createEvent(svc, { title: `Rename Me ${method}` });
      const res = await svc.request(method, `/events/by-slug/${ev.slug}`, { as: "admin", body: { slug: `renamed-${method}`, title: "Renamed" } });
      expect(res.status).toBe(200);
      expect([res.body.id, res.body.slug, res.body.title]).toEqual([ev.id, `renamed-${method.toLowerCase()}`, "Renamed"]);
      expectInvalid(await svc.get(`/events/by-slug/${ev.slug}`), "slug");
      expect((await svc.get(`/events/by-slug/renamed-${method}`)).body.id).toBe(ev.id);
      const plain = await svc.request(method, `/events/by-slug/renamed-${method}`, { as: "admin", body: { title: "Only title" } });
      expect([plain.body.slug, plain.body.title]).toEqual([`renamed-${method.toLowerCase()}`, "Only title"]);
    });

    test("a body slug taken by another event is made unique; an empty one is 400; the body cannot retarget (D4: the path selects the record)", async () => {
      const a = await createEvent(svc, { title: "Slug Target A" });
      const b = await createEvent(svc, { title: "Slug Target B" });
      const res = await svc.request("POST", `/events/by-slug/${b.slug}`, { as: "admin", body: { slug: a.slug } });
      expect([res.body.id, res.body.slug]).toEqual([b.id, "slug-target-a-2"]);
      expectInvalid(await svc.request("POST", `/events/by-slug/${a.slug}`, { as: "admin", body: { slug: "" } }), "slug");
      const byId = await svc.request("POST", `/events/${a.id}`, { as: "admin", body: { id: b.id, title: "Path wins" } });
      expect(byId.body.id).toBe(a.id);
      expect((await svc.get(`/events/${b.id}`)).body.title).toBe("Slug Target B");
    });

    test("unknown slug on update: general permission, then 404 rest-event-not-found with id 0", async () => {
      const res = await svc.request("POST", "/events/by-slug/nobody-here", { as: "admin", body: { title: "x" } });
      expectError(res, 404, "rest-event-not-found");
      expect(res.body.message).toMatch(/\b0\b/);
      expectError(await svc.request("POST", "/events/by-slug/nobody-here", { body: { title: "x" } }), 401, "rest_forbidden");
      expectError(await svc.request("PATCH", "/events/by-slug/nobody-here", { as: "subscriber", body: { title: "x" } }), 403, "rest_forbidden");
      expectInvalid(await svc.request("POST", "/events/by-slug/nobody-here", { body: { title: "" } }), "title");
    });

    test("D5: by-slug update and delete check the event's own permissions", async () => {
      const admins = await createEvent(svc, { title: "Admins Slug Event" });
      const authors = await createEvent(svc, { title: "Authors Slug Event" }, "author");
      expectError(await svc.request("POST", `/events/by-slug/${admins.slug}`, { as: "contributor", body: { title: "x" } }), 403, "rest_forbidden");
      expectError(await svc.request("DELETE", `/events/by-slug/${admins.slug}`, { as: "contributor" }), 403, "rest_forbidden");
      expectError(await svc.request("POST", `/events/by-slug/${authors.slug}`, { as: "author2", body: { title: "x" } }), 403, "rest_forbidden");
      expectError(await svc.request("DELETE", `/events/by-slug/${authors.slug}`, { as: "author2" }), 403, "rest_forbidden");
      expectError(await svc.request("DELETE", `/events/by-slug/${authors.slug}`), 401, "rest_forbidden");
      expect((await svc.request("PATCH", `/events/by-slug/${authors.slug}`, { as: "author", body: { excerpt: "mine" } })).status).toBe(200);
      expect((await svc.request("POST", `/events/by-slug/${authors.slug}`, { as: "editor", body: { excerpt: "editor" } })).status).toBe(200);
      const del = await svc.request("DELETE", `/events/by-slug/${authors.slug}`, { as: "author" });
      expect([del.status, del.body.status, del.body.slug]).toEqual([200, "trash", `${authors.slug}__trashed`]);
    });

    test("DELETE by slug: unknown slug is 400 for everyone (validation first); a trashed slug is 410", async () => {
      expectInvalid(await svc.request("DELETE", "/events/by-slug/nothing-by-that-name"), "slug");
      expectInvalid(await svc.request("DELETE", "/events/by-slug/nothing-by-that-name", { as: "admin" }), "slug");
      const ev = await createEvent(svc, { title: "Twice Deleted" });
      await svc.request("DELETE", `/events/by-slug/${ev.slug}`, { as: "admin" });
      expectError(await svc.request("DELETE", `/events/by-slug/${ev.slug}__trashed`, { as: "admin" }), 410, "event-is-in-trash");
    });
  });
});
