/**
 * A site's custom field definitions (docs/records.md#custom-fields, CONTRACT "Custom fields"): what a
 * definition holds, the checks of a create or an update of one (each refusal a `rest_invalid_param`
 * reason), and the definition as the API answers it. Pure: the store and the service are elsewhere
 * (domain/fields/field-definitions.ts).
 */
import type { ParamReason } from "../errors";
import { isLanguage, LANGUAGES } from "../i18n/messages";
import { longerThan } from "../text/text-input";

export const FIELD_TYPES = ["text", "textarea", "url", "number", "boolean", "choice", "multi_choice"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const OBJECT_TYPES = ["event", "venue", "organizer"] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];

/** A label: one text for every language, or one per language (the request's language, with fallback). */
export type Label = string | Record<string, string>;

export interface FieldOption {
  value: string;
  label: Label;
}

/** A stored definition (`_id` its id, from the definitions' own sequence). */
export interface FieldDef {
  _id: number;
  key: string;
  object_type: ObjectType;
  type: FieldType;
  label: Label;
  options: FieldOption[];
  required: boolean;
  filterable: boolean;
  /** `<object_type>:<key>`: unique per site (the store's unique index), so two definitions never share a key. */
  ident: string;
  /** A place among the site's FIELD_LIMIT places (unique per site): the store's bound on how many a site has. */
  slot: number;
}

export const KEY_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;
export const LABEL_MAX = 200;
export const OPTION_VALUE_MAX = 100;
export const OPTIONS_MAX = 100;

export const isChoice = (type: FieldType): boolean => type === "choice" || type === "multi_choice";

/** What a definition's unique `ident` is made of. */
export const identOf = (objectType: string, key: string): string => `${objectType}:${key}`;

type Reasons = Record<string, ParamReason>;

/** A label as given: a non-empty string, or an object of language → non-empty string (at least one). */
function readLabel(v: unknown, name: string, bad: Reasons): Label | undefined {
  const ok = (s: unknown) => typeof s === "string" && s.trim() !== "" && !longerThan(s, LABEL_MAX);
  if (typeof v === "string") {
    if (ok(v)) return v.trim();
  } else if (v && typeof v === "object" && !Array.isArray(v)) {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length && entries.every(([lang, s]) => isLanguage(lang) && ok(s))) {
      // in the languages' own order, so the stored object never depends on how the client ordered it
      return Object.fromEntries(LANGUAGES.filter(lang => lang in (v as object)).map(lang => [lang, String((v as Record<string, unknown>)[lang]).trim()]));
    }
  }
  bad[name] = { key: "param.invalid", vars: { param: name } };
  return undefined;
}

/** Choice options: `[{value, label}]`, values unique non-empty strings. */
function readOptions(v: unknown, bad: Reasons): FieldOption[] | undefined {
  const fail = () => {
    bad.options = { key: "param.invalid" };
    return undefined;
  };
  if (!Array.isArray(v) || v.length === 0 || v.length > OPTIONS_MAX) return fail();
  const out: FieldOption[] = [];
  const seen = new Set<string>();
  for (const item of v) {
    if (!item || typeof item !== "object" || Array.isArray(item)) return fail();
    const o = item as Record<string, unknown>;
    const value = typeof o.value === "number" && Number.isFinite(o.value) ? String(o.value) : o.value;
    if (typeof value !== "string" || value.trim() === "" || longerThan(value, OPTION_VALUE_MAX) || seen.has(value.trim())) return fail();
    seen.add(value.trim());
    const label = o.label === undefined ? value.trim() : readLabel(o.label, "options", bad);
    if (label === undefined) return undefined;
    out.push({ value: value.trim(), label });
  }
  return out;
}

const flag = (v: unknown): boolean | undefined => (typeof v === "boolean" ? v : v === "true" || v === "1" || v === 1 ? true : v === "false" || v === "0" || v === 0 ? false : undefined);

/** The stored fields of a new definition, or the reasons it is refused. */
export function checkNewDefinition(p: Record<string, unknown>): { def?: Omit<FieldDef, "_id" | "slot">; bad: Reasons } {
  const bad: Reasons = {};
  const key = typeof p.key === "string" && KEY_PATTERN.test(p.key) ? p.key : undefined;
  if (!key) bad.key = { key: "param.invalid" };
  const objectType = (OBJECT_TYPES as readonly unknown[]).includes(p.object_type) ? (p.object_type as ObjectType) : undefined;
  if (!objectType) bad.object_type = { key: "param.invalid" };
  const type = (FIELD_TYPES as readonly unknown[]).includes(p.type) ? (p.type as FieldType) : undefined;
  if (!type) bad.type = { key: "param.invalid" };
  const label = readLabel(p.label, "label", bad);
  let options: FieldOption[] = [];
  if (type && isChoice(type)) options = readOptions(p.options, bad) ?? [];
  else if (p.options !== undefined && p.options !== null && !(Array.isArray(p.options) && p.options.length === 0)) bad.options = { key: "param.invalid" };
  const required = p.required === undefined ? false : flag(p.required);
  if (required === undefined) bad.required = { key: "param.type", vars: { type: "boolean" } };
  const filterable = p.filterable === undefined ? false : flag(p.filterable);
  if (filterable === undefined) bad.filterable = { key: "param.type", vars: { type: "boolean" } };
  if (Object.keys(bad).length) return { bad };
  return { def: { key: key!, object_type: objectType!, type: type!, label: label!, options, required: required!, filterable: filterable!, ident: identOf(objectType!, key!) }, bad };
}

/**
 * The fields an update changes (`label`, `options`, `required`, `filterable`); `key`, `object_type` and
 * `type` are fixed once made: a different value of one is refused (the same value is no change).
 */
export function checkDefinitionUpdate(current: FieldDef, p: Record<string, unknown>): { set: Partial<FieldDef>; bad: Reasons } {
  const bad: Reasons = {};
  const set: Partial<FieldDef> = {};
  for (const fixed of ["key", "object_type", "type"] as const) {
    if (p[fixed] !== undefined && p[fixed] !== current[fixed]) bad[fixed] = { key: "param.fixed" };
  }
  if (p.label !== undefined) {
    const label = readLabel(p.label, "label", bad);
    if (label !== undefined) set.label = label;
  }
  if (p.options !== undefined) {
    if (!isChoice(current.type)) {
      if (!(Array.isArray(p.options) && p.options.length === 0)) bad.options = { key: "param.invalid" };
    } else {
      const options = readOptions(p.options, bad);
      if (options) set.options = options;
    }
  }
  for (const name of ["required", "filterable"] as const) {
    if (p[name] === undefined) continue;
    const v = flag(p[name]);
    if (v === undefined) bad[name] = { key: "param.type", vars: { type: "boolean" } };
    else set[name] = v;
  }
  return { set, bad };
}

/** A label in `language`: its own text, else the default language's, else English's, else the first. */
export function labelIn(label: Label, language: string, defaultLanguage: string): string {
  if (typeof label === "string") return label;
  return label[language] ?? label[defaultLanguage] ?? label.en ?? Object.values(label)[0] ?? "";
}

/** The definition as the API answers it. */
export function presentDefinition(def: FieldDef): Record<string, unknown> {
  return {
    id: def._id,
    key: def.key,
    object_type: def.object_type,
    type: def.type,
    label: structuredClone(def.label),
    options: def.options.map(o => ({ value: o.value, label: structuredClone(o.label) })),
    required: !!def.required,
    filterable: !!def.filterable
  };
}
