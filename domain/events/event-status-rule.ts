/**
 * The event-status rule of a write (docs/records.md#event-status-and-online-events): the status and
 * attendance fields it stores, refused when it would leave an online or mixed event without its URL, and
 * the start it keeps when a rescheduled event moves (`previous_start_date`, read-only). The writer applies
 * it to every event it writes, a series' first event and an occurrence written alone included; the checks
 * of a write (write-checks.ts) run the same combination check before any permission check.
 */
import { throwIfInvalid } from "../../lib/errors";
import { sent } from "../../lib/http/params";
import { checkAttendance, previousStartFields, statusInputFields, type EventStatusFields } from "../../lib/events/event-status";

/** Whether a write touches the attendance combination (otherwise the stored one stands as it is). */
export function sendsAttendance(p: Record<string, unknown>): boolean {
  return sent(p.attendance_mode) || sent(p.online_url);
}

/**
 * The stored fields of the write's status (`current`: the stored event on update; `utcStart`: its start
 * after the write, UTC). Throws the 400 naming `online_url` when the combination is refused.
 */
export function eventStatusWrite(
  p: Record<string, unknown>,
  current: (EventStatusFields & { utc_start_date?: string }) | undefined,
  utcStart: string,
  siteZone: string
): EventStatusFields {
  if (!current || sendsAttendance(p)) throwIfInvalid(checkAttendance(p, current));
  const fields = statusInputFields(p, !current);
  const statusAfter = fields.event_status ?? current?.event_status;
  return { ...fields, ...previousStartFields(statusAfter, current, utcStart, siteZone) };
}
