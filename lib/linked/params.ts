/**
 * Params schemas of the venue and organizer actions, built from a kind description. The documented
 * rules are exactly the plugin's arguments (docs/discovery.md#namespace-index) and are what the namespace index shows;
 * the extensions (`post_password` C4 (passwords on venues and organizers)/D32 (setting a password), `geo_lat`/`geo_lng` D8 (geolocation), read-time `password`/`context` C15 (password by slug),
 * docs/authorization.md#password-protected-records) are accepted by the actions but, like the events' extensions, not listed in the index.
 */
import { knownUserIdsHere } from "../sites/site-callers";
import { isRegisteredStatus } from "../access/capabilities";
import { POST_PASSWORD_MAX } from "../posts/post-doc";
import { isValidUrl } from "../text/sanitize";
import { allOptional, integer, number, ParamsSchema, Rule, RuleOptions, schema, string, stringList, untyped } from "../http/params";
import type { ParamReason } from "../errors";
import type { LinkedKindSpec } from "./spec";
import { modifiedRules } from "../changes/modified";
import { metaFilterRule, metaWriteRule } from "../fields/params";
import { nearRules } from "../geo/near-query";
import { carriedFrom, linkOrder, listRules, type ListParam } from "../records/list-params";

type Fail = (key: string, vars?: Record<string, unknown>) => unknown;
type Check = (value: unknown, fail: Fail) => unknown;

function failer(value: unknown, errors: Array<Record<string, unknown>>): Fail {
  return (key, vars) => {
    errors.push({ type: key, actual: value, ...vars });
    return value;
  };
}

/** `base` (its documentation and its check), then `check` on the value it accepted. */
export function refine(base: Rule, check: Check): Rule {
  return {
    ...base,
    custom(value, errors) {
      if (value === undefined || value === null) return value;
      const before = errors.length;
      const accepted = base.custom(value, errors);
      return errors.length > before ? accepted : check(accepted, failer(value, errors));
    }
  };
}

/** `base`'s documentation with another check (D30: looser JSON types than the declared one). */
export function recheck(base: Rule, check: Check): Rule {
  return {
    ...base,
    custom(value, errors) {
      if (value === undefined || value === null) return value;
      return check(value, failer(value, errors));
    }
  };
}

const isScalar = (v: unknown): boolean => typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/** D15: `author` must name a user of API_KEYS. */
export function isKnownUser(id: number): boolean {
  return knownUserIdsHere().has(id);
}

// ---------------------------------------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------------------------------------

/** `author`: a user of API_KEYS (D15: users come from the API keys). */
export const authorRule = (o: RuleOptions) => refine(integer(o), (n, fail) => (isKnownUser(n as number) ? n : fail("param.unknown_id")));
/** `status`: a registered post status. */
export const statusRule = (o: RuleOptions) => refine(string(o), (s, fail) => (isRegisteredStatus(s as string) ? s : fail("param.status")));
/** `website`: empty or an absolute URL. */
export const urlRule = (o: RuleOptions) => refine(string(o), (s, fail) => ((s as string).trim() === "" || isValidUrl((s as string).trim()) ? s : fail("param.url")));
/** Declared as a string; D30: JSON booleans and numbers are accepted too (read with tribe_is_truthy later). */
export const mapFlagRule = (o: RuleOptions) => recheck(string(o), (v, fail) => (isScalar(v) ? v : fail("param.type", { expected: "string" })));
/** Declared as a string; D30: a numeric image id is accepted too. Resolved (and checked) by the mixin. */
export const imageRule = (o: RuleOptions) => recheck(string(o), (v, fail) => (typeof v === "string" || typeof v === "number" ? v : fail("param.type", { expected: "string" })));
/** A coordinate of D8 (geolocation): a number within ±limit, or "" (both empty: clear the coordinates). */
const coordinate = (o: RuleOptions, limit: number): Rule => {
  const base = number({ ...o, min: -limit, max: limit });
  return { ...base, custom: (value, errors) => (value === "" ? "" : base.custom(value, errors)) };
};
/** Untyped loose flag (`has_events`, `only_with_upcoming`): any scalar, kept as sent (D10: list links carry what the caller sent). */
const looseScalar = (o: RuleOptions) => recheck(untyped(o), (v, fail) => (isScalar(v) ? v : fail("param.invalid")));

// ---------------------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------------------

export interface LinkedSchemas {
  /** What each routed action validates with. */
  actions: Record<"list" | "create" | "get" | "update" | "remove" | "getBySlug" | "updateBySlug" | "removeBySlug", ParamsSchema>;
  /** What the namespace index documents (the plugin's arguments). */
  documented: Record<"list" | "create" | "get" | "update" | "remove" | "getBySlug" | "updateBySlug" | "removeBySlug", ParamsSchema>;
  /** The create parameters alone: inline venue/organizer data on events is validated with them. */
  create: ParamsSchema;
  /** The list parameters the list's links carry, in the order of their places. */
  linkOrder: readonly string[];
}

/**
 * The list's parameters the plugin documents, each with its place in the list's links (lib/records/list-params.ts,
 * D10: list links carry what the caller sent).
 */
function listParams(spec: LinkedKindSpec): Record<string, ListParam> {
  const plural = spec.plural;
  return {
    page: { rule: integer({ description: `The page of ${plural} to return`, default: 1, positive: true }), link: 1 },
    per_page: { rule: integer({ description: `How many ${plural} a page holds (at most 50)`, default: 10, positive: true }), link: 2 },
    search: { rule: string({ description: `Only ${plural} with a field containing every word of this text`, nonEmpty: true }), link: 3 },
    event: { rule: integer({ description: `Only ${plural} linked to this event id` }), link: 4 },
    has_events: { rule: looseScalar({ description: `Truthy: only ${plural} linked to an event that is neither draft nor pending; falsy: only the others` }), link: 5 },
    only_with_upcoming: { rule: looseScalar({ description: `Truthy: only ${plural} linked to an upcoming event`, default: false }), link: 6 },
    status: { rule: stringList({ description: `Only ${plural} with one of these statuses (comma list)`, format: "string" }), link: 7 },
    ...carriedFrom(modifiedRules(plural), 13)
  };
}

/**
 * Venues: the near-search (C11: venues hold their coordinates), the events list's radius search (lib/geo/near-query.ts) on the venues
 * themselves; an extension, like the events' own, accepted but not in the plugin's documented arguments.
 */
function nearSearchParams(spec: LinkedKindSpec): Record<string, ListParam> {
  if (!spec.geo) return {};
  return {
    ...carriedFrom(nearRules(), 8),
    orderby: {
      rule: string({ description: `Order of the ${spec.plural}: distance (nearest first, with geoloc_lat/geoloc_lng) or date (the default: newest first)`, enum: ["distance", "date"] }),
      link: 12
    }
  };
}

/** Every parameter a kind's list action accepts, in the order of its params schema. */
function actionListParams(spec: LinkedKindSpec): Record<string, ListParam> {
  return { ...listParams(spec), ...nearSearchParams(spec), meta: { rule: metaFilterRule(), link: 15 } };
}

function writeExtensions(spec: LinkedKindSpec): Record<string, Rule> {
  const rules: Record<string, Rule> = {
    post_password: string({ description: `A password protecting the ${spec.kind}'s details ("" removes it)`, maxLength: POST_PASSWORD_MAX }),
    meta: metaWriteRule()
  };
  if (spec.geo) {
    rules.geo_lat = coordinate({ description: "Latitude of the venue (with geo_lng)" }, 90);
    rules.geo_lng = coordinate({ description: "Longitude of the venue (with geo_lat)" }, 180);
  }
  return rules;
}

function readExtensions(spec: LinkedKindSpec): Record<string, Rule> {
  return {
    password: string({ description: `The ${spec.kind}'s password, revealing its protected details`, nonEmpty: true }),
    context: string({ description: "`edit` reveals protected details to callers who may edit the record" })
  };
}

export function linkedSchemas(spec: LinkedKindSpec): LinkedSchemas {
  const id = { id: integer({ description: `The ${spec.kind} id`, required: true, in: "path" }) };
  const slug = { slug: string({ description: `The ${spec.kind} slug`, required: true, in: "path" }) };
  const create = { ...spec.createRules };
  const update = allOptional(create) as Record<string, Rule>;
  const write = writeExtensions(spec);
  const read = readExtensions(spec);
  const documented = {
    list: schema(listRules(listParams(spec))),
    create: schema(create),
    get: schema(id),
    update: schema({ ...id, ...update }),
    remove: schema(id),
    getBySlug: schema(slug),
    updateBySlug: schema({ ...slug, ...update }),
    removeBySlug: schema(slug)
  };
  const actions = {
    ...documented,
    list: schema(listRules(actionListParams(spec))),
    create: schema({ ...create, ...write }),
    get: schema({ ...id, ...read }),
    update: schema({ ...id, ...update, ...write }),
    getBySlug: schema({ ...slug, ...read }),
    updateBySlug: schema({ ...slug, ...update, ...write })
  };
  return { actions, documented, create: actions.create, linkOrder: linkOrder(actionListParams(spec)) };
}

/** D8: coordinates come in pairs (both numbers, or both "" to clear). Problems by parameter name. */
export function geoPairProblems(p: { geo_lat?: unknown; geo_lng?: unknown }): Record<string, ParamReason> | undefined {
  const has = (v: unknown) => v !== undefined && v !== null;
  if (!has(p.geo_lat) && !has(p.geo_lng)) return undefined;
  if (!has(p.geo_lat)) return { geo_lat: { key: "param.required" } };
  if (!has(p.geo_lng)) return { geo_lng: { key: "param.required" } };
  if ((p.geo_lat === "") !== (p.geo_lng === "")) return { [p.geo_lat === "" ? "geo_lat" : "geo_lng"]: { key: "param.invalid" } };
  return undefined;
}
