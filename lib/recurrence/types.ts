/**
 * The shapes of a recurring series (C51 to C55: the recurrence decisions), shared by the recurrence modules. Every date-time
 * here is a local wall clock `YYYY-MM-DD HH:MM:SS` in the event's time zone (all-day: `… 00:00:00`),
 * except where a name says `Utc`.
 */

export type Frequency = "YEARLY" | "MONTHLY" | "WEEKLY" | "DAILY";

export type WeekdayCode = "MO" | "TU" | "WE" | "TH" | "FR" | "SA" | "SU";

/** One BYDAY entry: `n` 0 means every such weekday of the period, ±n the n-th from the start or end. */
export interface ByDay {
  n: number;
  day: WeekdayCode;
}

/** The parts of one RRULE, validated. `until` is a local wall clock (all-day: the last day at 00:00:00). */
export interface RuleParts {
  freq: Frequency;
  interval: number;
  count?: number;
  until?: string;
  byMonth: number[];
  byWeekNo: number[];
  byYearDay: number[];
  byMonthDay: number[];
  byDay: ByDay[];
  bySetPos: number[];
  wkst?: WeekdayCode;
}

/**
 * A series' recurrence, independent of how its lines were written: at most one rule, and the added
 * (RDATE) and excluded (EXDATE) occurrences as sorted, distinct local wall clocks.
 */
export interface Recurrence {
  rule: RuleParts | null;
  rdates: string[];
  exdates: string[];
}

/** What a series is anchored to: its first occurrence's local start, its zone and whether it is all-day. */
export interface SeriesContext {
  /** The event's `timezone` (an IANA zone, a `UTC±H` offset or UTC). */
  zone: string;
  allDay: boolean;
  /** The first occurrence's local start, `YYYY-MM-DD HH:MM:SS`. */
  start: string;
}

/** A series to expand: its context, the first occurrence's local end and its recurrence. */
export interface Series extends SeriesContext {
  end: string;
  recurrence: Recurrence;
}

/** One occurrence of a series. */
export interface Occurrence {
  /** The original local start the rule gives (RECURRENCE-ID, C53: occurrence identity, exceptions and scope): the occurrence's identity. */
  identity: string;
  /** Local start and end (a start in a spring-forward gap is the wall clock it really falls on). */
  start: string;
  end: string;
  utcStart: string;
  utcEnd: string;
}
