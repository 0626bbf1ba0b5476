/**
 * The date window of an events list (docs/lists.md#date-filters): the bounds its date parameters give, and
 * the default window when none of the `starts_*`/`ends_*` ones is sent. The list and the iCalendar of a
 * series (C55: within the query's window the file expands to exactly the listed occurrences) read it alike.
 */
import { defaultListWindow, listBound, ListBoundKind } from "../time/dates";
import type { EventListFilters } from "./event-query";

export const DATE_FILTERS: ListBoundKind[] = ["start_date", "end_date", "starts_before", "starts_after", "ends_before", "ends_after"];

const present = (v: unknown) => v !== undefined && v !== null;

/** The list's date bounds from its parameters (site zone, at `now`). */
export function listBounds(p: Record<string, unknown>, siteZone: string, now: Date): EventListFilters["bounds"] {
  const strict = !!p.strict_dates;
  const bounds: EventListFilters["bounds"] = {};
  for (const kind of DATE_FILTERS) {
    const bound = present(p[kind]) ? listBound(p[kind], kind, strict, siteZone, now) : null;
    if (bound !== null) bounds[kind] = bound;
  }
  if (!DATE_FILTERS.slice(2).some(k => present(p[k]))) {
    const window = defaultListWindow(strict, siteZone, now);
    bounds.start_date ??= window.start;
    bounds.end_date ??= window.end;
  }
  return bounds;
}

/** Whether an event's local start and end fall in the bounds (the list's date condition). */
export function inBounds(b: EventListFilters["bounds"], start: string, end: string): boolean {
  if (b.start_date !== undefined && !(start >= b.start_date)) return false;
  if (b.starts_after !== undefined && !(start > b.starts_after)) return false;
  if (b.starts_before !== undefined && !(start < b.starts_before)) return false;
  if (b.end_date !== undefined && !(end <= b.end_date)) return false;
  if (b.ends_after !== undefined && !(end > b.ends_after)) return false;
  if (b.ends_before !== undefined && !(end < b.ends_before)) return false;
  return true;
}
