/**
 * Translated values and records (the i18n issue): which fields of a write are translated, merging a
 * language's values over the original ones field by field, and the two language keys every record ends
 * with (C9: the i18n fields). Pure: the services hand in stored documents and the values the i18n service answered.
 */
import { orderLanguages } from "./languages";

/** One language's values of one record, by stored field name. */
export type FieldValues = Record<string, string>;

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** A value counts when it is a non-empty string: an empty one falls back to the original. */
export function hasValue(v: unknown): v is string {
  return typeof v === "string" && v !== "";
}

/** `doc` with every translatable field that has a value in `values` replaced by it (a new object). */
export function mergeValues<T extends object>(doc: T, values: FieldValues | undefined, fields: readonly string[]): T {
  if (!values) return doc;
  const out: Record<string, unknown> = { ...(doc as Record<string, unknown>) };
  for (const field of fields) if (hasOwn(values, field) && hasValue(values[field])) out[field] = values[field];
  return out as T;
}

/** The translatable fields present in `src`, as strings (null/undefined left out). */
export function pickFields(src: Record<string, unknown>, fields: readonly string[]): FieldValues {
  const out: FieldValues = {};
  for (const field of fields) {
    const v = src[field];
    if (v !== undefined && v !== null) out[field] = String(v);
  }
  return out;
}

/**
 * A write in a language other than the record's original: the translatable fields go to the i18n service,
 * the rest stays on the record. `derived` names inline fields computed from a translatable one
 * (`name_key` → `name`): they go away with it, since the original value they follow does not change.
 */
export function splitFields(
  params: Record<string, unknown>,
  fields: readonly string[],
  derived: Readonly<Record<string, string>> = {}
): { inline: Record<string, unknown>; translated: FieldValues } {
  const inline: Record<string, unknown> = {};
  const translated: FieldValues = {};
  for (const [key, value] of Object.entries(params)) {
    if (fields.includes(key)) {
      if (value !== undefined && value !== null) translated[key] = String(value);
    } else if (!(hasOwn(derived, key) && hasOwn(params, derived[key]))) {
      inline[key] = value;
    }
  }
  return { inline, translated };
}

/**
 * `record` with `i18n_language` and `translations` as its last two keys (C9: the i18n fields), a new object. A record without
 * them is spread with them after its keys: the records of every kind pass here, and adding two keys to each
 * in place (a new hidden class per kind at one site) cost more a record in the single event's profile than
 * the spread (docs/benchmarks.md "The request path" has the measures). One that has them is copied without them first
 * (deleting keys would turn the record into a dictionary-mode object, slow to build and to serialise: the
 * profile of a term's embed showed it).
 */
export function withLanguageKeys<T extends Record<string, unknown>>(record: T, language: string, translations: readonly string[]): T & { i18n_language: string; translations: string[] } {
  const keys = { i18n_language: language, translations: orderLanguages(translations) };
  if (!hasOwn(record, "i18n_language") && !hasOwn(record, "translations")) return { ...record, ...keys };
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(record)) if (key !== "i18n_language" && key !== "translations") copy[key] = record[key];
  return Object.assign(copy, keys) as T & { i18n_language: string; translations: string[] };
}
