/**
 * lib/recurrence/series-vevents.ts: the iCalendar lines of a series (C55: horizon and ICS), written like lib/events/ics-answer.ts writes DTSTART,
 * and read back by ical.js into the occurrences our expander lists.
 */
import { parseRecurrence } from "../../lib/recurrence/rule";
import { expandSeries } from "../../lib/recurrence/expand";
import { dtLines, exceptionVevent, recurrenceIdLine, recurrenceLines, seriesTimezone, seriesVevent } from "../../lib/recurrence/series-vevents";
import { Series, SeriesContext } from "../../lib/recurrence/types";
import { icalExpand, seriesCalendar } from "./recurrence-ical";

const HORIZON = "2029-01-01 00:00:00";

function series(ctx: SeriesContext, end: string, lines: string[]): Series {
  return { ...ctx, end, recurrence: parseRecurrence(lines, ctx, HORIZON) };
}

test("the zone a series needs a VTIMEZONE for", () => {
  expect(seriesTimezone("Europe/Rome", false)).toBe("Europe/Rome");
  expect(seriesTimezone("UTC+5:30", false)).toBe("UTC+5:30");
  expect(seriesTimezone("Europe/Rome", true)).toBeNull();
  expect(seriesTimezone("UTC", false)).toBeNull();
});

test("DTSTART/DTEND and RECURRENCE-ID as lib/events/ics-answer.ts writes dates", () => {
  expect(dtLines("2027-03-02 19:00:00", "2027-03-02 20:00:00", "Europe/Rome", false))
    .toEqual(["DTSTART;TZID=Europe/Rome:20270302T190000", "DTEND;TZID=Europe/Rome:20270302T200000"]);
  expect(dtLines("2027-03-02 19:00:00", "2027-03-02 20:00:00", "UTC", false)).toEqual(["DTSTART:20270302T190000Z", "DTEND:20270302T200000Z"]);
  expect(dtLines("2027-02-28 00:00:00", "2027-02-28 23:59:59", "Europe/Rome", true)).toEqual(["DTSTART;VALUE=DATE:20270228", "DTEND;VALUE=DATE:20270301"]);
  expect(recurrenceIdLine("2027-03-09 19:00:00", "America/New_York", false)).toBe("RECURRENCE-ID;TZID=America/New_York:20270309T190000");
  expect(recurrenceIdLine("2027-03-09 19:00:00", "UTC+5:30", false)).toBe("RECURRENCE-ID;TZID=\"UTC+5:30\":20270309T190000");
  expect(recurrenceIdLine("2027-03-09 00:00:00", "Europe/Rome", true)).toBe("RECURRENCE-ID;VALUE=DATE:20270309");
  expect(recurrenceIdLine("2027-03-09 19:00:00", "UTC", false)).toBe("RECURRENCE-ID:20270309T190000Z");
});

test("the series' lines: stored EXDATEs with the query's extra ones; an unsynchronised start as RDATE", () => {
  const ctx: SeriesContext = { zone: "Europe/Rome", allDay: false, start: "2027-03-01 19:00:00" };
  const s = series(ctx, "2027-03-01 20:00:00", ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3", "EXDATE;TZID=Europe/Rome:20270309T190000"]);
  expect(recurrenceLines(s.recurrence, s.start, s.zone, false, ["2027-03-16 19:00:00", "2027-03-09 19:00:00"])).toEqual([
    "RRULE:FREQ=WEEKLY;COUNT=3;BYDAY=TU",
    "RDATE;TZID=Europe/Rome:20270301T190000",
    "EXDATE;TZID=Europe/Rome:20270309T190000,20270316T190000",
  ]);
  const vevent = seriesVevent({ uid: "u@x", dtstamp: "20260101T000000Z", summary: "A; B", start: s.start, end: s.end, zone: s.zone, allDay: false, recurrence: s.recurrence });
  expect(vevent).toContain("SUMMARY:A\\; B");
  expect(vevent[0]).toBe("BEGIN:VEVENT");
  const exception = exceptionVevent({ uid: "u@x", dtstamp: "20260101T000000Z", summary: "moved", identity: "2027-03-02 19:00:00", start: "2027-03-02 21:00:00", end: "2027-03-02 22:00:00", zone: s.zone, allDay: false });
  expect(exception).toContain("RECURRENCE-ID;TZID=Europe/Rome:20270302T190000");
  expect(exception).toContain("DTSTART;TZID=Europe/Rome:20270302T210000");
});

test("a series of RDATEs alone reads back with its first start", () => {
  const s = series({ zone: "America/New_York", allDay: false, start: "2027-11-06 23:00:00" }, "2027-11-07 02:00:00", [
    "RDATE;TZID=America/New_York:20271120T230000,20271204T230000",
  ]);
  const ours = expandSeries(s, HORIZON);
  expect(ours.map(o => o.start)).toEqual(["2027-11-06 23:00:00", "2027-11-20 23:00:00", "2027-12-04 23:00:00"]);
  expect(icalExpand(seriesCalendar(s), HORIZON, false).map(o => [o.identity, o.utcStart])).toEqual(ours.map(o => [o.identity, o.utcStart]));
});

test("a wall clock that occurs twice (the fall-back hour) is its first instant (as iCalendar reads it)", () => {
  const s = series({ zone: "America/New_York", allDay: false, start: "2027-10-31 01:30:00" }, "2027-10-31 02:00:00", ["RRULE:FREQ=WEEKLY;COUNT=3"]);
  const ours = expandSeries(s, HORIZON);
  expect(ours[1]).toMatchObject({ start: "2027-11-07 01:30:00", utcStart: "2027-11-07 05:30:00" });
  // ical.js 2.2.1 takes the second one (01:30 EST); the other weeks agree.
  const theirs = icalExpand(seriesCalendar(s), HORIZON, false).map(o => o.utcStart);
  expect(theirs).toEqual([ours[0].utcStart, "2027-11-07 06:30:00", ours[2].utcStart]);
});
