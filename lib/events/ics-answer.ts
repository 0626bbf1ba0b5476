/**
 * Events as iCalendar (RFC 5545), for `GET {ns}/events` with `format=ics` or `Accept: text/calendar` (C22 (caching headers and shaping):
 * every matching event, up to 1 000) and for one event (`GET {ns}/events/{id}` the same way). Built from the
 * event records exactly as the JSON answers them, so the caller's rights, password blanking and language
 * apply unchanged. The calendar's name (X-WR-CALNAME) is the site name (`SITE_NAME`, C57: the site's home).
 *
 * Times: an event in an IANA zone is written in its wall-clock time with `TZID=<zone>`, and the calendar
 * carries a VTIMEZONE for each such zone, with one observance per UTC-offset change over the years the
 * events span (from the tz database moment-timezone ships), so a parser reads back the same instants and
 * the same zone names. Offset zones (`UTC+2`, `UTC+5:30`) get a fixed-offset VTIMEZONE under their own
 * name; `UTC` events are written in UTC (`…Z`); all-day events as dates (DTEND the day after the last day).
 * An event that ends when it starts has `DURATION:PT0S` instead of a DTEND equal to its DTSTART.
 */
import moment from "moment-timezone";
import { plainText } from "../text/sanitize";
import { icsStatus } from "./event-status";

type Rec = Record<string, unknown>;
/** An event record (lib/events/event-record.ts): the dates it always carries. */
interface EventRec extends Rec {
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
}

export const ICS_MAX_EVENTS = 1000;
export const ICS_CONTENT_TYPE = "text/calendar; charset=utf-8";
const PRODID = "-//Calendar Events Service//calendar/events/v1//EN";

// ---------------------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------------------


/** A TEXT value (RFC 5545 §3.3.11). */
export function escapeText(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r\n|\r|\n/g, "\\n");
}

/** A parameter value, quoted when it holds `:`, `;` or `,` (RFC 5545 §3.2). */
function paramValue(value: string): string {
  const clean = value.replace(/"/g, "'");
  return /[:;,]/.test(clean) ? `"${clean}"` : clean;
}

/** One content line folded at 75 octets, never inside a UTF-8 character (RFC 5545 §3.1). */
export function foldLine(line: string): string {
  const out: string[] = [];
  let current = "";
  let size = 0;
  let limit = 75;
  for (const ch of line) {
    const bytes = Buffer.byteLength(ch, "utf8");
    if (size + bytes > limit) {
      out.push(current);
      current = "";
      size = 0;
      limit = 74; // continuation lines start with a space
    }
    current += ch;
    size += bytes;
  }
  out.push(current);
  return out.join("\r\n ");
}

// ---------------------------------------------------------------------------------------------------------
// Dates
// ---------------------------------------------------------------------------------------------------------

const DB_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** `YYYY-MM-DD HH:MM:SS` → `YYYYMMDDTHHMMSS` (floating). */
function basic(db: string): string {
  const m = DB_RE.exec(db);
  if (!m) throw new Error(`not a DB date: ${db}`);
  return `${m[1]}${m[2]}${m[3]}T${m[4]}${m[5]}${m[6]}`;
}

const basicDate = (db: string): string => basic(db).slice(0, 8);

function utcStamp(db: unknown): string | undefined {
  return typeof db === "string" && DB_RE.test(db) && !db.startsWith("0000") ? `${basic(db)}Z` : undefined;
}

/** The day after a DB date, as `YYYYMMDD`. */
function dayAfter(db: string): string {
  return moment.utc(db.slice(0, 10), "YYYY-MM-DD").add(1, "day").format("YYYYMMDD");
}

/** `+HHMM` (or `+HHMMSS`) of an offset in minutes east of UTC. */
function offsetText(minutesEast: number): string {
  const totalSeconds = Math.round(minutesEast * 60);
  const sign = totalSeconds < 0 ? "-" : "+";
  const abs = Math.abs(totalSeconds);
  const hh = String(Math.floor(abs / 3600)).padStart(2, "0");
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, "0");
  const ss = abs % 60;
  return `${sign}${hh}${mm}${ss ? String(ss).padStart(2, "0") : ""}`;
}

/** A fixed-offset zone name (`UTC+2`, `UTC-5`, `UTC+5:30`) → minutes east of UTC; undefined otherwise. */
export function fixedOffsetMinutes(zone: string): number | undefined {
  const m = /^UTC([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(zone);
  if (!m) return undefined;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

type ZoneKind = { kind: "utc" } | { kind: "iana"; name: string } | { kind: "fixed"; name: string; minutes: number };

function zoneKind(zone: unknown): ZoneKind {
  if (typeof zone !== "string" || zone === "" || zone === "UTC" || zone === "UTC+0" || zone === "Etc/UTC") return { kind: "utc" };
  const fixed = fixedOffsetMinutes(zone);
  if (fixed !== undefined) return fixed === 0 ? { kind: "utc" } : { kind: "fixed", name: zone, minutes: fixed };
  return moment.tz.zone(zone) ? { kind: "iana", name: zone } : { kind: "utc" };
}

/**
 * A VTIMEZONE for an IANA zone, with the observance in force at `fromMs` and every offset change up to
 * `toMs`. Each observance starts at the local time of its onset, read in the offset it replaces.
 */
export function vtimezone(name: string, fromMs: number, toMs: number): string[] {
  const zone = moment.tz.zone(name);
  if (!zone) return [];
  const lines = ["BEGIN:VTIMEZONE", `TZID:${name}`];
  const east = (i: number) => -zone.offsets[i];
  const observance = (i: number, onsetMs: number | undefined) => {
    const from = i > 0 ? east(i - 1) : east(i);
    const to = east(i);
    const dst = onsetMs === undefined ? false : moment.tz(onsetMs, name).isDST();
    const onsetLocal = onsetMs === undefined ? "19700101T000000" : moment.utc(onsetMs + Math.round(from * 60) * 1000).format("YYYYMMDD[T]HHmmss");
    const kind = dst ? "DAYLIGHT" : "STANDARD";
    lines.push(`BEGIN:${kind}`, `DTSTART:${onsetLocal}`, `TZOFFSETFROM:${offsetText(from)}`, `TZOFFSETTO:${offsetText(to)}`, `TZNAME:${escapeText(zone.abbrs[i])}`, `END:${kind}`);
  };
  // Period i runs from untils[i-1] (its onset) to untils[i].
  let first = zone.untils.findIndex(until => until > fromMs);
  if (first < 0) first = zone.untils.length - 1;
  observance(first, first > 0 ? zone.untils[first - 1] : undefined);
  for (let i = first + 1; i < zone.untils.length && zone.untils[i - 1] <= toMs; i++) observance(i, zone.untils[i - 1]);
  lines.push("END:VTIMEZONE");
  return lines;
}

function fixedVtimezone(name: string, minutes: number): string[] {
  const offset = offsetText(minutes);
  return ["BEGIN:VTIMEZONE", `TZID:${name}`, "BEGIN:STANDARD", "DTSTART:19700101T000000", `TZOFFSETFROM:${offset}`, `TZOFFSETTO:${offset}`, `TZNAME:${escapeText(name)}`, "END:STANDARD", "END:VTIMEZONE"];
}

// ---------------------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------------------

const asList = (v: unknown): Rec[] => (Array.isArray(v) ? v : v && typeof v === "object" ? [v as Rec] : []).filter(x => x && typeof x === "object");

function location(venue: Rec | undefined): string | undefined {
  if (!venue) return undefined;
  const parts = [venue.venue, venue.address, venue.city, venue.stateprovince || venue.state || venue.province, venue.zip, venue.country]
    .map(plainText).filter(Boolean);
  return parts.length ? parts.join(", ") : undefined;
}

/** Whether a timed event's end instant is after its start instant (UTC dates compare as text). */
function endsAfterStart(ev: Rec): boolean {
  return typeof ev.utc_end_date === "string" && typeof ev.utc_start_date === "string" && ev.utc_end_date > ev.utc_start_date;
}

/** The VEVENT lines (unfolded) of one event record. */
export function eventLines(ev: Rec, hostname: string): string[] {
  return eventRecordLines(ev as EventRec, hostname);
}

function eventRecordLines(ev: EventRec, hostname: string): string[] {
  const lines: string[] = ["BEGIN:VEVENT"];
  const prop = (name: string, value: string | undefined) => {
    if (value !== undefined && value !== "") lines.push(`${name}:${value}`);
  };
  prop("UID", escapeText(String(ev.global_id || `event-${ev.id}@${hostname}`)));
  prop("DTSTAMP", utcStamp(ev.modified_utc) ?? utcStamp(ev.date_utc) ?? "19700101T000000Z");
  if (ev.all_day === true) {
    lines.push(`DTSTART;VALUE=DATE:${basicDate(ev.start_date)}`, `DTEND;VALUE=DATE:${dayAfter(ev.end_date)}`);
  } else {
    const zone = zoneKind(ev.timezone);
    const tzid = zone.kind === "utc" ? undefined : paramValue(zone.name);
    lines.push(tzid === undefined ? `DTSTART:${basic(ev.utc_start_date)}Z` : `DTSTART;TZID=${tzid}:${basic(ev.start_date)}`);
    // RFC 5545 §3.6.1: DTEND must be later than DTSTART. An event that ends when it starts (an event's
    // end is never before its start, lib/events/event-input.ts) is given its length instead.
    if (!endsAfterStart(ev)) lines.push("DURATION:PT0S");
    else lines.push(tzid === undefined ? `DTEND:${basic(ev.utc_end_date)}Z` : `DTEND;TZID=${tzid}:${basic(ev.end_date)}`);
  }
  prop("SUMMARY", escapeText(plainText(ev.title)));
  prop("DESCRIPTION", escapeText(plainText(ev.description) || plainText(ev.excerpt)));
  prop("URL", typeof ev.url === "string" ? ev.url : undefined);
  const venue = asList(ev.venue)[0];
  prop("LOCATION", (() => { const l = location(venue); return l === undefined ? undefined : escapeText(l); })());
  if (venue && typeof venue.geo_lat === "number" && typeof venue.geo_lng === "number") prop("GEO", `${venue.geo_lat};${venue.geo_lng}`);
  const categories = asList(ev.categories).map(c => plainText(c.name)).filter(Boolean);
  if (categories.length) prop("CATEGORIES", categories.map(escapeText).join(","));
  const organizer = asList(ev.organizer).find(o => typeof o.email === "string" && /^[^\s@]+@[^\s@]+$/.test(o.email));
  if (organizer) lines.push(`ORGANIZER;CN=${paramValue(plainText(organizer.organizer) || String(organizer.email))}:mailto:${organizer.email}`);
  prop("STATUS", icsStatus(ev.event_status, ev.status));
  // RFC 7986 §5.11: how to join an online or mixed event
  if (typeof ev.online_url === "string" && ev.online_url) lines.push(`CONFERENCE;VALUE=URI:${ev.online_url}`);
  prop("CLASS", ev.status === "private" ? "PRIVATE" : "PUBLIC");
  prop("CREATED", utcStamp(ev.date_utc));
  prop("LAST-MODIFIED", utcStamp(ev.modified_utc));
  lines.push("END:VEVENT");
  return lines;
}

/** The range of instants the events cover (ms), for the VTIMEZONE observances. */
function spanOf(events: Rec[]): { from: number; to: number } {
  let from = Infinity;
  let to = -Infinity;
  for (const ev of events) {
    for (const v of [ev.utc_start_date, ev.utc_end_date]) {
      if (typeof v !== "string" || !DB_RE.test(v)) continue;
      const ms = moment.utc(v, "YYYY-MM-DD HH:mm:ss").valueOf();
      from = Math.min(from, ms);
      to = Math.max(to, ms);
    }
  }
  const year = 366 * 24 * 3600 * 1000;
  return Number.isFinite(from) ? { from: from - year, to: to + year } : { from: Date.now() - year, to: Date.now() + year };
}

export interface CalendarOptions {
  /** X-WR-CALNAME. */
  name?: string;
  /** Host for UIDs of events without a global id. */
  hostname?: string;
}

/** The VCALENDAR text (CRLF line ends, folded lines) of a list of event records. */
export function eventsCalendar(events: Rec[], opts: CalendarOptions = {}): string {
  return calendarText(events, events.map(ev => eventLines(ev, opts.hostname ?? "localhost")), opts);
}

/**
 * The VCALENDAR text of VEVENT blocks (unfolded lines), with a VTIMEZONE for each zone `zoned` uses over
 * the instants they span (records, or anything with their `timezone`, `all_day` and UTC dates).
 */
export function calendarText(zoned: Rec[], vevents: string[][], opts: CalendarOptions = {}): string {
  const lines: string[] = ["BEGIN:VCALENDAR", "VERSION:2.0", `PRODID:${PRODID}`, "CALSCALE:GREGORIAN"];
  if (opts.name) lines.push(`X-WR-CALNAME:${escapeText(opts.name)}`);
  lines.push("REFRESH-INTERVAL;VALUE=DURATION:PT1H", "X-PUBLISHED-TTL:PT1H");
  const span = spanOf(zoned);
  const zones = new Map<string, Exclude<ZoneKind, { kind: "utc" }>>();
  for (const ev of zoned) {
    if (ev.all_day === true) continue;
    const zone = zoneKind(ev.timezone);
    if (zone.kind !== "utc") zones.set(zone.name, zone);
  }
  for (const zone of [...zones.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (zone.kind === "iana") lines.push(...vtimezone(zone.name, span.from, span.to));
    else if (zone.kind === "fixed") lines.push(...fixedVtimezone(zone.name, zone.minutes));
  }
  for (const vevent of vevents) lines.push(...vevent);
  lines.push("END:VCALENDAR");
  return `${lines.map(foldLine).join("\r\n")}\r\n`;
}

/** Whether a request asks for iCalendar: `format=ics`, or `Accept: text/calendar` without `format=json`. */
export function wantsIcs(format: unknown, accept: string | undefined): boolean {
  if (format === "ics") return true;
  if (format !== undefined && format !== null && format !== "") return false;
  return typeof accept === "string" && /(^|,)\s*text\/calendar\s*(;|,|$)/i.test(accept);
}
