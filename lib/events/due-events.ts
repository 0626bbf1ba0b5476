/**
 * C13 (a due `future` post counts as published), in a read's arithmetic: a `future` event whose `date_utc` has passed is read as `publish` before
 * any write has published it (the events service publishes due events on its writes and in a scheduled
 * job, never on a read: docs/decisions.md "Reads never write").
 *
 * A list asking for some statuses asks for what each record reads as: with `publish` and without
 * `future`, the due `future` records too; with `future` and without `publish`, only those not yet due.
 */
import type { CountPart, Query } from "../documents/store-query";
import { effectiveStatus } from "../access/capabilities";

export type { CountPart } from "../documents/store-query";

/** The stored statuses a list reads, and the condition that keeps due and not-yet-due `future` records apart. */
export interface DueStatuses {
  statuses: string[];
  /** Added to the list's conditions (undefined: the statuses alone are exact). */
  condition?: Query;
}

export function dueStatuses(statuses: readonly string[], nowDb: string): DueStatuses {
  const publish = statuses.includes("publish");
  const future = statuses.includes("future");
  if (publish && !future) return { statuses: [...statuses, "future"], condition: { $or: [{ status: { $ne: "future" } }, { date_utc: { $lte: nowDb } }] } };
  if (future && !publish) return { statuses: [...statuses], condition: { $or: [{ status: { $ne: "future" } }, { date_utc: { $gt: nowDb } }] } };
  return { statuses: [...statuses] };
}

/** A list's query with its status condition read as C13 (a due `future` post counts as published) says (see dueStatuses). */
export function withDueStatuses(query: Query, condition: Query | undefined): Query {
  if (!condition) return query;
  const and = Array.isArray(query.$and) ? (query.$and as Query[]) : [];
  return { ...query, $and: [...and, condition] };
}

/**
 * A list's total in parts (docs/lists.md#counting-a-list): the records in the statuses other than `future`,
 * whose total moves only with writes and so may be kept, and the `future` ones that the clock has made due
 * (or not yet due), counted each time: few events are `future`, so that part is read through the
 * status index (CountPart `rare`). `build` makes the list's query for a set of stored statuses.
 */
export function dueCountParts(build: (statuses: string[]) => Query, due: DueStatuses): CountPart[] {
  if (!due.condition) return [{ query: build(due.statuses) }];
  const settled = due.statuses.filter(s => s !== "future");
  return [...(settled.length ? [{ query: build(settled) }] : []), { query: withDueStatuses(build(["future"]), due.condition), moving: true, rare: "status" }];
}

/** The record as a reader sees it: a due `future` record as published. */
export function asRead<T extends { status: string; date_utc: string }>(doc: T, nowDb: string): T {
  const status = effectiveStatus(doc, nowDb);
  return status === doc.status ? doc : { ...doc, status };
}
