/**
 * Params-schema rules for fastest-validator (the broker's validator) built on the query conventions.
 * Every rule also carries `$doc`: the type, default and description the namespace index and the /doc
 * document print, so an action's params schema is the single source of truth for both validation and
 * documentation.
 *
 * A failing rule pushes an error whose `type` is a catalog key (`param.*`); the gateway turns those into
 * 400 `rest_invalid_param` (or `rest_missing_callback_param` for fastest-validator's `required`).
 */
import { parseBoolean, parseIdList, parseInteger, parseList, isLooseTruthy } from "./query";
import { isValidDateInput } from "../time/dates";
import { longerThan } from "../text/text-input";

/** A parameter counts as sent unless it is absent or JSON null. */
export const sent = (v: unknown): boolean => v !== undefined && v !== null;

export interface ParamDoc {
  description: string;
  type?: "integer" | "boolean" | "string" | "number" | "array" | "object";
  default?: unknown;
  format?: string;
  enum?: readonly string[];
  items?: { type: string };
  /** Where the parameter travels; documents and the index use it. */
  in?: "path" | "query" | "body";
  /** A value to show in /doc (OpenAPI `example`). */
  example?: unknown;
  /** The most characters a string may have (OpenAPI `maxLength`). */
  maxLength?: number;
}

export interface Rule {
  type: "any";
  optional: boolean;
  custom: (value: unknown, errors: Array<Record<string, unknown>>) => unknown;
  $doc: ParamDoc;
  required?: boolean;
}

export type ParamsSchema = Record<string, Rule | boolean | string>;

type Check = (value: unknown, fail: (key: string, vars?: Record<string, unknown>) => unknown) => unknown;

function rule(doc: ParamDoc, check: Check, required = false): Rule {
  return {
    type: "any",
    optional: !required,
    $doc: doc,
    custom(value, errors) {
      if (value === undefined || value === null) return value;
      return check(value, (key, vars) => {
        errors.push({ type: key, actual: value, ...vars });
        return value;
      });
    }
  };
}

export interface RuleOptions {
  description: string;
  required?: boolean;
  default?: unknown;
  in?: ParamDoc["in"];
  example?: unknown;
}

const docOf = (o: RuleOptions, extra: Partial<ParamDoc>): ParamDoc => ({
  description: o.description,
  ...extra,
  ...(o.default !== undefined ? { default: o.default } : {}),
  ...(o.in ? { in: o.in } : {}),
  ...(o.example !== undefined ? { example: o.example } : {})
});

/** Integer (JSON integer or integer-like string); `positive` requires > 0. */
export function integer(o: RuleOptions & { positive?: boolean; min?: number }): Rule {
  return rule(docOf(o, { type: "integer" }), (v, fail) => {
    const n = parseInteger(v);
    if (n === undefined) return fail("param.type", { expected: "integer" });
    if ((o.positive && n <= 0) || (o.min !== undefined && n < o.min)) return fail("param.range");
    return n;
  }, o.required);
}

/** Boolean (C5: the boolean words). */
export function boolean(o: RuleOptions): Rule {
  return rule(docOf(o, { type: "boolean" }), (v, fail) => {
    const b = parseBoolean(v);
    return b === undefined ? fail("param.type", { expected: "boolean" }) : b;
  }, o.required);
}

/** String; `nonEmpty` rejects "" (after trimming when `trim`). */
export function string(o: RuleOptions & { nonEmpty?: boolean; format?: string; enum?: readonly string[]; maxLength?: number }): Rule {
  const extra: Partial<ParamDoc> = { ...(o.format ? { format: o.format } : {}), ...(o.enum ? { enum: o.enum } : {}), ...(o.maxLength !== undefined ? { maxLength: o.maxLength } : {}) };
  return rule(docOf(o, { type: "string", ...extra }), (v, fail) => {
    if (typeof v !== "string") return fail("param.type", { expected: "string" });
    if (o.nonEmpty && v.trim() === "") return fail("param.empty");
    if (o.enum && !o.enum.includes(v)) return fail("param.invalid");
    if (o.maxLength !== undefined && longerThan(v, o.maxLength)) return fail("param.length", { max: o.maxLength });
    return v;
  }, o.required);
}

/** Date-time input: Unix timestamp (integer) or a strtotime string (docs/dates.md#accepted-input). Kept as given. */
export function dateTime(o: RuleOptions & { typed?: boolean }): Rule {
  return rule(docOf(o, o.typed === false ? {} : { type: "string" }), (v, fail) =>
    isValidDateInput(v) ? v : fail("param.date"), o.required);
}

/** A list of positive integer ids (array or comma list). */
export function idList(o: RuleOptions): Rule {
  return rule(docOf(o, { type: "array", items: { type: "integer" } }), (v, fail) => parseIdList(v) ?? fail("param.invalid"), o.required);
}

/** A list of strings (ids or slugs, statuses): array or comma list; non-empty. */
export function stringList(o: RuleOptions & { itemsType?: string; format?: string }): Rule {
  const extra: Partial<ParamDoc> = o.format ? { format: o.format } : { items: { type: o.itemsType ?? "integer" } };
  return rule(docOf(o, extra), (v, fail) => {
    const list = parseList(v);
    return list && list.length > 0 ? list : fail("param.invalid");
  }, o.required);
}

/** A double within [min, max]. */
export function number(o: RuleOptions & { min?: number; max?: number; exclusiveMin?: number }): Rule {
  return rule(docOf(o, { format: "double" }), (v, fail) => {
    const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
    if (!Number.isFinite(n)) return fail("param.type", { expected: "number" });
    if ((o.min !== undefined && n < o.min) || (o.max !== undefined && n > o.max)) return fail("param.range");
    if (o.exclusiveMin !== undefined && n <= o.exclusiveMin) return fail("param.range");
    return n;
  }, o.required);
}

/** Untyped parameter read with the plugin's loose truthiness (`1`, `true`, `yes`, `on`…). */
export function looseFlag(o: RuleOptions & { nonEmpty?: boolean }): Rule {
  return rule(docOf(o, {}), (v, fail) => {
    if (typeof v !== "string" && typeof v !== "boolean" && typeof v !== "number") return fail("param.invalid");
    if (o.nonEmpty && v === "") return fail("param.empty");
    return isLooseTruthy(v);
  }, o.required);
}

/** Untyped value passed through as given (cost, venue, organizer, terms on write); shape checked later. */
export function untyped(o: RuleOptions & { items?: { type: string } }): Rule {
  return rule(docOf(o, o.items ? { items: o.items } : {}), v => v, o.required);
}

/** The documentation of every rule in a schema, in declaration order. */
export function describeSchema(schema: ParamsSchema): Array<{ name: string; doc: ParamDoc; required: boolean }> {
  const out: Array<{ name: string; doc: ParamDoc; required: boolean }> = [];
  for (const [name, r] of Object.entries(schema)) {
    if (name.startsWith("$$") || typeof r !== "object") continue;
    out.push({ name, doc: r.$doc, required: !r.optional });
  }
  return out;
}

/** The same schema with every rule optional (update operations). */
export function allOptional(schema: ParamsSchema): ParamsSchema {
  const out: ParamsSchema = {};
  for (const [name, r] of Object.entries(schema)) out[name] = typeof r === "object" ? { ...r, optional: true } : r;
  return out;
}

/** Wraps rules into an action params schema that drops unknown fields. */
export function schema(rules: Record<string, Rule>): ParamsSchema {
  return { $$strict: "remove", ...rules };
}

/**
 * `base` plus a check of its (coerced) value: `check` answers the catalog key of the failure, or
 * undefined. Runs with the other validators, so every bad parameter is reported in one 400.
 */
export function refine<T>(base: Rule, check: (value: T) => string | undefined): Rule {
  return {
    ...base,
    custom(value, errors) {
      const before = errors.length;
      const out = base.custom(value, errors);
      if (errors.length > before || out === undefined || out === null) return out;
      // `base` (the schema rule of that parameter) coerced the value to T
      const key = check(out as T);
      if (key) errors.push({ type: key, actual: value });
      return out;
    }
  };
}
