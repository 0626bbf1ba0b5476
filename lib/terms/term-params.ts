/**
 * Params schemas of the category and tag routes (docs/discovery.md#namespace-index: names, types and defaults are what
 * the namespace index prints) and of the taxonomy service's internal actions. Validation here covers
 * steps 4–6 of the WordPress pipeline (docs/errors.md#order-of-checks); existence checks (ids, slugs, parents, events) are
 * the service's, still before the permission check.
 */
import { boolean, integer, ParamsSchema, Rule, schema, string, stringList } from "../http/params";
import type { Taxonomy } from "./term-record";
import { modifiedRules } from "../changes/modified";
import { writeRules } from "../records/field-table";
import { CATEGORY_ONLY_WRITES, TERM_FIELDS } from "./term-fields";

const id = (): Rule => integer({ description: "Unique identifier for the term", required: true, in: "path" });

/** GET list. `parent` only on categories; on tags it is dropped (ignored). */
function listParams(taxonomy: Taxonomy): ParamsSchema {
  return schema({
    page: integer({ description: "Current page of the collection", default: 1, positive: true }),
    per_page: integer({ description: "Maximum number of items to be returned in result set (at most 50)", default: 10, positive: true }),
    search: string({ description: "Limit results to those matching a string (name or slug)", nonEmpty: true }),
    exclude: stringList({ description: "Ensure result set excludes specific term ids or slugs", itemsType: "integer" }),
    include: stringList({ description: "Limit result set to specific term ids or slugs", itemsType: "integer" }),
    order: string({ description: "Order sort attribute ascending (asc) or descending", nonEmpty: true }),
    orderby: string({ description: "Sort collection by term attribute", nonEmpty: true }),
    hide_empty: boolean({ description: "Whether to hide terms not assigned to any published event", default: "1" }),
    ...(taxonomy === "category" ? { parent: integer({ description: "Limit result set to the direct children of this category" }) } : {}),
    post: integer({ description: "Limit result set to terms assigned to this event" }),
    event: integer({ description: "Limit result set to terms assigned to this event (alias of post; wins over it)" }),
    slug: string({ description: "Limit result set to the term with this slug", nonEmpty: true }),
    // Beyond the reference (sync issue, C20: the change feed): terms compare their internal modified time.
    ...modifiedRules(taxonomy === "category" ? "categories" : "tags")
  });
}

/** The writable fields, from the term table (create: `name` required; update: all optional). */
function fieldRules(taxonomy: Taxonomy, creating: boolean): Record<string, Rule> {
  const rules = writeRules(TERM_FIELDS, creating);
  if (taxonomy !== "category") for (const name of CATEGORY_ONLY_WRITES) delete rules[name];
  return rules;
}

/**
 * Tags are flat: `parent` is not one of their arguments (not documented) but must still reach the
 * handler, which answers `rest_taxonomy_not_hierarchical`. A string rule is skipped by the documentation.
 */
function withUndocumentedParent(taxonomy: Taxonomy, s: ParamsSchema): ParamsSchema {
  return taxonomy === "tag" ? { ...s, parent: "any|optional" } : s;
}

function createParams(taxonomy: Taxonomy): ParamsSchema {
  return withUndocumentedParent(taxonomy, schema(fieldRules(taxonomy, true)));
}

function updateParams(taxonomy: Taxonomy): ParamsSchema {
  return withUndocumentedParent(taxonomy, schema({ id: id(), ...fieldRules(taxonomy, false) }));
}

export interface TermRouteParams {
  list: ParamsSchema;
  create: ParamsSchema;
  get: ParamsSchema;
  update: ParamsSchema;
  remove: ParamsSchema;
}

function routeParams(taxonomy: Taxonomy): TermRouteParams {
  return {
    list: listParams(taxonomy),
    create: createParams(taxonomy),
    get: schema({ id: id(), context: string({ description: "`edit` adds what only the term's managers see (`import_source`, C64)" }) }),
    update: updateParams(taxonomy),
    remove: schema({ id: id() })
  };
}

export const TERM_PARAMS: Readonly<Record<Taxonomy, TermRouteParams>> = {
  category: routeParams("category"),
  tag: routeParams("tag")
};

/** Routed action name → params schema, for lib/http/action-schemas.ts (the namespace index and /doc read them). */
export function termSchemasByAction(service: string): Record<string, ParamsSchema> {
  const out: Record<string, ParamsSchema> = {};
  for (const [taxonomy, collection] of [["category", "categories"], ["tag", "tags"]] as const) {
    for (const [op, s] of Object.entries(TERM_PARAMS[taxonomy])) out[`${service}.${collection}.${op}`] = s;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Internal actions (not routed; called by the events service)
// ---------------------------------------------------------------------------------------------------------

const taxonomyRule = { type: "enum", values: ["category", "tag"] } as const;

export const INTERNAL_PARAMS = {
  resolveForEvent: { taxonomy: taxonomyRule, value: { type: "any", optional: true } },
  resolveEventTerms: { categories: { type: "any", optional: true }, tags: { type: "any", optional: true } },
  resolveFilter: { taxonomy: taxonomyRule, values: { type: "array", items: { type: "string", convert: true } }, param: { type: "string" } },
  embed: { ids: { type: "array", items: { type: "number", integer: true, convert: true } } }
} as const;
