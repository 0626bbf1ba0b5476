/**
 * Creating events through HTTP (docs/records.md#creating-an-event, docs/dates.md): required fields, validation before permission,
 * status per role and the 60 s rule, slugs, dates in every accepted format, all-day, start>end, types,
 * images (D7: images without downloads), post_password (D32: setting a password), post_parent (D31), parameter sources.
 */
import moment from "moment-timezone";
import { startService, Running, USER_IDS } from "../helpers/harness";
import { createEvent, dayAt, db, expectError, expectInvalid, nowIn, secondsApart, ZERO_DATE } from "../helpers/events";
import type { Json } from "../helpers/json";

const body = (extra: Record<string, unknown> = {}) => ({ title: "Event", start_date: dayAt(2, "10:00:00"), end_date: dayAt(2, "12:00:00"), ...extra });

describe("events: create", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService(); });
  afterAll(async () => { await svc.stop(); });

  describe("required fields, validation before permission (D23), permission", () => {
    test("every missing required field is listed in one rest_missing_callback_param; JSON null counts as missing", async () => {
      const res = await svc.request("POST", "/events", { as: "admin", body: {} });
      expectError(res, 400, "rest_missing_callback_param");
      expect(res.body.data.params).toEqual(["title", "start_date", "end_date"]);
      const some = await svc.request("POST", "/events", { as: "admin", body: { title: null, start_date: "tomorrow", end_date: null } });
      expect(some.body.data.params).toEqual(["title", "end_date"]);
    });

    test("an anonymous create with a missing title is 400, a valid one 401; a subscriber gets 403", async () => {
      const missing = await svc.request("POST", "/events", { body: { start_date: "tomorrow", end_date: "tomorrow" } });
      expectError(missing, 400, "rest_missing_callback_param");
      expect(missing.body.data.params).toEqual(["title"]);
      expectInvalid(await svc.request("POST", "/events", { body: body({ featured: "perhaps" }) }), "featured");
      expectError(await svc.request("POST", "/events", { body: body() }), 401, "rest_forbidden");
      expectError(await svc.request("POST", "/events", { as: "subscriber", body: body() }), 403, "rest_forbidden");
    });

    test("contributors and above may create; the author defaults to the caller and may name another known user", async () => {
      for (const as of ["contributor", "author", "editor", "admin"] as const) {
        const res = await svc.request("POST", "/events", { as, body: body() });
        expect(res.status).toBe(201);
        expect(res.body.author).toBe(String(USER_IDS[as]));
      }
      const other = await svc.request("POST", "/events", { as: "contributor", body: body({ author: "3" }) });
      expect(other.body.author).toBe("3");
      expectInvalid(await svc.request("POST", "/events", { as: "admin", body: body({ author: 99 }) }), "author");
      expectInvalid(await svc.request("POST", "/events", { as: "admin", body: body({ author: "abc" }) }), "author");
    });
  });

  describe("parameter validation and JSON types (docs/records.md#creating-an-event, docs/errors.md#shared-errors)", () => {
    test.each([
      ["title", ""], ["title", "   "], ["description", ""], ["excerpt", ""], ["slug", ""],
      ["status", "bogus"], ["status", "any"], ["timezone", "Mars/Base"], ["timezone", "UTC+25"], ["timezone", "UTCfoo"],
      ["website", "not a url"], ["website", "www.example.org"], ["website", 12],
      ["all_day", "x"], ["featured", "perhaps"], ["sticky", 2], ["show_map", "maybe"], ["hide_from_listings", {}],
      ["start_date", "before my birthday"], ["end_date", "foo"], ["date", "\"before my birthday\""], ["date_utc", ""],
      ["start_date", 1.5], ["start_date", "1.5"], ["start_date", true],
      ["post_parent", "abc"], ["post_parent", 0], ["post_parent", 999999], ["author", 0], ["post_password", 5]
    ])("%s = %j → 400 naming it", async (name, value) => {
      expectInvalid(await svc.request("POST", "/events", { as: "admin", body: body({ [name]: value }) }), name);
    });

    test("a JSON number or boolean for a string field is a type error with details", async () => {
      const res = await svc.request("POST", "/events", { as: "admin", body: body({ title: 5, featured: "foo" }) });
      expectInvalid(res, "title", "featured");
      expect(res.body.data.details.title).toEqual(expect.objectContaining({ code: "rest_invalid_type", data: { param: "title" } }));
      expect(res.body.data.details.featured).toEqual(expect.objectContaining({ code: "rest_invalid_type" }));
    });

    test("every failing parameter is listed together (record-dependent checks after the others)", async () => {
      const res = await svc.request("POST", "/events", { as: "admin", body: body({ timezone: "Nowhere/X", author: 99, website: "nope", featured: "x", image: "ftp://x/a.txt" }) });
      expectInvalid(res, "timezone", "author", "website", "featured");
      const linked = await svc.request("POST", "/events", { body: body({ image: "ftp://x/a.txt", post_parent: 999999 }) });
      expectInvalid(linked, "image", "post_parent");
    });

    test("an empty time zone means the site zone; time zones are stored as given", async () => {
      expect((await createEvent(svc, { timezone: "" })).timezone).toBe("UTC");
      expect((await createEvent(svc, { timezone: "Europe/Paris" })).timezone).toBe("Europe/Paris");
    });

    test("read-only and unknown fields in the body are ignored", async () => {
      const ev = await createEvent(svc, {
        title: "Read only", id: 424242, url: "http://evil/", rest_url: "x", utc_start_date: "2000-01-01 00:00:00", timezone_abbr: "XYZ",
        cost_details: { currency_symbol: "£" }, start_date_details: { year: "1999" }, global_id: "g", modified: "2001-01-01 00:00:00", bogus: 1
      });
      expect(ev.id).not.toBe(424242);
      expect(ev.url).toMatch(/\/event\/read-only\/$/);
      expect(ev.utc_start_date).toBe(ev.start_date);
      expect(ev.timezone_abbr).toBe("UTC");
      expect(ev.cost_details.currency_symbol).toBe("");
      expect(ev.start_date_details.year).toBe(ev.start_date.slice(0, 4));
      expect(ev.modified).not.toBe("2001-01-01 00:00:00");
      expect(ev).not.toHaveProperty("bogus");
    });

    test("parameters come from the body (JSON or form) and the query string; the body wins", async () => {
      const q = await svc.request("POST", `/events?title=FromQuery&featured=true&start_date=${encodeURIComponent(dayAt(3))}&end_date=${encodeURIComponent(dayAt(3, "11:00:00"))}`, { as: "admin" });
      expect(q.status).toBe(201);
      expect([q.body.title, q.body.featured]).toEqual(["FromQuery", true]);
      const both = await svc.request("POST", "/events?title=FromQuery&featured=false", { as: "admin", body: body({ title: "FromBody", featured: true }) });
      expect([both.body.title, both.body.featured]).toEqual(["FromBody", true]);
      const form = await svc.request("POST", "/events", { as: "admin", form: { title: "Form", start_date: dayAt(3), end_date: dayAt(3, "11:00:00"), all_day: "1", featured: "yes", cost: "5" } });
      expect(form.status).toBe(201);
      expect([form.body.title, form.body.all_day, form.body.featured, form.body.cost]).toEqual(["Form", true, true, "$5"]);
    });
  });

  describe("status (docs/records.md#status-on-write) and the publication date (docs/dates.md#publication-date-and-status, D17: floating publication date)", () => {
    test.each([
      ["admin", undefined, "publish"], ["editor", "private", "private"], ["author", "draft", "draft"], ["author", "pending", "pending"],
      ["author", "publish", "publish"], ["contributor", undefined, "draft"], ["contributor", "publish", "pending"],
      ["contributor", "future", "pending"], ["contributor", "private", "private"], ["contributor", "draft", "draft"],
      ["contributor", "trash", "trash"], ["author", "future", "publish"]
    ] as const)("%s sending status %s → %s", async (as, status, expected) => {
      const res = await svc.request("POST", "/events", { as, body: body(status ? { status } : {}) });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe(expected);
    });

    test("the 60 s rule: publish with a date at least 60 s ahead becomes future, less stays publish; future in the past becomes publish", async () => {
      const ahead = await createEvent(svc, { date: "+1 day" });
      expect(ahead.status).toBe("future");
      expect(secondsApart(ahead.date_utc, db(nowIn().add(1, "day")))).toBeLessThan(10);
      expect((await createEvent(svc, { date: "+30 seconds" })).status).toBe("publish");
      expect((await createEvent(svc, { status: "publish", date_utc: "+2 minutes" })).status).toBe("future");
      expect((await createEvent(svc, { status: "future", date: "yesterday" })).status).toBe("publish");
      expect((await createEvent(svc, { status: "future", date: "+3 days" })).status).toBe("future");
      expect((await createEvent(svc, { date: "-1 year" })).status).toBe("publish");
    });

    test("date and date_utc: only one derives the other (site zone UTC); both are kept as sent", async () => {
      const utc = await createEvent(svc, { date_utc: "tomorrow 9am" });
      expect(utc.date_utc).toBe(dayAt(1, "09:00:00"));
      expect(utc.date).toBe(utc.date_utc);
      const local = await createEvent(svc, { date: "2024-02-03 04:05:06" });
      expect([local.date, local.date_utc]).toEqual(["2024-02-03 04:05:06", "2024-02-03 04:05:06"]);
      const offset = await createEvent(svc, { date_utc: "2024-02-03T04:05:06+02:00" });
      expect(offset.date_utc).toBe("2024-02-03 02:05:06");
      const both = await createEvent(svc, { date: "2024-02-03 10:00:00", date_utc: "2024-02-03 09:00:00" });
      expect([both.date, both.date_utc]).toEqual(["2024-02-03 10:00:00", "2024-02-03 09:00:00"]);
      const none = await createEvent(svc, {});
      expect(secondsApart(none.date, db(nowIn()))).toBeLessThan(10);
      expect(none.date_utc).toBe(none.date);
      expect(secondsApart(none.modified, db(nowIn()))).toBeLessThan(10);
    });

    test("D17: drafts and pending events created without a date float (date_utc zero) until they get a date or another status", async () => {
      const draft = await createEvent(svc, { title: "Floating" }, "contributor");
      expect(draft.status).toBe("draft");
      expect(draft.date_utc).toBe(ZERO_DATE);
      expect(secondsApart(draft.date, db(nowIn()))).toBeLessThan(10);
      expect((await createEvent(svc, { status: "pending" })).date_utc).toBe(ZERO_DATE);
      expect((await createEvent(svc, { status: "draft", date: "2024-01-01 10:00:00" })).date_utc).toBe("2024-01-01 10:00:00");
      const published = await svc.request("POST", `/events/${draft.id}`, { as: "admin", body: { status: "publish" } });
      expect(published.body.status).toBe("publish");
      expect(published.body.date_utc).toBe(draft.date);
      const dated = await createEvent(svc, { status: "draft" });
      const upd = await svc.request("PATCH", `/events/${dated.id}`, { as: "admin", body: { date: "2024-05-05 05:05:05" } });
      expect([upd.body.status, upd.body.date_utc]).toEqual(["draft", "2024-05-05 05:05:05"]);
    });
  });

  describe("slugs (docs/records.md#event-slugs, D16: drafts created without a slug keep an empty slug)", () => {
    test("normalised from the title or the given slug", async () => {
      expect((await createEvent(svc, { title: "Café & Bär: Night / Out!" })).slug).toBe("cafe-bar-night-out");
      expect((await createEvent(svc, { title: "x", slug: "  My <b>Given</b> Slug " })).slug).toBe("my-given-slug");
      const bare = await createEvent(svc, { title: "!!!" });
      expect(bare.slug).toBe(String(bare.id));
    });

    test("unique among events: -2, -3 …; reserved words never bare", async () => {
      const slugs = [];
      for (let i = 0; i < 3; i++) slugs.push((await createEvent(svc, { title: "Same Title" })).slug);
      expect(slugs).toEqual(["same-title", "same-title-2", "same-title-3"]);
      expect((await createEvent(svc, { title: "x", slug: "same-title" })).slug).toBe("same-title-4");
      for (const word of ["feed", "rdf", "rss", "rss2", "atom", "embed"]) expect((await createEvent(svc, { title: word })).slug).toBe(`${word}-2`);
      expect((await createEvent(svc, { title: "Embed" })).slug).toBe("embed-3");
    });

    test("drafts and pending events without a slug keep it empty (D16: drafts created without a slug keep an empty slug) and get one when published", async () => {
      const draft = await createEvent(svc, { title: "Same Title", status: "draft" });
      expect(draft.slug).toBe("");
      expect(draft.url).toMatch(/\/\?post_type=tribe_events&p=\d+$/);
      const pending = await createEvent(svc, { title: "Same Title" }, "contributor");
      expect(pending.slug).toBe("");
      const kept = await createEvent(svc, { title: "Same Title", status: "draft", slug: "same-title" });
      expect(kept.slug).toBe("same-title");
      const pub = await svc.request("POST", `/events/${draft.id}`, { as: "admin", body: { status: "publish" } });
      expect(pub.body.slug).toBe("same-title-5");
      expect(pub.body.url).toMatch(/\/event\/same-title-5\/$/);
    });

    test("a trashed event does not hold its slug; an event created in the trash gets the suffix", async () => {
      const old = await createEvent(svc, { title: "Gone Event" });
      await svc.request("DELETE", `/events/${old.id}`, { as: "admin" });
      expect((await createEvent(svc, { title: "Gone Event" })).slug).toBe("gone-event");
      const trashed = await createEvent(svc, { title: "Born Trashed", status: "trash" });
      expect(trashed.slug).toBe("born-trashed__trashed");
      expectError(await svc.request("DELETE", `/events/${trashed.id}`, { as: "admin" }), 410, "event-is-in-trash");
      expect((await createEvent(svc, { title: "Born Trashed" })).slug).toBe("born-trashed");
    });
  });

  describe("dates (docs/records.md#start-end-and-time-zone, docs/dates.md#accepted-input, #how-each-parameter-is-read, #all-day-events, #start-after-end)", () => {
    test.each([
      ["2025-06-10 09:00:00", "2025-06-10 09:00:00"],
      ["2025-06-10 09:00", "2025-06-10 09:00:00"],
      ["2025-06-10 9am", "2025-06-10 09:00:00"],
      ["2018-01-01 4pm", "2018-01-01 16:00:00"],
      ["2025/06/10 21:30", "2025-06-10 21:30:00"],
      ["2025-06-10", "2025-06-10 00:00:00"],
      ["2025-06-10T09:00", "2025-06-10 09:00:00"],
      ["2025-06-10T09:00:00", "2025-06-10 09:00:00"],
      ["2025-06-10T09:00:00Z", "2025-06-10 09:00:00"],
      ["2025-06-10T09:00:00+02:00", "2025-06-10 09:00:00"],
      ["2025-06-10T09:00:00.123-05:00", "2025-06-10 09:00:00"],
      ["20250610T090000", "2025-06-10 09:00:00"],
      ["06/10/2025", "2025-06-10 00:00:00"],
      ["10-06-2025", "2025-06-10 00:00:00"],
      ["10.06.2025", "2025-06-10 00:00:00"],
      ["10 June 2025", "2025-06-10 00:00:00"],
      ["June 10, 2025", "2025-06-10 00:00:00"],
      ["Jun 10 2025 5pm", "2025-06-10 17:00:00"],
      ["@1749549600", "2025-06-10 10:00:00"],
      ["1749549600", "2025-06-10 10:00:00"],
      [1749549600, "2025-06-10 10:00:00"],
      ["20250610", moment.utc(20250610 * 1000).format("YYYY-MM-DD HH:mm:ss")]
    ] as Array<[string | number, string]>)("absolute %j → %s", async (input, expected) => {
      const ev = await createEvent(svc, { start_date: input, end_date: input });
      expect([ev.start_date, ev.end_date, ev.utc_start_date]).toEqual([expected, expected, expected]);
    });

    const today = () => nowIn().startOf("day");
    const nextWeekday = (day: number) => { const d = today().add(1, "day"); while (d.isoWeekday() !== day) d.add(1, "day"); return d; };
    test.each([
      ["tomorrow 9am", () => today().add(1, "day").hour(9)],
      ["tomorrow", () => today().add(1, "day")],
      ["today", () => today()],
      ["midnight", () => today()],
      ["noon", () => today().hour(12)],
      ["yesterday 23:59", () => today().subtract(1, "day").hour(23).minute(59)],
      ["9am", () => today().hour(9)],
      ["9:30pm", () => today().hour(21).minute(30)],
      ["14:00:05", () => today().hour(14).second(5)],
      ["next monday", () => nextWeekday(1)],
      ["next wednesday 4pm", () => nextWeekday(3).hour(16)],
      ["+5 days 11am", () => today().add(5, "days").hour(11)],
      ["first day of next month", null],
      ["monday next week", () => { const d = today().add(1, "week"); return d.subtract(d.isoWeekday() - 1, "days"); }],
      ["last monday", () => { const d = today().subtract(1, "day"); while (d.isoWeekday() !== 1) d.subtract(1, "day"); return d; }]
    ] as Array<[string, (() => moment.Moment) | null]>)("relative %j", async (input, expected) => {
      const ev = await createEvent(svc, { start_date: input, end_date: input });
      if (expected) expect(ev.start_date).toBe(db(expected()));
      else expect(ev.start_date.slice(0, 10)).toBe(today().add(1, "month").startOf("month").format("YYYY-MM-DD"));
    });

    test.each([
      ["now", 0], ["+1 day", 86400], ["+2 hours", 7200], ["-1 month", null], ["+5 weeks", 35 * 86400], ["+24 months", null]
    ] as Array<[string, number | null]>)("relative to this instant %j", async (input, seconds) => {
      const ev = await createEvent(svc, { start_date: input, end_date: input });
      const expected = seconds !== null ? nowIn().add(seconds, "seconds") : input === "-1 month" ? nowIn().subtract(1, "month") : nowIn().add(24, "months");
      expect(secondsApart(ev.start_date, db(expected))).toBeLessThan(10);
    });

    test("relative phrases are read in the event time zone", async () => {
      const ev = await createEvent(svc, { start_date: "tomorrow 9am", end_date: "tomorrow 11am", timezone: "America/New_York" });
      const tomorrowNy = nowIn("America/New_York").add(1, "day").format("YYYY-MM-DD");
      expect(ev.start_date).toBe(`${tomorrowNy} 09:00:00`);
      expect(ev.utc_start_date).toBe(db(moment.tz(`${tomorrowNy} 09:00:00`, "America/New_York").utc()));
    });

    test("an explicit offset shapes the wall clock but is not converted; a timestamp is its UTC wall clock in any zone", async () => {
      const off = await createEvent(svc, { start_date: "2025-06-10T09:00:00+02:00", end_date: "2025-06-10T10:00:00+02:00", timezone: "America/New_York" });
      expect([off.start_date, off.utc_start_date]).toEqual(["2025-06-10 09:00:00", "2025-06-10 13:00:00"]);
      const ts = await createEvent(svc, { start_date: 1749549600, end_date: "1749553200", timezone: "Europe/Rome" });
      expect([ts.start_date, ts.utc_start_date, ts.end_date]).toEqual(["2025-06-10 10:00:00", "2025-06-10 08:00:00", "2025-06-10 11:00:00"]);
    });

    test("all_day: 00:00:00 of the start day to 23:59:59 of the end day; multi-day kept", async () => {
      const one = await createEvent(svc, { all_day: true, start_date: "2025-06-10 13:00", end_date: "2025-06-10 15:00" });
      expect([one.all_day, one.start_date, one.end_date]).toEqual([true, "2025-06-10 00:00:00", "2025-06-10 23:59:59"]);
      const multi = await createEvent(svc, { all_day: "true", start_date: "tomorrow", end_date: "+5 days" });
      expect([multi.start_date, multi.end_date]).toEqual([dayAt(1, "00:00:00"), dayAt(5, "23:59:59")]);
      const off = await createEvent(svc, { all_day: "0", start_date: "2025-06-10 13:00", end_date: "2025-06-10 15:00" });
      expect([off.all_day, off.start_date, off.end_date]).toEqual([false, "2025-06-10 13:00:00", "2025-06-10 15:00:00"]);
    });

    test("a start later than the end moves the end to the start (no error)", async () => {
      const ev = await createEvent(svc, { start_date: "2025-06-10 15:00:00", end_date: "2025-06-10 09:00:00" });
      expect([ev.start_date, ev.end_date, ev.utc_end_date]).toEqual(["2025-06-10 15:00:00", "2025-06-10 15:00:00", "2025-06-10 15:00:00"]);
      const allDay = await createEvent(svc, { all_day: true, start_date: "2025-06-10 15:00:00", end_date: "2025-06-09 09:00:00" });
      expect([allDay.start_date, allDay.end_date]).toEqual(["2025-06-10 00:00:00", "2025-06-10 23:59:59"]);
    });
  });

  describe("images (docs/records.md#images, D7: images without downloads)", () => {
    test("a URL by a caller who may upload makes an image record; the same URL reuses it; the id works for everyone", async () => {
      const a = await createEvent(svc, { image: "https://cdn.example.org/photos/Concert.JPG" }, "author");
      expect(a.image).toEqual({ url: "https://cdn.example.org/photos/Concert.JPG", id: expect.any(Number), extension: "jpg" });
      expect(a.image.id).not.toBe(a.id);
      const b = await createEvent(svc, { image: "https://cdn.example.org/photos/Concert.JPG" }, "editor");
      expect(b.image.id).toBe(a.image.id);
      const byId = await createEvent(svc, { image: a.image.id }, "contributor");
      expect(byId.image).toEqual(a.image);
      expect((await createEvent(svc, { image: String(a.image.id) })).image).toEqual(a.image);
      expect((await createEvent(svc, { image: "http://x.example.org/a.webp?size=2" })).image.extension).toBe("webp");
    });

    test("rejected: URL by a contributor, bad extension, image name in the query, not absolute, empty, 0, unknown or non-image ids", async () => {
      const ev = await createEvent(svc, {});
      const img = (await createEvent(svc, { image: "https://cdn.example.org/one.png" })).image.id;
      expect(img).toBeGreaterThan(0);
      expectInvalid(await svc.request("POST", "/events", { as: "contributor", body: body({ image: "https://cdn.example.org/one.png" }) }), "image");
      for (const image of ["https://cdn.example.org/doc.txt", "https://x.example.org/image?f=a.jpg", "/a.jpg", "ftp://x.example.org/a.jpg", "", "foo bar", 0, "0", 999999, ev.id, true, { id: img }]) {
        expectInvalid(await svc.request("POST", "/events", { as: "admin", body: body({ image }) }), "image");
      }
    });

    test("an image id is not an event id", async () => {
      const img = (await createEvent(svc, { image: "https://cdn.example.org/two.gif" })).image.id;
      expectError(await svc.get(`/events/${img}`), 400, "rest-invalid-event-id");
    });
  });

  describe("extensions: post_password (D32: setting a password), post_parent (D31)", () => {
    test("post_password protects the event; creator's answer is not blanked; never returned", async () => {
      const ev = await createEvent(svc, { title: "Locked", description: "secret", post_password: "pw" });
      expect(ev.description).toBe("<p>secret</p>");
      expect(ev).not.toHaveProperty("post_password");
      expectError(await svc.get(`/events/${ev.id}`), 403, "event-password-protected");
    });

    test("post_parent names an existing event", async () => {
      const parent = await createEvent(svc, { title: "Parent" });
      const child = await createEvent(svc, { title: "Child", post_parent: parent.id });
      expect(child).not.toHaveProperty("post_parent");
      const list = await svc.get(`/events?post_parent=${parent.id}`);
      expect(list.body.events.map((e: Json) => e.id)).toEqual([child.id]);
      const img = (await createEvent(svc, { image: "https://cdn.example.org/three.png" })).image.id;
      expectInvalid(await svc.request("POST", "/events", { as: "admin", body: body({ post_parent: img }) }), "post_parent");
    });
  });
});
