/**
 * Helpers of the recurring-events HTTP tests (test/integration/recurrence-*.test.ts): every page of a
 * list, and the independent expander of C55 (horizon and ICS) — ical.js reads the service's own iCalendar answer of a
 * query and expands each series (master VEVENT with RRULE/RDATE/EXDATE, exceptions by RECURRENCE-ID);
 * the tests compare what it gives inside the query's window with what the JSON list answers.
 */
import type { Json } from "./json";
import ICAL from "ical.js";
import type { KeyName, Running } from "./harness";

/** One occurrence as either side sees it: title, local start and end (all-day: the dates), UTC start. */
export interface Seen {
  title: string;
  start: string;
  end: string;
  allDay: boolean;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, "0");
const wall = (t: ICAL.Time): string => `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;

/** Every event of a list query, following the pages (`query` without page/per_page); `as` null: anonymous. */
export async function listAll(svc: Running, query: string, as: KeyName | null = "admin"): Promise<Json[]> {
  const out: Json[] = [];
  for (let page = 1; ; page++) {
    const res = await svc.request("GET", `/events?${query}&per_page=50&page=${page}`, as ? { as } : {});
    if (res.status === 404 && page > 1) break;
    if (res.status !== 200) throw new Error(`list ${query} answered ${res.status}: ${res.text}`);
    out.push(...res.body.events);
    if (page >= res.body.total_pages) break;
  }
  return out;
}

/** What the JSON list shows, in the comparison's shape (sorted). */
export function seenOfRecords(events: Json[]): Seen[] {
  return sortSeen(events.map(e => ({
    title: e.title,
    start: e.all_day ? `${e.start_date.slice(0, 10)} 00:00:00` : e.start_date,
    end: e.all_day ? `${e.end_date.slice(0, 10)} 00:00:00` : e.end_date,
    allDay: !!e.all_day
  })));
}

function sortSeen(list: Seen[]): Seen[] {
  const key = (s: Seen) => `${s.start}|${s.end}|${s.title}`;
  return [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * ical.js's occurrences of every VEVENT of a calendar (series expanded with their exceptions) whose local
 * start is at or after `from` and whose local end is at or before `to` (the list's date condition,
 * docs/lists.md#date-filters; all-day ends count as that day's 23:59:59).
 */
export function icalSeen(text: string, from: string, to: string): Seen[] {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const zones = calendar.getAllSubcomponents("vtimezone");
  for (const zone of zones) ICAL.TimezoneService.register(zone);
  try {
    const vevents = calendar.getAllSubcomponents("vevent");
    const byUid = new Map<string, ICAL.Component[]>();
    for (const v of vevents) {
      const uid = String(v.getFirstPropertyValue("uid"));
      byUid.set(uid, [...(byUid.get(uid) ?? []), v]);
    }
    const out: Seen[] = [];
    const keep = (title: string, start: ICAL.Time, end: ICAL.Time) => {
      const allDay = start.isDate;
      const s = allDay ? `${wall(start).slice(0, 10)} 00:00:00` : wall(start);
      // an all-day DTEND is the day after the last day
      const lastDay = allDay ? wall(ICAL.Time.fromJSDate(new Date(Date.UTC(end.year, end.month - 1, end.day - 1)), true)).slice(0, 10) : "";
      const e = allDay ? `${lastDay} 00:00:00` : wall(end);
      const endForWindow = allDay ? `${lastDay} 23:59:59` : e;
      if (s >= from && endForWindow <= to) out.push({ title, start: s, end: e, allDay });
    };
    for (const group of byUid.values()) {
      const masterComp = group.find(v => !v.hasProperty("recurrence-id"));
      if (!masterComp) throw new Error("an exception without its series");
      const master = new ICAL.Event(masterComp);
      if (!master.isRecurring()) {
        keep(master.summary, master.startDate, master.endDate);
        continue;
      }
      for (const v of group) if (v !== masterComp) master.relateException(v);
      const it = master.iterator();
      let n = 0;
      for (let next = it.next(); next && n < 5000; next = it.next(), n++) {
        const details = master.getOccurrenceDetails(next);
        // past the window by more than a year: no exception can bring an occurrence back into it
        if (wall(details.recurrenceId) > `${Number(to.slice(0, 4)) + 1}${to.slice(4)}`) break;
        keep(details.item.summary, details.startDate, details.endDate);
      }
    }
    return sortSeen(out);
  } finally {
    for (const zone of zones) ICAL.TimezoneService.remove(String(zone.getFirstPropertyValue("tzid")));
  }
}
