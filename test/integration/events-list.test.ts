/**
 * GET /events through HTTP (docs/lists.md#paging, #events-list; D10: list links carry what the caller sent; D34: search never matches through hidden fields; D35: paging headers): envelope and links, paging headers,
 * paging rules, the default date window, whole-day vs strict bounds, every filter, ordering.
 */
import { startService, Running } from "../helpers/harness";
import { createEvent, dayAt, expectError, expectInvalid, ids, token } from "../helpers/events";
import type { Json } from "../helpers/json";

describe("events: the list", () => {
  let svc: Running;
  let NS: string;
  beforeAll(async () => { svc = await startService(); NS = `http://localhost:${svc.port}/wp-json/calendar/events/v1`; });
  afterAll(async () => { await svc.stop(); });

  const list = (query: string, as?: Json) => svc.get(`/events?${query}`, as);

  describe("envelope, links and headers (docs/lists.md#envelope-and-links, #paging, D10: list links carry what the caller sent; D35)", () => {
    let tok: string;
    const made: number[] = [];
    beforeAll(async () => {
      tok = token("env");
      for (let d = 1; d <= 3; d++) made.push((await createEvent(svc, { title: `${tok} ${d}`, start_date: `2031-03-0${d} 10:00`, end_date: `2031-03-0${d} 11:00` })).id);
    });

    test("a middle page: key order, links in the D10 (list links carry what the caller sent) order, totals and headers", async () => {
      const q = `start_date=2031-03-01&end_date=2031-03-31&search=${tok}`;
      const res = await list(`page=2&per_page=1&${q}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(["events", "rest_url", "next_rest_url", "previous_rest_url", "total", "total_pages"]);
      expect(ids(res)).toEqual([made[1]]);
      expect(res.body.rest_url).toBe(`${NS}/events/?page=2&per_page=1&${q}`);
      expect(res.body.next_rest_url).toBe(`${NS}/events/?per_page=1&${q}&page=3`);
      expect(res.body.previous_rest_url).toBe(`${NS}/events/?per_page=1&${q}`);
      expect([res.body.total, res.body.total_pages]).toEqual([3, 3]);
      expect(res.headers.get("x-tec-total")).toBe("3");
      expect(res.headers.get("x-tec-totalpages")).toBe("3");
      expect(res.headers.get("x-wp-total")).toBe("3");
      expect(res.headers.get("x-wp-totalpages")).toBe("3");
      expect(res.headers.get("link")).toBe(`<${res.body.previous_rest_url}>; rel="prev", <${res.body.next_rest_url}>; rel="next"`);
      expect(res.headers.get("access-control-expose-headers")).toEqual(expect.stringContaining("X-TEC-Total"));
      for (const h of ["X-TEC-TotalPages", "X-WP-Total", "X-WP-TotalPages", "Link"]) expect(res.headers.get("access-control-expose-headers")).toContain(h);
    });

    test("first and last pages: only the links that exist; page 3 links back with page=2", async () => {
      const q = `search=${tok}&start_date=2031-03-01&end_date=2031-03-31`;
      const first = await list(`${q}&per_page=1`);
      expect(Object.keys(first.body)).toEqual(["events", "rest_url", "next_rest_url", "total", "total_pages"]);
      expect(first.body.rest_url).toBe(`${NS}/events/?page=1&per_page=1&start_date=2031-03-01&end_date=2031-03-31&search=${tok}`);
      expect(first.headers.get("link")).toBe(`<${first.body.next_rest_url}>; rel="next"`);
      const last = await list(`${q}&per_page=1&page=3`);
      expect(Object.keys(last.body)).toEqual(["events", "rest_url", "previous_rest_url", "total", "total_pages"]);
      expect(last.body.previous_rest_url).toBe(`${NS}/events/?per_page=1&start_date=2031-03-01&end_date=2031-03-31&search=${tok}&page=2`);
      const only = await list(q);
      expect(Object.keys(only.body)).toEqual(["events", "rest_url", "total", "total_pages"]);
      expect(only.headers.get("link")).toBeNull();
    });

    test("links carry what was sent, normalised and URL-encoded, in the fixed order; i18n_language last when sent (C8: language in built URLs)", async () => {
      const res = await list(`ticketed=false&featured=false&include[]=${made[0]}&include[]=${made[1]}&search=${encodeURIComponent(`${tok} 1`)}&strict_dates=yes&i18n_language=en&per_page=5`);
      expect(res.body.rest_url).toBe(`${NS}/events/?page=1&per_page=5&search=${tok}%201&featured=false&include=${made[0]}%2C${made[1]}&strict_dates=yes&ticketed=false&i18n_language=en`);
      const fr = await svc.get(`${svc.base}/fr/wp-json/calendar/events/v1/events?search=${tok}&start_date=2031-03-01`);
      expect(fr.body.rest_url).toBe(`${NS.replace("/wp-json", "/fr/wp-json")}/events/?page=1&per_page=10&start_date=2031-03-01&search=${tok}`);
    });

    test("per_page: default 10, more than 50 becomes 50; page and per_page validation", async () => {
      expect((await list(`search=${tok}`)).body.rest_url).toContain("per_page=10");
      const many = await list(`search=${tok}&per_page=100&start_date=2031-01-01&end_date=2031-12-31`);
      expect(many.body.rest_url).toBe(`${NS}/events/?page=1&per_page=50&start_date=2031-01-01&end_date=2031-12-31&search=${tok}`);
      expect(ids(await list(`search=${tok}&page=2.0&per_page=1&start_date=2031-03-01&end_date=2031-03-31`))).toEqual([made[1]]);
      for (const bad of ["page=foo", "page=0", "page=-1", "page=1.5", "per_page=0", "per_page=-3", "per_page=abc", "per_page=2.5"]) {
        expectInvalid(await list(bad), bad.split("=")[0]);
      }
    });

    test("page past the end → 404 event-archive-page-not-found; page 1 empty → 200 with nothing", async () => {
      expectError(await list(`search=${tok}&start_date=2031-03-01&page=4&per_page=1`), 404, "event-archive-page-not-found");
      expectError(await list(`search=${tok}&start_date=2031-03-01&page=2`), 404, "event-archive-page-not-found");
      const empty = await list(`search=nothing-matches-${tok}`);
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({ events: [], rest_url: `${NS}/events/?page=1&per_page=10&search=nothing-matches-${tok}`, total: 0, total_pages: 0 });
      expect([empty.headers.get("x-tec-total"), empty.headers.get("x-tec-totalpages"), empty.headers.get("x-wp-total")]).toEqual(["0", "0", "0"]);
    });
  });

  describe("dates (docs/lists.md#date-filters)", () => {
    test("default window: from yesterday 00:00 to the end of the day 24 months ahead; an event that started 3 days ago is not listed", async () => {
      const tok = token("win");
      const mk = async (label: string, start: string, end: string) => (await createEvent(svc, { title: `${tok} ${label}`, start_date: start, end_date: end })).id;
      const running = await mk("running", dayAt(-3), dayAt(3));
      const yesterday = await mk("yesterday", dayAt(-1, "00:00:00"), dayAt(-1, "01:00:00"));
      const beforeYesterday = await mk("before", dayAt(-2, "23:59:59"), dayAt(-1, "01:00:00"));
      const today = await mk("today", dayAt(0, "00:30:00"), dayAt(0, "23:00:00"));
      const inTwoYears = await mk("edge", dayAt(1), `${new Date(Date.now()).getUTCFullYear() + 2}-${dayAt(0).slice(5, 10)} 23:00:00`);
      const tooLate = await mk("late", dayAt(1), `${new Date(Date.now()).getUTCFullYear() + 2}-${dayAt(1).slice(5, 10)} 00:00:00`);
      const res = await list(`search=${tok}`);
      expect(ids(res).sort()).toEqual([yesterday, today, inTwoYears].sort());
      expect(ids(res)).not.toContain(running);
      expect(ids(res)).not.toContain(beforeYesterday);
      expect(ids(res)).not.toContain(tooLate);
      // ends_after (not strict) is 23:59:59 of its day: today's event ends before that.
      expect(ids(await list(`search=${tok}&ends_after=${dayAt(0)}`)).sort()).toEqual([running, inTwoYears, tooLate].sort());
      expect(ids(await list(`search=${tok}&start_date=${dayAt(-5)}`)).sort()).toEqual([running, yesterday, beforeYesterday, today, inTwoYears].sort());
    });

    test("strict default window starts at yesterday 23:59", async () => {
      const tok = token("strictwin");
      const early = (await createEvent(svc, { title: tok, start_date: dayAt(-1, "12:00:00"), end_date: dayAt(-1, "13:00:00") })).id;
      const late = (await createEvent(svc, { title: tok, start_date: dayAt(-1, "23:59:30"), end_date: dayAt(0, "01:00:00") })).id;
      expect(ids(await list(`search=${tok}`)).sort()).toEqual([early, late].sort());
      expect(ids(await list(`search=${tok}&strict_dates=true`))).toEqual([late]);
    });

    describe("bounds", () => {
      let tok: string;
      let ev: Record<string, number>;
      beforeAll(async () => {
        tok = token("bounds");
        ev = {};
        for (const [k, s, e] of [["d9", "2031-05-09 10:00", "2031-05-09 11:00"], ["d10", "2031-05-10 10:00", "2031-05-10 11:00"], ["d10late", "2031-05-10 20:00", "2031-05-11 02:00"], ["d11", "2031-05-11 10:00", "2031-05-11 11:00"]]) {
          ev[k] = (await createEvent(svc, { title: `${tok} ${k}`, start_date: s, end_date: e })).id;
        }
      });
      const got = async (query: string) => ids(await list(`search=${tok}&${query}`));

      test("start_date / end_date: whole days by default, instants when strict; default order by start", async () => {
        expect(await got("start_date=2031-05-10T15:00:00&end_date=2031-05-10")).toEqual([ev.d10]);
        expect(await got("start_date=2031-05-10T15:00:00&end_date=2031-05-11")).toEqual([ev.d10, ev.d10late, ev.d11]);
        for (const strict of ["true", "1", "on", "YES"]) expect(await got(`start_date=2031-05-10T15:00:00&end_date=2031-05-11T10:30:00&strict_dates=${strict}`)).toEqual([ev.d10late]);
        for (const loose of ["false", "0", "no", "whatever"]) expect(await got(`start_date=2031-05-10T15:00:00&end_date=2031-05-10T12:00:00&strict_dates=${loose}`)).toEqual([ev.d10]);
        expect(await got("start_date=2031-05-10 10:00:00&end_date=2031-05-10 11:00:00&strict_dates=1")).toEqual([ev.d10]);
        expect(await got("start_date=2031-05-10T12:00:00%2B02:00&end_date=2031-05-10T23:00:00%2B02:00&strict_dates=1")).toEqual([ev.d10]);
        expectInvalid(await list("strict_dates="), "strict_dates");
      });

      test("starts_before / starts_after / ends_before / ends_after: end of the day by default, the instant when strict; no default window", async () => {
        expect(await got("starts_after=2031-05-10&starts_before=2031-05-12")).toEqual([ev.d11]);
        expect(await got("starts_after=2031-05-09&starts_before=2031-05-10")).toEqual([ev.d10, ev.d10late]);
        expect(await got("starts_after=2031-05-10T09:00:00&starts_before=2031-05-10T12:00:00&strict_dates=true")).toEqual([ev.d10]);
        expect(await got("ends_after=2031-05-10&ends_before=2031-05-30")).toEqual([ev.d10late, ev.d11]);
        expect(await got("ends_before=2031-05-10&ends_after=2031-05-01")).toEqual([ev.d9, ev.d10]);
        expect(await got("ends_before=2031-05-11T01:00:00&ends_after=2031-05-09T10:30:00&strict_dates=1")).toEqual([ev.d9, ev.d10]);
        expect(await got("starts_before=2031-05-10&start_date=2031-05-10")).toEqual([ev.d10, ev.d10late]);
        expect(await got("starts_before=2031-05-10&end_date=2031-05-09")).toEqual([ev.d9]);
      });

      test("an old event is found by starts_before (no default window) and by include, not by default", async () => {
        const old = (await createEvent(svc, { title: `${tok} old`, start_date: "2020-01-01 10:00", end_date: "2020-01-01 11:00" })).id;
        expect(await got("")).not.toContain(old);
        expect(await got("starts_before=2020-12-31")).toEqual([old]);
        expect(await got(`include=${old}`)).toEqual([old]);
        expect(await got(`include=${old}&start_date=2031-01-01&end_date=2031-01-02&starts_after=2031-01-01`)).toEqual([old]);
      });

      test.each(["start_date", "end_date", "starts_before", "starts_after", "ends_before", "ends_after"])("%s: an unparseable date is 400", async name => {
        expectInvalid(await list(`${name}=before%20my%20birthday`), name);
        expectInvalid(await list(`${name}=1.5`), name);
        expect((await list(`${name}=tomorrow`)).status).toBe(200);
        expect((await list(`${name}=1749549600`)).status).toBe(200);
      });
    });
  });

  describe("filters (docs/lists.md#always-applied, #event-filters)", () => {
    test("search: title, excerpt, description; every term; -term excludes; quoted phrases; commas and + split", async () => {
      const tok = token("srch");
      const a = (await createEvent(svc, { title: `${tok} Blue Moon Night` })).id;
      const b = (await createEvent(svc, { title: `${tok} second`, excerpt: "The MOON rises" })).id;
      const c = (await createEvent(svc, { title: `${tok} third`, description: "blue sky, moon later" })).id;
      const d = (await createEvent(svc, { title: `${tok} fourth`, description: "nothing here" })).id;
      const s = async (q: string) => ids(await list(`search=${encodeURIComponent(q)}`)).sort();
      expect(await s(`${tok} moon`)).toEqual([a, b, c].sort());
      expect(await s(`${tok} blue moon`)).toEqual([a, c].sort());
      expect(await s(`${tok} "blue moon"`)).toEqual([a]);
      expect(await s(`${tok} -moon`)).toEqual([d]);
      expect(await s(`${tok},moon,-blue`)).toEqual([b]);
      expect(await s(`${tok}+later`)).toEqual([c]);
      expect(await s(`${tok.toUpperCase()} NOTHING`)).toEqual([d]);
      expect(await s(`${tok} a b c d e f g h i`)).toEqual([]);
      expectInvalid(await list("search="), "search");
      expectInvalid(await list("password="), "password");
      expect((await svc.get(`/events/?search=${tok}`)).status).toBe(200);
    });

    test("featured true/false", async () => {
      const tok = token("feat");
      const f = (await createEvent(svc, { title: tok, featured: true })).id;
      const n = (await createEvent(svc, { title: tok })).id;
      expect(ids(await list(`search=${tok}&featured=true`))).toEqual([f]);
      expect(ids(await list(`search=${tok}&featured=0`))).toEqual([n]);
      expect(ids(await list(`search=${tok}`)).sort()).toEqual([f, n].sort());
      expectInvalid(await list("featured=perhaps"), "featured");
    });

    test("hide_from_listings events are never listed, whatever the caller or filter", async () => {
      const tok = token("hide");
      const hidden = (await createEvent(svc, { title: tok, hide_from_listings: true })).id;
      for (const q of [`search=${tok}`, `include=${hidden}`, `search=${tok}&status=publish`]) for (const who of [undefined, "admin"]) expect(ids(await list(q, who))).toEqual([]);
      expect((await svc.get(`/events/${hidden}`)).status).toBe(200);
    });

    test("include: only those ids, dates ignored, ordered by publication date; unknown ids match nothing; bad lists are 400", async () => {
      const late = (await createEvent(svc, { title: "inc late", date: "2024-03-01 00:00:00", start_date: "2019-01-01", end_date: "2019-01-01" })).id;
      const early = (await createEvent(svc, { title: "inc early", date: "2024-01-01 00:00:00", start_date: "2035-01-01", end_date: "2035-01-01" })).id;
      expect(ids(await list(`include=${late},${early}`))).toEqual([early, late]);
      expect(ids(await list(`include=${late},${early},999999`))).toEqual([early, late]);
      expect(ids(await list("include=999998"))).toEqual([]);
      for (const bad of ["foo-bar,23", "0", "-4", "1.5"]) expectInvalid(await list(`include=${bad}`), "include");
    });

    test("post_parent: children of that event; unknown or non-event ids 400", async () => {
      const parent = (await createEvent(svc, { title: "List parent" })).id;
      const kids = [(await createEvent(svc, { title: "kid 1", post_parent: parent })).id, (await createEvent(svc, { title: "kid 2", post_parent: parent, start_date: dayAt(1), end_date: dayAt(1, "11:00:00") })).id];
      expect(ids(await list(`post_parent=${parent}`))).toEqual([kids[1], kids[0]]);
      expect(ids(await list(`post_parent=${kids[0]}`))).toEqual([]);
      for (const bad of ["foo-bar", "23456", "0"]) expectInvalid(await list(`post_parent=${bad}`), "post_parent");
    });

    test("ticketed: state set by internal callers (D33: the ticketed flag)", async () => {
      const tok = token("tix");
      const t = (await createEvent(svc, { title: tok })).id;
      const n = (await createEvent(svc, { title: tok })).id;
      await svc.broker.call("events.setTicketed", { id: t, ticketed: true });
      expect(ids(await list(`search=${tok}&ticketed=true`))).toEqual([t]);
      expect(ids(await list(`search=${tok}&ticketed=false`))).toEqual([n]);
      expectInvalid(await list("ticketed=maybe"), "ticketed");
    });

    test("ordering: start ascending, then publication date, then id", async () => {
      const tok = token("ord");
      const start = "2032-02-02 10:00:00";
      const b = (await createEvent(svc, { title: tok, start_date: start, end_date: start, date: "2024-02-01 00:00:00" })).id;
      const a = (await createEvent(svc, { title: tok, start_date: start, end_date: start, date: "2024-01-01 00:00:00" })).id;
      const c1 = (await createEvent(svc, { title: tok, start_date: start, end_date: start, date: "2024-03-01 00:00:00" })).id;
      const c2 = (await createEvent(svc, { title: tok, start_date: start, end_date: start, date: "2024-03-01 00:00:00" })).id;
      const first = (await createEvent(svc, { title: tok, start_date: "2032-02-01 10:00:00", end_date: "2032-02-03 10:00:00", date: "2024-12-01 00:00:00" })).id;
      expect(ids(await list(`search=${tok}&start_date=2032-01-01&end_date=2032-12-31`))).toEqual([first, a, b, c1, c2]);
    });

    test("validation of the list filters that need other services' records: venue, organizer (ids must exist)", async () => {
      const ev = (await createEvent(svc, { title: "not a venue" })).id;
      for (const bad of ["foo", "0", String(ev), "999997"]) {
        expectInvalid(await list(`venue=${bad}`), "venue");
        expectInvalid(await list(`organizer=${bad}`), "organizer");
      }
    });
  });
});
