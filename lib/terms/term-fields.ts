/**
 * The term's fields (categories and tags), each declared once (lib/records/field-table.ts): how it is
 * written and validated, answered and documented in /doc, and whether it is translated. The terms' write
 * parameters (lib/terms/term-params.ts), the Term schema of /doc (lib/http/response-schemas.ts) and the terms'
 * translatable fields (lib/i18n/types.ts) are read from it. Two shapes answer a term, the standalone record
 * and the object embedded in events, each in its own key order (lib/terms/term-record.ts): every key either
 * answers is one of the table's.
 */
import { integer, string } from "../http/params";
import { writtenOnlyBy, type FieldTable } from "../records/field-table";
import { importSourceSchema, int, LANGUAGE_KEYS, listOf, str, type JsonSchema } from "../records/schema-parts";

const TERM_URLS: JsonSchema = {
  type: "object",
  description: "The REST URLs of the term (self), of its collection and of its parent (up)",
  properties: { self: str("The term's REST URL"), collection: str("The REST URL of the term's collection"), up: str("The REST URL of the parent term") },
  additionalProperties: false
};

const RECORD = "lib/terms/term-record.ts";

/** The fields a category has; a tag has them all but `parent` (tags are flat). */
export const TERM_FIELDS: FieldTable<never> = {
  fields: {
    id: { answer: { schema: int("The term ID"), addedBy: RECORD } },
    name: {
      answer: { schema: str("The term name"), addedBy: RECORD },
      write: required => string({ description: "The term name", required, nonEmpty: true }),
      translatable: true
    },
    slug: {
      answer: { schema: str("The term slug"), addedBy: RECORD },
      write: () => string({ description: "An alphanumeric identifier for the term, unique within its taxonomy", nonEmpty: true })
    },
    taxonomy: { answer: { schema: str("The taxonomy of the term", { enum: ["tribe_events_cat", "post_tag"] }), addedBy: RECORD } },
    description: {
      answer: { schema: str("The term description"), addedBy: RECORD },
      write: () => string({ description: "The term description", nonEmpty: true }),
      translatable: true
    },
    parent: {
      answer: { schema: int("The ID of the parent term (0 for none); categories only"), addedBy: RECORD },
      write: () => integer({ description: "The id of the parent category", positive: true }),
      writtenOnlyBy: "category"
    },
    count: { answer: { schema: int("The number of published events the term is assigned to"), addedBy: RECORD } },
    url: { answer: { schema: str("The URL of the term archive page"), addedBy: RECORD } },
    urls: { answer: { schema: TERM_URLS, addedBy: RECORD } },
    meta: { answer: { schema: listOf({}, "Term meta (always empty)"), addedBy: RECORD } },
    term_group: { answer: { schema: int("Embedded terms: the WordPress term group (0)"), addedBy: `${RECORD} (embedded terms)` } },
    term_taxonomy_id: { answer: { schema: int("Embedded terms: the term taxonomy ID (the term ID)"), addedBy: `${RECORD} (embedded terms)` } },
    filter: { answer: { schema: str("Embedded terms: the WordPress sanitising filter (raw)"), addedBy: `${RECORD} (embedded terms)` } },
    import_source: { answer: { schema: importSourceSchema("term"), addedBy: "the taxonomy service's reader (context=edit)", contexts: ["edit"] } },
    i18n_language: { answer: { schema: LANGUAGE_KEYS.i18n_language, addedBy: "the language step of the answer" } },
    translations: { answer: { schema: LANGUAGE_KEYS.translations, addedBy: "the language step of the answer" } }
  },
  writeOrder: ["name", "description", "slug", "parent"]
};

/** The written fields only a category has (tags are flat). */
export const CATEGORY_ONLY_WRITES: readonly string[] = writtenOnlyBy(TERM_FIELDS, "category");
