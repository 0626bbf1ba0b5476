/**
 * The event record through HTTP (docs/records.md#event-fields): key order, types, dates and time zones, cost, website,
 * flags, URLs built from BASE_URL, permalinks, text rendering and JSON-LD.
 */
import { startService, Running, USER_IDS } from "../helpers/harness";
import { createEvent, DB_RE, EVENT_KEYS, I18N_KEYS, expectError, dayAt, token } from "../helpers/events";
import type { Json } from "../helpers/json";

const BASE = "https://cal.example.org/sub";
const NS = `${BASE}/wp-json/calendar/events/v1`;

describe("events: the record", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({ BASE_URL: BASE }); });
  afterAll(async () => { await svc.stop(); });

  test("create, read, list, update and delete answer the same keys in the reference order; json_ld only on single GETs", async () => {
    const ev = await createEvent(svc, { title: "Key order" });
    expect(Object.keys(ev)).toEqual([...EVENT_KEYS, ...I18N_KEYS]);
    const got = await svc.get(`/events/${ev.id}`);
    expect(got.status).toBe(200);
    expect(Object.keys(got.body)).toEqual([...EVENT_KEYS, "json_ld", ...I18N_KEYS]);
    expect((await svc.get(`/events/${ev.id}/`)).body.id).toBe(ev.id);
    const bySlug = await svc.get(`/events/by-slug/${ev.slug}`);
    expect(Object.keys(bySlug.body)).toEqual([...EVENT_KEYS, "json_ld", ...I18N_KEYS]);
    const list = await svc.get(`/events?include=${ev.id}`);
    expect(Object.keys(list.body.events[0])).toEqual([...EVENT_KEYS, ...I18N_KEYS]);
    const upd = await svc.request("PATCH", `/events/${ev.id}`, { as: "admin", body: { excerpt: "x" } });
    expect(Object.keys(upd.body)).toEqual([...EVENT_KEYS, ...I18N_KEYS]);
    const del = await svc.request("DELETE", `/events/${ev.id}`, { as: "admin" });
    expect(Object.keys(del.body)).toEqual([...EVENT_KEYS, ...I18N_KEYS]);
    expect(JSON.stringify([ev, got.body, list.body, upd.body, del.body])).not.toContain("post_password");
  });

  test("field types: author string, DB-format dates, details as zero-padded strings, booleans, arrays", async () => {
    const ev = await createEvent(svc, { title: "Types", start_date: "2030-01-05 07:08:09", end_date: "2030-01-06 10:11:12" }, "author");
    expect(ev.author).toBe(String(USER_IDS.author));
    expect(typeof ev.id).toBe("number");
    for (const k of ["date", "date_utc", "modified", "modified_utc", "start_date", "end_date", "utc_start_date", "utc_end_date"]) expect(ev[k]).toMatch(DB_RE);
    expect(ev.start_date_details).toEqual({ year: "2030", month: "01", day: "05", hour: "07", minutes: "08", seconds: "09" });
    expect(ev.end_date_details).toEqual({ year: "2030", month: "01", day: "06", hour: "10", minutes: "11", seconds: "12" });
    expect(ev.utc_start_date_details).toEqual(ev.start_date_details);
    expect(ev.utc_end_date_details).toEqual(ev.end_date_details);
    for (const k of ["all_day", "show_map", "show_map_link", "hide_from_listings", "sticky", "featured", "ticketed"]) expect(ev[k]).toBe(false);
    expect(ev).toEqual(expect.objectContaining({
      global_id: `cal.example.org/sub?id=${ev.id}`, global_id_lineage: [`cal.example.org/sub?id=${ev.id}`],
      image: false, categories: [], tags: [], venue: [], organizer: [], custom_fields: [],
      timezone: "UTC", timezone_abbr: "UTC", cost: "", cost_details: { currency_symbol: "", currency_code: "", currency_position: "", values: [] },
      i18n_language: "en", translations: ["en"]
    }));
    expect(Object.keys(ev.cost_details)).toEqual(["currency_symbol", "currency_code", "currency_position", "values"]);
  });

  test("the reference example (docs/records.md#event-fields) without links", async () => {
    const ev = await createEvent(svc, {
      title: "  Jazz night  ", description: "Three sets, two bands.", excerpt: "Live jazz.", start_date: "2025-06-10 20:00:00", end_date: "2025-06-10 23:00:00",
      timezone: "Europe/Rome", cost: "20$", website: "http://jazz.example.org", show_map: true, show_map_link: false, featured: true,
      date: "2025-06-01 10:00:00"
    });
    expect(ev).toEqual(expect.objectContaining({
      status: "publish", date: "2025-06-01 10:00:00", date_utc: "2025-06-01 10:00:00",
      url: `${BASE}/event/jazz-night/`, rest_url: `${NS}/events/${ev.id}`,
      title: "Jazz night", description: "<p>Three sets, two bands.</p>", excerpt: "<p>Live jazz.</p>", slug: "jazz-night",
      start_date: "2025-06-10 20:00:00", end_date: "2025-06-10 23:00:00", utc_start_date: "2025-06-10 18:00:00", utc_end_date: "2025-06-10 21:00:00",
      timezone: "Europe/Rome", timezone_abbr: "CEST", cost: "20$",
      cost_details: { currency_symbol: "$", currency_code: "", currency_position: "postfix", values: ["20"] },
      website: "http://jazz.example.org", show_map: true, show_map_link: false, hide_from_listings: false, sticky: false, featured: true
    }));
    const got = await svc.get(`/events/${ev.id}`);
    expect(got.body.json_ld).toEqual({
      "@context": "http://schema.org", "@type": "Event", name: "Jazz night", description: "Live jazz.",
      url: `${BASE}/event/jazz-night/`, startDate: "2025-06-10T20:00:00+02:00", endDate: "2025-06-10T23:00:00+02:00",
      eventStatus: "https://schema.org/EventScheduled", eventAttendanceMode: "https://schema.org/OfflineEventAttendanceMode",
      offers: { "@type": "Offer", price: "20", priceCurrency: "USD", url: `${BASE}/event/jazz-night/`, category: "primary", availability: "inStock", validFrom: "2025-06-01T10:00:00+00:00" },
      performer: "Organization"
    });
  });

  test.each([
    ["America/New_York", "2025-01-15 09:00:00", "2025-01-15 14:00:00", "EST"],
    ["America/New_York", "2025-06-10 09:00:00", "2025-06-10 13:00:00", "EDT"],
    ["Europe/Rome", "2025-01-15 09:00:00", "2025-01-15 08:00:00", "CET"],
    ["Australia/Sydney", "2025-01-15 09:00:00", "2025-01-14 22:00:00", "AEDT"],
    ["Australia/Sydney", "2025-07-15 09:00:00", "2025-07-14 23:00:00", "AEST"],
    ["Asia/Hong_Kong", "2018-01-01 4pm", "2018-01-01 08:00:00", "HKT"],
    ["America/Sao_Paulo", "2025-06-10 09:00:00", "2025-06-10 12:00:00", "-03"],
    ["UTC", "2025-06-10 09:00:00", "2025-06-10 09:00:00", "UTC"],
    ["UTC+2", "2025-06-10 09:00:00", "2025-06-10 07:00:00", "UTC+2"],
    ["UTC-5", "2025-06-10 09:00:00", "2025-06-10 14:00:00", "UTC-5"],
    ["UTC+5:30", "2025-06-10 09:00:00", "2025-06-10 03:30:00", "UTC+5:30"],
    ["EST", "2025-06-10 09:00:00", "2025-06-10 14:00:00", "EST"],
    ["+02:00", "2025-06-10 09:00:00", "2025-06-10 07:00:00", "+02:00"]
  ])("time zone %s: %s local → UTC %s, abbreviation %s", async (timezone, start, utc, abbr) => {
    const ev = await createEvent(svc, { title: "Zone", timezone, start_date: start, end_date: start });
    expect(ev.timezone).toBe(timezone);
    expect(ev.utc_start_date).toBe(utc);
    expect(ev.utc_end_date).toBe(utc);
    expect(ev.timezone_abbr).toBe(abbr);
  });

  test("a spring-forward gap moves the UTC instant forward by the gap; the abbreviation follows the start date", async () => {
    const ev = await createEvent(svc, { title: "Gap", timezone: "America/New_York", start_date: "2025-03-09 02:30:00", end_date: "2025-03-09 05:00:00" });
    expect(ev.utc_start_date).toBe("2025-03-09 07:30:00");
    expect(ev.utc_end_date).toBe("2025-03-09 09:00:00");
    const winter = await createEvent(svc, { title: "Span", timezone: "America/New_York", start_date: "2025-03-08 10:00:00", end_date: "2025-03-10 10:00:00" });
    expect(winter.timezone_abbr).toBe("EST");
    expect(winter.utc_end_date).toBe("2025-03-10 14:00:00");
  });

  test("all-day events in New York: UTC from 05:00:00 to the next day's 04:59:59", async () => {
    const ev = await createEvent(svc, { title: "All day NY", timezone: "America/New_York", all_day: true, start_date: "2025-01-15 13:00", end_date: "2025-01-15 14:00" });
    expect(ev).toEqual(expect.objectContaining({ all_day: true, start_date: "2025-01-15 00:00:00", end_date: "2025-01-15 23:59:59", utc_start_date: "2025-01-15 05:00:00", utc_end_date: "2025-01-16 04:59:59" }));
  });

  test.each([
    ["20$", "20$", "$", "postfix", ["20"]],
    ["$20", "$20", "$", "prefix", ["20"]],
    [["0$", "20$", "30$"], "Free \u2013 30$", "$", "postfix", ["0", "20", "30"]],
    ["€6.50 - €8.50", "€6.50 \u2013 €8.50", "€", "prefix", ["6.50", "8.50"]],
    ["10", "$10", "", "", ["10"]],
    ["10 - 20", "$10 \u2013 $20", "", "", ["10", "20"]],
    ["Free", "Free", "", "", ["free"]],
    ["Donation", "Donation", "", "", ["donation"]],
    ["0", "Free", "", "", ["0"]],
    [25, "$25", "", "", ["25"]],
    ["25,55", "$25.55", "", "", ["25.55"]],
    ["1,500", "$1500", "", "", ["1500"]],
    [["5", "5", "10"], "$5 \u2013 $10", "", "", ["5", "10"]]
  ])("cost %j → %j (symbol %j, %j, values %j)", async (cost, formatted, symbol, position, values) => {
    const ev = await createEvent(svc, { title: "Cost", cost });
    expect(ev.cost).toBe(formatted);
    expect(ev.cost_details).toEqual({ currency_symbol: symbol, currency_code: "", currency_position: position, values });
  });

  test("website: the permalink when none was stored, escaped when given, \"\" after an update stores it empty", async () => {
    const none = await createEvent(svc, { title: "No website" });
    expect(none.website).toBe(none.url);
    const emptyOnCreate = await createEvent(svc, { title: "Empty website", website: "" });
    expect(emptyOnCreate.website).toBe(emptyOnCreate.url);
    const given = await createEvent(svc, { title: "Site", website: "http://example.org/a?b=1&c=2" });
    expect(given.website).toBe("http://example.org/a?b=1&amp;c=2");
    const spaced = await createEvent(svc, { title: "Spaced", website: " http://exa mple.org/x " });
    expect(spaced.website).toBe("http://example.org/x");
    const cleared = await svc.request("POST", `/events/${given.id}`, { as: "admin", body: { website: "" } });
    expect(cleared.body.website).toBe("");
    expect((await svc.get(`/events/${given.id}`)).body.website).toBe("");
    const other = await svc.request("POST", `/events/${none.id}`, { as: "admin", body: { title: "Still no website" } });
    expect(other.body.website).toBe(other.body.url);
  });

  test("flags: stored as sent, false when not sent (show_map and show_map_link included)", async () => {
    const on = await createEvent(svc, { title: "Flags", show_map: true, show_map_link: "1", sticky: "true", featured: "yes", hide_from_listings: 1 });
    expect([on.show_map, on.show_map_link, on.sticky, on.featured, on.hide_from_listings]).toEqual([true, true, true, true, true]);
    const off = await createEvent(svc, { title: "Flags off", show_map: "false", featured: 0, sticky: "NO" });
    expect([off.show_map, off.show_map_link, off.sticky, off.featured, off.hide_from_listings]).toEqual([false, false, false, false, false]);
  });

  test("description and excerpt are rendered as paragraphs on output; the excerpt is never made from the description", async () => {
    const ev = await createEvent(svc, { title: "Text", description: "First line\nsecond line\n\n<div>block</div>\n\n\nThird" });
    expect(ev.description).toBe("<p>First line<br />\nsecond line</p>\n<div>block</div>\n<p>Third</p>");
    expect(ev.excerpt).toBe("");
  });

  test("permalinks: slug form for published events, the query form for drafts, pending and future events; language roots", async () => {
    const pub = await createEvent(svc, { title: "Published link" });
    expect(pub.url).toBe(`${BASE}/event/published-link/`);
    for (const status of ["draft", "pending"]) {
      const ev = await createEvent(svc, { title: `A ${status}`, status, slug: `given-${status}` });
      expect(ev.slug).toBe(`given-${status}`);
      expect(ev.url).toBe(`${BASE}/?post_type=tribe_events&p=${ev.id}`);
    }
    const future = await createEvent(svc, { title: "Future link", date: "+10 days" });
    expect(future.status).toBe("future");
    expect(future.url).toBe(`${BASE}/?post_type=tribe_events&p=${future.id}`);
    expect(future.website).toBe(future.url);
    const fr = await svc.request("GET", `${svc.base}/fr/wp-json/calendar/events/v1/events/${pub.id}`);
    expect(fr.status).toBe(200);
    expect(fr.body.url).toBe(`${BASE}/fr/event/published-link/`);
    expect(fr.body.rest_url).toBe(`${BASE}/fr/wp-json/calendar/events/v1/events/${pub.id}`);
    expect(fr.body.i18n_language).toBe("fr");
  });

  describe("json_ld (single GETs only, and only when the caller may see it)", () => {
    let pub: Json;
    let draft: Json;
    let locked: Json;
    beforeAll(async () => {
      pub = await createEvent(svc, { title: "LD public", excerpt: "<b>Short</b> text", description: "Long", timezone: "America/New_York", start_date: "2025-01-15 09:00:00", end_date: "2025-01-15 10:00:00" });
      draft = await createEvent(svc, { title: "LD draft", status: "draft" }, "author");
      locked = await createEvent(svc, { title: "LD locked", post_password: "pw" });
    });

    test("anonymous callers get it for published events without password; no offers without a cost", async () => {
      const res = await svc.get(`/events/${pub.id}`);
      expect(res.body.json_ld).toEqual({
        "@context": "http://schema.org", "@type": "Event", name: "LD public", description: "Short text", url: pub.url,
        startDate: "2025-01-15T09:00:00-05:00", endDate: "2025-01-15T10:00:00-05:00", performer: "Organization",
        eventStatus: "https://schema.org/EventScheduled", eventAttendanceMode: "https://schema.org/OfflineEventAttendanceMode"
      });
      const locked1 = await svc.get(`/events/${locked.id}?password=pw`);
      expect(locked1.status).toBe(200);
      expect(locked1.body).not.toHaveProperty("json_ld");
    });

    test("authenticated callers get it for the events they can read", async () => {
      expect((await svc.get(`/events/${draft.id}`, "author")).body).toHaveProperty("json_ld");
      expect((await svc.get(`/events/${draft.id}`, "editor")).body).toHaveProperty("json_ld");
      expect((await svc.get(`/events/${locked.id}?password=pw`, "subscriber")).body).toHaveProperty("json_ld");
      expectError(await svc.get(`/events/${draft.id}`), 403, "event-not-accessible");
    });

    test("never in lists, creates, updates or deletes", async () => {
      const list = await svc.get(`/events?include=${pub.id},${draft.id}`, "admin");
      expect(list.body.events).toHaveLength(2);
      for (const ev of list.body.events) expect(ev).not.toHaveProperty("json_ld");
      const upd = await svc.request("PUT", `/events/${draft.id}`, { as: "admin", body: { title: "LD draft 2" } });
      expect(upd.body).not.toHaveProperty("json_ld");
    });

    test("image and offers appear when the event has them", async () => {
      const ev = await createEvent(svc, { title: token("LD image"), image: "https://cdn.example.org/p.png", cost: "€6.50 - €8.50", date: "2025-05-01 12:00:00" });
      const res = await svc.get(`/events/${ev.id}`);
      expect(res.body.json_ld.image).toBe("https://cdn.example.org/p.png");
      expect(res.body.json_ld.offers).toEqual({ "@type": "Offer", price: "6.50", priceCurrency: "EUR", url: ev.url, category: "primary", availability: "inStock", validFrom: "2025-05-01T12:00:00+00:00" });
    });
  });

  test("ticketed is false unless an internal caller sets it (D33: the ticketed flag)", async () => {
    const ev = await createEvent(svc, { title: "Tickets", start_date: dayAt(3) , end_date: dayAt(3, "11:00:00") });
    expect(ev.ticketed).toBe(false);
    const set: Json = await svc.broker.call("events.setTicketed", { id: ev.id, ticketed: true });
    expect(set.ticketed).toBe(true);
    expect((await svc.get(`/events/${ev.id}`)).body.ticketed).toBe(true);
  });
});
