/**
 * Params schemas of the custom field routes (docs/records.md#custom-fields), registered in lib/http/action-schemas.ts
 * like every routed action's, so the namespace index, /doc and docs/action-api.md document them. The
 * definition's own rules (key pattern, labels, options, fixed fields) are lib/fields/definition.ts's.
 */
import { boolean, integer, ParamsSchema, type Rule, schema, string, untyped } from "../http/params";
import { FIELD_TYPES, OBJECT_TYPES } from "./definition";

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 50;

const id = () => integer({ description: "The field's id.", required: true, positive: true, in: "path" });
const key = (required: boolean) => string({ description: "The field's key: `^[a-z][a-z0-9_]{0,39}$`, unique per site and object type; fixed once made.", required });
const objectType = (required: boolean, what: string) => string({ description: what, required, enum: OBJECT_TYPES });
const type = (required: boolean) => string({ description: "The value's type; fixed once made.", required, enum: FIELD_TYPES });
const definitionRules = (creating: boolean) => ({
  label: untyped({ description: "The field's label: a string, or an object of language → string (answered in the request's language, with fallback).", required: creating }),
  options: untyped({ description: "The choices of a `choice` or `multi_choice` field: `[{value, label}]` (label a string or an object of language → string).", items: { type: "object" } }),
  required: boolean({ description: "Every record of the type must hold a value (default false)." }),
  filterable: boolean({ description: "Lists of the type filter by it: `meta[<key>]=<value>` (default false)." })
});

export const FIELD_PARAMS: Record<"list" | "create" | "get" | "update" | "remove", ParamsSchema> = {
  list: schema({
    object_type: objectType(false, "Only the fields of this object type."),
    page: integer({ description: "Current page of the collection", default: 1, positive: true }),
    per_page: integer({ description: `Maximum number of items to be returned in result set (at most ${MAX_PER_PAGE})`, default: DEFAULT_PER_PAGE, positive: true })
  }),
  create: schema({ key: key(true), object_type: objectType(true, "The records the field belongs to; fixed once made."), type: type(true), ...definitionRules(true) }),
  get: schema({ id: id() }),
  update: schema({ id: id(), key: key(false), object_type: objectType(false, "Fixed once made: a different value is refused."), type: type(false), ...definitionRules(false) }),
  remove: schema({ id: id() })
};

/** An object-valued parameter (its checks are the definitions', lib/fields/values.ts and filter.ts). */
function objectRule(description: string): Rule {
  const base = untyped({ description });
  return { ...base, $doc: { ...base.$doc, type: "object" } };
}

/** `meta` of a record write: `{key: value}`, keys given are set, `null` removes one (docs/records.md#custom-fields). */
export const metaWriteRule = (): Rule =>
  objectRule("The record's custom field values, {key: value} typed as each field's type; a partial object: keys given are set, null removes one.");

/** `meta` of a list: `meta[<key>]=<value>` on filterable fields (a choice: a comma list, any of them). */
export const metaFilterRule = (): Rule =>
  objectRule("Only records whose filterable custom field holds the value: meta[<key>]=<value> (a choice: a comma list, any of them).");
