/**
 * The imports' pure rules (lib/imports): the create body's checks, TEC discovery and mapping, iCalendar
 * reading (zones, series, exceptions, cancellations), Windows zone names — without a broker.
 */
import { importSettings, guessType } from "../../lib/imports/params";
import { defaultRestRoot, eventInput, parentsFirst, restRootFromLink, termInput } from "../../lib/imports/tec";
import { readIcs, IcsFormatError } from "../../lib/imports/ics-reader";
import { windowsZone } from "../../lib/imports/windows-zones";
import { digestOf } from "../../domain/imports/import-run";

describe("the create body", () => {
  test("defaults and guesses", () => {
    expect(importSettings({ url: "https://example.org" })).toEqual({ type: "tec", url: "https://example.org", update: "overwrite", trash_missing: false });
    expect(importSettings({ url: "webcal://example.org/cal.ics" })).toMatchObject({ type: "ics", url: "https://example.org/cal.ics" });
    expect(guessType(undefined, "BEGIN:VCALENDAR")).toBe("ics");
  });
  test("every bad parameter named in one 400", () => {
    try {
      importSettings({ url: "ftp://x", every_minutes: 14, trash_missing: "maybe", status: "trash", auth: { user: "a" } });
      throw new Error("accepted");
    } catch (err) {
      const e = err as { code: number; data: { params: Record<string, unknown> } };
      expect(e.code).toBe(400);
      expect(Object.keys(e.data.params).sort()).toEqual(["auth", "every_minutes", "status", "trash_missing", "url"]);
    }
  });
  test("every_minutes from 15, booleans as C5", () => {
    expect(importSettings({ url: "https://a.example", every_minutes: "15", trash_missing: "yes" })).toMatchObject({ every_minutes: 15, trash_missing: true });
  });
});

describe("TEC sources", () => {
  test("discovery", () => {
    expect(restRootFromLink('<https://s.example/wp-json/>; rel="https://api.w.org/"')).toBe("https://s.example/wp-json/");
    expect(restRootFromLink('<https://s.example/x>; rel="alternate", <https://s.example/api>; rel="https://api.w.org/"')).toBe("https://s.example/api/");
    expect(restRootFromLink(undefined)).toBeUndefined();
    expect(defaultRestRoot("https://s.example/blog/")).toBe("https://s.example/blog/wp-json/");
    expect(defaultRestRoot("https://s.example/wp-json/tribe/events/v1")).toBe("https://s.example/wp-json/");
  });
  test("parents before children, whatever the source's order", () => {
    const order = parentsFirst([{ id: 3, parent: 2 }, { id: 2, parent: 1 }, { id: 1, parent: 0 }, { id: 4, parent: 99 }]).map(t => t.id);
    expect(order).toEqual([1, 2, 3, 4]);
    expect(termInput({ name: "Rock &amp; Roll", slug: "rock", description: "" }, 0)).toEqual({ name: "Rock & Roll", slug: "rock" });
  });
  test("an event's links are mapped; its permalink is not a website; cost from its details", () => {
    const maps = { categories: new Map([[5, 50]]), tags: new Map([[6, 60]]), venues: new Map([[7, 70]]), organizers: new Map([[8, 80]]) };
    const input = eventInput({
      id: 1, url: "https://s.example/?p=1", website: "https://s.example/?p=1", title: "T", status: "draft", date_utc: "0000-00-00 00:00:00",
      categories: [{ id: 5 }, { id: 9 }], tags: [{ id: 6 }], venue: { id: 7 }, organizer: [{ id: 8 }], cost: "$10 – $20",
      cost_details: { currency_symbol: "€", currency_position: "postfix", values: ["10", "20"] }, image: false
    }, maps);
    expect(input).toMatchObject({ title: "T", status: "draft", categories: [50], tags: [60], venue: [70], organizer: [80], cost: "10 - 20€" });
    expect(input).not.toHaveProperty("website");
    expect(input).not.toHaveProperty("date_utc");
    expect(input).not.toHaveProperty("image");
  });
});

describe("iCalendar", () => {
  const cal = (body: string) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${body}\r\nEND:VCALENDAR`;
  test("Windows zone names", () => {
    expect(windowsZone("w. europe standard time")).toBe("Europe/Berlin");
    expect(windowsZone("Nowhere Standard Time")).toBeUndefined();
  });
  test("a series with RDATE, EXDATE, an exception and a cancelled instance", () => {
    const { events, errors } = readIcs(cal([
      "BEGIN:VEVENT", "UID:s", "SUMMARY:S", "DTSTART;TZID=Europe/Rome:20270105T100000", "DURATION:PT90M", "RRULE:FREQ=WEEKLY;COUNT=5",
      "RDATE:20270110T090000Z", "EXDATE;TZID=Europe/Rome:20270112T100000", "END:VEVENT",
      "BEGIN:VEVENT", "UID:s", "RECURRENCE-ID;TZID=Europe/Rome:20270119T100000", "DTSTART;TZID=Europe/Rome:20270119T120000", "DTEND;TZID=Europe/Rome:20270119T130000", "END:VEVENT",
      "BEGIN:VEVENT", "UID:s", "RECURRENCE-ID;TZID=Europe/Rome:20270126T100000", "STATUS:CANCELLED", "DTSTART;TZID=Europe/Rome:20270126T100000", "END:VEVENT"
    ].join("\r\n")));
    expect(errors).toEqual([]);
    expect(events[0].input).toMatchObject({
      timezone: "Europe/Rome", start_date: "2027-01-05 10:00:00", end_date: "2027-01-05 11:30:00",
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=5", "RDATE;TZID=Europe/Rome:20270110T100000", "EXDATE;TZID=Europe/Rome:20270112T100000,20270126T100000"]
    });
    expect(events[0].exceptions).toEqual([{ sourceId: "s|2027-01-19 10:00:00", identity: "2027-01-19 10:00:00", input: { start_date: "2027-01-19 12:00:00", end_date: "2027-01-19 13:00:00" } }]);
  });
  test("all-day DTEND is exclusive; a missing UID is an error of that VEVENT; a cancelled single event is imported as canceled", () => {
    const r = readIcs(cal(["BEGIN:VEVENT", "UID:a", "SUMMARY:A", "DTSTART;VALUE=DATE:20270301", "DTEND;VALUE=DATE:20270303", "END:VEVENT",
      "BEGIN:VEVENT", "SUMMARY:no uid", "DTSTART:20270301T100000Z", "END:VEVENT",
      "BEGIN:VEVENT", "UID:c", "STATUS:CANCELLED", "DTSTART:20270301T100000Z", "END:VEVENT"].join("\r\n")));
    expect(r.events.map(e => [e.input.start_date, e.input.end_date, e.input.all_day, e.input.event_status])).toEqual([
      ["2027-03-01 00:00:00", "2027-03-02 23:59:59", true, "scheduled"], ["2027-03-01 10:00:00", "2027-03-01 10:00:00", false, "canceled"]]);
    expect(r.errors).toEqual([{ source: "VEVENT #2", message: "UID is missing" }]);
    expect(r.skipped).toBe(0);
  });
  test("text that is not iCalendar", () => {
    expect(() => readIcs("hello")).toThrow(IcsFormatError);
  });
  test("digests are stable", () => {
    expect(digestOf({ a: 1 })).toBe(digestOf({ a: 1 }));
    expect(digestOf({ a: 1 })).not.toBe(digestOf({ a: 2 }));
  });
});
