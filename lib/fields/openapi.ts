/**
 * Custom fields in /doc (lib/discovery/openapi.ts): what the `{ns}/fields` routes answer, and a site's own
 * fields written into its document's record schemas (`meta`'s properties, each typed and described by
 * its label and options), so each site's /doc describes the fields that site has.
 */
import { FIELD_TYPES, FieldDef, labelIn, OBJECT_TYPES, ObjectType } from "./definition";

type JsonSchema = Record<string, unknown>;

const labelSchema = (description: string): JsonSchema => ({
  description, anyOf: [{ type: "string" }, { type: "object", additionalProperties: { type: "string" } }]
});

/** A field definition as the routes answer it (a delete's answer adds `deleted`). */
export function fieldDefinitionSchema(): JsonSchema {
  return {
    title: "field",
    type: "object",
    required: ["id", "key", "object_type", "type", "label", "options", "required", "filterable"],
    properties: {
      id: { type: "integer", description: "The field's id" },
      key: { type: "string", description: "The field's key (`meta`'s key and filter)", pattern: "^[a-z][a-z0-9_]{0,39}$" },
      object_type: { type: "string", enum: [...OBJECT_TYPES], description: "The records the field belongs to" },
      type: { type: "string", enum: [...FIELD_TYPES], description: "The value's type" },
      label: labelSchema("The label: one text, or one per language"),
      options: {
        type: "array", description: "The choices of a choice or multi_choice field",
        items: { type: "object", properties: { value: { type: "string" }, label: labelSchema("The option's label") }, required: ["value", "label"], additionalProperties: false }
      },
      required: { type: "boolean", description: "Every record of the type holds a value" },
      filterable: { type: "boolean", description: "Lists filter by it: meta[<key>]=<value>" },
      deleted: { type: "boolean", description: "Present on the answer of a delete" }
    },
    additionalProperties: false
  };
}

/** The JSON Schema of one field's value in `meta`. */
function valueSchema(def: FieldDef, language: string, defaultLanguage: string): JsonSchema {
  const options = def.options.map(o => `${o.value} (${labelIn(o.label, language, defaultLanguage)})`).join(", ");
  const description = `${labelIn(def.label, language, defaultLanguage)}${def.required ? " (required)" : ""}${def.filterable ? "; filters lists: meta[" + def.key + "]" : ""}${options ? `; one of: ${options}` : ""}`;
  switch (def.type) {
    case "number": return { type: "number", description };
    case "boolean": return { type: "boolean", description };
    case "url": return { type: "string", format: "uri", description };
    case "choice": return { type: "string", enum: def.options.map(o => o.value), description };
    case "multi_choice": return { type: "array", items: { type: "string", enum: def.options.map(o => o.value) }, description };
    default: return { type: "string", description };
  }
}

const COMPONENT: Record<ObjectType, string> = { event: "Event", venue: "Venue", organizer: "Organizer" };

/** The document with the site's fields under each record schema's `meta` (the document is changed in place and answered). */
export function withSiteFields(doc: Record<string, unknown>, defs: readonly FieldDef[], language: string, defaultLanguage: string): Record<string, unknown> {
  const schemas = ((doc.components as JsonSchema | undefined)?.schemas ?? {}) as Record<string, JsonSchema>;
  for (const def of defs) {
    const meta = (schemas[COMPONENT[def.object_type]]?.properties as Record<string, JsonSchema> | undefined)?.meta;
    if (!meta) continue;
    meta.properties = { ...(meta.properties as JsonSchema | undefined), [def.key]: valueSchema(def, language, defaultLanguage) };
  }
  return doc;
}
