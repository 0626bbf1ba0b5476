/**
 * Event status and online events (docs/records.md#event-status-and-online-events): the values, the stored
 * fields a write sets, the combination a write must leave (an online or mixed event has its URL), the
 * start kept when a rescheduled event moves, and how the status travels to schema.org JSON-LD and to
 * iCalendar. Pure: no store, no broker.
 *
 * `event_status` is not the post `status`: a canceled event keeps its dates and stays in lists, feeds and
 * searches; clients leave it out with the `event_status` list filter.
 */
import { isValidUrl, sanitizeUrl } from "../text/sanitize";
import { isoWithOffset, utcToWallClock } from "../time/dates";
import { sent } from "../http/params";
import type { ParamReason } from "../errors";

export const EVENT_STATUSES = ["scheduled", "canceled", "postponed", "rescheduled", "moved_online"] as const;
export const ATTENDANCE_MODES = ["offline", "online", "mixed"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
export type AttendanceMode = (typeof ATTENDANCE_MODES)[number];

/** What an event answers when it stores no value (every event written before these fields existed). */
export const DEFAULT_EVENT_STATUS: EventStatus = "scheduled";
export const DEFAULT_ATTENDANCE_MODE: AttendanceMode = "offline";

/** The stored fields (besides the translatable `event_status_reason`). */
export interface EventStatusFields {
  event_status?: string;
  event_status_reason?: string;
  /** The start before the last move of a rescheduled event, site time (`Y-m-d H:i:s`). */
  previous_start_date?: string | null;
  /** The same instant in UTC (JSON-LD writes it with the event's offset). */
  previous_utc_start_date?: string | null;
  attendance_mode?: string;
  online_url?: string | null;
}

/** An http(s) URL once the characters URLs cannot hold are removed; "" clears it. */
export function isOnlineUrl(v: unknown): boolean {
  if (v === "") return true;
  if (typeof v !== "string") return false;
  const url = sanitizeUrl(v.trim());
  return /^https?:\/\//i.test(url) && isValidUrl(url);
}

/** The status and attendance fields a write stores (only those sent; defaults on create). */
export function statusInputFields(p: Record<string, unknown>, creating: boolean): EventStatusFields {
  const out: EventStatusFields = {};
  if (sent(p.event_status)) out.event_status = String(p.event_status);
  else if (creating) out.event_status = DEFAULT_EVENT_STATUS;
  if (sent(p.event_status_reason)) out.event_status_reason = String(p.event_status_reason).trim();
  else if (creating) out.event_status_reason = "";
  if (sent(p.attendance_mode)) out.attendance_mode = String(p.attendance_mode);
  else if (creating) out.attendance_mode = DEFAULT_ATTENDANCE_MODE;
  if (sent(p.online_url)) out.online_url = p.online_url === "" ? null : sanitizeUrl(String(p.online_url).trim());
  else if (creating) out.online_url = null;
  return out;
}

/**
 * The combination a write leaves (`current`: the stored event on update): an online or mixed event needs
 * its URL. Answers the refused parameter, or nothing.
 */
export function checkAttendance(p: Record<string, unknown>, current: EventStatusFields | undefined): Record<string, ParamReason> {
  const mode = sent(p.attendance_mode) ? String(p.attendance_mode) : current?.attendance_mode ?? DEFAULT_ATTENDANCE_MODE;
  const url = sent(p.online_url) ? p.online_url : current?.online_url;
  if ((mode === "online" || mode === "mixed") && (typeof url !== "string" || url.trim() === "")) return { online_url: { key: "param.required" } };
  return {};
}

/**
 * The start a write keeps as the previous one: when the event is `rescheduled` after the write and its
 * start instant moved, the start before that move (site time and UTC). Otherwise nothing changes (the
 * record shows it only while the event is rescheduled).
 */
export function previousStartFields(
  statusAfter: string | undefined,
  before: { utc_start_date?: string } | undefined,
  utcStartAfter: string,
  siteZone: string
): Pick<EventStatusFields, "previous_start_date" | "previous_utc_start_date"> {
  if (statusAfter !== "rescheduled" || !before?.utc_start_date || before.utc_start_date === utcStartAfter) return {};
  return { previous_start_date: utcToWallClock(before.utc_start_date, siteZone), previous_utc_start_date: before.utc_start_date };
}

/** The status fields as the record answers them (defaults for events that store none). */
export function statusRecordFields(doc: EventStatusFields, reason: string | undefined): {
  event_status: string; event_status_reason: string; previous_start_date: string | null; attendance_mode: string; online_url: string | null;
} {
  const status = doc.event_status ?? DEFAULT_EVENT_STATUS;
  return {
    event_status: status,
    event_status_reason: reason ?? doc.event_status_reason ?? "",
    previous_start_date: status === "rescheduled" ? doc.previous_start_date ?? null : null,
    attendance_mode: doc.attendance_mode ?? DEFAULT_ATTENDANCE_MODE,
    online_url: doc.online_url || null
  };
}

const SCHEMA = "https://schema.org/";
const JSON_LD_STATUS: Record<EventStatus, string> = {
  scheduled: "EventScheduled", canceled: "EventCancelled", postponed: "EventPostponed", rescheduled: "EventRescheduled", moved_online: "EventMovedOnline"
};
const JSON_LD_MODE: Record<AttendanceMode, string> = {
  offline: "OfflineEventAttendanceMode", online: "OnlineEventAttendanceMode", mixed: "MixedEventAttendanceMode"
};

/** What the JSON-LD reads of the record and the stored event. */
export interface StatusJsonLdSource {
  event_status: string;
  attendance_mode: string;
  online_url: string | null;
  /** The event's zone, for `previousStartDate`. */
  timezone: string;
  previous_utc_start_date?: string | null;
}

/**
 * The schema.org properties of the status (Google's Event structured data): `eventStatus`,
 * `eventAttendanceMode`, `location` (the venue's Place; a VirtualLocation for an online event; both for a
 * mixed one) and `previousStartDate` of a rescheduled event. `place`: the venue's Place, if any.
 */
export function statusJsonLd(s: StatusJsonLdSource, place: unknown): Record<string, unknown> {
  const ld: Record<string, unknown> = {
    eventStatus: SCHEMA + (JSON_LD_STATUS[s.event_status as EventStatus] ?? JSON_LD_STATUS.scheduled),
    eventAttendanceMode: SCHEMA + (JSON_LD_MODE[s.attendance_mode as AttendanceMode] ?? JSON_LD_MODE.offline)
  };
  const virtual = s.online_url ? { "@type": "VirtualLocation", url: s.online_url } : undefined;
  if (s.attendance_mode === "online" && virtual) ld.location = virtual;
  else if (s.attendance_mode === "mixed" && virtual) ld.location = place ? [place, virtual] : virtual;
  else if (place) ld.location = place;
  if (s.event_status === "rescheduled" && s.previous_utc_start_date) {
    ld.previousStartDate = isoWithOffset(utcToWallClock(s.previous_utc_start_date, s.timezone), s.timezone);
  }
  return ld;
}

/** iCalendar STATUS (RFC 5545 §3.8.1.11): canceled → CANCELLED, postponed → TENTATIVE, else by the post status. */
export function icsStatus(eventStatus: unknown, postStatus: unknown): string {
  if (eventStatus === "canceled") return "CANCELLED";
  if (eventStatus === "postponed") return "TENTATIVE";
  return postStatus === "publish" ? "CONFIRMED" : "TENTATIVE";
}
