/**
 * The i18n service's collection, one document per record × language:
 *
 *   { _id: "<type>:<id>:<lang>", type, record_id, lang,
 *     fields: { <field>: value },          // that language's values (what `i18n.values` answers)
 *     lc:     { <field>: lower(value) },   // lower-cased copies of those values (search, names)
 *     fb:     { <field>: lower(original) } // lower-cased copies of the record's original values
 *   }
 *
 * A field without a value in the language reads the original (fallback), so a search or a name lookup
 * in a language compares `lc.<field>` when it exists and `fb.<field>` otherwise. Every write touches
 * `fields.<f>` and `lc.<f>` together, with $set / $unset, never rewriting the others. Queries use the
 * operators of lib/documents/store-query.ts.
 */
import type { Query } from "../documents/store-query";
import { escapeRegex, SearchTerm } from "../text/search";
import { FieldValues, hasValue } from "./values";

export type SearchMode = "any-field" | "one-field";

export function translationId(type: string, id: number, lang: string): string {
  return `${type}:${id}:${lang}`;
}

export function lower(s: string): string {
  return s.toLowerCase();
}

/** The value of `field` in the language (fallback: the original) satisfies `cond`. */
export function effective(field: string, cond: unknown): Query {
  return { $or: [{ [`lc.${field}`]: cond }, { [`lc.${field}`]: { $exists: false }, [`fb.${field}`]: cond }] };
}

function contains(text: string): Query {
  return { $regex: new RegExp(escapeRegex(lower(text)), "i") };
}

/**
 * Records whose text in the language matches the search terms:
 * - `any-field` (events, terms): every term occurs in one of `fields` (an excluded term in none);
 * - `one-field` (venues, organizers): one of `fields` contains every term (and no excluded one).
 * No terms: no condition (callers with no fields to search ask nothing).
 */
export function searchFilter(terms: readonly SearchTerm[], fields: readonly string[], mode: SearchMode): Query {
  if (!terms.length || !fields.length) return {};
  const termIn = (t: SearchTerm, f: string): Query => (t.exclude ? { $not: effective(f, contains(t.text)) } : effective(f, contains(t.text)));
  if (mode === "one-field") return { $or: fields.map(f => ({ $and: terms.map(t => termIn(t, f)) })) };
  return {
    $and: terms.map(t => {
      const anyField: Query = { $or: fields.map(f => effective(f, contains(t.text))) };
      return t.exclude ? { $not: anyField } : anyField;
    })
  };
}

/** Records whose name in the language (fallback: the original) equals `name`, case-insensitively. */
export function nameFilter(field: string, name: string): Query {
  return effective(field, lower(name.trim()));
}

export interface WriteUpdate {
  $set?: Record<string, unknown>;
  $unset?: Record<string, true>;
}

/**
 * The update of one language's document: given values are set, "" (or null) clears the field (it falls
 * back to the original); `originals` refresh the fallback copies.
 */
export function writeUpdate(fields: Readonly<Record<string, string | null>>, originals?: FieldValues): WriteUpdate {
  const $set: Record<string, unknown> = {};
  const $unset: Record<string, true> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (hasValue(value)) {
      $set[`fields.${field}`] = value;
      $set[`lc.${field}`] = lower(value);
    } else {
      $unset[`fields.${field}`] = true;
      $unset[`lc.${field}`] = true;
    }
  }
  for (const [field, value] of Object.entries(originals ?? {})) $set[`fb.${field}`] = lower(value);
  // MongoDB refuses an empty $set or $unset: only the operators that change something.
  return { ...(Object.keys($set).length ? { $set } : {}), ...(Object.keys($unset).length ? { $unset } : {}) };
}

/** A new document for a language that had none (the same content `writeUpdate` would give). */
export function newTranslationDoc(type: string, id: number, lang: string, fields: Readonly<Record<string, string | null>>, originals?: FieldValues): Record<string, unknown> {
  const doc = { _id: translationId(type, id, lang), type, record_id: id, lang, fields: {} as FieldValues, lc: {} as FieldValues, fb: {} as FieldValues };
  for (const [field, value] of Object.entries(fields)) {
    if (!hasValue(value)) continue;
    doc.fields[field] = value;
    doc.lc[field] = lower(value);
  }
  for (const [field, value] of Object.entries(originals ?? {})) doc.fb[field] = lower(value);
  return doc;
}

/** Whether a stored document still holds any value (an empty one is removed). */
export function holdsValues(doc: { fields?: Record<string, unknown> } | null | undefined): boolean {
  return !!doc && Object.values(doc.fields ?? {}).some(hasValue);
}
