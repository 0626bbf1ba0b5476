/**
 * Recurring events as stored event rows (C34: occurrence ids; C51 to C55: the recurrence decisions): what a series member stores besides the
 * event fields, the series' template, the fields an occurrence copies from it, the field groups an exception
 * overrides, and the row of a new occurrence. Pure: the series planner (domain/events/series-planner.ts) reads and writes the store.
 *
 * Every member of a series (its first event included, C34: occurrence ids) stores:
 * - `series_id`: the first event's id (membership, its own field; C51: recurrence fields);
 * - `series_identity`: its original local start (RECURRENCE-ID, C53: occurrence identity, exceptions and scope);
 * - `series_key`: `{series_id}@{identity}`, unique by the store's constraint, so two nodes materialising the
 *   same occurrence store it once;
 * - `series_overrides`: the field groups changed on that occurrence alone (an exception, C53: occurrence identity, exceptions and scope).
 * The first event also stores the series: `series_lines` (the normal-form recurrence lines),
 * `series_shared` (the series' values of the groups the first event overrides) and `series_horizon` (the
 * UTC instant through which its occurrences are materialised, C55: horizon and ICS). Other occurrences carry `post_parent` =
 * the first event's id.
 */
import { readRecurrenceParam } from "../recurrence/rule";
import { parseRecurrence, formatRecurrence } from "../recurrence/rule";
import type { Occurrence, Recurrence, Series, SeriesContext } from "../recurrence/types";
import type { EventDoc, SeriesFields } from "./event-doc";

/** An event with its series' fields (every stored event may carry them). */
export type SeriesDoc = EventDoc;

/**
 * How long a claim on a series' planning holds (docs/recurrence.md#many-nodes): a writer that starts or
 * changes a series claims it with the change itself, the horizon job claims what it moves; materialising
 * clears the claim. One left by a node that stopped meanwhile lapses after this long, and the job then
 * finishes the series.
 */
export const SERIES_CLAIM_MS = 120_000;

/**
 * A claim on a series' planning: its expiry (UTC ISO, so claims compare as strings with an instant)
 * and the claimant's token.
 */
export function seriesClaim(now: Date, token: string): string {
  return `${new Date(now.getTime() + SERIES_CLAIM_MS).toISOString()} ${token}`;
}

/** The claim on a first event that holds at `now`, if any. */
export function heldClaim(head: Pick<SeriesFields, "series_claim">, now: Date): string | undefined {
  const claim = head.series_claim;
  return typeof claim === "string" && claim > now.toISOString() ? claim : undefined;
}

/** The store condition of a first event no claim holds on at `now`. */
export function unclaimed(now: Date): Record<string, unknown> {
  return { $or: [{ series_claim: { $exists: false } }, { series_claim: { $lte: now.toISOString() } }] };
}

/** A horizon past every date: the series is materialised whole. */
export const WHOLE_SERIES = "9999-12-31 23:59:59";

/**
 * The groups of stored fields an occurrence may override on its own, and the fields each holds. A write's
 * parameters map to them by `PARAM_GROUPS`.
 */
export const FIELD_GROUPS: Readonly<Record<string, readonly string[]>> = {
  title: ["title"],
  description: ["description"],
  excerpt: ["excerpt"],
  status: ["status", "prior_status"],
  author: ["author"],
  image: ["image"],
  website: ["website"],
  cost: ["cost", "currency_symbol", "currency_position"],
  show_map: ["show_map"],
  show_map_link: ["show_map_link"],
  hide_from_listings: ["hide_from_listings"],
  sticky: ["sticky"],
  featured: ["featured"],
  categories: ["categories"],
  tags: ["tags"],
  venues: ["venues"],
  organizers: ["organizers"],
  post_password: ["post_password"],
  date: ["date", "date_utc"],
  schedule: ["timezone", "all_day", "start_date", "end_date", "utc_start_date", "utc_end_date"],
  slug: ["slug"],
  // the languages the text is written in (a write in another language changes it)
  translations: ["translations"],
  // event status and online events (lib/events/event-status.ts); the previous start is each event's own
  event_status: ["event_status"],
  event_status_reason: ["event_status_reason"],
  attendance: ["attendance_mode", "online_url"]
};

/** The groups of the text a translation carries. */
export const TEXT_GROUPS = ["title", "description", "excerpt", "event_status_reason", "translations"];

/**
 * Whose translations an occurrence shows (a translation written on the series applies to its
 * occurrences unless an exception overrides the text): the first event's, for an occurrence whose text is
 * the series' own; its own otherwise.
 */
export function textSource<T extends { _id: number }>(doc: T & SeriesFields): T {
  if (!isMember(doc) || doc.series_id === doc._id) return doc;
  return (doc.series_overrides ?? []).some(g => TEXT_GROUPS.includes(g)) ? doc : { ...doc, _id: doc.series_id! };
}

/** The group each write parameter changes. */
const PARAM_GROUPS: Readonly<Record<string, string>> = {
  title: "title", description: "description", excerpt: "excerpt", status: "status", author: "author", image: "image",
  website: "website", cost: "cost", show_map: "show_map", show_map_link: "show_map_link", hide_from_listings: "hide_from_listings",
  sticky: "sticky", featured: "featured", categories: "categories", tags: "tags", venue: "venues", organizer: "organizers",
  post_password: "post_password", date: "date", date_utc: "date", start_date: "schedule", end_date: "schedule",
  timezone: "schedule", all_day: "schedule", slug: "slug",
  event_status: "event_status", event_status_reason: "event_status_reason", attendance_mode: "attendance", online_url: "attendance"
};

/** The groups a write sends (parameters present and not null). */
export function groupsOfWrite(p: Record<string, unknown>): string[] {
  return [...new Set(Object.keys(p).filter(k => p[k] !== undefined && p[k] !== null && PARAM_GROUPS[k]).map(k => PARAM_GROUPS[k]))];
}

/** The groups whose stored values differ between two versions of a record. */
export function changedGroups(beforeDoc: object, afterDoc: object): string[] {
  const before = beforeDoc as Record<string, unknown>;
  const after = afterDoc as Record<string, unknown>;
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  return Object.keys(FIELD_GROUPS).filter(g => FIELD_GROUPS[g].some(f => !same(before[f], after[f])));
}

/** The values of some groups of a record. */
export function groupValues(record: object, groups: readonly string[]): Record<string, unknown> {
  const doc = record as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const g of groups) for (const f of FIELD_GROUPS[g] ?? []) out[f] = doc[f];
  return out;
}

export function isMember(doc: SeriesFields | null | undefined): boolean {
  return !!doc && typeof doc.series_id === "number" && doc.series_id > 0;
}

export function isFirst(doc: SeriesDoc): boolean {
  return isMember(doc) && doc.series_id === doc._id;
}

export const seriesKey = (seriesId: number, identity: string): string => `${seriesId}@${identity}`;

/** The first event's key: never an occurrence's (its identity is the series' start, which it alone holds). */
export const firstKey = (seriesId: number): string => `${seriesId}@first`;

/** The series' own values: the first event with the values of the groups it overrides put back. */
export function templateOf(first: SeriesDoc): SeriesDoc {
  return { ...first, ...(first.series_shared ?? {}) };
}

/** The context a series' lines are read in: its zone, all-day flag and first local start. */
export function contextOf(doc: Pick<EventDoc, "timezone" | "all_day" | "start_date">): SeriesContext {
  return { zone: doc.timezone, allDay: !!doc.all_day, start: doc.start_date };
}

/** The stored lines of a first event read back (they were checked when written). */
export function recurrenceOf(first: SeriesDoc): Recurrence {
  const template = templateOf(first);
  return parseRecurrence(first.series_lines ?? [], contextOf(template));
}

/** The series to expand: the template's first start, end and zone with its recurrence. */
export function seriesOf(first: SeriesDoc, recurrence: Recurrence = recurrenceOf(first)): Series {
  const template = templateOf(first);
  return { ...contextOf(template), end: template.end_date, recurrence };
}

/** The normal-form lines of a recurrence in a template's context. */
export function linesOf(recurrence: Recurrence, template: Pick<EventDoc, "timezone" | "all_day">): string[] {
  return formatRecurrence(recurrence, template.timezone, !!template.all_day);
}

/** `recurrence` of a write read against a context (C52: the recurrence rules accepted): the 400 naming `recurrence` when it is bad. */
export { readRecurrenceParam };

/** The slug of an occurrence (C54: occurrence slugs and route): `{series slug}-{YYYY-MM-DD}`; empty while the series has none. */
export function occurrenceSlug(seriesSlug: string, identity: string): string {
  const base = seriesSlug.replace(/__trashed$/, "");
  return base ? `${base}-${identity.slice(0, 10)}` : "";
}

/** The schedule fields of an occurrence. */
export function scheduleOf(o: Occurrence, template: Pick<EventDoc, "timezone" | "all_day">): Pick<EventDoc, "timezone" | "all_day" | "start_date" | "end_date" | "utc_start_date" | "utc_end_date"> {
  return {
    timezone: template.timezone, all_day: !!template.all_day,
    start_date: o.start, end_date: o.end, utc_start_date: o.utcStart, utc_end_date: o.utcEnd
  };
}

/** The row of a new occurrence of a series (its slug is chosen by the caller, C54: occurrence slugs and route). */
export function occurrenceRow(template: SeriesDoc, o: Occurrence, id: number, slug: string, modified: string): SeriesDoc {
  // What a new occurrence does not copy from its series' template: its identity and the series' own fields.
  const {
    _id: _templateId, slug: _templateSlug, series_lines: _lines, series_shared: _shared, series_horizon: _horizon, series_version: _version,
    series_claim: _claim, series_overrides: _overrides, series_identity: _identity, series_key: _key, post_parent: _parent, prior_status: _prior,
    previous_start_date: _previous, previous_utc_start_date: _previousUtc,
    ...copied
  } = template;
  return {
    ...structuredClone(copied), ...scheduleOf(o, template),
    _id: id, slug, post_parent: template._id, modified, modified_utc: modified,
    series_id: template._id, series_identity: o.identity, series_key: seriesKey(template._id, o.identity), series_overrides: []
  };
}

/** Scopes of a write to a series member (C53: occurrence identity, exceptions and scope). */
export type Scope = "this" | "following" | "all";

/** The scope of a write: the sent one, else `this` on an occurrence and `all` on the first event. */
export function scopeOf(sent: unknown, doc: SeriesDoc): Scope {
  if (sent === "this" || sent === "following" || sent === "all") {
    // `following` on the first event is `all` (C53: occurrence identity, exceptions and scope).
    return sent === "following" && isFirst(doc) ? "all" : sent;
  }
  return isFirst(doc) ? "all" : "this";
}
