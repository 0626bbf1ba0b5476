/**
 * Params schemas of the events actions (docs/records.md#creating-an-event, docs/lists.md#events-list,
 * docs/discovery.md#namespace-index): validation and the
 * documents share them.
 */
import { boolean, dateTime, idList, integer, looseFlag, schema, string, stringList, untyped, Rule } from "../params";
import { REGISTERED_STATUSES } from "../capabilities";
import { POST_PASSWORD_MAX } from "../posts/post-doc";
import { isValidTimezone } from "../dates";
import { isValidUrl, sanitizeUrl } from "../sanitize";
import { knownUserIdsHere } from "../sites/callers";
import { modifiedRules } from "../changes/modified";
import { nearRules } from "../geo/near-query";
import { ATTENDANCE_MODES, EVENT_STATUSES, isOnlineUrl } from "./event-status";
import { metaFilterRule, metaWriteRule } from "../fields/params";

/**
 * `base` plus a check of its (coerced) value: `check` answers the catalog key of the failure, or
 * undefined. Runs with the other validators, so every bad parameter is reported in one 400.
 */
function refine<T>(base: Rule, check: (value: T) => string | undefined): Rule {
  return {
    ...base,
    custom(value, errors) {
      const before = errors.length;
      const out = base.custom(value, errors);
      if (errors.length > before || out === undefined || out === null) return out;
      // `base` (the schema rule of that parameter) coerced the value to T
      const key = check(out as T);
      if (key) errors.push({ type: key, actual: value });
      return out;
    }
  };
}

/** `timezone`: empty (site zone) or a zone docs/dates.md#time-zones accepts. */
const validZone = (v: string) => (v === "" || isValidTimezone(v) ? undefined : "param.timezone");
/** `website`: empty, or an absolute URL once the characters URLs cannot hold are removed. */
const validWebsite = (v: unknown) => (v === "" || (typeof v === "string" && isValidUrl(sanitizeUrl(v))) ? undefined : "param.url");
/** `author`: one of the users API_KEYS names (D15). */
const knownAuthor = (v: number) => (knownUserIdsHere().has(v) ? undefined : "param.unknown_id");

/** `online_url`: empty (none), or an http(s) URL. */
const validOnlineUrl = (v: unknown) => (isOnlineUrl(v) ? undefined : "param.url");
/** A list filter of values from `values` (array or comma list): any other value is refused. */
const oneOfList = (values: readonly string[]) => (v: string[]) => (v.every(x => values.includes(x)) ? undefined : "param.invalid");

const page = () => integer({ description: "The archive page to return.", default: 1, positive: true });
const perPage = () => integer({ description: "The number of events to return on each page.", default: 10, positive: true });

/** Fields of an event write (create: title and dates required; update: all optional). */
export function eventWriteRules(required: boolean): Record<string, Rule> {
  return {
    author: refine(integer({ description: "The ID of the event author.", positive: true }), knownAuthor),
    date: dateTime({ description: "The publication date of the event." }),
    date_utc: dateTime({ description: "The publication date of the event, in UTC." }),
    title: string({ description: "The event title.", required, nonEmpty: true }),
    description: string({ description: "The event description.", nonEmpty: true }),
    slug: string({ description: "The event slug.", nonEmpty: true }),
    excerpt: string({ description: "The event excerpt.", nonEmpty: true }),
    status: string({ description: "The event post status.", enum: REGISTERED_STATUSES }),
    timezone: refine(string({ description: "The event time zone." }), validZone),
    all_day: boolean({ description: "Whether the event lasts the whole day.", default: false }),
    start_date: dateTime({ description: "The event start date and time.", required }),
    end_date: dateTime({ description: "The event end date and time.", required }),
    image: untyped({ description: "The featured image: an image ID or an image URL." }),
    cost: untyped({ description: "The event cost." }),
    website: refine(untyped({ description: "The event website URL.", default: null }), validWebsite),
    show_map: boolean({ description: "Whether the event shows a map." }),
    show_map_link: boolean({ description: "Whether the event shows a map link." }),
    hide_from_listings: boolean({ description: "Whether the event is hidden from the listings." }),
    sticky: boolean({ description: "Whether the event is pinned in the calendar views." }),
    featured: boolean({ description: "Whether the event is featured." }),
    categories: untyped({ description: "Event category IDs or names.", default: null, items: { type: "integer" } }),
    tags: untyped({ description: "Event tag IDs or names.", default: null, items: { type: "integer" } }),
    venue: untyped({ description: "Venue IDs or venue data.", default: null, items: { type: "integer" } }),
    organizer: untyped({ description: "Organizer IDs or organizer data.", default: null, items: { type: "integer" } }),
    post_parent: integer({ description: "The ID of the parent event (extension).", positive: true }),
    post_password: string({ description: "The password protecting the event content; empty to clear it (extension).", maxLength: POST_PASSWORD_MAX }),
    // Recurring events (C51–C53).
    recurrence: untyped({ description: "RFC 5545 recurrence lines (RRULE, RDATE, EXDATE) making the event the first of a series; [] ends the series (extension).", items: { type: "string" },
      example: ["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270630T235959Z", "EXDATE;TZID=Europe/Rome:20270112T190000"] }),
    scope: scopeRule(),
    meta: metaWriteRule(),
    ...eventStatusWriteRules()
  };
}

/** Event status and online events (docs/records.md#event-status-and-online-events). */
function eventStatusWriteRules(): Record<string, Rule> {
  return {
    event_status: string({ description: "The event status: scheduled, canceled, postponed, rescheduled or moved_online (not the post status) (extension).", enum: EVENT_STATUSES }),
    event_status_reason: string({ description: "Why the event status changed, per language (extension)." }),
    attendance_mode: string({ description: "How people attend: offline, online or mixed (extension).", enum: ATTENDANCE_MODES }),
    online_url: refine(string({ description: "The http(s) URL of an online or mixed event, required for those; empty to clear it (extension).", format: "uri" }), validOnlineUrl)
  };
}

/** `scope` of a write to an occurrence (C53). */
function scopeRule(): Rule {
  return string({ description: "On an occurrence of a series: this (default on an occurrence), following or all (default on the first event) (extension).", enum: ["this", "following", "all"] });
}

const idRule = () => integer({ description: "The event ID.", required: true, in: "path", min: 0 });
const passwordRule = () => string({ description: "The event password.", nonEmpty: true, in: "path" });
const slugRule = (required: boolean) => string({ description: "The event slug.", required, nonEmpty: true, in: "path" });
/** One event as iCalendar (beyond the reference, like the list's `format`). */
const singleFormat = () => string({ description: "json (default) or ics: the event as an iCalendar file; Accept: text/calendar does the same.", enum: ["json", "ics"] });

export const EVENT_PARAMS = {
  list: schema({
    page: page(),
    per_page: perPage(),
    start_date: dateTime({ description: "Events that start on or after this date.", typed: false, default: "yesterday 23:59" }),
    end_date: dateTime({ description: "Events that end on or before this date.", typed: false, default: "+24 months" }),
    starts_before: dateTime({ description: "Events that start before this date.", typed: false }),
    starts_after: dateTime({ description: "Events that start after this date.", typed: false }),
    ends_before: dateTime({ description: "Events that end before this date.", typed: false }),
    ends_after: dateTime({ description: "Events that end after this date.", typed: false }),
    strict_dates: looseFlag({ description: "Whether the dates are taken as exact times rather than whole days.", default: "false", nonEmpty: true }),
    search: string({ description: "Events whose title, excerpt or description contain this text.", nonEmpty: true }),
    categories: stringList({ description: "Events in any of these category IDs or slugs." }),
    tags: stringList({ description: "Events with any of these tag IDs or slugs." }),
    venue: idList({ description: "Events at any of these venue IDs." }),
    organizer: idList({ description: "Events with any of these organizer IDs." }),
    featured: boolean({ description: "Featured events only (true) or non-featured only (false)." }),
    status: stringList({ description: "Events with any of these post statuses.", format: "string" }),
    geoloc: boolean({ description: "Events whose venue has (true) or lacks (false) coordinates (geolocation service)." }),
    ...nearRules(),
    orderby: string({ description: "Order of the results: distance (with geoloc_lat/geoloc_lng) or the default start date order.", enum: ["distance", "start_date"] }),
    include: idList({ description: "Only events with these IDs; date filters are then ignored." }),
    post_parent: integer({ description: "Events whose parent is this event.", positive: true }),
    ticketed: boolean({ description: "Events with (true) or without (false) tickets." }),
    event_status: refine(stringList({ description: "Events with any of these event statuses (scheduled, canceled, postponed, rescheduled, moved_online).", itemsType: "string" }), oneOfList(EVENT_STATUSES)),
    attendance_mode: refine(stringList({ description: "Events with any of these attendance modes (offline, online, mixed).", itemsType: "string" }), oneOfList(ATTENDANCE_MODES)),
    password: string({ description: "Reveals the protected fields of events with this password.", nonEmpty: true }),
    context: string({ description: "Request context: view or edit." }),
    // Beyond the reference (sync issue, C20/C22): incremental sync, JSON-LD in lists, iCalendar.
    ...modifiedRules("events"),
    json_ld: boolean({ description: "Whether each listed event carries its json_ld (schema.org Event)." }),
    meta: metaFilterRule(),
    format: string({ description: "json (default) or ics: every matching event (up to 1000) as an iCalendar file; Accept: text/calendar does the same.", enum: ["json", "ics"] })
  }),
  create: schema(eventWriteRules(true)),
  get: schema({ id: idRule(), password: passwordRule(), context: string({ description: "Request context: view or edit." }), format: singleFormat() }),
  remove: schema({ id: idRule(), password: passwordRule(), scope: scopeRule() }),
  update: schema({ id: idRule(), password: passwordRule(), ...eventWriteRules(false) }),
  getBySlug: schema({ slug: slugRule(true), password: string({ description: "The event password.", nonEmpty: true }), context: string({ description: "Request context: view or edit." }), format: singleFormat() }),
  removeBySlug: schema({ slug: slugRule(true), scope: scopeRule() }),
  occurrences: schema({
    id: idRule(),
    page: page(),
    per_page: perPage(),
    start_date: dateTime({ description: "Occurrences that start on or after this date.", typed: false }),
    end_date: dateTime({ description: "Occurrences that end on or before this date.", typed: false }),
    strict_dates: looseFlag({ description: "Whether the dates are taken as exact times rather than whole days.", default: "false", nonEmpty: true }),
    status: stringList({ description: "Occurrences with any of these post statuses.", format: "string" }),
    password: string({ description: "Reveals the protected fields of events with this password.", nonEmpty: true }),
    context: string({ description: "Request context: view or edit." })
  }),
  updateBySlug: schema({ ...(() => { const { slug: _s, ...rest } = eventWriteRules(false); return { slug: slugRule(false), ...rest }; })() })
};

/** Order of the parameters carried in list links (D10; `i18n_language` last when sent as a parameter, C8). */
export const EVENT_LINK_ORDER = ["page", "per_page", "start_date", "end_date", "search", "categories", "tags", "venue", "organizer", "featured",
  "geoloc", "geoloc_lat", "geoloc_lng", "geoloc_radius", "geoloc_unit", "orderby", "status", "post_parent", "include", "starts_before", "starts_after",
  "ends_before", "ends_after", "strict_dates", "ticketed", "event_status", "attendance_mode", "modified_after", "modified_before", "json_ld", "format", "meta", "i18n_language"] as const;
