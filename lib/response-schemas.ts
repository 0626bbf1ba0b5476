/**
 * What the service answers, as JSON Schema (the dialect of OpenAPI 3.1): the records (the OpenAPI
 * document's `components.schemas`), the list envelopes, the change feed and the contract's error body.
 *
 * This is the one description of the answers: the /doc document is built from it (lib/discovery/openapi.ts),
 * test/unit/response-schemas.test.ts checks the serialisers (lib/events/event-record.ts,
 * lib/linked/record.ts, lib/terms/term-record.ts) against it, and the integration suite validates every
 * answer it receives against the document (test/helpers/contract.ts). A field a serialiser adds, renames or
 * retypes without changing it here fails both.
 *
 * No record property is `required`: `_fields` keeps only the asked keys (README "Response shaping"). Records
 * allow no property that is not listed, so nothing new goes out undocumented.
 */

import { ATTENDANCE_MODES, EVENT_STATUSES } from "./events/event-status";

export type JsonSchema = Record<string, unknown>;

export const componentRef = (name: string): string => `#/components/schemas/${name}`;
const ref = (name: string, description?: string): JsonSchema => (description ? { $ref: componentRef(name), description } : { $ref: componentRef(name) });
const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: "string", description, ...extra });
const int = (description: string): JsonSchema => ({ type: "integer", description });
const num = (description: string): JsonSchema => ({ type: "number", format: "double", description });
/** A flag of a password-protected record the caller may not read is blanked to null. */
const flag = (description: string): JsonSchema => ({ type: ["boolean", "null"], description });
const listOf = (items: JsonSchema, description: string): JsonSchema => ({ type: "array", description, items });
const DIGITS = "^[0-9]+$";

function record(properties: Record<string, JsonSchema>, description: string): JsonSchema {
  return { type: "object", description, properties, additionalProperties: false };
}

/** `i18n_language` and `translations`, the last keys of every record (translatable records). */
const LANGUAGE_KEYS: Record<string, JsonSchema> = {
  i18n_language: str("The language the record is answered in (the one asked for, even where fields fell back)"),
  translations: listOf({ type: "string" }, "The languages the record has values in")
};

/** The featured image: `false` when there is none (or it is hidden), else the image object. */
const imageOrFalse = (kind: string): JsonSchema => ({
  description: `The ${kind} featured image, or false when it has none`,
  oneOf: [{ const: false }, ref("Image")]
});

const jsonLd = (kind: string): JsonSchema => ({ type: "object", description: `The ${kind} as schema.org JSON-LD (single reads, or json_ld=1 on lists)` });

/**
 * A record's custom fields (docs/records.md#custom-fields): `custom_fields` as The Events Calendar Pro
 * answers them, `meta` typed. A site's /doc names its own fields under `meta` (lib/fields/openapi.ts).
 */
function customFieldKeys(kind: string): Record<string, JsonSchema> {
  return {
    custom_fields: {
      description: `The ${kind}'s custom fields as The Events Calendar Pro shows them: label (in the request's language) → display text; [] when it has none`,
      anyOf: [{ type: "array", maxItems: 0, items: {} }, { type: "object", additionalProperties: { type: "string" } }]
    },
    meta: { type: "object", description: `The ${kind}'s custom field values, {key: value} typed as each field's type (only defined fields, absent values left out)`, properties: {} }
  };
}

/** Fields every post-like record (event, venue, organizer) has. */
function postFields(kind: string): Record<string, JsonSchema> {
  return {
    id: int(`The ${kind} ID`),
    global_id: str(`The ${kind} ID that identifies it across sites`),
    global_id_lineage: listOf({ type: "string" }, `The global IDs the ${kind} comes from`),
    author: str(`The ID of the ${kind} author, as a string`, { pattern: DIGITS }),
    status: str(`The ${kind} post status`),
    date: str(`The ${kind} publication date in the site time zone (YYYY-MM-DD HH:MM:SS)`),
    date_utc: str(`The ${kind} publication date in UTC`),
    modified: str(`The ${kind} last modification date in the site time zone`),
    modified_utc: str(`The ${kind} last modification date in UTC`),
    url: str(`The URL of the ${kind} page`)
  };
}

const IMAGE_SIZE = record({
  width: int("The width of the image size in pixels"),
  height: int("The height of the image size in pixels"),
  "mime-type": str("The MIME type of the image size"),
  url: str("The URL of the image size", { format: "uri" })
}, "One size of an image");

const COST_DETAILS = record({
  currency_symbol: str("The currency symbol written with the cost"),
  currency_code: str("The ISO currency code (empty when unknown)"),
  currency_position: str("Whether the currency symbol precedes or follows the value (empty when blanked)", { enum: ["prefix", "postfix", ""] }),
  values: listOf({ type: "string" }, "The values of the cost, as strings (numbers, or words such as free)")
}, "The parts of an event cost");

const TERM_URLS: JsonSchema = {
  type: "object",
  description: "The REST URLs of the term (self), of its collection and of its parent (up)",
  properties: { self: str("The term's REST URL"), collection: str("The REST URL of the term's collection"), up: str("The REST URL of the parent term") },
  additionalProperties: false
};

/** Where an import brought a record from (`context=edit`, C64). */
function importSourceSchema(what: string): JsonSchema {
  return {
    type: "object", description: `Where an import brought the ${what} from (context=edit, C64)`, additionalProperties: false,
    properties: { import: int("The import's ID"), source_id: str("The record's identity in the source") }
  };
}

/** A term: the standalone record (term routes) and the WordPress term object embedded in events. */
const TERM = record({
  id: int("The term ID"),
  name: str("The term name"),
  slug: str("The term slug"),
  taxonomy: str("The taxonomy of the term", { enum: ["tribe_events_cat", "post_tag"] }),
  description: str("The term description"),
  parent: int("The ID of the parent term (0 for none); categories only"),
  count: int("The number of published events the term is assigned to"),
  url: str("The URL of the term archive page"),
  urls: TERM_URLS,
  meta: listOf({}, "Term meta (always empty)"),
  term_group: int("Embedded terms: the WordPress term group (0)"),
  term_taxonomy_id: int("Embedded terms: the term taxonomy ID (the term ID)"),
  filter: str("Embedded terms: the WordPress sanitising filter (raw)"),
  import_source: importSourceSchema("term"),
  ...LANGUAGE_KEYS
}, "An event category or tag");

const IMAGE = record({
  url: str("The URL of the full-size image", { format: "uri" }),
  id: int("The image ID"),
  extension: str("The image file extension"),
  width: int("The image width in pixels"),
  height: int("The image height in pixels"),
  sizes: listOf(ref("ImageSize"), "The sizes the image is available in")
}, "A featured image");

const DATE_DETAILS = record({
  year: str("The year (four digits)", { pattern: DIGITS }),
  month: str("The month (two digits)", { pattern: DIGITS }),
  day: str("The day of the month (two digits)", { pattern: DIGITS }),
  hour: str("The hour (two digits)", { pattern: DIGITS }),
  minutes: str("The minutes (two digits)", { pattern: DIGITS }),
  seconds: str("The seconds (two digits)", { pattern: DIGITS })
}, "The components of a date, as strings");

const distance = num("The distance from the geolocation search point, in the requested unit (geolocation searches only)");

/** Event status and online events (lib/events/event-status.ts). */
const EVENT_STATUS_FIELDS: Record<string, JsonSchema> = {
  event_status: str("The event status (not the post status): a canceled event keeps its dates and stays listed", { enum: [...EVENT_STATUSES] }),
  event_status_reason: str("Why the event status changed, in the language served (blank for a protected event the caller may not read)"),
  previous_start_date: { type: ["string", "null"], description: "A rescheduled event's start before its last move, in the site time zone (YYYY-MM-DD HH:MM:SS); null otherwise. Read-only" },
  attendance_mode: str("How people attend the event", { enum: [...ATTENDANCE_MODES] }),
  online_url: { type: ["string", "null"], format: "uri", description: "The URL of an online or mixed event; null when none (or for a protected event the caller may not read)" }
};

const EVENT = record({
  ...postFields("event"),
  rest_url: str("The REST URL of the event"),
  title: str("The event title"),
  description: str("The event description (HTML)"),
  excerpt: str("The event excerpt (HTML)"),
  slug: str("The event slug"),
  image: imageOrFalse("event"),
  all_day: flag("Whether the event lasts the whole day"),
  start_date: str("The event start date in the event time zone"),
  start_date_details: ref("DateDetails", "The components of the start date"),
  end_date: str("The event end date in the event time zone"),
  end_date_details: ref("DateDetails", "The components of the end date"),
  utc_start_date: str("The event start date in UTC"),
  utc_start_date_details: ref("DateDetails", "The components of the UTC start date"),
  utc_end_date: str("The event end date in UTC"),
  utc_end_date_details: ref("DateDetails", "The components of the UTC end date"),
  timezone: str("The event time zone"),
  timezone_abbr: str("The abbreviation of the event time zone at the start date"),
  cost: str("The event cost with its currency symbol"),
  cost_details: ref("CostDetails", "The details of the event cost"),
  website: str("The event website URL"),
  show_map: flag("Whether the event shows a map"),
  show_map_link: flag("Whether the event shows a map link"),
  hide_from_listings: flag("Whether the event is hidden from the listings"),
  sticky: flag("Whether the event is pinned in the calendar views"),
  featured: flag("Whether the event is featured"),
  ticketed: flag("Whether the event has tickets"),
  ...EVENT_STATUS_FIELDS,
  categories: listOf(ref("Term"), "The event categories"),
  tags: listOf(ref("Term"), "The event tags"),
  venue: {
    description: "The event venue: an empty array when there is none, the venue object, or an array of venue objects when there are several",
    anyOf: [ref("Venue"), listOf(ref("Venue"), "The event venues")]
  },
  organizer: listOf(ref("Organizer"), "The event organizers"),
  ...customFieldKeys("event"),
  json_ld: jsonLd("event"),
  distance,
  recurrence: listOf({ type: "string" }, "The recurrence rule lines (RRULE, RDATE, EXDATE) of a series' first event"),
  post_parent: int("The parent event (a series' first event, for its other occurrences)"),
  import_source: importSourceSchema("event"),
  ...LANGUAGE_KEYS
}, "An event");

const VENUE = record({
  ...postFields("venue"),
  venue: str("The venue name"),
  description: str("The venue description (HTML)"),
  excerpt: str("The venue excerpt"),
  slug: str("The venue slug"),
  image: imageOrFalse("venue"),
  address: str("The venue street address"),
  city: str("The venue city"),
  country: str("The venue country"),
  province: str("The venue province"),
  state: str("The venue state"),
  zip: str("The venue postal code"),
  phone: str("The venue phone number"),
  website: str("The venue website URL"),
  stateprovince: str("The venue state or province"),
  geo_lat: num("The venue latitude"),
  geo_lng: num("The venue longitude"),
  json_ld: jsonLd("venue"),
  show_map: flag("Whether events at the venue show a map"),
  show_map_link: flag("Whether events at the venue show a map link"),
  distance,
  ...customFieldKeys("venue"),
  import_source: importSourceSchema("venue"),
  ...LANGUAGE_KEYS
}, "A venue");

const ORGANIZER = record({
  ...postFields("organizer"),
  organizer: str("The organizer name"),
  description: str("The organizer description (HTML)"),
  excerpt: str("The organizer excerpt"),
  slug: str("The organizer slug"),
  image: imageOrFalse("organizer"),
  phone: str("The organizer phone number"),
  website: str("The organizer website URL"),
  email: str("The organizer email address"),
  json_ld: jsonLd("organizer"),
  ...customFieldKeys("organizer"),
  import_source: importSourceSchema("organizer"),
  ...LANGUAGE_KEYS
}, "An organizer");

/** The components, in the document's order. */
export function componentSchemas(): Record<string, JsonSchema> {
  return structuredClone({
    ImageSize: IMAGE_SIZE,
    CostDetails: COST_DETAILS,
    Term: TERM,
    Image: IMAGE,
    DateDetails: DATE_DETAILS,
    Event: EVENT,
    Venue: VENUE,
    Organizer: ORGANIZER
  });
}

/** The component each resource's routes answer with. */
export const RESOURCE_COMPONENTS: Readonly<Record<string, string>> = {
  events: "Event",
  venues: "Venue",
  organizers: "Organizer",
  categories: "Term",
  tags: "Term"
};

/** The envelope of a list: the page of records under the resource's name, the totals and the paging links. */
export function listEnvelope(resource: string): JsonSchema {
  const component = RESOURCE_COMPONENTS[resource];
  return {
    title: resource,
    type: "object",
    required: [resource, "total", "total_pages"],
    properties: {
      rest_url: str("The REST URL of this page"),
      total: int("The number of matching records"),
      total_pages: int("The number of pages"),
      [resource]: listOf(ref(component), `The ${resource} of this page`),
      next_rest_url: str("The REST URL of the next page, when there is one"),
      previous_rest_url: str("The REST URL of the previous page, when there is one")
    },
    additionalProperties: false
  };
}

/** `GET /changes`: a page of the change feed. */
export function changesPage(): JsonSchema {
  return {
    title: "changes",
    type: "object",
    required: ["changes", "next_token", "has_more"],
    properties: {
      changes: listOf({
        type: "object",
        required: ["type", "id", "action", "modified_utc"],
        properties: {
          type: str("The kind of record", { enum: ["event", "venue", "organizer", "category", "tag"] }),
          id: int("The record ID"),
          action: str("What happened to the record", { enum: ["created", "updated", "deleted"] }),
          modified_utc: str("When the record changed, in UTC"),
          record: {
            description: "The record as the caller's lists show it now (absent on deleted)",
            anyOf: [ref("Event"), ref("Venue"), ref("Organizer"), ref("Term")]
          }
        },
        additionalProperties: false
      }, "The changes, in commit order"),
      next_token: str("The token to resume after this page"),
      has_more: { type: "boolean", description: "Whether more changes follow" }
    },
    additionalProperties: false
  };
}

/** The contract's error body, for every failure. */
export function errorBody(): JsonSchema {
  return {
    title: "error",
    type: "object",
    required: ["code", "message", "data"],
    properties: {
      code: str("The error code (a slug)"),
      message: str("A human-readable message in the request's language"),
      data: {
        type: "object",
        required: ["status"],
        properties: {
          status: int("The HTTP status"),
          params: {
            description: "The invalid parameters with their reasons, or the missing ones",
            anyOf: [{ type: "object", additionalProperties: { type: "string" } }, listOf({ type: "string" }, "The missing parameters")]
          },
          details: { type: "object", description: "Details of the invalid parameters" }
        }
      }
    },
    additionalProperties: false
  };
}

/** `GET /doc`: this document. */
export function openApiObject(): JsonSchema {
  return { type: "object", description: "An OpenAPI 3.1 document (openapi, info, components, servers, paths)" };
}

/** An iCalendar file (RFC 5545). */
export function icalendar(): JsonSchema {
  return { type: "string", description: "An iCalendar file (RFC 5545)", pattern: "^BEGIN:VCALENDAR" };
}

/** An import (docs/imports.md#routes, services/imports.service.ts `ImportOut`). */
export function importRecord(): JsonSchema {
  const count = (what: string) => int(`Source records ${what} by the last run`);
  const utc = (what: string): JsonSchema => ({ type: "string", nullable: true, description: what });
  return {
    type: "object",
    title: "import",
    additionalProperties: false,
    properties: {
      id: int("The import ID"),
      type: str("tec or ics", { enum: ["tec", "ics"] }),
      url: { type: "string", nullable: true, description: "The source's address (null for an iCalendar text)" },
      state: str("queued, running, done or failed", { enum: ["queued", "running", "done", "failed"] }),
      status: { type: "string", nullable: true, description: "The status imported events get (null: the source's, or publish)" },
      update: str("overwrite or new-only", { enum: ["overwrite", "new-only"] }),
      every_minutes: { type: "integer", nullable: true, description: "The period of a repeating import" },
      trash_missing: { type: "boolean", description: "Whether events that left the source are trashed" },
      created: count("created"), updated: count("updated"), unchanged: count("left unchanged"), skipped: count("skipped"),
      failed: count("that failed"), trashed: int("Events trashed by the last run because they left the source"),
      errors: listOf({ type: "object", additionalProperties: false, properties: { source: str("The source record"), message: str("What went wrong") } }, "Errors per source record"),
      error: { type: "string", nullable: true, description: "Why the last run failed" },
      created_utc: str("When the import was made (UTC)"),
      started_utc: utc("When the last run started (UTC)"),
      finished_utc: utc("When the last run ended (UTC)"),
      next_run_utc: utc("When a repeating import runs next (UTC)")
    }
  };
}

/** The counts of a run (docs/imports.md#routes): a dry run's and each run of the history. */
function runCounts(): Record<string, JsonSchema> {
  return {
    created: int("Source records created (a dry run: that would be created)"),
    updated: int("Source records updated"),
    unchanged: int("Source records left unchanged"),
    trashed: int("Events trashed because they left the source (trash_missing)"),
    skipped: int("Source records skipped (cancelled single events of a feed)"),
    failed: int("Source records that could not be read or written"),
    errors: listOf({ type: "object", additionalProperties: false, properties: { source: str("The source record"), message: str("What went wrong") } }, "Errors per source record")
  };
}

/** `POST {ns}/imports` with `dry_run`: what a run would do now (services/imports.service.ts `DryRunOut`). */
export function importDryRun(): JsonSchema {
  return { type: "object", title: "import_dry_run", additionalProperties: false, properties: { dry_run: { type: "boolean", enum: [true], description: "Always true: nothing was written" }, ...runCounts() } };
}

/** One finished run of an import (`GET {ns}/imports/{id}/runs`, services/imports.service.ts `RunOut`). */
export function importRun(): JsonSchema {
  return {
    type: "object", title: "import_run", additionalProperties: false,
    properties: {
      started_utc: { type: "string", nullable: true, description: "When the run started (UTC)" },
      finished_utc: { type: "string", nullable: true, description: "When the run ended (UTC)" },
      state: str("done or failed", { enum: ["done", "failed"] }),
      ...runCounts()
    }
  };
}
