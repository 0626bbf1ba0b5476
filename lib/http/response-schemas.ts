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

import { answerSchemas } from "../records/field-table";
import { EVENT_FIELDS } from "../events/event-fields";
import { ORGANIZER_FIELDS } from "../linked/organizer-fields";
import { VENUE_FIELDS } from "../linked/venue-fields";
import { TERM_FIELDS } from "../terms/term-fields";
import { DIGITS, int, listOf, record, ref, str, type JsonSchema } from "../records/schema-parts";

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

/** A term (lib/terms/term-fields.ts): the standalone record (term routes) and the WordPress term object embedded in events. */
const TERM = record(answerSchemas(TERM_FIELDS), "An event category or tag");

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

/** The event's fields in answer order (lib/events/event-fields.ts). */
const EVENT = record(answerSchemas(EVENT_FIELDS), "An event");

/** The venue's and the organizer's fields in answer order (lib/linked/venue-fields.ts, organizer-fields.ts). */
const VENUE = record(answerSchemas(VENUE_FIELDS), "A venue");

const ORGANIZER = record(answerSchemas(ORGANIZER_FIELDS), "An organizer");

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
