/**
 * Status and publication date of a post on create and update (docs/records.md#status-on-write,
 * docs/dates.md#publication-date-and-status):
 * the caller's status is scaled back to what it may publish, `publish` with a date at least 60 s ahead
 * becomes `future` (and back), and drafts created without a date float (D17: floating publication date).
 */
import { resolveStatus, Who } from "../access/capabilities";
import { fromDb, nowDb, utcToWallClock, wallClockToUtc, ZERO_DATE } from "../time/dates";

export interface Publication {
  status: string;
  date: string;
  date_utc: string;
}

export interface PublicationInput {
  status?: string;
  /** Already parsed site-local publication date (DB format), when sent. */
  date?: string;
  /** Already parsed UTC publication date, when sent. */
  date_utc?: string;
}

/** Statuses whose slug and date float: no unique slug, no publication date until set (docs/records.md#event-slugs, D17: floating publication date). */
export const FLOATING_STATUSES: ReadonlySet<string> = new Set(["draft", "pending", "auto-draft"]);

function utcMs(dateUtc: string): number | null {
  return dateUtc === ZERO_DATE ? null : fromDb(dateUtc).getTime();
}

/** The publication fields after a write; `current` is the stored record on update. */
export function resolvePublication(who: Who, input: PublicationInput, current: Publication | undefined, siteZone: string, now: Date): Publication {
  let date = current?.date;
  let dateUtc = current?.date_utc;
  if (input.date !== undefined && input.date_utc !== undefined) {
    date = input.date;
    dateUtc = input.date_utc;
  } else if (input.date !== undefined) {
    date = input.date;
    dateUtc = wallClockToUtc(input.date, siteZone);
  } else if (input.date_utc !== undefined) {
    dateUtc = input.date_utc;
    date = utcToWallClock(input.date_utc, siteZone);
  }
  const dated = input.date !== undefined || input.date_utc !== undefined;
  if (date === undefined || dateUtc === undefined) {
    dateUtc = nowDb(now);
    date = utcToWallClock(dateUtc, siteZone);
  }

  let status: string;
  if (input.status !== undefined || !current) status = resolveStatus(who, input.status, utcMs(dateUtc), now.getTime());
  else if (dated && (current.status === "publish" || current.status === "future")) status = resolveStatus(undefined, current.status, utcMs(dateUtc), now.getTime());
  else status = current.status;

  // D17: a draft or pending post created without a date keeps a floating UTC date until it leaves that state.
  if (!current && !dated && FLOATING_STATUSES.has(status)) dateUtc = ZERO_DATE;
  if (dateUtc === ZERO_DATE && !FLOATING_STATUSES.has(status)) dateUtc = wallClockToUtc(date, siteZone);
  return { status, date, date_utc: dateUtc };
}
