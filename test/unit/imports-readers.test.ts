/**
 * What the import readers bring from sources as producers write them: an Outlook VTIMEZONE
 * under a name of its own, every ORGANIZER of The Events Calendar's export, CLASS:PRIVATE, one unreadable
 * line, an unbounded rule older than a series may hold, and costs written as words at a TEC source.
 */
import { readIcs } from "../../lib/imports/ics-reader";
import { eventInput } from "../../lib/imports/tec";
import { seriesToHorizon } from "../../lib/imports/series-to-horizon";
import { zoneMatchingVtimezone } from "../../lib/imports/vtimezone-match";
import { parseRecurrence } from "../../lib/recurrence/rule";
import { expandSeries } from "../../lib/recurrence/expand";
import ICAL from "ical.js";

const calendar = (...lines: string[]) => ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...lines, "END:VCALENDAR"].join("\r\n");

/** Sydney's rules as Outlook exports them under a name that is neither IANA nor Windows, without X-LIC-LOCATION. */
const SYDNEY_VTIMEZONE = [
  "BEGIN:VTIMEZONE", "TZID:Customized Time Zone",
  "BEGIN:STANDARD", "DTSTART:16010101T030000", "TZOFFSETFROM:+1100", "TZOFFSETTO:+1000", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=4", "END:STANDARD",
  "BEGIN:DAYLIGHT", "DTSTART:16010101T020000", "TZOFFSETFROM:+1000", "TZOFFSETTO:+1100", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=10", "END:DAYLIGHT",
  "END:VTIMEZONE"
];

const event = (uid: string, ...lines: string[]) => ["BEGIN:VEVENT", `UID:${uid}`, "DTSTAMP:20261101T000000Z", ...lines, "END:VEVENT"];

describe("a TZID naming the feed's own VTIMEZONE", () => {
  const feed = calendar(...SYDNEY_VTIMEZONE, ...event("standup", "DTSTART;TZID=Customized Time Zone:20270104T080000", "DTEND;TZID=Customized Time Zone:20270104T090000",
    "RRULE:FREQ=WEEKLY;BYDAY=MO", "SUMMARY:Standup"));

  test("is read as the IANA zone following its rules: Monday 08:00 Sydney stays Monday 08:00 Sydney", () => {
    const read = readIcs(feed);
    expect(read.errors).toEqual([]);
    const input = read.events[0].input;
    expect(input).toMatchObject({ timezone: "Australia/Sydney", start_date: "2027-01-04 08:00:00", end_date: "2027-01-04 09:00:00" });
    // the series' occurrences, expanded as the service does, fall on Mondays at 08:00 local, in summer and winter time
    const ctx = { zone: "Australia/Sydney", allDay: false, start: "2027-01-04 08:00:00" };
    const occurrences = expandSeries({ ...ctx, end: "2027-01-04 09:00:00", recurrence: parseRecurrence(input.recurrence as string[], ctx) }, "2027-12-31 00:00:00");
    expect(occurrences.length).toBeGreaterThan(50);
    for (const o of occurrences) {
      expect(new Date(`${o.start.slice(0, 10)}T00:00:00Z`).getUTCDay()).toBe(1);
      expect(o.start.slice(11)).toBe("08:00:00");
    }
    expect(occurrences.find(o => o.start.startsWith("2027-07-05"))?.utcStart).toBe("2027-07-04 22:00:00");
    expect(occurrences.find(o => o.start.startsWith("2027-01-11"))?.utcStart).toBe("2027-01-10 21:00:00");
  });

  test("the matching prefers a zone whose city the TZID names, then the Windows table's zone", () => {
    const vtz = (tzid: string) => new ICAL.Component(ICAL.parse(calendar(...SYDNEY_VTIMEZONE.map(l => (l.startsWith("TZID:") ? `TZID:${tzid}` : l))))).getFirstSubcomponent("vtimezone")!;
    expect(zoneMatchingVtimezone(vtz("Customized Time Zone"), "Customized Time Zone", 2027)).toBe("Australia/Sydney");
    expect(zoneMatchingVtimezone(vtz("(UTC+10:00) Melbourne"), "(UTC+10:00) Melbourne", 2027)).toBe("Australia/Melbourne");
  });
});

describe("what else a feed says", () => {
  test("every ORGANIZER line is an organizer", () => {
    const read = readIcs(calendar(...event("o", "DTSTART:20270301T100000Z", "SUMMARY:Two hosts",
      "ORGANIZER;CN=\"First Host\":mailto:first@example.org", "ORGANIZER;CN=\"Second Host\":mailto:second@example.org")));
    expect(read.events[0].input.organizer).toEqual([{ organizer: "First Host", email: "first@example.org" }, { organizer: "Second Host", email: "second@example.org" }]);
  });

  test("CLASS:PRIVATE makes a private event; an import asking for draft keeps draft", () => {
    const text = calendar(...event("p", "DTSTART:20270301T100000Z", "SUMMARY:Private", "CLASS:PRIVATE"), ...event("q", "DTSTART:20270301T100000Z", "SUMMARY:Public", "CLASS:PUBLIC"));
    expect(readIcs(text).events.map(e => e.input.status)).toEqual(["private", "publish"]);
    expect(readIcs(text, "draft").events.map(e => e.input.status)).toEqual(["draft", "draft"]);
  });

  test("one unreadable line is left out and named; the rest of the feed is read", () => {
    const read = readIcs(calendar(...event("a", "DTSTART:20270301T100000Z", "SUMMARY:Fine", "X-BROKEN;=x:1"), ...event("b", "DTSTART:garbage", "SUMMARY:No start"),
      ...event("c", "DTSTART:20270302T100000Z", "SUMMARY:Also fine")));
    expect(read.events.map(e => e.sourceId)).toEqual(["a", "c"]);
    expect(read.warnings.map(w => w.source)).toEqual(["a"]);
    expect(read.warnings[0].message).toMatch(/^line \d+ left out .*X-BROKEN/);
    // a start that is not a date fails its event alone
    expect(read.errors).toEqual([{ source: "b", message: expect.stringMatching(/invalid date-time/) }]);
  });
});

describe("an unbounded rule with more occurrences than a series holds", () => {
  const input = { title: "Daily", start_date: "2020-01-01 09:00:00", end_date: "2020-01-01 10:00:00", timezone: "Europe/Rome", all_day: false,
    recurrence: ["RRULE:FREQ=DAILY", "EXDATE;TZID=Europe/Rome:20200102T090000,20270105T090000"] };

  test("is kept to the horizon: the latest occurrences up to it, the series starting later", () => {
    const kept = seriesToHorizon(input, "2027-06-30 00:00:00", "UTC", 990);
    expect(kept.start_date).toMatch(/^2024-\d\d-\d\d 09:00:00$/);
    expect((kept.end_date as string).slice(11)).toBe("10:00:00");
    expect(kept.recurrence).toEqual(["RRULE:FREQ=DAILY", "EXDATE;TZID=Europe/Rome:20270105T090000"]);
    const ctx = { zone: "Europe/Rome", allDay: false, start: kept.start_date as string };
    const n = expandSeries({ ...ctx, end: kept.end_date as string, recurrence: parseRecurrence(kept.recurrence as string[], ctx) }, "2027-06-30 00:00:00").length;
    expect(n).toBeLessThanOrEqual(990);
    expect(n).toBeGreaterThan(980);
  });

  test("bounded rules and small series are left as written", () => {
    expect(seriesToHorizon({ ...input, recurrence: ["RRULE:FREQ=DAILY;COUNT=5000"] }, "2027-06-30 00:00:00", "UTC", 990).start_date).toBe("2020-01-01 09:00:00");
    expect(seriesToHorizon({ ...input, start_date: "2027-01-01 09:00:00", end_date: "2027-01-01 10:00:00" }, "2027-06-30 00:00:00", "UTC", 990).start_date).toBe("2027-01-01 09:00:00");
  });
});

describe("a TEC source's cost", () => {
  const maps = { categories: new Map(), tags: new Map(), venues: new Map(), organizers: new Map() };
  test("written as words keeps its case", () => {
    expect(eventInput({ title: "T", cost: "Free", cost_details: { currency_symbol: "", currency_position: "", values: ["free"] } }, maps).cost).toBe("Free");
    expect(eventInput({ title: "T", cost: "Donation", cost_details: { currency_symbol: "$", currency_position: "prefix", values: ["donation"] } }, maps).cost).toBe("Donation");
    expect(eventInput({ title: "T", cost: "$10", cost_details: { currency_symbol: "$", currency_position: "prefix", values: ["10"] } }, maps).cost).toBe("$10");
  });
});
