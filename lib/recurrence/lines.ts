/**
 * The syntax of iCalendar recurrence property lines: splitting a content line into its
 * name, parameters and value, and reading and writing DATE / DATE-TIME values against the event's zone.
 * Written values follow lib/events/ics-answer.ts: an IANA or `UTC±H` zone as `;TZID=<zone>` with the wall clock, UTC as
 * `…Z`, all-day as `;VALUE=DATE`.
 */
import moment from "moment-timezone";
import { plainWallClock, utcToWallClock, wallClockToUtc } from "../time/dates";
import { fixedOffsetMinutes } from "../events/ics-answer";

/** How lib/events/ics-answer.ts writes a zone: in UTC, or under a TZID (an IANA zone or a fixed-offset VTIMEZONE). */
export type IcsZone = { kind: "utc" } | { kind: "tzid"; name: string };

/** The zone as lib/events/ics-answer.ts writes it (unknown names are written in UTC there too). */
export function icsZone(zone: string): IcsZone {
  if (zone === "" || zone === "UTC" || zone === "UTC+0" || zone === "Etc/UTC") return { kind: "utc" };
  const fixed = fixedOffsetMinutes(zone);
  if (fixed !== undefined) return fixed === 0 ? { kind: "utc" } : { kind: "tzid", name: zone };
  return moment.tz.zone(zone) ? { kind: "tzid", name: zone } : { kind: "utc" };
}

/** One content line: upper-cased name, parameters (names upper-cased, values unquoted) and raw value. */
export interface ContentLine {
  name: string;
  params: Map<string, string>;
  value: string;
}

/** Splits `NAME;P=V;P="V":VALUE`; null when it is not that shape or a parameter repeats. */
export function parseContentLine(line: string): ContentLine | null {
  let i = 0;
  const nameMatch = /^[A-Za-z][A-Za-z0-9-]*/.exec(line);
  if (!nameMatch) return null;
  const name = nameMatch[0].toUpperCase();
  i = nameMatch[0].length;
  const params = new Map<string, string>();
  while (line[i] === ";") {
    const param = /^([A-Za-z][A-Za-z0-9-]*)=("[^"]*"|[^";:,]*)/.exec(line.slice(i + 1));
    if (!param) return null;
    const key = param[1].toUpperCase();
    if (params.has(key)) return null;
    params.set(key, param[2].startsWith("\"") ? param[2].slice(1, -1) : param[2]);
    i += 1 + param[0].length;
  }
  if (line[i] !== ":") return null;
  return { name, params, value: line.slice(i + 1) };
}

const pad = (n: number): string => String(n).padStart(2, "0");

/** `YYYYMMDD` → `YYYY-MM-DD 00:00:00`, or null when it is not a real date. */
export function readDate(value: string): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  return m ? plainWallClock(`${m[1]}-${m[2]}-${m[3]}`) ?? null : null;
}

/** `YYYYMMDDTHHMMSS[Z]` → the wall clock and whether it was UTC, or null. */
export function readDateTime(value: string): { wall: string; utc: boolean } | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/.exec(value);
  if (!m) return null;
  const wall = plainWallClock(`${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}:${m[6]}`);
  return wall === undefined ? null : { wall, utc: m[7] === "Z" };
}

/** `YYYY-MM-DD HH:MM:SS` → `YYYYMMDDTHHMMSS`. */
export function basicDateTime(wall: string): string {
  return `${wall.slice(0, 4)}${wall.slice(5, 7)}${wall.slice(8, 10)}T${wall.slice(11, 13)}${wall.slice(14, 16)}${wall.slice(17, 19)}`;
}

/** `YYYY-MM-DD …` → `YYYYMMDD`. */
export function basicDate(wall: string): string {
  return `${wall.slice(0, 4)}${wall.slice(5, 7)}${wall.slice(8, 10)}`;
}

/** A parameter value as lib/events/ics-answer.ts writes it: quoted when it holds `:`, `;` or `,`. */
export function paramValue(value: string): string {
  return /[:;,]/.test(value) ? `"${value}"` : value;
}

/**
 * A date property (`RDATE`, `EXDATE`, `RECURRENCE-ID`) of local wall clocks in the series' zone:
 * `NAME;VALUE=DATE:…` (all-day), `NAME;TZID=zone:…` or `NAME:…Z` (UTC).
 */
export function dateProperty(name: string, walls: readonly string[], zone: string, allDay: boolean): string {
  if (allDay) return `${name};VALUE=DATE:${walls.map(basicDate).join(",")}`;
  const z = icsZone(zone);
  if (z.kind === "utc") return `${name}:${walls.map(w => `${basicDateTime(wallClockToUtc(w, zone))}Z`).join(",")}`;
  return `${name};TZID=${paramValue(z.name)}:${walls.map(basicDateTime).join(",")}`;
}

/** A wall clock of the zone read back from a UTC value. */
export function wallFromUtc(utcWall: string, zone: string): string {
  return utcToWallClock(utcWall, zone);
}

/** Conversions between a zone's wall clocks and UTC, as lib/time/dates.ts does them, for many values. */
export interface ZoneConverter {
  toUtc(wall: string): string;
  toWall(utc: string): string;
}

const HOUR_MS = 3_600_000;
/** Offset changes closer than this to a value send it to lib/time/dates.ts (gaps, overlaps, both sides). */
const NEAR_CHANGE_MS = 36 * HOUR_MS;

/**
 * A converter for one zone. lib/time/dates.ts parses each value with moment-timezone, which is slow for
 * a thousand occurrences; for an IANA zone (a name with `/`, which lib/time/dates.ts reads as IANA) a value
 * far from any offset change has one offset, read from the zone's table directly. Values near a change
 * (where gaps and overlaps need lib/time/dates.ts's rules) and every other zone go through lib/time/dates.ts.
 */
export function zoneConverter(zone: string): ZoneConverter {
  const data = zone.includes("/") ? moment.tz.zone(zone) : null;
  if (!data) return { toUtc: w => wallClockToUtc(w, zone), toWall: u => utcToWallClock(u, zone) };
  const { untils, offsets } = data;
  /** The offset (minutes west, moment's sign) in force at ms, or null near a change. */
  const offsetFar = (ms: number): number | null => {
    // i = the first period ending after ms (binary search; moment's own lookup is linear).
    let lo = 0;
    let hi = untils.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (untils[mid] <= ms) lo = mid + 1;
      else hi = mid;
    }
    if (untils[lo] <= ms + NEAR_CHANGE_MS) return null;
    if (lo > 0 && untils[lo - 1] >= ms - NEAR_CHANGE_MS) return null;
    return offsets[lo];
  };
  return {
    toUtc(wall) {
      const ms = wallMs(wall);
      const offset = Number.isFinite(ms) ? offsetFar(ms) : null;
      return offset === null ? wallClockToUtc(wall, zone) : wallFromMs(ms + offset * 60_000);
    },
    toWall(utc) {
      const ms = wallMs(utc);
      const offset = Number.isFinite(ms) ? offsetFar(ms) : null;
      return offset === null ? utcToWallClock(utc, zone) : wallFromMs(ms - offset * 60_000);
    },
  };
}

/** Wall-clock arithmetic on `YYYY-MM-DD HH:MM:SS` strings (read as UTC so no zone interferes). */
export function wallMs(wall: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(wall);
  if (!m) return Number.NaN;
  const year = Number(m[1]);
  // Date.UTC reads years 0–99 as 1900–1999; those take the slow way.
  if (year >= 100) return Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), 0);
  return d.getTime();
}

export function wallFromMs(ms: number): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (year >= 0 && year <= 9999) {
    const iso = d.toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  }
  return `${String(d.getUTCFullYear()).padStart(4, "0")}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}
