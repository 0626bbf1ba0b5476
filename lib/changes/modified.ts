/**
 * `modified_after` / `modified_before` (the sync issue, C20: the change feed): every list (events, venues, organizers,
 * categories, tags) keeps the records whose `modified_utc` lies strictly after / before the given instant.
 * Values are read as list date filters are (docs/dates.md#how-each-parameter-is-read): a Unix timestamp or a strtotime string, in UTC
 * unless they carry their own offset. Terms compare their internal modified time.
 */
import { dateTime, Rule } from "../http/params";
import { parseUtc, toDb, utcToWallClock } from "../time/dates";

/**
 * The two modification times every post record (event, venue, organizer) stores, written one way
 * (C58: `modified` in site time; docs/records.md): `modified` in the site's time zone, `modified_utc` in UTC.
 */
export function modifiedStamp(now: Date, siteZone: string): { modified: string; modified_utc: string } {
  const utc = toDb(now);
  return { modified: utcToWallClock(utc, siteZone), modified_utc: utc };
}

export const MODIFIED_PARAMS = ["modified_after", "modified_before"] as const;

/** The two rules, with their documentation (lib/http/params; they appear in the index, /doc and docs/action-api.md). */
export function modifiedRules(plural: string): Record<(typeof MODIFIED_PARAMS)[number], Rule> {
  return {
    modified_after: dateTime({ description: `Only ${plural} modified after this date-time (UTC unless it carries an offset).` }),
    modified_before: dateTime({ description: `Only ${plural} modified before this date-time (UTC unless it carries an offset).` })
  };
}

export interface ModifiedRange {
  after?: string;
  before?: string;
}

/** The bounds of validated params as UTC DB strings; undefined when neither is given. */
export function modifiedRange(p: { modified_after?: unknown; modified_before?: unknown }, now: Date = new Date()): ModifiedRange | undefined {
  const after = p.modified_after !== undefined && p.modified_after !== null ? parseUtc(p.modified_after, now) ?? undefined : undefined;
  const before = p.modified_before !== undefined && p.modified_before !== null ? parseUtc(p.modified_before, now) ?? undefined : undefined;
  return after === undefined && before === undefined ? undefined : { ...(after !== undefined ? { after } : {}), ...(before !== undefined ? { before } : {}) };
}

/** The store condition on `modified_utc` (DB strings compare lexicographically), or undefined. */
export function modifiedCondition(range: ModifiedRange | undefined): Record<string, unknown> | undefined {
  if (!range) return undefined;
  const cond: Record<string, string> = {};
  if (range.after !== undefined) cond.$gt = range.after;
  if (range.before !== undefined) cond.$lt = range.before;
  return { modified_utc: cond };
}

/** Shortcut: the condition of validated params. */
export function modifiedQuery(p: { modified_after?: unknown; modified_before?: unknown }, now: Date = new Date()): Record<string, unknown> | undefined {
  return modifiedCondition(modifiedRange(p, now));
}
