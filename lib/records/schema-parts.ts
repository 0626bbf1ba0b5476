/**
 * The pieces the answers' JSON Schemas (the dialect of OpenAPI 3.1) are written with: the field tables
 * (lib/records/) and the components of lib/http/response-schemas.ts share them.
 */

export type JsonSchema = Record<string, unknown>;

export const componentRef = (name: string): string => `#/components/schemas/${name}`;
export const ref = (name: string, description?: string): JsonSchema => (description ? { $ref: componentRef(name), description } : { $ref: componentRef(name) });
export const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: "string", description, ...extra });
export const int = (description: string): JsonSchema => ({ type: "integer", description });
export const num = (description: string): JsonSchema => ({ type: "number", format: "double", description });
/** A flag of a password-protected record the caller may not read is blanked to null. */
export const flag = (description: string): JsonSchema => ({ type: ["boolean", "null"], description });
export const listOf = (items: JsonSchema, description: string): JsonSchema => ({ type: "array", description, items });
export const DIGITS = "^[0-9]+$";

/** A record's schema: its properties in answer order, none required, no other allowed. */
export function record(properties: Record<string, JsonSchema>, description: string): JsonSchema {
  return { type: "object", description, properties, additionalProperties: false };
}

/** `i18n_language` and `translations`, the last keys of every record (translatable records). */
export const LANGUAGE_KEYS: Readonly<Record<string, JsonSchema>> = {
  i18n_language: str("The language the record is answered in (the one asked for, even where fields fell back)"),
  translations: listOf({ type: "string" }, "The languages the record has values in")
};

/** The featured image: `false` when there is none (or it is hidden), else the image object. */
export const imageOrFalse = (kind: string): JsonSchema => ({
  description: `The ${kind} featured image, or false when it has none`,
  oneOf: [{ const: false }, ref("Image")]
});

export const jsonLd = (kind: string): JsonSchema => ({ type: "object", description: `The ${kind} as schema.org JSON-LD (single reads, or json_ld=1 on lists)` });

/**
 * A record's custom fields (docs/records.md#custom-fields): `custom_fields` as The Events Calendar Pro
 * answers them, `meta` typed. A site's /doc names its own fields under `meta` (lib/fields/openapi.ts).
 */
export function customFieldKeys(kind: string): Record<string, JsonSchema> {
  return {
    custom_fields: {
      description: `The ${kind}'s custom fields as The Events Calendar Pro shows them: label (in the request's language) → display text; [] when it has none`,
      anyOf: [{ type: "array", maxItems: 0, items: {} }, { type: "object", additionalProperties: { type: "string" } }]
    },
    meta: { type: "object", description: `The ${kind}'s custom field values, {key: value} typed as each field's type (only defined fields, absent values left out)`, properties: {} }
  };
}

/** Fields every post-like record (event, venue, organizer) has. */
export function postFields(kind: string): Record<string, JsonSchema> {
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

/** Where an import brought a record from (`context=edit`, C64: what an import brings). */
export function importSourceSchema(what: string): JsonSchema {
  return {
    type: "object", description: `Where an import brought the ${what} from (context=edit, C64)`, additionalProperties: false,
    properties: { import: int("The import's ID"), source_id: str("The record's identity in the source") }
  };
}

export const distance = num("The distance from the geolocation search point, in the requested unit (geolocation searches only)");
