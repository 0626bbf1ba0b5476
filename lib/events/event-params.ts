/**
 * Params schemas of the events actions (docs/records.md#creating-an-event, docs/lists.md#events-list,
 * docs/discovery.md#namespace-index): validation and the
 * documents share them.
 */
import { boolean, dateTime, idList, integer, looseFlag, schema, string, stringList, Rule } from "../params";
import { modifiedRules } from "../changes/modified";
import { nearRules } from "../geo/near-query";
import { listFilterRules, writeRules } from "../records/field-table";
import { EVENT_FIELDS, scopeRule } from "./event-fields";
import { metaFilterRule } from "../fields/params";

const page = () => integer({ description: "The archive page to return.", default: 1, positive: true });
const perPage = () => integer({ description: "The number of events to return on each page.", default: 10, positive: true });

/** Fields of an event write (create: title and dates required; update: all optional), from the event's field table. */
const eventWriteRules = (required: boolean): Record<string, Rule> => writeRules(EVENT_FIELDS, required);

const idRule = () => integer({ description: "The event ID.", required: true, in: "path", min: 0 });
const passwordRule = () => string({ description: "The event password.", nonEmpty: true, in: "path" });
const slugRule = (required: boolean) => string({ description: "The event slug.", required, nonEmpty: true, in: "path" });
/** One event as iCalendar (beyond the reference, like the list's `format`). */
const singleFormat = () => string({ description: "json (default) or ics: the event as an iCalendar file; Accept: text/calendar does the same.", enum: ["json", "ics"] });

/** The rules of the list parameters that filter by a field, from the event's field table. */
const filters = listFilterRules(EVENT_FIELDS);

export const EVENT_PARAMS = {
  list: schema({
    page: page(),
    per_page: perPage(),
    start_date: filters.start_date,
    end_date: filters.end_date,
    starts_before: dateTime({ description: "Events that start before this date.", typed: false }),
    starts_after: dateTime({ description: "Events that start after this date.", typed: false }),
    ends_before: dateTime({ description: "Events that end before this date.", typed: false }),
    ends_after: dateTime({ description: "Events that end after this date.", typed: false }),
    strict_dates: looseFlag({ description: "Whether the dates are taken as exact times rather than whole days.", default: "false", nonEmpty: true }),
    search: string({ description: "Events whose title, excerpt or description contain this text.", nonEmpty: true }),
    categories: filters.categories,
    tags: filters.tags,
    venue: filters.venue,
    organizer: filters.organizer,
    featured: filters.featured,
    status: filters.status,
    geoloc: boolean({ description: "Events whose venue has (true) or lacks (false) coordinates (geolocation service)." }),
    ...nearRules(),
    orderby: string({ description: "Order of the results: distance (with geoloc_lat/geoloc_lng) or the default start date order.", enum: ["distance", "start_date"] }),
    include: idList({ description: "Only events with these IDs; date filters are then ignored." }),
    post_parent: filters.post_parent,
    ticketed: filters.ticketed,
    event_status: filters.event_status,
    attendance_mode: filters.attendance_mode,
    password: string({ description: "Reveals the protected fields of events with this password.", nonEmpty: true }),
    context: string({ description: "Request context: view or edit." }),
    // Beyond the reference (sync issue, C20 (the change feed)/C22 (caching headers and shaping)): incremental sync, JSON-LD in lists, iCalendar.
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

/** Order of the parameters carried in list links (D10: list links carry what the caller sent; `i18n_language` last when sent as a parameter, C8: language in built URLs). */
export const EVENT_LINK_ORDER = ["page", "per_page", "start_date", "end_date", "search", "categories", "tags", "venue", "organizer", "featured",
  "geoloc", "geoloc_lat", "geoloc_lng", "geoloc_radius", "geoloc_unit", "orderby", "status", "post_parent", "include", "starts_before", "starts_after",
  "ends_before", "ends_after", "strict_dates", "ticketed", "event_status", "attendance_mode", "modified_after", "modified_before", "json_ld", "format", "meta", "i18n_language"] as const;
