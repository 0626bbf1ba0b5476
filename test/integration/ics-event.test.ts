/**
 * One event as iCalendar: `GET {ns}/events/{id}` (and `/events/by-slug/{slug}`) with `format=ics` or
 * `Accept: text/calendar` answers that event alone as text/calendar, read back by a standard parser
 * (ical.js); failures keep the contract's error JSON; the calendar is named by `SITE_NAME`.
 */
import ICAL from "ical.js";
import { startService, Running } from "../helpers/harness";
import { expectError, token } from "../helpers/events";
import type { Json } from "../helpers/json";

const SITE_NAME = "Jazz Club, Roma; Events";
let svc: Running;

beforeAll(async () => {
  svc = await startService({ SITE_NAME });
});
afterAll(async () => {
  await svc.stop();
});

async function create(body: Record<string, unknown>, as: "admin" | "author" = "admin") {
  const res = await svc.request("POST", "/events", { as, body });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body;
}

function parse(text: string): { calendar: Json; events: Json[] } {
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const zone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(zone);
  return { calendar, events: calendar.getAllSubcomponents("vevent").map((v: Json) => new ICAL.Event(v)) };
}

const utcMs = (db: string) => Date.parse(`${db.replace(" ", "T")}Z`);

describe("one event as iCalendar", () => {
  const word = token("one");
  let event: Json;
  let other: Json;

  beforeAll(async () => {
    event = await create({ title: `${word} Aida`, description: "<p>Verdi &amp; more</p>", start_date: "2031-07-15 20:30:00",
      end_date: "2031-07-15 23:00:00", timezone: "Europe/Rome", venue: { venue: `${word} Arena`, city: "Verona", country: "Italy" } });
    other = await create({ title: `${word} Nabucco`, start_date: "2031-07-16 20:30:00", end_date: "2031-07-16 23:00:00", timezone: "Europe/Rome" });
  });

  test("format=ics: that event alone, the instants, zone and text of its JSON record", async () => {
    const res = await svc.get(`/events/${event.id}?format=ics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="event-${event.id}.ics"`);
    const { calendar, events } = parse(res.text);
    expect(events).toHaveLength(1);
    const [ev] = events;
    expect(ev.uid).toBe(event.global_id);
    expect(ev.summary).toBe(`${word} Aida`);
    expect(ev.description).toBe("Verdi & more");
    expect(ev.location).toBe(`${word} Arena, Verona, Italy`);
    expect(ev.startDate.zone.tzid).toBe("Europe/Rome");
    expect(ev.startDate.toJSDate().getTime()).toBe(utcMs(event.utc_start_date));
    expect(ev.endDate.toJSDate().getTime()).toBe(utcMs(event.utc_end_date));
    expect(calendar.getAllSubcomponents("vtimezone").map((z: Json) => z.getFirstPropertyValue("tzid"))).toEqual(["Europe/Rome"]);
    expect(res.text).not.toContain(`${word} Nabucco`);
  });

  test("Accept: text/calendar and by slug give the same file; format=json wins; a bad format is 400", async () => {
    const viaFormat = await svc.get(`/events/${event.id}?format=ics`);
    expect((await svc.get(`/events/${event.id}`)).body.id).toBe(event.id); // the JSON answer, kept first
    const viaAccept = await svc.request("GET", `/events/${event.id}`, { headers: { Accept: "text/calendar" } });
    expect(viaAccept.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    expect(viaAccept.text).toBe(viaFormat.text);
    const bySlug = await svc.request("GET", `/events/by-slug/${event.slug}`, { headers: { Accept: "text/calendar, application/json;q=0.5" } });
    expect(bySlug.text).toBe(viaFormat.text);
    expect((await svc.get(`/events/by-slug/${event.slug}?format=ics`)).text).toBe(viaFormat.text);
    const json = await svc.request("GET", `/events/${event.id}?format=json`, { headers: { Accept: "text/calendar" } });
    expect(json.headers.get("content-type")).toContain("application/json");
    expect(json.body.id).toBe(event.id);
    expect((await svc.get(`/events/${event.id}`)).body.id).toBe(event.id);
    expectError(await svc.get(`/events/${event.id}?format=xml`), 400, "rest_invalid_param");
    expect((await svc.get(`/events/${other.id}?format=ics`)).text).toContain(`${word} Nabucco`);
  });

  test("failures answer the contract's error JSON, as without iCalendar", async () => {
    const draft = await create({ title: `${word} draft`, status: "draft", start_date: "2031-07-17 20:30:00", end_date: "2031-07-17 23:00:00" }, "author");
    for (const path of ["/events/987654321", `/events/${draft.id}`, "/events/by-slug/no-such-event-here"]) {
      const plain = await svc.get(path);
      expect(plain.status).toBeGreaterThanOrEqual(400);
      for (const res of [await svc.get(`${path}${path.includes("?") ? "&" : "?"}format=ics`), await svc.request("GET", path, { headers: { Accept: "text/calendar" } })]) {
        expect(res.headers.get("content-type")).toContain("application/json");
        expectError(res, plain.status, plain.body.code);
      }
    }
    // the author sees their draft, as iCalendar too
    const own = await svc.request("GET", `/events/${draft.id}?format=ics`, { as: "author" });
    expect(own.status).toBe(200);
    expect(parse(own.text).events[0].summary).toBe(`${word} draft`);
  });

  test("an ETag of its own, 304 when unchanged; a change of the event changes the file", async () => {
    const first = await svc.get(`/events/${event.id}?format=ics`);
    const tag = first.headers.get("etag")!;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(tag).not.toBe((await svc.get(`/events/${event.id}`)).headers.get("etag"));
    expect((await svc.request("GET", `/events/${event.id}?format=ics`, { headers: { "If-None-Match": tag } })).status).toBe(304);
    const updated = await svc.request("POST", `/events/${event.id}`, { as: "admin", body: { title: `${word} Aida (new cast)` } });
    expect(updated.status).toBe(200);
    const again = await svc.get(`/events/${event.id}?format=ics`);
    expect(again.headers.get("etag")).not.toBe(tag);
    expect(parse(again.text).events[0].summary).toBe(`${word} Aida (new cast)`);
  });

  test("an event that ends when it starts has no DTEND equal to its DTSTART", async () => {
    const instant = await create({ title: `${word} midnight bell`, start_date: "2031-12-31 23:00:00", end_date: "2031-12-31 23:00:00" });
    const res = await svc.get(`/events/${instant.id}?format=ics`);
    expect(res.text).not.toMatch(/\r\nDTEND/);
    const [ev] = parse(res.text).events;
    expect(ev.component.getFirstPropertyValue("duration").toString()).toBe("PT0S");
    expect(ev.endDate.toJSDate().getTime()).toBe(utcMs(instant.utc_start_date));
  });

  test("the calendar's name is SITE_NAME, on the list and on one event", async () => {
    for (const path of [`/events/${event.id}?format=ics`, `/events?search=${word}&start_date=2031-01-01&end_date=2031-12-31&format=ics`]) {
      const res = await svc.get(path);
      expect(res.text).toContain("X-WR-CALNAME:Jazz Club\\, Roma\\; Events\r\n");
      // ical.js keeps an X- property's value as written; it is TEXT (RFC 5545 §3.3.11) once unescaped
      const raw = parse(res.text).calendar.getFirstPropertyValue("x-wr-calname");
      expect(ICAL.design.icalendar.value.text.fromICAL(raw)).toBe(SITE_NAME);
    }
  });
});
