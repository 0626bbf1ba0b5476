/**
 * A series' occurrences from its first start up to a horizon, expanded by the rrule library.
 *
 * Time zones: the rule runs on "floating" wall clocks — each local `YYYY-MM-DD HH:MM:SS` is handed to
 * rrule as a Date whose UTC fields are that wall clock, without `tzid` — and each occurrence is converted
 * to UTC afterwards with the event's zone, as lib/time/dates.ts converts (lines.ts `zoneConverter`). So a 19:00
 * Europe/Rome meeting stays 19:00 in Rome across DST, whatever the process zone. rrule's own `tzid` option is not used: it returns instants
 * shifted by the offset of the process zone, and reads the target zone's offset at the wrong instant
 * near a change (see test/unit/recurrence-expand.test.ts).
 *
 * On top of rrule: the first start always is an occurrence (it is the series' first event). When the rule
 * does not give it, the iCalendar standard leaves the set undefined; here it is an extra occurrence, as if an RDATE, and
 * COUNT counts what the rule gives (as rrule and ical.js both do; lib/recurrence/series-vevents.ts writes that start
 * as an RDATE so any reader agrees). RDATEs add, EXDATEs remove (the first start too); the result is
 * sorted and distinct. Durations: a timed occurrence lasts the first one's exact
 * duration (its end is start + that many seconds); an all-day one spans the same wall-clock days.
 * A start in a spring-forward gap falls on the wall clock after the gap (lib/time/dates.ts), its identity
 * stays the rule's wall clock.
 */
import { RRule, Weekday, Frequency as RRuleFrequency, Options } from "rrule";
import { defaultListWindow, wallClockToUtc } from "../time/dates";
import { wallFromMs, wallMs, zoneConverter, ZoneConverter } from "./lines";
import { Frequency, Occurrence, RuleParts, Series, WeekdayCode } from "./types";

const FREQ: Record<Frequency, RRuleFrequency> = {
  YEARLY: RRuleFrequency.YEARLY, MONTHLY: RRuleFrequency.MONTHLY, WEEKLY: RRuleFrequency.WEEKLY, DAILY: RRuleFrequency.DAILY,
};
const WEEKDAY_INDEX: Record<WeekdayCode, number> = { MO: 0, TU: 1, WE: 2, TH: 3, FR: 4, SA: 5, SU: 6 };

/** A floating wall clock as rrule takes it: a Date whose UTC fields are the wall clock. */
const floating = (wall: string): Date => new Date(wallMs(wall));

function rruleOptions(rule: RuleParts, start: string): Partial<Options> {
  const orNull = <T>(values: T[]): T[] | null => (values.length ? values : null);
  return {
    freq: FREQ[rule.freq],
    dtstart: floating(start),
    interval: rule.interval,
    count: rule.count ?? null,
    until: rule.until === undefined ? null : floating(rule.until),
    wkst: rule.wkst === undefined ? null : WEEKDAY_INDEX[rule.wkst],
    bymonth: orNull(rule.byMonth),
    byweekno: orNull(rule.byWeekNo),
    byyearday: orNull(rule.byYearDay),
    bymonthday: orNull(rule.byMonthDay),
    byweekday: orNull(rule.byDay.map(d => (d.n === 0 ? new Weekday(WEEKDAY_INDEX[d.day]) : new Weekday(WEEKDAY_INDEX[d.day], d.n)))),
    bysetpos: orNull(rule.bySetPos),
    tzid: null,
  };
}

/** The wall clocks the RRULE gives from `start` (rrule's answer alone), in order, while `keep(wall)` holds; at most `limit`. */
export function ruleWalls(rule: RuleParts, start: string, keep: (wall: string) => boolean, limit = Infinity): string[] {
  const out: string[] = [];
  const rrule = new RRule(rruleOptions(rule, start));
  // The iterator stops rrule as soon as it answers false.
  rrule.all((date: Date) => {
    const wall = wallFromMs(date.getTime());
    if (!keep(wall) || out.length >= limit) return false;
    out.push(wall);
    return true;
  });
  return out;
}

/** Whether the rule itself gives the first start (the set is undefined in iCalendar when it does not). */
export function ruleGivesStart(rule: RuleParts, start: string): boolean {
  return ruleWalls(rule, start, w => w <= start, 1)[0] === start;
}

export interface ExpandOptions {
  /** Stop after this many occurrences (a cap check asks for one more than the cap). */
  limit?: number;
  /** Leave the EXDATEs in (to list what the rule and RDATEs give). */
  keepExcluded?: boolean;
}

/** A maker of the series' occurrences from their identities, with the series' duration. */
function occurrenceMaker(series: Omit<Series, "recurrence">, conv: ZoneConverter): (identity: string) => Occurrence {
  if (series.allDay) {
    const span = wallMs(series.end) - wallMs(series.start);
    return identity => {
      const utcStart = conv.toUtc(identity);
      const end = wallFromMs(wallMs(identity) + span);
      // An all-day occurrence starts at its day's 00:00:00, even where midnight is skipped by a change.
      return { identity, start: identity, end, utcStart, utcEnd: conv.toUtc(end) };
    };
  }
  const seconds = wallMs(conv.toUtc(series.end)) - wallMs(conv.toUtc(series.start));
  return identity => {
    const utcStart = conv.toUtc(identity);
    const utcEnd = wallFromMs(wallMs(utcStart) + seconds);
    return { identity, start: conv.toWall(utcStart), end: conv.toWall(utcEnd), utcStart, utcEnd };
  };
}

/** The occurrence whose rule wall clock is `identity`, with the series' duration. */
export function occurrenceAt(series: Omit<Series, "recurrence">, identity: string): Occurrence {
  return occurrenceMaker(series, zoneConverter(series.zone))(identity);
}

/**
 * The occurrences of a series whose UTC start is at or before `horizonUtc` (`YYYY-MM-DD HH:MM:SS`),
 * and the first one whatever the horizon (unless excluded), sorted by start. A series without rule or
 * RDATE is its first occurrence alone.
 */
export function expandSeries(series: Series, horizonUtc: string, opts: ExpandOptions = {}): Occurrence[] {
  const limit = opts.limit ?? Infinity;
  const conv = zoneConverter(series.zone);
  const inHorizon = (wall: string): boolean => conv.toUtc(wall) <= horizonUtc;
  const excluded = new Set(opts.keepExcluded ? [] : series.recurrence.exdates);
  const walls = new Set<string>();
  const rule = series.recurrence.rule;
  // EXDATEs are taken out after the rule ran, so the rule is asked for as many more as there are.
  const ruleLimit = limit === Infinity ? Infinity : limit + excluded.size;
  // The first start is the series' first event: listed whatever the horizon.
  walls.add(series.start);
  if (rule) for (const w of ruleWalls(rule, series.start, inHorizon, ruleLimit)) walls.add(w);
  for (const w of series.recurrence.rdates) if (inHorizon(w)) walls.add(w);
  const sorted = [...walls].filter(w => !excluded.has(w)).sort();
  return sorted.slice(0, limit).map(occurrenceMaker(series, conv));
}

/**
 * How far occurrences are materialised (C55: horizon and ICS): the end of the default list window (in the site zone)
 * plus one day, as a UTC `YYYY-MM-DD HH:MM:SS`.
 */
export function materialisationHorizon(siteZone: string, now: Date = new Date()): string {
  const end = defaultListWindow(false, siteZone, now).end;
  return wallClockToUtc(wallFromMs(wallMs(end) + 86_400_000), siteZone);
}
