/**
 * The iCalendar answer of events that include occurrences of series (C55: horizon and ICS): each series whose occurrences
 * are listed is one VEVENT with its first start, RRULE/RDATE/EXDATE (lib/recurrence/series-vevents.ts) and the
 * VTIMEZONE of its zone; listed exceptions are VEVENTs of the same UID with a RECURRENCE-ID; the
 * occurrences within the query's window that the answer does not list are written as EXDATEs, so a
 * calendar application expanding the file gets exactly the listed occurrences there. Events outside a
 * series are written as before (lib/events/ics-answer.ts).
 */
import { calendarText, CalendarOptions, eventLines } from "../events/ics-answer";
import { dtLines, recurrenceIdLine, recurrenceLines } from "./series-vevents";
import { parseRecurrence } from "./rule";

type Rec = Record<string, unknown>;

/** A listed member of a series. */
export interface MemberInfo {
  series: number;
  identity: string;
  /** It has fields of its own (an exception). */
  exception: boolean;
}

/** A series as the answer needs it (its template's first start and end, zone, stored lines, UID). */
export interface SeriesInfo {
  uid: string;
  start: string;
  end: string;
  utc_start: string;
  zone: string;
  allDay: boolean;
  lines: string[];
  /** Identities to exclude on top of the stored EXDATEs (in the window, not listed). */
  exdates: string[];
}

export interface SeriesCalendarInfo {
  members: Record<string, MemberInfo>;
  series: Record<string, SeriesInfo>;
  /** Exceptions the query matches beyond the answer's records (their records are fetched and added). */
  more?: number[];
}

/** A VEVENT of a record with its UID and the lines after DTSTAMP replaced by `timing`. */
function withTiming(ev: Rec, uid: string, hostname: string, timing: string[]): string[] {
  const lines = eventLines({ ...ev, global_id: uid }, hostname).filter(l => !/^(DTSTART|DTEND|DURATION)[;:]/.test(l));
  const at = lines.findIndex(l => l.startsWith("DTSTAMP")) + 1;
  return [...lines.slice(0, at), ...timing, ...lines.slice(at)];
}

/** The series' master VEVENT, from the record of one of its plain occurrences (or any listed one). */
function masterVevent(record: Rec, s: SeriesInfo, hostname: string): string[] {
  const recurrence = parseRecurrence(s.lines, { zone: s.zone, allDay: s.allDay, start: s.start });
  // RFC 5545 allows no DTEND equal to DTSTART: a series of instants gets its length instead (as lib/events/ics-answer.ts does)
  const times = dtLines(s.start, s.end, s.zone, s.allDay).map(l => (!s.allDay && s.end <= s.start && l.startsWith("DTEND") ? "DURATION:PT0S" : l));
  const timing = [...times, ...recurrenceLines(recurrence, s.start, s.zone, s.allDay, s.exdates)];
  return withTiming(record, s.uid, hostname, timing);
}

/** An exception's VEVENT: its own times and fields, RECURRENCE-ID its identity. */
function exceptionVevent(record: Rec, member: MemberInfo, s: SeriesInfo, hostname: string): string[] {
  const own = eventLines({ ...record, global_id: s.uid }, hostname).filter(l => /^(DTSTART|DTEND|DURATION)[;:]/.test(l));
  return withTiming(record, s.uid, hostname, [recurrenceIdLine(member.identity, s.zone, s.allDay), ...own]);
}

/** The VCALENDAR text of event records, series written as series (see the top of this file). */
export function seriesCalendar(events: Rec[], info: SeriesCalendarInfo, opts: CalendarOptions = {}): string {
  const hostname = opts.hostname ?? "localhost";
  const vevents: string[][] = [];
  const zoned: Rec[] = [...events];
  const groups = new Map<number, Rec[]>();
  for (const ev of events) {
    const member = info.members[String(ev.id)];
    if (!member || !info.series[String(member.series)]) {
      vevents.push(eventLines(ev, hostname));
      continue;
    }
    groups.set(member.series, [...(groups.get(member.series) ?? []), ev]);
  }
  for (const [id, records] of groups) {
    const s = info.series[String(id)];
    const plain = records.find(r => !info.members[String(r.id)].exception) ?? records[0];
    vevents.push(masterVevent(plain, s, hostname));
    for (const r of records) {
      const member = info.members[String(r.id)];
      if (member.exception) vevents.push(exceptionVevent(r, member, s, hostname));
    }
    zoned.push({ timezone: s.zone, all_day: s.allDay, utc_start_date: s.utc_start, utc_end_date: s.utc_start });
  }
  return calendarText(zoned, vevents, opts);
}
