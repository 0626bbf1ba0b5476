/**
 * A series in iCalendar (C55: horizon and ICS): one VEVENT with DTSTART/DTEND, RRULE, RDATE and EXDATE, in the
 * event's zone under its TZID (the calendar then needs that zone's VTIMEZONE, lib/events/ics-answer.ts `vtimezone`);
 * each exception a VEVENT of the same UID with a RECURRENCE-ID. Values are written as lib/events/ics-answer.ts writes
 * DTSTART: `;TZID=<zone>` and the wall clock, `…Z` for UTC, `;VALUE=DATE` all-day (DTEND the day after
 * the last day). Pure line builders: lib/events/ics-answer.ts folds and joins them.
 */
import { wallClockToUtc } from "../time/dates";
import { escapeText } from "../events/ics-answer";
import { ruleGivesStart } from "./expand";
import { formatRecurrence } from "./rule";
import { basicDate, basicDateTime, dateProperty, icsZone, paramValue, wallFromMs, wallMs } from "./lines";
import { Recurrence } from "./types";

/** The TZID whose VTIMEZONE the series' lines need, or null (UTC and all-day series need none). */
export function seriesTimezone(zone: string, allDay: boolean): string | null {
  if (allDay) return null;
  const z = icsZone(zone);
  return z.kind === "tzid" ? z.name : null;
}

/** A DTSTART/DTEND-style property of one local wall clock. */
function timeProperty(name: string, wall: string, zone: string, allDay: boolean): string {
  if (allDay) return `${name};VALUE=DATE:${basicDate(wall)}`;
  const z = icsZone(zone);
  if (z.kind === "utc") return `${name}:${basicDateTime(wallClockToUtc(wall, zone))}Z`;
  return `${name};TZID=${paramValue(z.name)}:${basicDateTime(wall)}`;
}

/** DTSTART and DTEND of an occurrence given by its local start and end (all-day: DTEND the next day). */
export function dtLines(start: string, end: string, zone: string, allDay: boolean): string[] {
  const dtend = allDay ? wallFromMs(wallMs(`${end.slice(0, 10)} 00:00:00`) + 86_400_000) : end;
  return [timeProperty("DTSTART", start, zone, allDay), timeProperty("DTEND", dtend, zone, allDay)];
}

/**
 * The RRULE/RDATE/EXDATE lines of a series whose first start is `start`. `moreExdates` are identities to
 * leave out on top of the stored EXDATEs (C55: occurrences the query does not list). A first start the
 * rule does not give (or any first start of a series without rule) is written as an RDATE too: readers
 * differ on such a DTSTART (the standard leaves it undefined; ical.js drops it), and the series' first event
 * is always an occurrence.
 */
export function recurrenceLines(
  recurrence: Recurrence, start: string, zone: string, allDay: boolean, moreExdates: readonly string[] = [],
): string[] {
  const exdates = [...new Set([...recurrence.exdates, ...moreExdates])].sort();
  // Without a rule, ical.js drops DTSTART as well: the start is written as an RDATE then too.
  const unsynchronised = recurrence.rule === null ? recurrence.rdates.length > 0 : !ruleGivesStart(recurrence.rule, start);
  const rdates = unsynchronised ? [...new Set([start, ...recurrence.rdates])].sort() : recurrence.rdates;
  return formatRecurrence({ ...recurrence, rdates, exdates }, zone, allDay);
}

/** The RECURRENCE-ID line of an exception: its identity written like the series' DTSTART. */
export function recurrenceIdLine(identity: string, zone: string, allDay: boolean): string {
  return dateProperty("RECURRENCE-ID", [identity], zone, allDay);
}

export interface SeriesVeventInput {
  uid: string;
  /** `YYYYMMDDTHHMMSSZ`. */
  dtstamp: string;
  summary: string;
  start: string;
  end: string;
  zone: string;
  allDay: boolean;
  recurrence: Recurrence;
  moreExdates?: readonly string[];
}

/** A minimal VEVENT of a whole series (unfolded lines). */
export function seriesVevent(input: SeriesVeventInput): string[] {
  return [
    "BEGIN:VEVENT",
    `UID:${escapeText(input.uid)}`,
    `DTSTAMP:${input.dtstamp}`,
    ...dtLines(input.start, input.end, input.zone, input.allDay),
    ...recurrenceLines(input.recurrence, input.start, input.zone, input.allDay, input.moreExdates),
    `SUMMARY:${escapeText(input.summary)}`,
    "END:VEVENT",
  ];
}

export interface ExceptionVeventInput {
  uid: string;
  dtstamp: string;
  summary: string;
  /** The occurrence's identity (its original local start). */
  identity: string;
  /** Its own local start and end now. */
  start: string;
  end: string;
  zone: string;
  allDay: boolean;
}

/** A minimal VEVENT of one exception: same UID, RECURRENCE-ID = its identity, its own times. */
export function exceptionVevent(input: ExceptionVeventInput): string[] {
  return [
    "BEGIN:VEVENT",
    `UID:${escapeText(input.uid)}`,
    `DTSTAMP:${input.dtstamp}`,
    recurrenceIdLine(input.identity, input.zone, input.allDay),
    ...dtLines(input.start, input.end, input.zone, input.allDay),
    `SUMMARY:${escapeText(input.summary)}`,
    "END:VEVENT",
  ];
}
