/**
 * An iCalendar feed read into the inputs of event writes (docs/imports.md#icalendar), with ical.js (a
 * maintained RFC 5545 parser that also serves the tests as an independent expander, C55: horizon and ICS):
 *
 * - each VEVENT without RECURRENCE-ID → one event (SUMMARY, DESCRIPTION, DTSTART, DTEND or DURATION, a
 *   DATE value as all-day, URL, CATEGORIES, LOCATION/GEO → venue, ORGANIZER → organizer);
 * - STATUS:CANCELLED on an event → `event_status` `canceled` (it stays an event), any other → `scheduled`;
 * - RRULE, RDATE and EXDATE → the event's `recurrence` lines, written in the event's zone;
 * - a VEVENT with RECURRENCE-ID → that occurrence changed (an exception of the series), or removed (an
 *   EXDATE of the series) when its STATUS is CANCELLED;
 * - zones: an IANA TZID as it is, a Windows name as Outlook writes it mapped to its IANA zone
 *   (lib/imports/windows-zones.ts), another TZID through the feed's VTIMEZONE (its X-LIC-LOCATION when it
 *   names a zone, else the IANA zone following its rules, lib/imports/vtimezone-match.ts, else the
 *   instants in UTC), a floating time in the site zone;
 * - CLASS:PRIVATE or CONFIDENTIAL → a private event (unless the import's status is already less visible);
 * - a line ical.js cannot read is left out and named in `errors` (its event is read without it).
 *
 * Pure: no I/O. The feed's VTIMEZONEs are registered with ical.js only while one call runs (synchronously).
 */
import ICAL from "ical.js";
import { isValidTimezone, utcToWallClock, wallClockToUtc } from "../time/dates";
import { dateProperty } from "../recurrence/lines";
import { windowsZone } from "./windows-zones";
import { zoneMatchingVtimezone } from "./vtimezone-match";
import { memoOfObject } from "../memo";

/** One event of the feed, as the import writes it. */
export interface IcsEvent {
  /** `UID` (the source identity, C64: what an import brings). */
  sourceId: string;
  /** The params of `events.create` / `events.update` (venue and organizer as data, categories as names). */
  input: Record<string, unknown>;
  /** The changed occurrences of a series (RECURRENCE-ID, not cancelled). */
  exceptions: IcsException[];
}

export interface IcsException {
  /** `UID|RECURRENCE-ID` (the RECURRENCE-ID as its wall clock in the series' zone). */
  sourceId: string;
  /** The occurrence's original local start in the series' zone (its identity, C53: occurrence identity, exceptions and scope). */
  identity: string;
  /** The fields the exception changes. */
  input: Record<string, unknown>;
}

export interface IcsReadResult {
  events: IcsEvent[];
  /** VEVENTs that could not be read, by `UID` (or their position), with why. */
  errors: Array<{ source: string; message: string }>;
  /** Lines left out because they could not be read (their events were read without them), by `UID` (or line number). */
  warnings: Array<{ source: string; message: string }>;
  /** VEVENTs left out on purpose (a cancelled single event). */
  skipped: number;
  /** The calendar's name (X-WR-CALNAME, else PRODID), "" when it has neither. */
  name: string;
}

/** Thrown when the text is not an iCalendar object at all. */
export class IcsFormatError extends Error {}

const pad = (n: number, w = 2): string => String(n).padStart(w, "0");

/** `YYYY-MM-DD HH:MM:SS` of an ical.js time's fields (its own wall clock). */
function wallOf(t: ICAL.Time): string {
  return `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC of an instant. */
function utcWall(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

/** The zone a VEVENT's times are written in, as the service names zones ("" = the site zone). */
interface Zone {
  /** The event's `timezone`: an IANA name, "UTC", or "" (floating: the site zone). */
  name: string;
  /** How a time of the feed (written under TZID `own`, undefined: UTC or floating) becomes a wall clock of that zone. */
  wall(t: ICAL.Time, own: string | undefined): string;
}

function tzidOf(prop: ICAL.Property | null): string | undefined {
  const p = prop?.getParameter("tzid");
  return typeof p === "string" && p !== "" ? p : undefined;
}

/** X-LIC-LOCATION of the feed's VTIMEZONE of that TZID, when it names a zone the service knows. */
function locationOf(calendar: ICAL.Component, tzid: string): string | undefined {
  for (const vtz of calendar.getAllSubcomponents("vtimezone")) {
    if (String(vtz.getFirstPropertyValue("tzid")) !== tzid) continue;
    const loc = vtz.getFirstPropertyValue("x-lic-location");
    if (typeof loc === "string" && isValidTimezone(loc)) return loc;
  }
  return undefined;
}

/** The zones of a feed's TZIDs matched by their VTIMEZONE's rules, per feed (one matching per TZID). */
const matchedZones = memoOfObject((_calendar: ICAL.Component) => new Map<string, string | undefined>());

/** The IANA zone whose rules the feed's VTIMEZONE of that TZID follows (lib/imports/vtimezone-match.ts). */
function ruleZone(calendar: ICAL.Component, tzid: string, year: number): string | undefined {
  const cache = matchedZones(calendar);
  if (cache.has(tzid)) return cache.get(tzid);
  const vtz = calendar.getAllSubcomponents("vtimezone").find(z => String(z.getFirstPropertyValue("tzid")) === tzid);
  const zone = vtz ? zoneMatchingVtimezone(vtz, tzid, year) : undefined;
  cache.set(tzid, zone);
  return zone;
}

/**
 * The IANA zone (or "UTC") a TZID names: directly, as a Windows name, through its VTIMEZONE's location,
 * or by its VTIMEZONE's rules (around `year`).
 */
function namedZone(calendar: ICAL.Component, tzid: string, year: number): string | undefined {
  if (tzid.toUpperCase() === "UTC" || tzid === "Z") return "UTC";
  if (isValidTimezone(tzid) && !/^utc[+-]/i.test(tzid)) return tzid;
  return windowsZone(tzid) ?? locationOf(calendar, tzid) ?? ruleZone(calendar, tzid, year);
}

/** The zone of a DTSTART (see the header), and how any time of the VEVENT becomes a wall clock of it. */
function zoneOf(calendar: ICAL.Component, start: ICAL.Time, prop: ICAL.Property): Zone {
  const tzid = tzidOf(prop);
  const isUtc = (t: ICAL.Time) => t.zone === ICAL.Timezone.utcTimezone || t.zone?.tzid === "UTC";
  if (start.isDate || (tzid === undefined && !isUtc(start))) return { name: "", wall: t => wallOf(t) };
  const named = tzid === undefined ? "UTC" : namedZone(calendar, tzid, start.year);
  // a TZID whose VTIMEZONE follows no known zone's rules: the instants, in UTC
  const zone = named ?? "UTC";
  return {
    name: zone,
    wall: (t, own) => {
      if (t.isDate) return wallOf(t);
      if (own === undefined && !isUtc(t)) return wallOf(t); // floating: as written
      if (named && own === tzid) return wallOf(t);
      const ownZone = own === undefined ? "UTC" : namedZone(calendar, own, t.year);
      // by its TZID's named zone, else by the registered VTIMEZONE (ical.js)
      const utc = ownZone ? wallClockToUtc(wallOf(t), ownZone) : utcWall(t.toUnixTime() * 1000);
      return zone === "UTC" ? utc : utcToWallClock(utc, zone);
    }
  };
}

/** The day before a DATE (an all-day DTEND is exclusive). */
function dayBefore(t: ICAL.Time): string {
  const d = new Date(Date.UTC(t.year, t.month - 1, t.day - 1));
  return d.toISOString().slice(0, 10);
}

function text(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

/** Every value of every CATEGORIES property. */
function categoriesOf(v: ICAL.Component): string[] {
  const out: string[] = [];
  for (const prop of v.getAllProperties("categories")) {
    for (const value of prop.getValues()) {
      const name = String(value).trim();
      if (name && !out.some(o => o.toLowerCase() === name.toLowerCase())) out.push(name);
    }
  }
  return out;
}

/** Each ORGANIZER (The Events Calendar's export writes one per organizer) → organizer data: its CN, else its address without `mailto:`. */
function organizersOf(v: ICAL.Component): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const prop of v.getAllProperties("organizer")) {
    const value = String(prop.getFirstValue() ?? "");
    const email = /^mailto:/i.test(value) ? value.replace(/^mailto:/i, "") : "";
    const cn = prop.getParameter("cn");
    const name = (typeof cn === "string" && cn.trim()) || email;
    if (!name || out.some(o => String(o.organizer).toLowerCase() === name.toLowerCase())) continue;
    out.push({ organizer: name, ...(email && /^[^@\s]+@[^@\s]+$/.test(email) ? { email } : {}) });
  }
  return out;
}

/** LOCATION (and GEO) → venue data. */
function venueOf(v: ICAL.Component): Record<string, unknown> | undefined {
  const location = text(v.getFirstPropertyValue("location"));
  if (!location) return undefined;
  const geo = v.getFirstPropertyValue("geo") as unknown;
  const out: Record<string, unknown> = { venue: location.trim() };
  if (Array.isArray(geo) && geo.length === 2 && Number.isFinite(Number(geo[0])) && Number.isFinite(Number(geo[1]))) {
    out.geo_lat = Number(geo[0]);
    out.geo_lng = Number(geo[1]);
  }
  return out;
}

/** The start, end and zone fields of a VEVENT (its own or an exception's), in the zone `zone`. */
function schedule(v: ICAL.Component, zone: Zone): { start_date: string; end_date: string; all_day: boolean; start: ICAL.Time } {
  // given no exceptions, ical.js relates every VEVENT of the calendar that has a RECURRENCE-ID to this one,
  // reading the whole calendar per event (a feed's time grew with its size squared); only the dates are read
  // here, and a series' changed occurrences are matched by this module (readEvents)
  const event = new ICAL.Event(v, { exceptions: [] });
  const start = event.startDate;
  if (!start) throw new Error("DTSTART is missing");
  const startTzid = tzidOf(v.getFirstProperty("dtstart"));
  let end: ICAL.Time | null = v.hasProperty("dtend") || v.hasProperty("duration") ? event.endDate : null;
  const endTzid = v.hasProperty("dtend") ? tzidOf(v.getFirstProperty("dtend")) : startTzid;
  if (start.isDate) {
    const last = end && end.compare(start) > 0 ? dayBefore(end) : wallOf(start).slice(0, 10);
    return { start_date: `${wallOf(start).slice(0, 10)} 00:00:00`, end_date: `${last} 23:59:59`, all_day: true, start };
  }
  if (!end) end = start;
  return { start_date: zone.wall(start, startTzid), end_date: zone.wall(end, endTzid), all_day: false, start };
}

/** RDATE/EXDATE values of a property name, as wall clocks of the series' zone. */
function dateValues(v: ICAL.Component, name: string, zone: Zone, allDay: boolean): string[] {
  const out: string[] = [];
  for (const prop of v.getAllProperties(name)) {
    for (const value of prop.getValues()) {
      if (!(value instanceof ICAL.Time)) continue; // an RDATE period: not supported (docs/imports.md)
      out.push(allDay ? `${wallOf(value).slice(0, 10)} 00:00:00` : zone.wall(value, tzidOf(prop)));
    }
  }
  return out;
}

/** The recurrence lines of a master VEVENT, with the cancelled exceptions' identities as EXDATEs. */
function recurrenceOf(v: ICAL.Component, zone: Zone, allDay: boolean, cancelled: string[]): string[] | undefined {
  const rules = v.getAllProperties("rrule");
  const rdates = dateValues(v, "rdate", zone, allDay);
  if (rules.length === 0 && rdates.length === 0) return undefined;
  const lines: string[] = [];
  // UNTIL stays as the feed wrote it: a UTC value is read into the event's zone, a floating one as its wall clock
  for (const rule of rules) lines.push(`RRULE:${(rule.getFirstValue() as ICAL.Recur).toString()}`);
  if (rdates.length) lines.push(dateProperty("RDATE", [...new Set(rdates)].sort(), zone.name, allDay));
  const exdates = [...new Set([...dateValues(v, "exdate", zone, allDay), ...cancelled])].sort();
  if (exdates.length) lines.push(dateProperty("EXDATE", exdates, zone.name, allDay));
  return lines;
}

/** The identity of an exception: its RECURRENCE-ID as a wall clock of the series' zone. */
function identityOf(v: ICAL.Component, zone: Zone, allDay: boolean): string {
  const prop = v.getFirstProperty("recurrence-id")!;
  const rid = prop.getFirstValue() as ICAL.Time;
  return allDay || rid.isDate ? `${wallOf(rid).slice(0, 10)} 00:00:00` : zone.wall(rid, tzidOf(prop));
}

/** Statuses that show an event less than `private` does: an import asking for one keeps it. */
const LESS_VISIBLE = new Set(["draft", "pending"]);

/** The status of an event: CLASS PRIVATE or CONFIDENTIAL (not for everyone's eyes) → private. */
function statusOf(v: ICAL.Component, defaultStatus: string): string {
  const cls = String(v.getFirstPropertyValue("class") ?? "").trim().toUpperCase();
  return (cls === "PRIVATE" || cls === "CONFIDENTIAL") && !LESS_VISIBLE.has(defaultStatus) ? "private" : defaultStatus;
}

const isCancelled = (v: ICAL.Component): boolean => String(v.getFirstPropertyValue("status") ?? "").toUpperCase() === "CANCELLED";

/** Reads a feed (see the header); throws IcsFormatError when the text is not iCalendar. */
export function readIcs(source: string, defaultStatus = "publish"): IcsReadResult {
  let calendar: ICAL.Component;
  let warnings: IcsReadResult["warnings"] = [];
  try {
    let parsed;
    try {
      parsed = ICAL.parse(source);
    } catch (err) {
      // one unreadable line does not lose the feed: left out, named, and the rest read again
      const cleaned = withoutUnreadableLines(source);
      if (cleaned.dropped.length === 0) throw err;
      parsed = ICAL.parse(cleaned.text);
      warnings = cleaned.dropped;
    }
    calendar = new ICAL.Component(Array.isArray(parsed[0]) ? parsed[0] : parsed);
  } catch (err) {
    throw new IcsFormatError(`not an iCalendar feed: ${(err as Error).message}`);
  }
  if (calendar.name !== "vcalendar") throw new IcsFormatError("not an iCalendar feed: no VCALENDAR");
  const zones = calendar.getAllSubcomponents("vtimezone");
  const registered: string[] = [];
  for (const z of zones) {
    const id = String(z.getFirstPropertyValue("tzid"));
    if (ICAL.TimezoneService.has(id)) continue;
    ICAL.TimezoneService.register(z);
    registered.push(id);
  }
  try {
    const name = text(calendar.getFirstPropertyValue("x-wr-calname")) ?? text(calendar.getFirstPropertyValue("prodid")) ?? "";
    return { ...readEvents(calendar, defaultStatus), warnings, name };
  } finally {
    for (const id of registered) ICAL.TimezoneService.remove(id);
  }
}

/**
 * The text without the content lines ical.js cannot read (a malformed line, a value that is not of its
 * type), and each line left out with why, named by its VEVENT's UID (else its line number).
 */
function withoutUnreadableLines(source: string): { text: string; dropped: IcsReadResult["warnings"] } {
  const physical = source.split(/\r?\n/);
  // unfolded content lines, each with its first physical line's number
  const lines: Array<{ text: string; at: number }> = [];
  physical.forEach((raw, i) => {
    if ((raw.startsWith(" ") || raw.startsWith("\t")) && lines.length) lines[lines.length - 1].text += raw.slice(1);
    else lines.push({ text: raw, at: i + 1 });
  });
  const kept: string[] = [];
  const dropped: IcsReadResult["warnings"] = [];
  let event: { uid?: string; dropped: Array<{ at: number; message: string }> } | null = null;
  for (const line of lines) {
    if (line.text.trim() === "") continue;
    const m = /^(BEGIN|END):(.*)$/i.exec(line.text.trim());
    if (m) {
      kept.push(line.text);
      const vevent = m[2].trim().toUpperCase() === "VEVENT";
      if (vevent && m[1].toUpperCase() === "BEGIN") event = { dropped: [] };
      if (vevent && m[1].toUpperCase() === "END" && event) {
        for (const d of event.dropped) dropped.push({ source: event.uid ?? `line ${d.at}`, message: d.message });
        event = null;
      }
      continue;
    }
    try {
      ICAL.parse.property(line.text);
    } catch (err) {
      const message = `line ${line.at} left out (${(err as Error).message}): ${line.text.slice(0, 80)}`;
      if (event) event.dropped.push({ at: line.at, message });
      else dropped.push({ source: `line ${line.at}`, message });
      continue;
    }
    kept.push(line.text);
    const uid = /^UID(?:;[^:]*)?:(.*)$/i.exec(line.text);
    if (uid && event) event.uid = uid[1].trim();
  }
  return { text: kept.join("\r\n"), dropped };
}

function readEvents(calendar: ICAL.Component, defaultStatus: string): Omit<IcsReadResult, "name" | "warnings"> {
  const errors: IcsReadResult["errors"] = [];
  const groups = new Map<string, ICAL.Component[]>();
  let position = 0;
  for (const v of calendar.getAllSubcomponents("vevent")) {
    position += 1;
    const uid = text(v.getFirstPropertyValue("uid"));
    if (!uid) {
      errors.push({ source: `VEVENT #${position}`, message: "UID is missing" });
      continue;
    }
    groups.set(uid, [...(groups.get(uid) ?? []), v]);
  }
  const events: IcsEvent[] = [];
  // nothing is skipped since a cancelled event is imported as canceled (the count stays in the answer)
  const skipped = 0;
  for (const [uid, group] of groups) {
    try {
      const master = group.find(v => !v.hasProperty("recurrence-id"));
      if (!master) throw new Error("an occurrence (RECURRENCE-ID) without its series");
      const startProp = master.getFirstProperty("dtstart");
      if (!startProp) throw new Error("DTSTART is missing");
      const zone = zoneOf(calendar, startProp.getFirstValue() as ICAL.Time, startProp);
      const when = schedule(master, zone);
      const others = group.filter(v => v !== master);
      const cancelled = others.filter(isCancelled).map(v => identityOf(v, zone, when.all_day));
      const recurrence = recurrenceOf(master, zone, when.all_day, cancelled);
      const input: Record<string, unknown> = {
        title: text(master.getFirstPropertyValue("summary"))?.trim() ?? "(untitled)",
        status: statusOf(master, defaultStatus),
        start_date: when.start_date,
        end_date: when.end_date,
        all_day: when.all_day,
        timezone: zone.name,
        // a cancelled event stays an event, marked canceled (docs/records.md#event-status-and-online-events)
        event_status: isCancelled(master) ? "canceled" : "scheduled"
      };
      const description = text(master.getFirstPropertyValue("description"));
      if (description) input.description = description;
      const url = text(master.getFirstPropertyValue("url"));
      if (url && /^https?:\/\//i.test(url)) input.website = url;
      const categories = categoriesOf(master);
      if (categories.length) input.categories = categories;
      const venue = venueOf(master);
      if (venue) input.venue = venue;
      const organizers = organizersOf(master);
      if (organizers.length) input.organizer = organizers;
      if (recurrence) input.recurrence = recurrence;
      const exceptions: IcsException[] = recurrence ? others.filter(v => !isCancelled(v)).map(v => {
        const identity = identityOf(v, zone, when.all_day);
        const own = schedule(v, zone);
        const changed: Record<string, unknown> = { start_date: own.start_date, end_date: own.end_date };
        const title = text(v.getFirstPropertyValue("summary"));
        if (title) changed.title = title.trim();
        const desc = text(v.getFirstPropertyValue("description"));
        if (desc) changed.description = desc;
        return { sourceId: `${uid}|${identity}`, identity, input: changed };
      }) : [];
      events.push({ sourceId: uid, input, exceptions });
    } catch (err) {
      errors.push({ source: uid, message: (err as Error).message });
    }
  }
  return { events, errors, skipped };
}
