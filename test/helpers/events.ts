/**
 * Helpers shared by the events HTTP tests (test/integration/events-*.test.ts).
 */
import moment from "moment-timezone";
import type { Answer, KeyName, Running } from "./harness";
import type { Json } from "./json";

/** Keys of an event record, in the order docs/records.md#event-fields gives them (plus `ticketed` of D33 (the `ticketed` flag), the event status fields, and C9 last). */
export const EVENT_KEYS = [
  "id", "global_id", "global_id_lineage", "author", "status", "date", "date_utc", "modified", "modified_utc", "url", "rest_url",
  "title", "description", "excerpt", "slug", "image", "all_day", "start_date", "start_date_details", "end_date", "end_date_details",
  "utc_start_date", "utc_start_date_details", "utc_end_date", "utc_end_date_details", "timezone", "timezone_abbr", "cost",
  "cost_details", "website", "show_map", "show_map_link", "hide_from_listings", "sticky", "featured", "ticketed",
  "event_status", "event_status_reason", "previous_start_date", "attendance_mode", "online_url", "categories",
  "tags", "venue", "organizer", "custom_fields", "meta"
];
export const I18N_KEYS = ["i18n_language", "translations"];

export const DB_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
export const ZERO_DATE = "0000-00-00 00:00:00";

/** `YYYY-MM-DD HH:MM:SS` of a moment. */
export const db = (m: moment.Moment): string => m.format("YYYY-MM-DD HH:mm:ss");
/** Now in a zone (UTC by default). */
export const nowIn = (zone = "UTC"): moment.Moment => moment.tz(zone);
/** A day relative to today (UTC) at a given time, as a DB string. */
export const dayAt = (offsetDays: number, time = "10:00:00", zone = "UTC"): string =>
  `${nowIn(zone).add(offsetDays, "days").format("YYYY-MM-DD")} ${time}`;

/** Seconds between two DB strings (absolute). */
export const secondsApart = (a: string, b: string): number =>
  Math.abs(moment.utc(a, "YYYY-MM-DD HH:mm:ss").diff(moment.utc(b, "YYYY-MM-DD HH:mm:ss"), "seconds"));

let counter = 0;
/** A token unique to this test process, so list tests can isolate their own events through `search`. */
export const token = (prefix = "tok"): string => `${prefix}${process.pid.toString(36)}x${(counter++).toString(36)}`;

/** POST /events expecting 201; returns the record. */
export async function createEvent(svc: Running, body: Record<string, unknown>, as: KeyName = "admin"): Promise<Json> {
  const res = await svc.request("POST", "/events", { as, body: { title: "Event", start_date: dayAt(2, "10:00:00"), end_date: dayAt(2, "12:00:00"), ...body } });
  if (res.status !== 201) throw new Error(`create failed ${res.status}: ${res.text}`);
  return res.body;
}

/** The contract error shape with that status and code. */
export function expectError(res: Answer, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.body).toEqual(expect.objectContaining({ message: expect.any(String), data: expect.objectContaining({ status }) }));
}

/** 400 rest_invalid_param naming exactly these parameters. */
export function expectInvalid(res: Answer, ...params: string[]): void {
  expectError(res, 400, "rest_invalid_param");
  expect(Object.keys(res.body.data.params).sort()).toEqual([...params].sort());
}

/** Ids of the events of a list answer. */
export const ids = (res: Answer): number[] => res.body.events.map((e: Json) => e.id);

/** The events service instance of a running broker (store, adapter). */
export const eventsService = (svc: Running): Json => (svc.broker as Json).getLocalService("events");
