/**
 * The event's fields, each declared once (lib/records/field-table.ts): how it is written and validated,
 * stored, answered (shaped, protected, in which contexts), documented in /doc, and what a change of it
 * makes stale, which list parameter filters by it, whether an import copies it. The events' params schemas
 * (lib/events/event-params.ts: writes, and the list's filters by a field), the Event schema of /doc
 * (lib/http/response-schemas.ts), the record's shaping (lib/events/event-record.ts), its password blanks, its
 * translatable fields (lib/i18n/types.ts), the staleness sets (cache/staleness.ts) and the way an import takes
 * each field from the source's record (lib/imports/tec.ts) are read from it.
 */
import { autop } from "../text/autop";
import { costDetails, formatCost } from "./cost";
import { dateDetails, isValidTimezone, timezoneAbbr } from "../time/dates";
import { boolean, dateTime, idList, integer, refine, string, stringList, untyped, type Rule } from "../http/params";
import { REGISTERED_STATUSES } from "../access/capabilities";
import { POST_PASSWORD_MAX } from "../posts/post-doc";
import { escapeUrlForOutput, isValidUrl, sanitizeUrl } from "../text/sanitize";
import { knownUserIdsHere } from "../sites/site-callers";
import { metaWriteRule } from "../fields/params";
import type { FieldTable } from "../records/field-table";
import {
  customFieldKeys, distance, flag, imageOrFalse, importSourceSchema, jsonLd, LANGUAGE_KEYS, listOf, postFields, ref, str
} from "../records/schema-parts";
import { ATTENDANCE_MODES, EVENT_STATUSES, isOnlineUrl, type statusRecordFields } from "./event-status";
import type { Embedded, EventDoc, EventEmbeds, RecordContext, RecordOptions } from "./event-doc";

/** What the event's shaper gathers once per record, for the table's fields to read. */
export interface EventShaping {
  doc: EventDoc;
  rc: RecordContext;
  embeds: EventEmbeds;
  opts: RecordOptions;
  /** The event's global id and page URL. */
  gid: string;
  url: string;
  /** The venues it embeds, found. */
  venues: Embedded[];
  /** The status fields as answered (defaults for events that store none). */
  status: ReturnType<typeof statusRecordFields>;
}

/** `timezone`: empty (site zone) or a zone docs/dates.md#time-zones accepts. */
const validZone = (v: string) => (v === "" || isValidTimezone(v) ? undefined : "param.timezone");
/** `website`: empty, or an absolute URL once the characters URLs cannot hold are removed. */
const validWebsite = (v: unknown) => (v === "" || (typeof v === "string" && isValidUrl(sanitizeUrl(v))) ? undefined : "param.url");
/** `author`: one of the users API_KEYS names (D15: users come from the API keys). */
const knownAuthor = (v: number) => (knownUserIdsHere().has(v) ? undefined : "param.unknown_id");
/** `online_url`: empty (none), or an http(s) URL. */
const validOnlineUrl = (v: unknown) => (isOnlineUrl(v) ? undefined : "param.url");

/** A list filter of values from `values` (array or comma list): any other value is refused. */
const oneOfList = (values: readonly string[]) => (v: string[]) => (v.every(x => values.includes(x)) ? undefined : "param.invalid");

/** `scope` of a write to an occurrence (C53: occurrence identity, exceptions and scope; recurring series). */
export function scopeRule(): Rule {
  return string({ description: "On an occurrence of a series: this (default on an occurrence), following or all (default on the first event) (extension).", enum: ["this", "following", "all"] });
}

const byName = (a: Embedded, b: Embedded) => String(a.name).localeCompare(String(b.name), undefined, { sensitivity: "base" }) || Number(a.id) - Number(b.id);
const terms = (s: EventShaping, ids: number[]) => ids.map(id => s.embeds.terms[id]).filter(Boolean).sort(byName);

const post = postFields("event");
const custom = customFieldKeys("event");

export const EVENT_FIELDS: FieldTable<EventShaping> = {
  fields: {
    id: { answer: { schema: post.id, shape: s => s.doc._id } },
    global_id: { answer: { schema: post.global_id, shape: s => s.gid } },
    global_id_lineage: { answer: { schema: post.global_id_lineage, shape: s => [s.gid] } },
    author: {
      answer: { schema: post.author, shape: s => String(s.doc.author) },
      write: () => refine(integer({ description: "The ID of the event author.", positive: true }), knownAuthor),
      stored: "membership"
    },
    status: {
      answer: { schema: post.status, shape: s => s.doc.status },
      write: () => string({ description: "The event post status.", enum: REGISTERED_STATUSES }),
      stored: "membership", listFilter: {
        param: "status", plain: true,
        rule: () => stringList({ description: "Events with any of these post statuses.", format: "string" })
      }, imported: "own"
    },
    date: {
      answer: { schema: post.date, shape: s => s.doc.date },
      write: () => dateTime({ description: "The publication date of the event." }),
      stored: "membership", imported: "own"
    },
    date_utc: {
      answer: { schema: post.date_utc, shape: s => s.doc.date_utc },
      write: () => dateTime({ description: "The publication date of the event, in UTC." }),
      stored: "membership", imported: "own"
    },
    modified: { answer: { schema: post.modified, shape: s => s.doc.modified }, stored: "presentation" },
    modified_utc: { answer: { schema: post.modified_utc, shape: s => s.doc.modified_utc }, stored: "presentation" },
    url: { answer: { schema: post.url, shape: s => s.url } },
    rest_url: { answer: { schema: str("The REST URL of the event"), shape: s => `${s.rc.ns}/events/${s.doc._id}` } },
    title: {
      answer: { schema: str("The event title"), shape: s => String(s.opts.text?.title ?? s.doc.title).trim() },
      write: required => string({ description: "The event title.", required, nonEmpty: true }),
      translatable: true, stored: "presentation", imported: "own"
    },
    description: {
      answer: { schema: str("The event description (HTML)"), shape: s => autop(s.opts.text?.description ?? s.doc.description ?? ""), blank: "" },
      write: () => string({ description: "The event description.", nonEmpty: true }),
      translatable: true, stored: "presentation", imported: "text"
    },
    excerpt: {
      answer: { schema: str("The event excerpt (HTML)"), shape: s => autop(s.opts.text?.excerpt ?? s.doc.excerpt ?? ""), blank: "" },
      write: () => string({ description: "The event excerpt.", nonEmpty: true }),
      translatable: true, stored: "presentation", imported: "text"
    },
    slug: {
      answer: { schema: str("The event slug"), shape: s => s.doc.slug },
      write: () => string({ description: "The event slug.", nonEmpty: true }),
      stored: "membership", imported: "text"
    },
    image: {
      answer: { schema: imageOrFalse("event"), shape: s => (s.doc.image && s.embeds.images.get(s.doc.image)) || false, blank: false },
      write: () => untyped({ description: "The featured image: an image ID or an image URL." }),
      stored: "presentation", imported: "own"
    },
    all_day: {
      answer: { schema: flag("Whether the event lasts the whole day"), shape: s => !!s.doc.all_day, blank: null },
      write: () => boolean({ description: "Whether the event lasts the whole day.", default: false }),
      stored: "membership", imported: "flag"
    },
    start_date: {
      answer: { schema: str("The event start date in the event time zone"), shape: s => s.doc.start_date },
      write: required => dateTime({ description: "The event start date and time.", required }),
      stored: "membership", listFilter: {
        param: "start_date", plain: true,
        rule: () => dateTime({ description: "Events that start on or after this date.", typed: false, default: "yesterday 23:59" })
      }, imported: "text"
    },
    start_date_details: { answer: { schema: ref("DateDetails", "The components of the start date"), shape: s => dateDetails(s.doc.start_date) } },
    end_date: {
      answer: { schema: str("The event end date in the event time zone"), shape: s => s.doc.end_date },
      write: required => dateTime({ description: "The event end date and time.", required }),
      stored: "membership", listFilter: {
        param: "end_date", plain: true,
        rule: () => dateTime({ description: "Events that end on or before this date.", typed: false, default: "+24 months" })
      }, imported: "text"
    },
    end_date_details: { answer: { schema: ref("DateDetails", "The components of the end date"), shape: s => dateDetails(s.doc.end_date) } },
    utc_start_date: { answer: { schema: str("The event start date in UTC"), shape: s => s.doc.utc_start_date }, stored: "membership" },
    utc_start_date_details: { answer: { schema: ref("DateDetails", "The components of the UTC start date"), shape: s => dateDetails(s.doc.utc_start_date) } },
    utc_end_date: { answer: { schema: str("The event end date in UTC"), shape: s => s.doc.utc_end_date }, stored: "membership" },
    utc_end_date_details: { answer: { schema: ref("DateDetails", "The components of the UTC end date"), shape: s => dateDetails(s.doc.utc_end_date) } },
    timezone: {
      answer: { schema: str("The event time zone"), shape: s => s.doc.timezone },
      write: () => refine(string({ description: "The event time zone." }), validZone),
      stored: "membership", imported: "value"
    },
    timezone_abbr: { answer: { schema: str("The abbreviation of the event time zone at the start date"), shape: s => timezoneAbbr(s.doc.timezone, s.doc.start_date) } },
    cost: {
      answer: { schema: str("The event cost with its currency symbol"), shape: s => formatCost(s.doc.cost, s.doc.currency_symbol, s.doc.currency_position), blank: "" },
      write: () => untyped({ description: "The event cost." }),
      stored: "presentation", imported: "own"
    },
    currency_symbol: { stored: "presentation" },
    currency_position: { stored: "presentation" },
    cost_details: {
      answer: {
        schema: ref("CostDetails", "The details of the event cost"), shape: s => costDetails(s.doc.cost, s.doc.currency_symbol, s.doc.currency_position),
        blank: { currency_symbol: "", currency_position: "", currency_code: "", values: [] }
      }
    },
    website: {
      answer: {
        schema: str("The event website URL"), blank: "",
        shape: s => (s.doc.website === null || s.doc.website === undefined ? s.url : s.doc.website === "" ? "" : escapeUrlForOutput(s.doc.website))
      },
      write: () => refine(untyped({ description: "The event website URL.", default: null }), validWebsite),
      stored: "presentation", imported: "text"
    },
    show_map: {
      answer: { schema: flag("Whether the event shows a map"), shape: s => s.doc.show_map ?? true, blank: null },
      write: () => boolean({ description: "Whether the event shows a map." }),
      stored: "presentation", imported: "flag"
    },
    show_map_link: {
      answer: { schema: flag("Whether the event shows a map link"), shape: s => s.doc.show_map_link ?? true, blank: null },
      write: () => boolean({ description: "Whether the event shows a map link." }),
      stored: "presentation", imported: "flag"
    },
    hide_from_listings: {
      answer: { schema: flag("Whether the event is hidden from the listings"), shape: s => !!s.doc.hide_from_listings, blank: null },
      write: () => boolean({ description: "Whether the event is hidden from the listings." }),
      stored: "membership", imported: "flag"
    },
    sticky: {
      answer: { schema: flag("Whether the event is pinned in the calendar views"), shape: s => !!s.doc.sticky, blank: null },
      write: () => boolean({ description: "Whether the event is pinned in the calendar views." }),
      stored: "membership", imported: "flag"
    },
    featured: {
      answer: { schema: flag("Whether the event is featured"), shape: s => !!s.doc.featured, blank: null },
      write: () => boolean({ description: "Whether the event is featured." }),
      stored: "membership", listFilter: {
        param: "featured", plain: true,
        rule: () => boolean({ description: "Featured events only (true) or non-featured only (false)." })
      }, imported: "flag"
    },
    ticketed: {
      answer: { schema: flag("Whether the event has tickets"), shape: s => !!s.doc.ticketed, blank: null },
      stored: "presentation", listFilter: {
        param: "ticketed", plain: false,
        rule: () => boolean({ description: "Events with (true) or without (false) tickets." })
      }
    },
    // Event status and online events (lib/events/event-status.ts): no plain page selects by them (their list filters make `S` answers).
    event_status: {
      answer: { schema: str("The event status (not the post status): a canceled event keeps its dates and stays listed", { enum: [...EVENT_STATUSES] }), shape: s => s.status.event_status },
      write: () => string({ description: "The event status: scheduled, canceled, postponed, rescheduled or moved_online (not the post status) (extension).", enum: EVENT_STATUSES }),
      stored: "presentation", listFilter: {
        param: "event_status", plain: false,
        rule: () => refine(stringList({ description: "Events with any of these event statuses (scheduled, canceled, postponed, rescheduled, moved_online).", itemsType: "string" }), oneOfList(EVENT_STATUSES))
      }, imported: "text"
    },
    event_status_reason: {
      answer: { schema: str("Why the event status changed, in the language served (blank for a protected event the caller may not read)"), shape: s => s.status.event_status_reason, blank: "" },
      write: () => string({ description: "Why the event status changed, per language (extension)." }),
      translatable: true, stored: "presentation", imported: "text"
    },
    previous_start_date: {
      answer: {
        schema: { type: ["string", "null"], description: "A rescheduled event's start before its last move, in the site time zone (YYYY-MM-DD HH:MM:SS); null otherwise. Read-only" },
        shape: s => s.status.previous_start_date
      },
      stored: "presentation"
    },
    previous_utc_start_date: { stored: "presentation" },
    attendance_mode: {
      answer: { schema: str("How people attend the event", { enum: [...ATTENDANCE_MODES] }), shape: s => s.status.attendance_mode },
      write: () => string({ description: "How people attend: offline, online or mixed (extension).", enum: ATTENDANCE_MODES }),
      stored: "presentation", listFilter: {
        param: "attendance_mode", plain: false,
        rule: () => refine(stringList({ description: "Events with any of these attendance modes (offline, online, mixed).", itemsType: "string" }), oneOfList(ATTENDANCE_MODES))
      }, imported: "text"
    },
    online_url: {
      answer: {
        schema: { type: ["string", "null"], format: "uri", description: "The URL of an online or mixed event; null when none (or for a protected event the caller may not read)" },
        shape: s => s.status.online_url, blank: null
      },
      write: () => refine(string({ description: "The http(s) URL of an online or mixed event, required for those; empty to clear it (extension).", format: "uri" }), validOnlineUrl),
      stored: "presentation", imported: "text"
    },
    categories: {
      answer: { schema: listOf(ref("Term"), "The event categories"), shape: s => terms(s, s.doc.categories), blank: [], embeds: "term" },
      write: () => untyped({ description: "Event category IDs or names.", default: null, items: { type: "integer" } }),
      stored: "membership", listFilter: {
        param: "categories", plain: true,
        rule: () => stringList({ description: "Events in any of these category IDs or slugs." })
      }, imported: "own"
    },
    tags: {
      answer: { schema: listOf(ref("Term"), "The event tags"), shape: s => terms(s, s.doc.tags), blank: [], embeds: "term" },
      write: () => untyped({ description: "Event tag IDs or names.", default: null, items: { type: "integer" } }),
      stored: "membership", listFilter: {
        param: "tags", plain: true,
        rule: () => stringList({ description: "Events with any of these tag IDs or slugs." })
      }, imported: "own"
    },
    venue: {
      answer: {
        schema: {
          description: "The event venue: an empty array when there is none, the venue object, or an array of venue objects when there are several",
          anyOf: [ref("Venue"), listOf(ref("Venue"), "The event venues")]
        },
        shape: s => (s.venues.length === 0 ? [] : s.venues.length === 1 ? s.venues[0] : s.venues), blank: [], embeds: "venue"
      },
      write: () => untyped({ description: "Venue IDs or venue data.", default: null, items: { type: "integer" } }),
      listFilter: {
        param: "venue", plain: true,
        rule: () => idList({ description: "Events at any of these venue IDs." })
      }, imported: "own"
    },
    organizer: {
      answer: {
        schema: listOf(ref("Organizer"), "The event organizers"), shape: s => s.doc.organizers.map(id => s.embeds.organizers[id]).filter(Boolean),
        blank: [], embeds: "organizer"
      },
      write: () => untyped({ description: "Organizer IDs or organizer data.", default: null, items: { type: "integer" } }),
      listFilter: {
        param: "organizer", plain: true,
        rule: () => idList({ description: "Events with any of these organizer IDs." })
      }, imported: "own"
    },
    custom_fields: { answer: { schema: custom.custom_fields, shape: s => s.opts.fields?.custom_fields ?? [], blank: [] } },
    meta: {
      answer: { schema: custom.meta, shape: s => s.opts.fields?.meta ?? {}, blank: {} },
      write: () => metaWriteRule()
    },
    json_ld: { answer: { schema: jsonLd("event"), addedBy: "lib/events/event-record.ts (single reads, json_ld=1 on lists)", blankInside: { additionalProperty: [] } } },
    distance: { answer: { schema: distance, addedBy: "the geolocation search" } },
    recurrence: {
      answer: { schema: listOf({ type: "string" }, "The recurrence rule lines (RRULE, RDATE, EXDATE) of a series' first event"), addedBy: "lib/events/event-record.ts (a series' first event)" },
      write: () => untyped({
        description: "RFC 5545 recurrence lines (RRULE, RDATE, EXDATE) making the event the first of a series; [] ends the series (extension).", items: { type: "string" },
        example: ["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270630T235959Z", "EXDATE;TZID=Europe/Rome:20270112T190000"]
      }), imported: "own"
    },
    scope: { write: scopeRule },
    post_parent: {
      answer: { schema: { type: "integer", description: "The parent event (a series' first event, for its other occurrences)" }, addedBy: "lib/events/event-record.ts (a series' other occurrences)" },
      write: () => integer({ description: "The ID of the parent event (extension).", positive: true }),
      stored: "membership", listFilter: {
        param: "post_parent", plain: false,
        rule: () => integer({ description: "Events whose parent is this event.", positive: true })
      }
    },
    post_password: {
      write: () => string({ description: "The password protecting the event content; empty to clear it (extension).", maxLength: POST_PASSWORD_MAX }),
      stored: "membership"
    },
    import_source: { answer: { schema: importSourceSchema("event"), addedBy: "the events' reader (context=edit)", contexts: ["edit"] } },
    i18n_language: { answer: { schema: LANGUAGE_KEYS.i18n_language, addedBy: "the language step of the answer" } },
    translations: { answer: { schema: LANGUAGE_KEYS.translations, addedBy: "the language step of the answer" } }
  },
  writeOrder: ["author", "date", "date_utc", "title", "description", "slug", "excerpt", "status", "timezone", "all_day", "start_date", "end_date",
    "image", "cost", "website", "show_map", "show_map_link", "hide_from_listings", "sticky", "featured", "categories", "tags", "venue", "organizer",
    "post_parent", "post_password", "recurrence", "scope", "meta", "event_status", "event_status_reason", "attendance_mode", "online_url"]
};
