/**
 * The independent expander of the recurrence tests (C55: horizon and ICS): ical.js reads the VCALENDAR our
 * lib/recurrence/series-vevents.ts writes for a series and expands it; the tests compare its occurrences with
 * lib/recurrence/expand.ts's (which runs on rrule).
 */
import ICAL from "ical.js";
import { vtimezone, foldLine } from "../../lib/events/ics-answer";
import { seriesTimezone, seriesVevent, exceptionVevent } from "../../lib/recurrence/series-vevents";
import { Series } from "../../lib/recurrence/types";

/** An occurrence as ical.js sees it: local start/end wall clocks (all-day: the dates) and UTC instants. */
export interface IcalOccurrence {
  identity: string;
  start: string;
  end: string;
  utcStart: string;
  utcEnd: string;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, "0");

function wall(t: ICAL.Time): string {
  return `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;
}

function utc(t: ICAL.Time): string {
  return new Date(t.toJSDate().getTime()).toISOString().slice(0, 19).replace("T", " ");
}

export interface Exception {
  identity: string;
  start: string;
  end: string;
}

/** The VCALENDAR text of a series (and exceptions), with the VTIMEZONE it needs. */
export function seriesCalendar(series: Series, exceptions: readonly Exception[] = [], moreExdates: readonly string[] = []): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//recurrence//EN", "CALSCALE:GREGORIAN"];
  const tzid = seriesTimezone(series.zone, series.allDay);
  if (tzid) {
    const from = Date.parse(`${series.start.slice(0, 10)}T00:00:00Z`) - 366 * 86_400_000;
    lines.push(...vtimezone(tzid, from, from + 12 * 366 * 86_400_000));
  }
  const common = { uid: "series-1@test", dtstamp: "20260101T000000Z", summary: "Series", zone: series.zone, allDay: series.allDay };
  lines.push(...seriesVevent({ ...common, start: series.start, end: series.end, recurrence: series.recurrence, moreExdates }));
  for (const e of exceptions) lines.push(...exceptionVevent({ ...common, ...e }));
  lines.push("END:VCALENDAR");
  return `${lines.map(foldLine).join("\r\n")}\r\n`;
}

/** ical.js's occurrences of the calendar's series whose UTC start is at or before `horizonUtc`. */
export function icalExpand(text: string, horizonUtc: string, allDay: boolean, max = 5000): IcalOccurrence[] {
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const zone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(zone);
  const vevents = calendar.getAllSubcomponents("vevent");
  const master = new ICAL.Event(vevents.find(v => !v.hasProperty("recurrence-id")));
  for (const v of vevents) if (v.hasProperty("recurrence-id")) master.relateException(v);
  const out: IcalOccurrence[] = [];
  const it = master.iterator();
  for (let next = it.next(); next && out.length < max; next = it.next()) {
    const details = master.getOccurrenceDetails(next);
    if (utc(details.startDate) > horizonUtc) break;
    const endWall = allDay
      ? `${new Date(details.endDate.toJSDate().getTime() - 86_400_000).toISOString().slice(0, 10)} 23:59:59`
      : wall(details.endDate);
    out.push({
      identity: wall(details.recurrenceId),
      start: wall(details.startDate),
      end: endWall,
      utcStart: utc(details.startDate),
      utcEnd: utc(details.endDate),
    });
  }
  for (const zone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.remove(String(zone.getFirstPropertyValue("tzid")));
  return out;
}
