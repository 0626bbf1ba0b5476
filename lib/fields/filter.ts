/**
 * A list's custom field filters (docs/lists.md#custom-field-filters): `meta[<key>]=<value>` on a filterable
 * field; a choice takes a comma list (any of them). Each filter is answered by the tokens its values have
 * (lib/fields/values.ts), which the store reads through the link table's key, never by a scan.
 */
import type { ParamReason } from "../errors";
import { parseBoolean, parseList } from "../http/query";
import { FieldDef, isChoice } from "./definition";
import { valueToken } from "./values";

/** One filter: a record matches when it carries one of `tokens`. */
export interface FieldFilter {
  key: string;
  tokens: string[];
}

const bad = (key: string, k = "param.invalid"): { reason: ParamReason } => ({ reason: { key: k, vars: { param: `meta[${key}]` } } });

/** The filters of a list's `meta` parameter (an object of key → value, as `meta[key]=value` arrives), or the reason it is refused. */
export function readFieldFilters(defs: readonly FieldDef[], param: unknown): { filters?: FieldFilter[]; reason?: ParamReason } {
  if (param === undefined || param === null) return { filters: [] };
  if (typeof param !== "object" || Array.isArray(param)) return { reason: { key: "param.type", vars: { type: "object" } } };
  const filters: FieldFilter[] = [];
  for (const [key, raw] of Object.entries(param as Record<string, unknown>)) {
    const def = defs.find(d => d.key === key);
    if (!def) return bad(key, "param.field_unknown");
    if (!def.filterable) return bad(key, "param.not_filterable");
    const given = Array.isArray(raw) ? raw : [raw];
    if (!given.every(v => typeof v === "string" || typeof v === "number" || typeof v === "boolean")) return bad(key);
    let values: unknown[];
    if (isChoice(def.type)) {
      values = parseList(given) ?? [];
      if (!values.length) return bad(key);
      if (values.some(v => !def.options.some(o => o.value === v))) return bad(key, "param.choice");
    } else if (def.type === "number") {
      values = given.map(v => (typeof v === "number" ? v : String(v).trim() === "" ? NaN : Number(v)));
      if (values.some(n => !Number.isFinite(n as number))) return bad(key);
      values = values.map(n => (Object.is(n, -0) ? 0 : n));
    } else if (def.type === "boolean") {
      values = given.map(v => parseBoolean(v));
      if (values.some(b => b === undefined)) return bad(key);
    } else {
      values = given.map(v => String(v));
    }
    filters.push({ key, tokens: [...new Set(values.map(v => valueToken(def, v)))] });
  }
  return { filters };
}
