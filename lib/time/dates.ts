// Dates, times and time zones the way the plugin's PHP does them (docs/dates.md, docs/lists.md#date-filters,
// docs/records.md#start-end-and-time-zone).
//
// All date-times travel as DB strings `YYYY-MM-DD HH:MM:SS` without a zone. Strings are parsed with
// locutus's port of PHP strtotime; zones and abbreviations come from moment-timezone.
//
// A "wall clock" is handled as a fake-UTC instant whose UTC components are the wall clock. locutus computes
// with the process's local time (Date's local getters and setters), so its one call here runs with the
// process zone set to UTC for the length of that synchronous call (`inUtc`); nothing else here reads the
// process zone, and the process may run in any zone (the date tests also run under another one: the
// jest.config.js project "other-zone").
import moment from "moment-timezone";
import { strtotime } from "locutus/php/datetime/strtotime";
import { sameWeekdayCorrection } from "./next-weekday";
import { memoByKey } from "../memo";

export type DateInput = unknown;

export const ZERO_DATE = "0000-00-00 00:00:00";

const DB_FORMAT = "YYYY-MM-DD HH:mm:ss";
const DB_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const MINUTE_MS = 60_000;

// ---------------------------------------------------------------------------------------------
// DB strings
// ---------------------------------------------------------------------------------------------

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/**
 * The UTC components of `d` as a DB string. The string is of the second alone, and a request asks for the
 * current second several times: the last second's string is kept (docs/benchmarks.md "The request path").
 */
export const toDb: (d: Date) => string = memoByKey((d: Date) => Math.floor(d.getTime() / 1000), (d: Date) =>
  `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`, 1);

/** A DB string read as UTC (Invalid Date when it is not a DB string). */
export function fromDb(db: string): Date {
  const m = DB_RE.exec(db);
  if (!m) return new Date(Number.NaN);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  return utcDate(y, mo - 1, d, h, mi, s);
}

// Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not. Out-of-range parts overflow (as PHP).
function utcDate(y: number, month0: number, d: number, h: number, mi: number, s: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(y, month0, d);
  date.setUTCHours(h, mi, s, 0);
  return date;
}

export function nowDb(now: Date = new Date()): string {
  return toDb(now);
}

export function dateDetails(db: string): {
  year: string; month: string; day: string; hour: string; minutes: string; seconds: string;
} {
  return {
    year: db.slice(0, 4), month: db.slice(5, 7), day: db.slice(8, 10),
    hour: db.slice(11, 13), minutes: db.slice(14, 16), seconds: db.slice(17, 19),
  };
}

export function dayStart(db: string): string {
  return `${db.slice(0, 10)} 00:00:00`;
}

export function dayEnd(db: string): string {
  return `${db.slice(0, 10)} 23:59:59`;
}

/** Adds calendar months; a day that does not exist overflows into the next month (PHP "+1 month"). */
export function addMonthsDb(db: string, months: number): string {
  const d = fromDb(db);
  d.setUTCMonth(d.getUTCMonth() + months);
  return toDb(d);
}

function addMinutesDb(db: string, minutes: number): string {
  return toDb(new Date(fromDb(db).getTime() + minutes * MINUTE_MS));
}

/** DB strings sort lexicographically in time order. */
export function compareDb(a: string, b: string): number {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Time zones
// ---------------------------------------------------------------------------------------------

/** A fixed offset (UTC, `UTC+5:30`, `EST`, `+02:00`) or an IANA zone known to moment-timezone. */
type Zone =
  | { kind: "fixed"; offsetMinutes: number; label: string }
  | { kind: "iana"; name: string };

const UTC_ZONE: Zone = { kind: "fixed", offsetMinutes: 0, label: "UTC" };

// Abbreviations PHP's DateTimeZone accepts, as fixed offsets in minutes. PHP tries abbreviations before
// identifiers, so `CET` is always +01:00 and `EST` always -05:00 (never the IANA zones of that name).
const ABBREVIATIONS: Record<string, number> = {
  UTC: 0, UCT: 0, GMT: 0, Z: 0, WET: 0, WEST: 60, BST: 60,
  CET: 60, CEST: 120, MET: 60, MEST: 120, EET: 120, EEST: 180, MSK: 180,
  WAT: 60, CAT: 120, EAT: 180, SAST: 120, PKT: 300, WIB: 420, WITA: 480, WIT: 540,
  HKT: 480, JST: 540, AWST: 480, ACST: 570, ACDT: 630, AEST: 600, AEDT: 660, CHST: 600,
  NZST: 720, NZDT: 780,
  NST: -210, NDT: -150, AST: -240, ADT: -180, EST: -300, EDT: -240, CST: -360, CDT: -300,
  MST: -420, MDT: -360, PST: -480, PDT: -420, AKST: -540, AKDT: -480, HST: -600,
};

const MAX_OFFSET_HOURS = 14;

/** Minutes east of UTC for a sign, hours and optional minutes, or null when out of range. */
function offsetMinutes(sign: string, hours: string, minutes = "0"): number | null {
  const h = Number(hours);
  const m = Number(minutes);
  if (h > MAX_OFFSET_HOURS || m > 59) return null;
  return (sign === "-" ? -1 : 1) * (h * 60 + m);
}

function formatOffset(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

// Decision (docs/dates.md#time-zones): a value starting with "UTC" must be exactly `UTC[+-]H[H][:MM]`.
function utcOffsetNameZone(zone: string): Zone | null {
  const m = /^UTC([+-])(\d{1,2})(?::(\d{2}))?$/.exec(zone);
  const minutes = m ? offsetMinutes(m[1], m[2], m[3]) : null;
  return minutes === null ? null : { kind: "fixed", offsetMinutes: minutes, label: zone };
}

function abbreviationZone(zone: string): Zone | null {
  const label = zone.toUpperCase();
  const minutes = ABBREVIATIONS[label];
  return minutes === undefined ? null : { kind: "fixed", offsetMinutes: minutes, label };
}

// `+02:00`, `-0500`, `+2`: PHP shows such a zone as `+02:00`.
function plainOffsetZone(zone: string): Zone | null {
  const m = /^([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(zone);
  const minutes = m ? offsetMinutes(m[1], m[2], m[3]) : null;
  return minutes === null ? null : { kind: "fixed", offsetMinutes: minutes, label: formatOffset(minutes) };
}

function ianaZone(zone: string): Zone | null {
  const known = moment.tz.zone(zone);
  return known ? { kind: "iana", name: known.name } : null;
}

function resolveZone(zone: string): Zone | null {
  if (zone === "" || zone === "UTC") return UTC_ZONE;
  if (zone.startsWith("UTC")) return utcOffsetNameZone(zone);
  return abbreviationZone(zone) ?? plainOffsetZone(zone) ?? ianaZone(zone);
}

function zoneOrThrow(zone: string): Zone {
  const resolved = resolveZone(zone);
  if (!resolved) throw new RangeError(`Unknown time zone: ${zone}`);
  return resolved;
}

export function isValidTimezone(tz: unknown): boolean {
  return typeof tz === "string" && resolveZone(tz) !== null;
}

/** A wall clock in an IANA zone; a time in a spring-forward gap moves forward by the gap (as PHP). */
function ianaMoment(wallClockDb: string, name: string): moment.Moment {
  return moment.tz(wallClockDb, DB_FORMAT, true, name);
}

/** Wall clock in `zone` → UTC. The zero date (floating publication date) passes through. */
export function wallClockToUtc(db: string, zone: string): string {
  if (db === ZERO_DATE) return db;
  const z = zoneOrThrow(zone);
  if (z.kind === "fixed") return addMinutesDb(db, -z.offsetMinutes);
  return ianaMoment(db, z.name).utc().format(DB_FORMAT);
}

/** UTC → wall clock in `zone`. The zero date passes through. */
export function utcToWallClock(db: string, zone: string): string {
  if (db === ZERO_DATE) return db;
  const z = zoneOrThrow(zone);
  if (z.kind === "fixed") return addMinutesDb(db, z.offsetMinutes);
  return moment.utc(db, DB_FORMAT, true).tz(z.name).format(DB_FORMAT);
}

/** The abbreviation shown as `timezone_abbr`; numeric tz-database abbreviations (`-03`) are kept. */
export function timezoneAbbr(zone: string, wallClockDb: string): string {
  const z = zoneOrThrow(zone);
  return z.kind === "fixed" ? z.label : ianaMoment(wallClockDb, z.name).format("z");
}

/** `+02:00`-style offset of `zone` at that wall clock. */
export function zoneOffset(zone: string, wallClockDb: string): string {
  const z = zoneOrThrow(zone);
  return z.kind === "fixed" ? formatOffset(z.offsetMinutes) : ianaMoment(wallClockDb, z.name).format("Z");
}

/** ISO 8601 with the zone's offset, e.g. `2025-06-10T20:00:00+02:00` (JSON-LD). */
export function isoWithOffset(wallClockDb: string, zone: string): string {
  return `${wallClockDb.replace(" ", "T")}${zoneOffset(zone, wallClockDb)}`;
}

// ---------------------------------------------------------------------------------------------
// Parsing input (docs/dates.md#accepted-input, #how-each-parameter-is-read)
// ---------------------------------------------------------------------------------------------

/** A parsed value: the wall clock as written and the offset written with it (null: none given). */
interface Parsed {
  wall: string;
  offsetMinutes: number | null;
}

const INTEGER_RE = /^[+-]?\d+$/;
// PHP is_numeric: such values are timestamps for the plugin; non-integers are rejected (Decision, docs/dates.md#accepted-input).
const PHP_NUMERIC_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const AT_TIMESTAMP_RE = /^@(-?\d+)$/;
// Guard against pathological inputs (the regexes below and locutus are quadratic); real dates are short.
const MAX_INPUT_LENGTH = 200;

// A time just before a trailing numeric offset: `09:00`, `09:00:00.123`, `T090000`, `9am`.
const TIME_END_RE = /(?:\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?|T\d{4}(?:\d{2})?(?:[.,]\d+)?|[ap]\.?m\.?)$/i;
const TRAILING_OFFSET_RE = /^(.*?)(\s*)(GMT|UTC)?([+-])(\d{1,2})(?::?(\d{2}))?$/i;
const TRAILING_NAME_RE = /(^|[\s\d])\(?([a-z]{1,5})\)?$/i;

/** A Unix timestamp (seconds): an instant, i.e. its UTC wall clock with offset 0. */
function fromTimestamp(seconds: number): Parsed | null {
  const wall = validDb(new Date(seconds * 1000));
  return wall === null ? null : { wall, offsetMinutes: 0 };
}

// Only 4-digit years fit the DB format.
function validDb(d: Date): string | null {
  const year = d.getUTCFullYear();
  return Number.isFinite(d.getTime()) && year >= 0 && year <= 9999 ? toDb(d) : null;
}

/**
 * Splits a trailing zone (`Z`, `+02:00`, `-0500`, `+02`, `GMT+2`, `EST`, `(CEST)`) from a string.
 * Done here rather than by locutus so the wall clock as written can be kept, and because locutus reads
 * `+02` and `GMT+2` as two minutes. A bare offset counts after a time or a space (PHP's tzcorrection),
 * so the `-10` of `2025-06-10` stays part of the date. Returns null for an out-of-range offset.
 */
function splitZone(s: string): { body: string; offsetMinutes: number | null } | null {
  const num = TRAILING_OFFSET_RE.exec(s);
  if (num && isOffsetPosition(num[1], num[2], num[3])) {
    const minutes = offsetMinutes(num[4], num[5], num[6]);
    return minutes === null ? null : { body: num[1], offsetMinutes: minutes };
  }
  const name = TRAILING_NAME_RE.exec(s);
  const minutes = name ? ABBREVIATIONS[name[2].toUpperCase()] : undefined;
  if (name && minutes !== undefined) {
    return { body: s.slice(0, name.index + name[1].length).trimEnd(), offsetMinutes: minutes };
  }
  return { body: s, offsetMinutes: null };
}

function isOffsetPosition(body: string, space: string, prefix: string | undefined): boolean {
  return prefix !== undefined || body === "" || space !== "" || TIME_END_RE.test(body);
}

// `YYYY-MM-DD`, `YYYY-MM-DD HH:MM` or `YYYY-MM-DD HH:MM:SS` (also with `T`): what nearly every client sends.
const PLAIN_DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * The wall clock of a plain, in-range date-time without strtotime (which tries dozens of formats), or
 * undefined for anything else (other formats, out-of-range parts that PHP would overflow): the same
 * answer strtotime gives (test/unit/dates-fast-path.test.ts compares them).
 */
export function plainWallClock(body: string): string | undefined {
  const m = PLAIN_DATE_TIME_RE.exec(body);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  return `${m[1]}-${m[2]}-${m[3]} ${pad(hour)}:${pad(minute)}:${pad(second)}`;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return MONTH_DAYS[month - 1] + (month === 2 && leap ? 1 : 0);
}

/**
 * Runs `fn` (synchronous) with the process zone set to UTC, then puts the zone back: locutus's strtotime
 * reads and writes dates in local time (see top). Node applies a change of `process.env.TZ` at once.
 */
function inUtc<T>(fn: () => T): T {
  const saved = process.env.TZ;
  if (saved === "UTC") return fn();
  process.env.TZ = "UTC";
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
}

/** strtotime of a zone-less string relative to `nowWall()`, giving a wall clock (fake-UTC, see top). */
function strtotimeWall(body: string, nowWall: () => string): string | null {
  const plain = plainWallClock(body);
  if (plain !== undefined) return plain;
  const nowSeconds = Math.floor(fromDb(nowWall()).getTime() / 1000);
  const seconds = inUtc(() => strtotime(body === "" ? "now" : body, nowSeconds));
  if (seconds === false || !Number.isFinite(seconds)) return null;
  // "next wednesday" read on a Wednesday is a week away, as in PHP (lib/time/next-weekday.ts)
  const days = sameWeekdayCorrection(body, new Date(nowSeconds * 1000).getUTCDay());
  return validDb(new Date((seconds + days * 86_400) * 1000));
}

/** The current wall clock in a zone given by name or by fixed offset. */
function nowWallIn(zone: string, offset: number | null, now: Date): string {
  return offset === null ? utcToWallClock(toDb(now), zone) : addMinutesDb(toDb(now), offset);
}

function parseString(input: string, zone: string, now: Date): Parsed | null {
  const s = input.trim();
  if (s === "" || s.length > MAX_INPUT_LENGTH) return null; // strtotime("") is false
  if (INTEGER_RE.test(s)) return fromTimestamp(Number(s));
  if (PHP_NUMERIC_RE.test(s)) return null;
  const at = AT_TIMESTAMP_RE.exec(s);
  if (at) return fromTimestamp(Number(at[1]));
  const split = splitZone(s);
  if (!split) return null;
  // Relative phrases are relative to "now" in the zone the string is read in.
  const wall = strtotimeWall(split.body, () => nowWallIn(zone, split.offsetMinutes, now));
  return wall === null ? null : { wall, offsetMinutes: split.offsetMinutes };
}

function parseInput(v: unknown, zone: string, now: Date): Parsed | null {
  if (typeof v === "number") return Number.isInteger(v) ? fromTimestamp(v) : null;
  if (typeof v === "string") return parseString(v, zone, now);
  return null;
}

/** The instant as UTC; a value without offset is taken to be UTC already. */
function parsedToUtc(p: Parsed): string {
  return p.offsetMinutes === null ? p.wall : addMinutesDb(p.wall, -p.offsetMinutes);
}

/** A JSON integer, an integer string (Unix timestamp) or a string strtotime can parse. */
export function isValidDateInput(v: unknown): boolean {
  return parseInput(v, "UTC", new Date()) !== null;
}

/**
 * Event `start_date`/`end_date`/`date`: read in `zone`; an explicit offset shapes the wall clock but is
 * not converted; a timestamp gives its UTC wall clock (plugin quirk, docs/dates.md#how-each-parameter-is-read).
 */
export function parseWallClock(v: unknown, zone: string, now: Date = new Date()): string | null {
  return parseInput(v, zone, now)?.wall ?? null;
}

/** `date_utc`: read as UTC, an explicit offset converted to UTC. */
export function parseUtc(v: unknown, now: Date = new Date()): string | null {
  const p = parseInput(v, "UTC", now);
  return p === null ? null : parsedToUtc(p);
}

/** Venue/organizer `date`: the wall clock in `zone` (no offset: as written; offset or timestamp: converted). */
export function parseInZone(v: unknown, zone: string, now: Date = new Date()): string | null {
  const p = parseInput(v, zone, now);
  if (p === null) return null;
  return p.offsetMinutes === null ? p.wall : utcToWallClock(parsedToUtc(p), zone);
}

// ---------------------------------------------------------------------------------------------
// List filters (docs/lists.md#date-filters)
// ---------------------------------------------------------------------------------------------

export type ListBoundKind = "start_date" | "end_date" | "starts_before" | "starts_after" | "ends_before" | "ends_after";

function dayBound(wallClock: string, kind: ListBoundKind): string {
  return kind === "start_date" ? dayStart(wallClock) : dayEnd(wallClock);
}

/**
 * A list filter value (read as UTC, docs/dates.md#how-each-parameter-is-read) as a bound in the site zone: strict → the instant;
 * otherwise 00:00:00 (start_date) or 23:59:59 (all others) of its calendar day.
 */
export function listBound(
  v: unknown, kind: ListBoundKind, strict: boolean, siteZone: string, now: Date = new Date(),
): string | null {
  const utc = parseUtc(v, now);
  if (utc === null) return null;
  const local = utcToWallClock(utc, siteZone);
  return strict ? local : dayBound(local, kind);
}

function parseInZoneOrThrow(expression: string, zone: string, now: Date): string {
  const wall = parseInZone(expression, zone, now);
  if (wall === null) throw new Error(`Cannot parse ${expression}`);
  return wall;
}

/**
 * The windows computed lately, by strictness, zone and second: they change at most once a second, every
 * list without dates asks for one, and the series horizon (lib/recurrence/expand.ts) for another, so one
 * remembered window alone would be computed again at every list (two strtotime calls each).
 */
const recentWindow = memoByKey(
  (strict: boolean, siteZone: string, now: Date) => `${strict}|${siteZone}|${Math.floor(now.getTime() / 1000)}`,
  (strict: boolean, siteZone: string, now: Date): { start: string; end: string } => {
    const start = parseInZoneOrThrow("yesterday 23:59", siteZone, now);
    const end = parseInZoneOrThrow("+24 months", siteZone, now);
    return strict ? { start, end } : { start: dayStart(start), end: dayEnd(end) };
  },
  16
);

/** Default list window: start "yesterday 23:59", end "+24 months", evaluated in the site zone. */
export function defaultListWindow(
  strict: boolean, siteZone: string, now: Date = new Date(),
): { start: string; end: string } {
  return { ...recentWindow(strict, siteZone, now) };
}
