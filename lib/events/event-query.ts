/**
 * The store query of an events list (docs/lists.md#events-list): always-applied conditions, the date
 * window, and every filter, as one query (lib/documents/store-query.ts operators), with the default order. Since
 * every stored event starts no later than it ends (docs/records.md#start-end-and-time-zone), the end
 * bounds also bound the start: the start range stays narrow for a window such as `start_date=…&end_date=…`,
 * and the store answers it from the start date's index.
 */
import type { Query, Sort } from "../documents/store-query";
import { containsRegex, SearchTerm, searchTerms } from "../text/search";
import { modifiedCondition, ModifiedRange } from "../changes/modified";
import { DEFAULT_ATTENDANCE_MODE, DEFAULT_EVENT_STATUS } from "./event-status";

/** Who may read the protected fields of which events, for `search` (D34: search never matches through hidden fields). */
export type SearchAccess =
  | "all"
  | {
      /** The `password` parameter: events with that password are readable. */
      password?: string;
      /** `context=edit`: the caller's own events in these statuses are readable (edit_post). */
      own?: { author: number; statuses: string[] };
    };

export interface EventListFilters {
  statuses: string[];
  /** Date bounds already normalised (docs/lists.md#date-filters); undefined = not applied. */
  bounds: { start_date?: string; end_date?: string; starts_before?: string; starts_after?: string; ends_before?: string; ends_after?: string };
  include?: number[];
  search?: string;
  /** The `search` condition built in the asked language (translatable mixin); used instead of `search`. */
  searchQuery?: Query;
  /** Protected events match a search only through their title unless this says otherwise (D34: search never matches through hidden fields). */
  searchAccess: SearchAccess;
  categoryIds?: number[];
  tagIds?: number[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  postParent?: number;
  ticketed?: boolean;
  /** `event_status` / `attendance_mode`: any of these values (an event that stores none has the default). */
  eventStatus?: string[];
  attendanceMode?: string[];
  /** Geolocation: venues to keep (radius / has coordinates) or to leave out (lacks coordinates). */
  geoVenues?: { in?: number[]; notIn?: number[] };
  /** `modified_after` / `modified_before` (sync issue): bounds on `modified_utc`. */
  modified?: ModifiedRange;
  /** `meta[<key>]=<value>`: each a condition on the custom field tokens (domain/fields/record-fields.ts). */
  fieldConditions?: Query[];
}

/** Events whose protected fields the caller may read. */
export function readableCondition(access: Exclude<SearchAccess, "all">): Query {
  const open: Query[] = [{ post_password: { $exists: false } }, { post_password: { $in: ["", ...(access.password ? [access.password] : [])] } }];
  if (access.own) {
    open.push({ $and: [{ author: access.own.author }, { $or: [{ status: { $in: access.own.statuses } }, { status: "trash", prior_status: { $in: access.own.statuses } }] }] });
  }
  return { $or: open };
}

/**
 * The term is in the title, the excerpt, the description, a custom field's text (lib/fields/values.ts
 * `custom_text`) or the reason of the event's status (read, as the excerpt and description are, only
 * where the caller may read the event's protected fields).
 */
function anyText(text: string): Query {
  const re = containsRegex(text);
  return { $or: [{ title: re }, { excerpt: re }, { description: re }, { custom_text: re }, { event_status_reason: re }] };
}

/**
 * A term matches an event's title, or its excerpt or description when the caller may read those (D34: search never matches through hidden fields):
 * `title ∨ (readable ∧ body)`, written as the same condition `(title ∨ body) ∧ (title ∨ readable)`. Its
 * first half is one test of the three texts, which a store's text index answers at once; the second reads
 * the document only where the title does not hold the term (docs/lists.md#search).
 */
function searchCondition(text: string, exclude: boolean, access: SearchAccess): Query {
  const match: Query = access === "all" ? anyText(text) : { $and: [anyText(text), { $or: [{ title: containsRegex(text) }, readableCondition(access)] }] };
  // each store reads its text index for these conditions itself (docs/lists.md#search)
  return exclude ? { $not: match } : match;
}

/**
 * Every term (C37: AND). The terms that must match are written side by side, `t₁ ∧ t₂ ∧ … ∧ (readable ∨
 * (title holds t₁ ∧ title holds t₂ …))`, the same condition as each term's `(t ∨ …) ∧ (title ∨ readable)`
 * (`(a ∨ r) ∧ (b ∨ r)` is `(a ∧ b) ∨ r`): their texts are one conjunction a store's text index intersects
 * itself, and the titles are read only for events the caller may not read (docs/lists.md#search).
 */
function allTerms(terms: readonly SearchTerm[], access: SearchAccess): Query {
  const needed = terms.filter(t => !t.exclude);
  const parts: Query[] = needed.map(t => anyText(t.text));
  if (needed.length && access !== "all") parts.push({ $or: [readableCondition(access), { $and: needed.map(t => ({ title: containsRegex(t.text) })) }] });
  for (const t of terms) if (t.exclude) parts.push(searchCondition(t.text, true, access));
  return { $and: parts };
}

const earliest = (...v: Array<string | undefined>) => v.filter((x): x is string => x !== undefined).sort()[0];

/** The range conditions on the start and on the end of events (empty objects when unbounded). */
function dateRanges(b: EventListFilters["bounds"]): { start: Query; end: Query } {
  const start: Query = {};
  const end: Query = {};
  if (b.start_date) start.$gte = b.start_date;
  if (b.starts_after) start.$gt = b.starts_after;
  if (b.starts_before) start.$lt = b.starts_before;
  if (b.end_date) end.$lte = b.end_date;
  if (b.ends_after) end.$gt = b.ends_after;
  if (b.ends_before) end.$lt = b.ends_before;
  if (Object.keys(start).length) {
    // start ≤ end: an upper bound on the end is one on the start too (keeps the index range narrow).
    if (b.end_date) start.$lte = b.end_date;
    const lt = earliest(b.starts_before, b.ends_before);
    if (lt) start.$lt = lt;
  }
  return { start, end };
}

/** Every search term on the stored (original-language) text; no terms: no condition. */
export function eventSearchCondition(terms: readonly SearchTerm[], access: SearchAccess): Query {
  return terms.length ? allTerms(terms, access) : {};
}

/** The `search` condition of a list (in the asked language when the service built one), or undefined. */
export function searchPart(f: EventListFilters): Query | undefined {
  if (f.searchQuery) return f.searchQuery;
  if (!f.search) return undefined;
  const terms = searchTerms(f.search);
  return terms.length ? allTerms(terms, f.searchAccess) : undefined;
}

export function buildEventQuery(f: EventListFilters): Query {
  const and: Query[] = [{ hide_from_listings: { $ne: true } }];
  let top: Query;
  if (f.include) {
    top = { _id: { $in: f.include } };
    and.push({ status: { $in: f.statuses } });
  } else {
    const { start, end } = dateRanges(f.bounds);
    if (Object.keys(start).length) {
      top = { start_date: start };
      if (Object.keys(end).length) and.push({ end_date: end });
    } else if (Object.keys(end).length) {
      top = { end_date: end };
    } else {
      top = {};
    }
    if (Object.keys(top).length) and.push({ status: { $in: f.statuses } });
    else top = { status: { $in: f.statuses } };
  }
  const search = searchPart(f);
  if (search) and.push(search);
  if (f.categoryIds) and.push({ categories: { $in: f.categoryIds } });
  if (f.tagIds) and.push({ tags: { $in: f.tagIds } });
  if (f.venueIds) and.push({ venues: { $in: f.venueIds } });
  if (f.organizerIds) and.push({ organizers: { $in: f.organizerIds } });
  if (f.featured !== undefined) and.push(f.featured ? { featured: true } : { featured: { $ne: true } });
  if (f.postParent !== undefined) and.push({ post_parent: f.postParent });
  if (f.ticketed !== undefined) and.push(f.ticketed ? { ticketed: true } : { ticketed: { $ne: true } });
  if (f.eventStatus) and.push(valueIn("event_status", f.eventStatus, DEFAULT_EVENT_STATUS));
  if (f.attendanceMode) and.push(valueIn("attendance_mode", f.attendanceMode, DEFAULT_ATTENDANCE_MODE));
  if (f.geoVenues?.in) and.push({ venues: { $in: f.geoVenues.in } });
  // None of its venues is in notIn.
  if (f.geoVenues?.notIn) and.push({ $not: { venues: { $in: f.geoVenues.notIn } } });
  if (f.modified) and.push(modifiedCondition(f.modified)!);
  if (f.fieldConditions) and.push(...f.fieldConditions);
  return { ...top, $and: and };
}

/** The field holds one of `values`; absent counts as `byDefault` (`$in` with null: absent or null, on every store). */
function valueIn(field: string, values: readonly string[], byDefault: string): Query {
  return { [field]: { $in: values.includes(byDefault) ? [...values, null] : [...values] } };
}

/** Default order: start (wall clock), publication date, id; with `include`: publication date, id. */
export function eventSort(include: boolean): Sort {
  return include ? { date: 1, _id: 1 } : { start_date: 1, date: 1, _id: 1 };
}
