/**
 * A quick "cannot match" test for `search`, before the exact condition runs on a stored event.
 *
 * Every search term is a case-insensitive literal pattern (lib/search.ts `containsRegex`). Without the `u`
 * flag such a pattern compares UTF-16 code units after the spec's Canonicalize: the unit upper-cased,
 * unless that is not a single unit or turns a non-ASCII unit into an ASCII one. So `/lit/i` matches `v`
 * exactly when `caseFold(v)` contains `caseFold(lit)`, and a term that a match needs in the title, the
 * excerpt or the description can be looked for in one folded copy of the three: an event whose copy
 * lacks it is skipped, any other goes on to the exact condition.
 */
import type { Query } from "../../mixins/store/collection";
import { isPlainObject } from "../query-match";

/** The stored fields a folded copy holds. */
export const SEARCH_TEXT_FIELDS: readonly string[] = ["title", "excerpt", "description"];

const NON_ASCII = /[\u0080-\uffff]/;
const foldedUnits = new Map<number, string>();

function foldUnit(code: number): string {
  let folded = foldedUnits.get(code);
  if (folded === undefined) {
    const unit = String.fromCharCode(code);
    const upper = unit.toUpperCase();
    folded = upper.length !== 1 || (code >= 128 && upper.charCodeAt(0) < 128) ? unit : upper;
    foldedUnits.set(code, folded);
  }
  return folded;
}

/** `s` with every code unit canonicalised as a case-insensitive, non-unicode pattern compares it. */
export function caseFold(s: string): string {
  if (!NON_ASCII.test(s)) return s.toUpperCase();
  let out = "";
  for (let i = 0; i < s.length; i++) out += foldUnit(s.charCodeAt(i));
  return out;
}

/** The folded copy of a stored event's searchable text (values of other types hold no text). */
export function searchTextOf(doc: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const field of SEARCH_TEXT_FIELDS) {
    const v = doc[field];
    if (typeof v === "string") parts.push(caseFold(v));
    else if (Array.isArray(v)) for (const el of v) if (typeof el === "string") parts.push(caseFold(el));
  }
  return parts.join("\u0000");
}

const ESCAPED = new Set(".*+?^${}()|[]\\/");

/** The text a plain literal pattern (as `containsRegex` makes them) looks for; undefined for any other. */
export function literalOf(re: RegExp): string | undefined {
  if (re.flags !== "i" && re.flags !== "") return undefined;
  const src = re.source;
  let out = "";
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") {
      const next = src[++i];
      if (next === undefined || !ESCAPED.has(next)) return undefined;
      out += next;
    } else if (ESCAPED.has(c)) return undefined;
    else out += c;
  }
  return out === "" ? undefined : out;
}

/** Folded literals of a condition on one field: its patterns, if the field is one of the copy's. */
function fieldNeeds(field: string, cond: unknown): string[] {
  if (!SEARCH_TEXT_FIELDS.includes(field)) return [];
  const re = cond instanceof RegExp ? cond : isPlainObject(cond) && cond.$regex instanceof RegExp ? cond.$regex : undefined;
  const literal = re ? literalOf(re) : undefined;
  return literal === undefined ? [] : [caseFold(literal)];
}

/**
 * Folded literals that every event matching `query` holds in its folded copy: a pattern on one of the
 * copy's fields; all of those of an `$and`; those that every branch of an `$or` needs; none from `$not`.
 */
export function requiredText(query: Query): string[] {
  const needs = new Set<string>();
  for (const [key, cond] of Object.entries(query)) {
    if (key === "$and" && Array.isArray(cond)) {
      for (const part of cond) for (const n of requiredText(part)) needs.add(n);
    } else if (key === "$or" && Array.isArray(cond) && cond.length) {
      const branches = cond.map(part => new Set(requiredText(part)));
      for (const n of branches[0]) if (branches.every(b => b.has(n))) needs.add(n);
    } else if (!key.startsWith("$")) {
      for (const n of fieldNeeds(key, cond)) needs.add(n);
    }
  }
  return [...needs];
}
