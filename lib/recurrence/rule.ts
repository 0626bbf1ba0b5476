/**
 * The `recurrence` field of event writes (C51: recurrence fields; C52: the recurrence rules accepted): an array of iCalendar (RFC 5545) property
 * lines as Google Calendar API v3's field — `RRULE:…`, `RDATE…`, `EXDATE…`, with `;TZID=<zone>` or
 * `;VALUE=DATE` values. Parsed into a `Recurrence` (local wall clocks) and written back in one normal form:
 *
 *   RRULE:FREQ=…;INTERVAL=…;COUNT=…|UNTIL=…;BYMONTH=…;BYWEEKNO=…;BYYEARDAY=…;BYMONTHDAY=…;BYDAY=…;BYSETPOS=…;WKST=…
 *   RDATE;TZID=<zone>:v1,v2…    (one line, sorted, distinct; `;VALUE=DATE` all-day, `…Z` in UTC)
 *   EXDATE;TZID=<zone>:v1,v2…
 *
 * UNTIL is written in UTC (`…Z`) for timed series, as a DATE for all-day ones.
 *
 * Rules (C52: the recurrence rules accepted): at most one RRULE, any RDATE/EXDATE lines, no DTSTART/DTEND (the start is `start_date`);
 * a TZID must be the event's zone; FREQ DAILY or coarser; COUNT 1–1 000; UNTIL not before the start;
 * at most 100 lines and 1 000 occurrences up to the horizon. Also refused, each with its reason: BYHOUR,
 * BYMINUTE and BYSECOND (they make more than one occurrence a day or move the start's time), COUNT with
 * UNTIL, parts iCalendar forbids with the frequency, RDATE;VALUE=PERIOD, date-times on an all-day series
 * and dates on a timed one, an RDATE before the start, and lines that hold only EXDATEs.
 * Every refusal is a 400 `rest_invalid_param` naming `recurrence`; `data.params.recurrence.vars.reason`
 * says which rule failed.
 */
import { ApiError } from "../errors";
import { expandSeries } from "./expand";
import { basicDate, basicDateTime, dateProperty, icsZone, parseContentLine, readDate, readDateTime, wallFromUtc } from "./lines";
import { wallClockToUtc } from "../time/dates";
import { ByDay, Frequency, Recurrence, RuleParts, SeriesContext, WeekdayCode } from "./types";

export const MAX_LINES = 100;
export const MAX_COUNT = 1000;
export const MAX_OCCURRENCES = 1000;
export const MAX_INTERVAL = 1000;

/** Why a `recurrence` value was refused (`data.params.recurrence.vars.reason`). */
export type RecurrenceReason =
  | "type" | "too_many_lines" | "line" | "property" | "parameter" | "tzid" | "value_type" | "date"
  | "rrule_count" | "rrule_syntax" | "freq" | "sub_daily" | "count" | "until" | "count_and_until" | "interval"
  | "by_part" | "rdate_before_start" | "no_occurrences_rule" | "too_many_occurrences";

/** The 400 for a bad `recurrence`. */
export function recurrenceError(reason: RecurrenceReason, detail?: string): ApiError {
  const vars: Record<string, string> = { reason };
  if (detail !== undefined) vars.detail = detail;
  return ApiError.invalidParam("recurrence", "param.invalid", vars);
}

const FREQUENCIES: readonly Frequency[] = ["YEARLY", "MONTHLY", "WEEKLY", "DAILY"];
const WEEKDAYS: readonly WeekdayCode[] = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];
const SUB_DAILY = ["HOURLY", "MINUTELY", "SECONDLY"];

// ---------------------------------------------------------------------------------------------------------
// Dates of RDATE / EXDATE / UNTIL
// ---------------------------------------------------------------------------------------------------------

/** A TZID parameter must name the event's zone (case aside); UTC may be spelled for a UTC series. */
function checkTzid(tzid: string | undefined, ctx: SeriesContext): void {
  if (tzid === undefined) return;
  const z = icsZone(ctx.zone);
  const same = tzid.toLowerCase() === ctx.zone.toLowerCase() || (z.kind === "utc" && tzid.toUpperCase() === "UTC");
  if (!same) throw recurrenceError("tzid", tzid);
}

/** One RDATE/EXDATE value as a wall clock of the series (all-day: the day at 00:00:00). */
function readValue(raw: string, ctx: SeriesContext, valueType: string | undefined, tzid: string | undefined): string {
  if (ctx.allDay) {
    if (valueType === "DATE-TIME" || tzid !== undefined) throw recurrenceError("value_type", raw);
    const day = readDate(raw);
    if (day === null) throw recurrenceError(/^\d{8}T/.test(raw) ? "value_type" : "date", raw);
    return day;
  }
  if (valueType === "DATE") throw recurrenceError("value_type", raw);
  const dt = readDateTime(raw);
  if (dt === null) throw recurrenceError(/^\d{8}$/.test(raw) ? "value_type" : "date", raw);
  if (dt.utc && tzid !== undefined) throw recurrenceError("date", raw);
  // UTC values are read into the event's zone; floating ones are taken as the event's wall clock.
  return dt.utc ? wallFromUtc(dt.wall, ctx.zone) : dt.wall;
}

function readDateLine(params: Map<string, string>, value: string, ctx: SeriesContext, allowPeriod: boolean): string[] {
  for (const key of params.keys()) if (key !== "TZID" && key !== "VALUE") throw recurrenceError("parameter", key);
  const valueType = params.get("VALUE")?.toUpperCase();
  if (valueType === "PERIOD" && !allowPeriod) throw recurrenceError("value_type", valueType);
  if (valueType !== undefined && valueType !== "DATE" && valueType !== "DATE-TIME") throw recurrenceError("value_type", valueType);
  checkTzid(params.get("TZID"), ctx);
  if (value === "") throw recurrenceError("date", value);
  return value.split(",").map(v => readValue(v.trim(), ctx, valueType, params.get("TZID")));
}

/** UNTIL as a wall clock: UTC converted into the zone, a DATE as the end of that day (all-day: the day). */
function readUntil(raw: string, ctx: SeriesContext): string {
  const day = readDate(raw);
  if (day !== null) return ctx.allDay ? day : `${day.slice(0, 10)} 23:59:59`;
  const dt = readDateTime(raw);
  if (dt === null) throw recurrenceError("until", raw);
  const wall = dt.utc ? wallFromUtc(dt.wall, ctx.zone) : dt.wall;
  return ctx.allDay ? `${wall.slice(0, 10)} 00:00:00` : wall;
}

// ---------------------------------------------------------------------------------------------------------
// RRULE
// ---------------------------------------------------------------------------------------------------------

function integer(raw: string, part: string): number {
  if (!/^[+-]?\d{1,6}$/.test(raw)) throw recurrenceError("rrule_syntax", part);
  return Number(raw);
}

/** A comma list of integers each within ±[1, max] (or [1, max] when `signed` is false). */
function intList(raw: string, part: string, max: number, signed = true): number[] {
  return raw.split(",").map(v => {
    const n = integer(v, part);
    if (n === 0 || Math.abs(n) > max || (!signed && n < 0)) throw recurrenceError("by_part", part);
    return n;
  });
}

function weekday(raw: string, part: string): WeekdayCode {
  const day = WEEKDAYS.find(d => d === raw);
  if (!day) throw recurrenceError("rrule_syntax", part);
  return day;
}

function byDayList(raw: string): ByDay[] {
  return raw.split(",").map(v => {
    const m = /^([+-]?\d{1,2})?([A-Z]{2})$/.exec(v);
    if (!m) throw recurrenceError("rrule_syntax", "BYDAY");
    const n = m[1] === undefined ? 0 : Number(m[1]);
    if (m[1] !== undefined && (n === 0 || Math.abs(n) > 53)) throw recurrenceError("by_part", "BYDAY");
    return { n, day: weekday(m[2], "BYDAY") };
  });
}

const RULE_PARTS = ["FREQ", "UNTIL", "COUNT", "INTERVAL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY",
  "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST"];

function parseRule(value: string, ctx: SeriesContext): RuleParts {
  const parts = new Map<string, string>();
  for (const piece of value.toUpperCase().split(";")) {
    const m = /^([A-Z]+)=(.+)$/.exec(piece);
    if (!m || !RULE_PARTS.includes(m[1]) || parts.has(m[1])) throw recurrenceError("rrule_syntax", m ? m[1] : piece);
    parts.set(m[1], m[2]);
  }
  const freqRaw = parts.get("FREQ");
  if (freqRaw === undefined) throw recurrenceError("freq");
  if (SUB_DAILY.includes(freqRaw)) throw recurrenceError("sub_daily", freqRaw);
  const freq = FREQUENCIES.find(f => f === freqRaw);
  if (!freq) throw recurrenceError("freq", freqRaw);
  for (const p of ["BYHOUR", "BYMINUTE", "BYSECOND"]) if (parts.has(p)) throw recurrenceError("sub_daily", p);

  const rule: RuleParts = { freq, interval: 1, byMonth: [], byWeekNo: [], byYearDay: [], byMonthDay: [], byDay: [], bySetPos: [] };
  const get = (p: string): string | undefined => parts.get(p);
  if (get("COUNT") !== undefined && get("UNTIL") !== undefined) throw recurrenceError("count_and_until");
  const interval = get("INTERVAL");
  if (interval !== undefined) {
    rule.interval = integer(interval, "INTERVAL");
    if (rule.interval < 1 || rule.interval > MAX_INTERVAL) throw recurrenceError("interval", interval);
  }
  const count = get("COUNT");
  if (count !== undefined) {
    rule.count = integer(count, "COUNT");
    if (rule.count < 1 || rule.count > MAX_COUNT) throw recurrenceError("count", count);
  }
  const until = get("UNTIL");
  if (until !== undefined) {
    rule.until = readUntil(until, ctx);
    if (rule.until < (ctx.allDay ? `${ctx.start.slice(0, 10)} 00:00:00` : ctx.start)) throw recurrenceError("until", until);
  }
  const raw = (p: string): string | undefined => get(p);
  if (raw("BYMONTH") !== undefined) rule.byMonth = intList(raw("BYMONTH")!, "BYMONTH", 12, false);
  if (raw("BYWEEKNO") !== undefined) {
    if (freq !== "YEARLY") throw recurrenceError("by_part", "BYWEEKNO");
    rule.byWeekNo = intList(raw("BYWEEKNO")!, "BYWEEKNO", 53);
  }
  if (raw("BYYEARDAY") !== undefined) {
    if (freq !== "YEARLY") throw recurrenceError("by_part", "BYYEARDAY");
    rule.byYearDay = intList(raw("BYYEARDAY")!, "BYYEARDAY", 366);
  }
  if (raw("BYMONTHDAY") !== undefined) {
    if (freq === "WEEKLY") throw recurrenceError("by_part", "BYMONTHDAY");
    rule.byMonthDay = intList(raw("BYMONTHDAY")!, "BYMONTHDAY", 31);
  }
  if (raw("BYDAY") !== undefined) {
    rule.byDay = byDayList(raw("BYDAY")!);
    const numbered = rule.byDay.some(d => d.n !== 0);
    // iCalendar: numbered weekdays only in MONTHLY or YEARLY rules, and not with BYWEEKNO.
    if (numbered && (freq === "DAILY" || freq === "WEEKLY" || rule.byWeekNo.length > 0)) throw recurrenceError("by_part", "BYDAY");
  }
  if (raw("BYSETPOS") !== undefined) {
    rule.bySetPos = intList(raw("BYSETPOS")!, "BYSETPOS", 366);
    const other = rule.byMonth.length + rule.byWeekNo.length + rule.byYearDay.length + rule.byMonthDay.length + rule.byDay.length;
    if (other === 0) throw recurrenceError("by_part", "BYSETPOS");
  }
  if (raw("WKST") !== undefined) rule.wkst = weekday(raw("WKST")!, "WKST");
  return rule;
}

/** The RRULE line of parsed parts, in the normal form (see the top of this file). */
export function formatRule(rule: RuleParts, zone: string, allDay: boolean): string {
  const parts = [`FREQ=${rule.freq}`];
  if (rule.interval !== 1) parts.push(`INTERVAL=${rule.interval}`);
  if (rule.count !== undefined) parts.push(`COUNT=${rule.count}`);
  if (rule.until !== undefined) {
    parts.push(`UNTIL=${allDay ? basicDate(rule.until) : `${basicDateTime(wallClockToUtc(rule.until, zone))}Z`}`);
  }
  const list = (name: string, values: readonly (number | string)[]) => {
    if (values.length) parts.push(`${name}=${values.join(",")}`);
  };
  list("BYMONTH", rule.byMonth);
  list("BYWEEKNO", rule.byWeekNo);
  list("BYYEARDAY", rule.byYearDay);
  list("BYMONTHDAY", rule.byMonthDay);
  list("BYDAY", rule.byDay.map(d => `${d.n === 0 ? "" : d.n}${d.day}`));
  list("BYSETPOS", rule.bySetPos);
  if (rule.wkst !== undefined) parts.push(`WKST=${rule.wkst}`);
  return `RRULE:${parts.join(";")}`;
}

// ---------------------------------------------------------------------------------------------------------
// The field
// ---------------------------------------------------------------------------------------------------------

const sortedDistinct = (values: readonly string[]): string[] => [...new Set(values)].sort();

/**
 * Parses and checks recurrence lines against the series' context. Throws the 400 of C52 (the recurrence rules accepted). The occurrence
 * cap is checked when `horizonUtc` (a UTC `YYYY-MM-DD HH:MM:SS`) is given.
 */
export function parseRecurrence(lines: readonly unknown[], ctx: SeriesContext, horizonUtc?: string): Recurrence {
  if (lines.length > MAX_LINES) throw recurrenceError("too_many_lines", String(lines.length));
  let rule: RuleParts | null = null;
  const rdates: string[] = [];
  const exdates: string[] = [];
  for (const line of lines) {
    if (typeof line !== "string") throw recurrenceError("type");
    const parsed = parseContentLine(line.trim());
    if (!parsed) throw recurrenceError("line", line);
    switch (parsed.name) {
      case "RRULE":
        if (rule) throw recurrenceError("rrule_count");
        if (parsed.params.size) throw recurrenceError("parameter", [...parsed.params.keys()][0]);
        rule = parseRule(parsed.value, ctx);
        break;
      case "RDATE":
        rdates.push(...readDateLine(parsed.params, parsed.value, ctx, false));
        break;
      case "EXDATE":
        exdates.push(...readDateLine(parsed.params, parsed.value, ctx, false));
        break;
      default:
        throw recurrenceError("property", parsed.name);
    }
  }
  const startKey = ctx.allDay ? `${ctx.start.slice(0, 10)} 00:00:00` : ctx.start;
  if (rdates.some(d => d < startKey)) throw recurrenceError("rdate_before_start");
  if (!rule && rdates.length === 0 && exdates.length > 0) throw recurrenceError("no_occurrences_rule");
  const recurrence: Recurrence = { rule, rdates: sortedDistinct(rdates), exdates: sortedDistinct(exdates) };
  if (horizonUtc !== undefined) {
    const found = expandSeries({ ...ctx, end: ctx.start, recurrence }, horizonUtc, { limit: MAX_OCCURRENCES + 1 }).length;
    if (found > MAX_OCCURRENCES) throw recurrenceError("too_many_occurrences", String(MAX_OCCURRENCES));
  }
  return recurrence;
}

/** Whether a recurrence makes a series at all (a rule or added dates). */
export function isRecurring(recurrence: Recurrence | null | undefined): recurrence is Recurrence {
  return !!recurrence && (recurrence.rule !== null || recurrence.rdates.length > 0);
}

/** The normal-form lines of a recurrence (empty when it makes no series). */
export function formatRecurrence(recurrence: Recurrence, zone: string, allDay: boolean): string[] {
  if (!isRecurring(recurrence)) return [];
  const lines: string[] = [];
  if (recurrence.rule) lines.push(formatRule(recurrence.rule, zone, allDay));
  if (recurrence.rdates.length) lines.push(dateProperty("RDATE", recurrence.rdates, zone, allDay));
  if (recurrence.exdates.length) lines.push(dateProperty("EXDATE", recurrence.exdates, zone, allDay));
  return lines;
}

/** What a write's `recurrence` asks for: nothing (`null`/absent), ending the series (`[]`), or a recurrence. */
export type RecurrenceParam =
  | { action: "keep" }
  | { action: "end" }
  | { action: "set"; recurrence: Recurrence; lines: string[] };

/**
 * The `recurrence` parameter of a write (C51: recurrence fields; C52: the recurrence rules accepted): `null` or absent → keep; `[]` → end the recurrence;
 * an array of lines → the parsed recurrence and its normal-form lines. Anything else → the 400.
 */
export function readRecurrenceParam(value: unknown, ctx: SeriesContext, horizonUtc?: string): RecurrenceParam {
  if (value === undefined || value === null) return { action: "keep" };
  if (!Array.isArray(value)) throw recurrenceError("type");
  if (value.length === 0) return { action: "end" };
  const recurrence = parseRecurrence(value, ctx, horizonUtc);
  return { action: "set", recurrence, lines: formatRecurrence(recurrence, ctx.zone, ctx.allDay) };
}
