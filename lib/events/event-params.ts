/**
 * Params schemas of the events actions (docs/records.md#creating-an-event, docs/lists.md#events-list,
 * docs/discovery.md#namespace-index): validation and the
 * documents share them.
 */
import { boolean, dateTime, idList, integer, looseFlag, schema, string, stringList, Rule } from "../http/params";
import { modifiedRules } from "../changes/modified";
import { nearRules } from "../geo/near-query";
import { listFilterRules, writeRules } from "../records/field-table";
import { EVENT_FIELDS, scopeRule } from "./event-fields";
import { metaFilterRule } from "../fields/params";
import { carriedFrom, linkOrder, listRules, type ListParam } from "../records/list-params";

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

/**
 * The event list's parameters, in the order /doc documents them, each with its place in the list's links
 * (lib/records/list-params.ts): `password` and `context` change what the caller may read, not which page it is.
 */
export const EVENT_LIST_PARAMS: Readonly<Record<string, ListParam>> = {
  page: { rule: page(), link: 1 },
  per_page: { rule: perPage(), link: 2 },
  start_date: { rule: filters.start_date, link: 3 },
  end_date: { rule: filters.end_date, link: 4 },
  starts_before: { rule: dateTime({ description: "Events that start before this date.", typed: false }), link: 20 },
  starts_after: { rule: dateTime({ description: "Events that start after this date.", typed: false }), link: 21 },
  ends_before: { rule: dateTime({ description: "Events that end before this date.", typed: false }), link: 22 },
  ends_after: { rule: dateTime({ description: "Events that end after this date.", typed: false }), link: 23 },
  strict_dates: { rule: looseFlag({ description: "Whether the dates are taken as exact times rather than whole days.", default: "false", nonEmpty: true }), link: 24 },
  search: { rule: string({ description: "Events whose title, excerpt or description contain this text.", nonEmpty: true }), link: 5 },
  categories: { rule: filters.categories, link: 6 },
  tags: { rule: filters.tags, link: 7 },
  venue: { rule: filters.venue, link: 8 },
  organizer: { rule: filters.organizer, link: 9 },
  featured: { rule: filters.featured, link: 10 },
  status: { rule: filters.status, link: 17 },
  geoloc: { rule: boolean({ description: "Events whose venue has (true) or lacks (false) coordinates (geolocation service)." }), link: 11 },
  ...carriedFrom(nearRules(), 12),
  orderby: { rule: string({ description: "Order of the results: distance (with geoloc_lat/geoloc_lng) or the default start date order.", enum: ["distance", "start_date"] }), link: 16 },
  include: { rule: idList({ description: "Only events with these IDs; date filters are then ignored." }), link: 19 },
  post_parent: { rule: filters.post_parent, link: 18 },
  ticketed: { rule: filters.ticketed, link: 25 },
  event_status: { rule: filters.event_status, link: 26 },
  attendance_mode: { rule: filters.attendance_mode, link: 27 },
  password: { rule: string({ description: "Reveals the protected fields of events with this password.", nonEmpty: true }) },
  context: { rule: string({ description: "Request context: view or edit." }) },
  // Beyond the reference (sync issue, C20 (the change feed)/C22 (caching headers and shaping)): incremental sync, JSON-LD in lists, iCalendar.
  ...carriedFrom(modifiedRules("events"), 28),
  json_ld: { rule: boolean({ description: "Whether each listed event carries its json_ld (schema.org Event)." }), link: 30 },
  meta: { rule: metaFilterRule(), link: 32 },
  format: {
    rule: string({ description: "json (default) or ics: every matching event (up to 1000) as an iCalendar file; Accept: text/calendar does the same.", enum: ["json", "ics"] }),
    link: 31
  }
};

export const EVENT_PARAMS = {
  list: schema(listRules(EVENT_LIST_PARAMS)),
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

/** Order of the parameters carried in list links: the list's by their places (D10: list links carry what the caller sent), then `i18n_language` when sent as a parameter (C8: language in built URLs). */
export const EVENT_LINK_ORDER: readonly string[] = [...linkOrder(EVENT_LIST_PARAMS), "i18n_language"];
