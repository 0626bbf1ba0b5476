/**
 * Custom field values of a record (docs/records.md#custom-fields): a write's `meta` checked against the
 * site's definitions and merged with what the record holds, the stored form (values by field id, the text
 * a search reads, the tokens a filter reads through the link table), and the two answers: `meta` typed,
 * `custom_fields` as The Events Calendar Pro shows them (`tribe_get_custom_fields`: label → display text).
 *
 * Values are stored under the field's id, not its key: a field deleted and made again with the same key is
 * a new id, so no value of the old one can ever show through it.
 */
import { createHash } from "crypto";
import type { ParamReason } from "../errors";
import { parseBoolean, parseList } from "../http/query";
import { escapeUrlForOutput, isValidUrl } from "../text/sanitize";
import { longerThan } from "../text/text-input";
import { FieldDef, isChoice, labelIn } from "./definition";

/** The most characters of a `text` or `url` value, and of a `textarea` value. */
export const TEXT_MAX = 1000;
export const TEXTAREA_MAX = 20000;
/** A token longer than this is kept as a hash of itself (the link table's dictionary holds short keys). */
const TOKEN_TEXT_MAX = 200;

/** What a record stores of its custom fields. */
export interface StoredFields {
  /** Values by field id (as a string key). */
  custom_values: Record<string, unknown>;
  /** The text values, one a line: what `search` reads of them (the stores fold and index it). */
  custom_text: string;
}

type Reasons = Record<string, ParamReason>;

const reason = (key: string, field: string, vars: Record<string, string | number> = {}): ParamReason => ({ key, vars: { param: `meta.${field}`, ...vars } });

/** One value as given, in its stored form, or the reason it is refused. */
function readValue(def: FieldDef, v: unknown): { value?: unknown; bad?: ParamReason } {
  const k = def.key;
  switch (def.type) {
    case "text":
    case "textarea": {
      if (typeof v !== "string") return { bad: reason("param.type", k, { type: "string" }) };
      const max = def.type === "text" ? TEXT_MAX : TEXTAREA_MAX;
      if (longerThan(v, max)) return { bad: reason("param.length", k, { max }) };
      return { value: v };
    }
    case "url": {
      if (typeof v !== "string") return { bad: reason("param.type", k, { type: "string" }) };
      const url = v.trim();
      if (longerThan(url, TEXT_MAX) || !isValidUrl(url) || !/^https?:\/\//i.test(url)) return { bad: reason("param.url", k) };
      return { value: url };
    }
    case "number": {
      const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v.trim()) : NaN;
      return Number.isFinite(n) ? { value: Object.is(n, -0) ? 0 : n } : { bad: reason("param.type", k, { type: "number" }) };
    }
    case "boolean": {
      const b = parseBoolean(v);
      return b === undefined ? { bad: reason("param.type", k, { type: "boolean" }) } : { value: b };
    }
    case "choice": {
      const s = typeof v === "number" && Number.isFinite(v) ? String(v) : v;
      if (typeof s !== "string") return { bad: reason("param.type", k, { type: "string" }) };
      return def.options.some(o => o.value === s) ? { value: s } : { bad: reason("param.choice", k) };
    }
    case "multi_choice": {
      const list = parseList(v);
      if (!list) return { bad: reason("param.type", k, { type: "array" }) };
      if (list.some(s => !def.options.some(o => o.value === s))) return { bad: reason("param.choice", k) };
      // in the options' order, each once: the stored value never depends on how a client ordered it
      return { value: def.options.map(o => o.value).filter(value => list.includes(value)) };
    }
  }
}

const isAbsent = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);

/**
 * A write's `meta` (a partial object: keys given are set, `null` removes one) over the record's values
 * (`current`, by field id; undefined for a create). Values of fields no longer defined are dropped. Any
 * refusal is one reason naming `meta`, its message naming the field's key.
 */
export function mergeMeta(defs: readonly FieldDef[], input: unknown, current: Record<string, unknown> | undefined): { values?: Record<string, unknown>; bad: Reasons } {
  const bad: Reasons = {};
  const values: Record<string, unknown> = {};
  for (const def of defs) if (current && !isAbsent(current[String(def._id)])) values[String(def._id)] = current[String(def._id)];
  if (input !== undefined && input !== null) {
    if (typeof input !== "object" || Array.isArray(input)) return { bad: { meta: { key: "param.type", vars: { type: "object" } } } };
    for (const [key, given] of Object.entries(input as Record<string, unknown>)) {
      const def = defs.find(d => d.key === key);
      if (!def) {
        bad.meta ??= reason("param.field_unknown", key);
        continue;
      }
      if (isAbsent(given)) {
        delete values[String(def._id)];
        continue;
      }
      const read = readValue(def, given);
      if (read.bad) bad.meta ??= read.bad;
      else if (isAbsent(read.value)) delete values[String(def._id)];
      else values[String(def._id)] = read.value;
    }
  }
  // a required field must hold a value once the write is done: a create gives it, an update may not remove it
  const given = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  for (const def of defs) {
    if (!def.required || !isAbsent(values[String(def._id)])) continue;
    if (!current || Object.hasOwn(given, def.key)) bad.meta ??= reason("param.required", def.key);
  }
  return Object.keys(bad).length ? { bad } : { values, bad };
}

/** The stored form of a record's values. */
export function storedFields(defs: readonly FieldDef[], values: Record<string, unknown>): StoredFields {
  const text: string[] = [];
  const kept: Record<string, unknown> = {};
  for (const def of defs) {
    const v = values[String(def._id)];
    if (isAbsent(v)) continue;
    kept[String(def._id)] = v;
    if ((def.type === "text" || def.type === "textarea" || def.type === "url") && typeof v === "string") text.push(v);
  }
  return { custom_values: kept, custom_text: text.join("\n") };
}

/** A value's text in a token: numbers in JavaScript's one form, booleans 1/0, long texts hashed. */
function tokenText(v: unknown): string {
  const s = typeof v === "boolean" ? (v ? "1" : "0") : String(v);
  return longerThan(s, TOKEN_TEXT_MAX) ? `#${createHash("sha256").update(s).digest("hex")}` : s;
}

/** The token of "field `def` holds `v`" (one element of a multi_choice). */
export const valueToken = (def: Pick<FieldDef, "_id">, v: unknown): string => `${def._id}=${tokenText(v)}`;
/** The token every record holding a value of `def` carries (how a deleted field's records are found). */
export const presenceToken = (def: Pick<FieldDef, "_id">): string => `${def._id}`;

/** Every token of a record's stored values. */
export function tokensOf(defs: readonly FieldDef[], values: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const def of defs) {
    const v = values[String(def._id)];
    if (isAbsent(v)) continue;
    out.push(presenceToken(def), ...(Array.isArray(v) ? v : [v]).map(item => valueToken(def, item)));
  }
  return out;
}

/** `meta` as answered: `{key: value}` typed, only defined keys, absent values left out. */
export function metaOf(defs: readonly FieldDef[], values: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!values) return out;
  for (const def of defs) {
    const v = values[String(def._id)];
    if (!isAbsent(v)) out[def.key] = Array.isArray(v) ? [...v] : v;
  }
  return out;
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#039;" };
/** WordPress's esc_html: the label keys of `custom_fields`. */
const escHtml = (s: string): string => s.replace(/&(?!(?:[a-zA-Z][a-zA-Z0-9]*|#\d+|#x[0-9a-fA-F]+);)|[<>"']/g, c => HTML_ESCAPES[c]);

/** The text of a choice's value in `language` (its option's label). */
function optionText(def: FieldDef, value: unknown, language: string, defaultLanguage: string): string {
  const option = def.options.find(o => o.value === value);
  return option ? labelIn(option.label, language, defaultLanguage) : String(value);
}

/** A value as The Events Calendar Pro shows it: choices by their labels (several joined with ", "), Yes/No, URLs as links. */
export function displayText(def: FieldDef, v: unknown, language: string, defaultLanguage: string): string {
  if (isChoice(def.type)) return (Array.isArray(v) ? v : [v]).map(item => optionText(def, item, language, defaultLanguage)).join(", ");
  if (def.type === "boolean") return v ? "Yes" : "No";
  if (def.type === "url") return `<a href="${escapeUrlForOutput(String(v))}" target="_self">${String(v)}</a>`;
  return String(v);
}

/** `custom_fields` as answered: `{label: display text}` in the request's language, `[]` when the record holds none. */
export function customFieldsOf(defs: readonly FieldDef[], values: Record<string, unknown> | undefined, language: string, defaultLanguage: string): Record<string, string> | [] {
  const out: Record<string, string> = {};
  if (!values) return [];
  for (const def of defs) {
    const v = values[String(def._id)];
    if (!isAbsent(v)) out[escHtml(labelIn(def.label, language, defaultLanguage))] = displayText(def, v, language, defaultLanguage);
  }
  return Object.keys(out).length ? out : [];
}

/** schema.org `additionalProperty`: one PropertyValue per value (choices by their labels, URLs and numbers as they are). */
export function additionalProperties(defs: readonly FieldDef[], values: Record<string, unknown> | undefined, language: string, defaultLanguage: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  if (!values) return out;
  for (const def of defs) {
    const v = values[String(def._id)];
    if (isAbsent(v)) continue;
    const value = isChoice(def.type) ? displayText(def, v, language, defaultLanguage) : v;
    out.push({ "@type": "PropertyValue", name: labelIn(def.label, language, defaultLanguage), value });
  }
  return out;
}
