/**
 * The rules WordPress applies when terms are written (docs/records.md#creating-terms, #updating-terms, docs/records.md#categories-and-tags-on-events): name and slug
 * normalisation, the duplicate check of `wp_insert_term`, slug uniqueness (`wp_unique_term_slug`), the
 * duplicate-slug rule of `wp_update_term`, parent loop protection, and the reading of term input on
 * events. Pure: lookups the rules need are passed in as functions.
 */
import { sanitizeTermName } from "../text/sanitize";
import { sanitizeSlug } from "../text/slug";
import { longerThan } from "../text/text-input";
import type { TermDoc } from "./term-record";

/** D27: tags stripped, whitespace collapsed, trimmed, `&`, `<`, `>` as entities. */
export function normaliseTermName(raw: string): string {
  return sanitizeTermName(raw);
}

/**
 * The longest term name, in characters (after normalisation), as WordPress's `wp_terms.name` column: a
 * longer one is 400 (WordPress's insert fails). It also keeps the name's key inside what PostgreSQL's
 * btree indexes take (~2 700 bytes an entry; a longer name answered 500 there).
 */
export const TERM_NAME_MAX = 200;

export function termNameTooLong(name: string): boolean {
  return longerThan(name, TERM_NAME_MAX);
}

/** The case-insensitive key names are compared by. */
export function nameKey(name: string): string {
  return name.toLowerCase();
}

/** A given slug, normalised like post slugs; undefined when nothing is left (WordPress then derives it). */
export function givenSlug(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const slug = sanitizeSlug(raw);
  return slug === "" ? undefined : slug;
}

/** The slug of a new term: the given one, else the name's; `""` when neither yields one (the id is used then). */
export function baseSlug(given: string | undefined, name: string): string {
  return given ?? sanitizeSlug(name);
}

type Conflicting = Pick<TermDoc, "_id" | "slug" | "parent">;

/**
 * docs/records.md#term-duplicates-and-slugs (`wp_insert_term`). `nameMatch` = a term with the same name (case-insensitive) at
 * the same parent (tags: anywhere); `slugHolder` = the term of the taxonomy holding `slug`, if any.
 * Returns the term to report in `term_exists`, or undefined when the create may go on.
 */
export function findCreateConflict(opts: {
  hierarchical: boolean;
  parent: number;
  slugProvided: boolean;
  slug: string;
  nameMatch: Conflicting | undefined;
  slugHolder: Conflicting | undefined;
}): Conflicting | undefined {
  const { nameMatch, slugHolder } = opts;
  if (!nameMatch) return undefined;
  const sameSlug = !opts.slugProvided || nameMatch.slug === opts.slug;
  if (!sameSlug && !slugHolder) return undefined;
  if (!opts.hierarchical) return nameMatch;
  if (sameSlug) return nameMatch;
  // Categories: only a sibling holding the given slug conflicts; elsewhere the slug is made unique.
  return slugHolder && slugHolder.parent === opts.parent ? slugHolder : undefined;
}

/**
 * `wp_unique_term_slug` within one taxonomy: the slug itself when free; for a child category, the slug
 * with the parent's slug appended, then the grandparent's … (`parentSlugs` parent first) until free; then
 * `-2`, `-3` … appended to the last candidate.
 */
export async function uniqueTermSlug(slug: string, parentSlugs: readonly string[], isTaken: (candidate: string) => Promise<boolean>): Promise<string> {
  if (!(await isTaken(slug))) return slug;
  let candidate = slug;
  for (const parentSlug of parentSlugs) {
    candidate += `-${parentSlug}`;
    if (!(await isTaken(candidate))) return candidate;
  }
  for (let n = 2; ; n++) {
    const numbered = `${candidate}-${n}`;
    if (!(await isTaken(numbered))) return numbered;
  }
}

/**
 * docs/records.md#updating-terms / C12 (cyclic term parents) (`wp_check_term_hierarchy_for_loops`): a parent equal to the term itself or to one
 * of its descendants becomes 0. `ancestorsOfParent` = the ids above `parent` (parent first).
 */
export function loopSafeParent(termId: number, parent: number, ancestorsOfParent: readonly number[]): number {
  if (parent === termId || ancestorsOfParent.includes(termId)) return 0;
  return parent;
}

/** What `wp_update_term` does with the requested slug when another term of the taxonomy holds it. */
export function slugClashOutcome(opts: { slugWasEmpty: boolean; parentChanged: boolean }): "make-unique" | "duplicate_term_slug" {
  return opts.slugWasEmpty || opts.parentChanged ? "make-unique" : "duplicate_term_slug";
}

// ---------------------------------------------------------------------------------------------------------
// Term input on events (docs/records.md#categories-and-tags-on-events) and in event list filters (docs/lists.md#event-filters)
// ---------------------------------------------------------------------------------------------------------

/** One element of a term input: a term id, or a slug/name to look up. */
export type TermToken = { id: number } | { text: string };

const PHP_NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/**
 * Splits term input (array, or comma string with blanks around commas) into tokens: numeric → id
 * (PHP `is_numeric`; a numeric value that is not a positive integer names no term and is dropped), else
 * text. Blanks and non-scalar items are skipped; `""`, `[]`, null → none.
 */
export function termTokens(value: unknown): TermToken[] {
  const items: unknown[] = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : value === undefined || value === null ? [] : [value];
  const tokens: TermToken[] = [];
  for (const item of items) {
    if (typeof item === "number") {
      if (Number.isSafeInteger(item) && item > 0) tokens.push({ id: item });
      continue;
    }
    if (typeof item !== "string") continue;
    const text = item.trim();
    if (text === "") continue;
    if (PHP_NUMERIC.test(text)) {
      const n = Number(text);
      if (Number.isSafeInteger(n) && n > 0) tokens.push({ id: n });
      continue;
    }
    tokens.push({ text });
  }
  return tokens;
}

/** Ids in first-seen order, each once. */
export function uniqueIds(ids: Iterable<number>): number[] {
  return [...new Set(ids)];
}

/** A list item of a filter (`include`, `exclude`, events' `categories`/`tags`): an id when all digits, else a slug. */
export function filterToken(item: string): TermToken {
  return /^\d+$/.test(item) ? { id: Number(item) } : { text: item };
}

/** True when an event's term input names terms by id only (no name to look up or make): its resolving is a read. */
export function termIdsOnly(input: { categories?: unknown; tags?: unknown }): boolean {
  return [input.categories, input.tags].every(v => termTokens(v).every(t => "id" in t));
}
