/**
 * Calendar formats through HTTP (C22: caching headers and shaping): any events list query as iCalendar (RFC 5545) with `format=ics` or
 * `Accept: text/calendar` — every matching event up to 1 000, not one page — that a standard parser
 * (ical.js) reads back with the same events, instants and zones; and `json_ld=1` on the JSON list.
 */
import ICAL from "ical.js";
import { startService, Running } from "../helpers/harness";
import { dayAt, expectError, token } from "../helpers/events";
import type { Json } from "../helpers/json";

let svc: Running;

beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc.stop();
});

async function create(path: string, body: Record<string, unknown>) {
  const res = await svc.request("POST", path, { as: "admin", body });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** The calendar's events by UID, its time zones registered the standard way. */
function parseCalendar(text: string): Map<string, Json> {
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const zone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(zone);
  const out = new Map<string, Json>();
  for (const vevent of calendar.getAllSubcomponents("vevent")) {
    const ev = new ICAL.Event(vevent);
    out.set(ev.uid, ev);
  }
  return out;
}

const utcMs = (db: string) => Date.parse(`${db.replace(" ", "T")}Z`);
const nextDay = (db: string) => new Date(Date.parse(`${db.slice(0, 10)}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

describe("iCalendar", () => {
  const word = token("ics");
  let json: Json[] = [];
  let text = "";

  beforeAll(async () => {
    const venue = await create("/venues", { venue: "Teatro, Grande; Sala", address: "Via Roma 1", city: "Roma", country: "Italy" });
    const organizer = await create("/organizers", { organizer: "Ente Lirico", email: "info@lirico.example.org" });
    const category = await create("/categories", { name: "Opera" });
    // summer in Rome (CEST), winter in New York (EST), both sides of a DST change, a fixed offset, UTC, all day
    await create("/events", { title: `${word} Tosca, act 1; "prima"`, description: "<p>Puccini &amp; friends — ünïcödé, a long description that must be folded across several content lines of the calendar file.</p>",
      start_date: `${dayAt(10).slice(0, 4)}-07-15 20:30:00`, end_date: `${dayAt(10).slice(0, 4)}-07-15 23:00:00`, timezone: "Europe/Rome", venue: venue.id, organizer: organizer.id, categories: [category.id] });
    await create("/events", { title: `${word} New York winter`, start_date: "2031-01-15 09:00:00", end_date: "2031-01-15 10:30:00", timezone: "America/New_York" });
    await create("/events", { title: `${word} Across the DST change`, start_date: "2031-03-08 22:00:00", end_date: "2031-03-09 04:00:00", timezone: "America/New_York" });
    await create("/events", { title: `${word} Mumbai`, start_date: "2031-02-01 18:00:00", end_date: "2031-02-01 19:00:00", timezone: "UTC+5:30" });
    await create("/events", { title: `${word} In UTC`, start_date: "2031-02-02 08:00:00", end_date: "2031-02-02 09:00:00" });
    await create("/events", { title: `${word} Festival`, start_date: "2031-05-01", end_date: "2031-05-03", all_day: true, timezone: "Europe/Rome" });
    const query = `search=${encodeURIComponent(word)}&start_date=2020-01-01&end_date=2035-12-31&per_page=50`;
    json = (await svc.get(`/events?${query}`)).body.events;
    const ics = await svc.get(`/events?${query}&format=ics`);
    expect(ics.status).toBe(200);
    expect(ics.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    text = ics.text;
  });

  test("a standard parser reads back the same events, instants and zones", () => {
    expect(json).toHaveLength(6);
    const parsed = parseCalendar(text);
    expect(parsed.size).toBe(6);
    for (const ev of json) {
      const ical = parsed.get(ev.global_id);
      expect(ical).toBeDefined();
      expect(ical.summary).toBe(ev.title);
      if (ev.all_day) {
        expect(ical.startDate.isDate).toBe(true);
        expect(ical.startDate.toString()).toBe(ev.start_date.slice(0, 10));
        expect(ical.endDate.toString()).toBe(nextDay(ev.end_date));
        continue;
      }
      expect({ title: ev.title, start: ical.startDate.toJSDate().getTime(), end: ical.endDate.toJSDate().getTime() })
        .toEqual({ title: ev.title, start: utcMs(ev.utc_start_date), end: utcMs(ev.utc_end_date) });
      expect({ title: ev.title, zone: ical.startDate.zone.tzid }).toEqual({ title: ev.title, zone: ev.timezone });
      // the wall clock in the zone is the event's own
      expect(ical.startDate.toString().replace("T", " ").replace(/Z$/, "")).toBe(ev.start_date);
    }
  });

  test("descriptions, places, categories and organizers come across as text", () => {
    const tosca = [...parseCalendar(text).values()].find(e => e.summary.includes("Tosca"))!;
    expect(tosca.description).toContain("Puccini & friends — ünïcödé");
    expect(tosca.description).not.toContain("<p>");
    expect(tosca.location).toBe("Teatro, Grande; Sala, Via Roma 1, Roma, Italy");
    expect(tosca.component.getFirstPropertyValue("categories")).toBe("Opera");
    expect(tosca.organizer).toBe("mailto:info@lirico.example.org");
    expect(tosca.component.getFirstPropertyValue("url")).toBe(json.find(e => e.title.includes("Tosca")).url);
  });

  test("RFC 5545 framing: CRLF line ends, lines folded at 75 octets, one VTIMEZONE per zone used", () => {
    expect(text.startsWith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:")).toBe(true);
    expect(text.endsWith("END:VCALENDAR\r\n")).toBe(true);
    expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    for (const line of text.split("\r\n")) expect(Buffer.byteLength(line, "utf8")).toBeLessThanOrEqual(75);
    expect(text).toMatch(/\r\n [^\r\n]/);
    const zones = [...text.matchAll(/^TZID:(.+)$/gm)].map(m => m[1].trim()).sort();
    expect(zones).toEqual(["America/New_York", "Europe/Rome", "UTC+5:30"]);
  });

  test("Accept: text/calendar gives the same file; format=json wins over it", async () => {
    const query = `search=${encodeURIComponent(word)}&start_date=2020-01-01&end_date=2035-12-31`;
    const viaAccept = await svc.request("GET", `/events?${query}`, { headers: { Accept: "text/calendar" } });
    expect(viaAccept.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    expect(viaAccept.text).toBe(text);
    const forcedJson = await svc.request("GET", `/events?${query}&format=json`, { headers: { Accept: "text/calendar" } });
    expect(forcedJson.headers.get("content-type")).toContain("application/json");
    expectError(await svc.get(`/events?${query}&format=xml`), 400, "rest_invalid_param");
  });

  test("a subscription URL: an ETag, 304 when unchanged", async () => {
    const url = `/events?search=${encodeURIComponent(word)}&start_date=2020-01-01&end_date=2035-12-31&format=ics`;
    const first = await svc.get(url);
    const tag = first.headers.get("etag")!;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await svc.request("GET", url, { headers: { "If-None-Match": tag } })).status).toBe(304);
  });
});

describe("events that end when they start; the calendar's name", () => {
  test("no DTEND equal to DTSTART (RFC 5545 §3.6.1): DURATION:PT0S, read back as a zero-length event", async () => {
    const word = token("zero");
    await create("/events", { title: `${word} UTC instant`, start_date: "2031-06-01 12:00:00", end_date: "2031-06-01 12:00:00" });
    await create("/events", { title: `${word} Rome instant`, start_date: "2031-06-02 18:30:00", end_date: "2031-06-02 18:30:00", timezone: "Europe/Rome" });
    await create("/events", { title: `${word} one hour`, start_date: "2031-06-03 09:00:00", end_date: "2031-06-03 10:00:00", timezone: "Europe/Rome" });
    const ics = await svc.get(`/events?search=${word}&start_date=2031-01-01&end_date=2031-12-31&format=ics`);
    expect(ics.status).toBe(200);
    const blocks = ics.text.split("BEGIN:VEVENT").slice(1);
    expect(blocks).toHaveLength(3);
    for (const block of blocks) {
      const start = /\r\nDTSTART[;:][^\r]*/.exec(block)![0].replace(/^\r\nDTSTART/, "");
      const end = /\r\nDTEND[;:][^\r]*/.exec(block)?.[0].replace(/^\r\nDTEND/, "");
      expect(end).not.toBe(start);
      expect(/\r\nDTEND/.test(block) && /\r\nDURATION/.test(block)).toBe(false);
    }
    const parsed = [...parseCalendar(ics.text).values()];
    const byTitle = Object.fromEntries(parsed.map(e => [e.summary, e]));
    for (const title of [`${word} UTC instant`, `${word} Rome instant`]) {
      const ev = byTitle[title];
      expect(ev.component.getFirstPropertyValue("duration").toString()).toBe("PT0S");
      expect(ev.component.hasProperty("dtend")).toBe(false);
      expect(ev.endDate.toJSDate().getTime()).toBe(ev.startDate.toJSDate().getTime());
    }
    expect(byTitle[`${word} Rome instant`].startDate.toJSDate().toISOString()).toBe("2031-06-02T16:30:00.000Z");
    const hour = byTitle[`${word} one hour`];
    expect(hour.component.hasProperty("duration")).toBe(false);
    expect(hour.endDate.toJSDate().getTime() - hour.startDate.toJSDate().getTime()).toBe(3_600_000);
  });

  test("X-WR-CALNAME is the site name: by default BASE_URL's host name, without its port (C57: the site's home)", async () => {
    const ics = await svc.get(`/events?search=${token("none")}&format=ics`);
    const calendar = new ICAL.Component(ICAL.parse(ics.text));
    expect(calendar.getFirstPropertyValue("x-wr-calname")).toBe("localhost");
  });
});

describe("every matching event, not one page", () => {
  test("more events than a page holds, in list order; at most 1 000", async () => {
    const word = token("many");
    const batch = (from: number, n: number) => Promise.all(Array.from({ length: n }, (_, i) => svc.broker.call("events.create", {
      title: `${word} ${from + i}`, start_date: dayAt(20, "10:00:00"), end_date: dayAt(20, "11:00:00")
    })));
    for (let i = 0; i < 1005; i += 67) await batch(i, Math.min(67, 1005 - i));
    const query = `search=${word}`;
    const json = await svc.get(`/events?${query}`);
    expect(json.body.total).toBe(1005);
    expect(json.body.events).toHaveLength(10);
    const ics = await svc.get(`/events?${query}&format=ics&page=3&per_page=5`);
    const uids = [...parseCalendar(ics.text).keys()];
    expect(uids).toHaveLength(1000);
    const firstPage = (await svc.get(`/events?${query}&per_page=50`)).body.events.map((e: Json) => e.global_id);
    expect(uids.slice(0, 50)).toEqual(firstPage);
    expect(ics.headers.get("link")).toBeNull();
  }, 120_000);
});

describe("json_ld=1 on the events list", () => {
  test("adds json_ld to each listed event; absent or false: none", async () => {
    const word = token("jsonld");
    await create("/events", { title: `${word} one`, start_date: dayAt(8, "20:00:00"), end_date: dayAt(8, "21:00:00") });
    const withLd = await svc.get(`/events?search=${word}&json_ld=1`);
    expect(withLd.body.events[0].json_ld).toEqual(expect.objectContaining({ "@type": "Event", name: `${word} one` }));
    expect(withLd.body.rest_url).toContain("json_ld=1");
    for (const q of ["", "&json_ld=0", "&json_ld=false"]) expect((await svc.get(`/events?search=${word}${q}`)).body.events[0]).not.toHaveProperty("json_ld");
    expectError(await svc.get(`/events?search=${word}&json_ld=maybe`), 400, "rest_invalid_param");
  });
});
