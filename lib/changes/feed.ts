/**
 * The change feed's pure logic (the sync issue, C20): what an entry of the `changes` collection holds,
 * the opaque resume tokens, who may see which change, and how a stored entry becomes what a caller reads.
 *
 * Every entry keeps the visibility-relevant state of its record after the change (`after`) and before it
 * (`before`: the previous entry's `after`). For a caller, an entry is
 * - left out when the record was readable neither before nor after the change;
 * - a `deleted` tombstone (no record) when it was readable before and is not after (trashed, made private,
 *   a term deleted);
 * - otherwise the change with the record as the caller reads it now (rendered when the feed is read, in
 *   the caller's language); when the record is not readable any more, a later entry says so and this one
 *   is left out.
 * "Readable" is what the caller's lists show (status visibility, with C13 (a due `future` post counts as published)); terms always are.
 */
import { effectiveStatus, listStatuses, Who } from "../access/capabilities";

export const CHANGE_TYPES = ["event", "venue", "organizer", "category", "tag"] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];
export type ChangeAction = "created" | "updated" | "deleted";

/** The state of a record that decides who may read it. Terms: `{}` while they exist. */
export interface Snapshot {
  status?: string;
  author?: number;
  date_utc?: string;
}

/** A change as a writing service reports it (snapshot null: the record is gone). */
export interface ChangeInput {
  type: ChangeType;
  id: number;
  action: ChangeAction;
  modified_utc: string;
  snapshot: Snapshot | null;
  /**
   * The record's stored document as the write left it (absent for a record that is gone): kept with the
   * entry, in the write's transaction, so the record as of this change can be rendered later (C63: what a webhook says;
   * docs/webhooks.md#payload).
   */
  doc?: Record<string, unknown>;
}

/** An entry of the `changes` collection; `_id` is the feed sequence (commit order). */
export interface ChangeDoc {
  _id: number;
  key: string;
  type: ChangeType;
  id: number;
  action: ChangeAction;
  modified_utc: string;
  before: Snapshot | null;
  after: Snapshot | null;
  /** When it was recorded (ms since the epoch): a gap in the sequence older than this is given up. */
  at: number;
  /** The record's stored document right after the change (ChangeInput.doc); absent in entries that predate it, or whose record is gone. */
  doc?: Record<string, unknown>;
}

/** What the caller reads. */
export interface ChangeOut {
  type: ChangeType;
  id: number;
  action: ChangeAction;
  modified_utc: string;
  record?: Record<string, unknown>;
}

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 500;
/** A sequence number still missing after this long was allocated by a write that never recorded it. */
export const GAP_GRACE_MS = 10_000;

export const isTermType = (type: ChangeType): boolean => type === "category" || type === "tag";
export const changeKey = (type: ChangeType, id: number): string => `${isTermType(type) ? "term" : "post"}:${id}`;

/**
 * The feed entry of a change as it is stored (without its number, given by the feed's sequence; `before`
 * filled in by the store from the record's previous entry).
 */
export function feedEntry(c: ChangeInput, at = Date.now()): Omit<ChangeDoc, "_id"> {
  return { key: changeKey(c.type, c.id), type: c.type, id: c.id, action: c.action, modified_utc: c.modified_utc, before: null, after: c.snapshot ?? null, at, ...(c.doc ? { doc: c.doc } : {}) };
}

/** The service that owns (and renders) records of a type. */
export function ownerOf(type: ChangeType): string {
  if (type === "event") return "events";
  if (type === "venue") return "venues";
  if (type === "organizer") return "organizers";
  return "taxonomy";
}

/** The snapshot of a stored post or term. */
export function snapshotOf(type: ChangeType, doc: { status?: string; author?: number; date_utc?: string } | null | undefined): Snapshot | null {
  if (!doc) return null;
  if (isTermType(type)) return {};
  return { status: doc.status, author: doc.author, date_utc: doc.date_utc };
}

/** Whether the caller's lists show a record in this state. */
export function visibleTo(who: Who, type: ChangeType, snap: Snapshot | null | undefined, nowDb: string): boolean {
  if (!snap) return false;
  if (isTermType(type)) return true;
  const status = effectiveStatus({ status: snap.status ?? "", date_utc: snap.date_utc ?? "" }, nowDb);
  const shown = listStatuses(who, undefined);
  return shown.ok && shown.statuses.includes(status);
}

export type Decision = "skip" | "tombstone" | "record";

export function decide(who: Who, doc: Pick<ChangeDoc, "type" | "before" | "after">, nowDb: string): Decision {
  const after = visibleTo(who, doc.type, doc.after, nowDb);
  if (after) return "record";
  return visibleTo(who, doc.type, doc.before, nowDb) ? "tombstone" : "skip";
}

// ---------------------------------------------------------------------------------------------------------
// Tokens: opaque strings naming a position in the sequence (the last entry a reader has seen).
// ---------------------------------------------------------------------------------------------------------

const TOKEN_PREFIX = "chg1:";

export function encodeToken(seq: number): string {
  return Buffer.from(`${TOKEN_PREFIX}${seq}`, "utf8").toString("base64url");
}

/** The position a token names, or undefined when it is not a token of this feed. */
export function decodeToken(token: unknown): number | undefined {
  if (typeof token !== "string" || token === "" || token.length > 64 || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const text = Buffer.from(token, "base64url").toString("utf8");
  if (!text.startsWith(TOKEN_PREFIX)) return undefined;
  const digits = text.slice(TOKEN_PREFIX.length);
  if (!/^(0|[1-9]\d{0,15})$/.test(digits)) return undefined;
  const seq = Number(digits);
  return Number.isSafeInteger(seq) ? seq : undefined;
}

/** per_page as used: default 50, above 500 reduced to 500 (as lists reduce theirs). */
export function feedPageSize(perPage: number | undefined): number {
  return Math.min(perPage ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
}

/**
 * How far a reader may advance through a batch of entries read in sequence order after `cursor`: up to
 * the first gap (a sequence number allocated but not yet written) unless that gap is older than the
 * grace period. Answers the entries to consider and whether the scan stopped at a young gap.
 */
export function contiguousPrefix<T extends { _id: number; at: number }>(cursor: number, batch: readonly T[], nowMs: number, graceMs = GAP_GRACE_MS): { entries: T[]; blocked: boolean } {
  const entries: T[] = [];
  let expected = cursor + 1;
  for (const entry of batch) {
    if (entry._id !== expected && nowMs - entry.at < graceMs) return { entries, blocked: true };
    entries.push(entry);
    expected = entry._id + 1;
  }
  return { entries, blocked: false };
}
