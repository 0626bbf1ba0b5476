/**
 * PostgreSQL's `fold()`: lib/text/fold.ts's `foldText` in SQL, built from its tables (the marks' code points,
 * the folded letters), so the stored folded texts and their trigram indexes hold what a term folded in
 * JavaScript is compared with (docs/lists.md#search). Until migration 12 it was `lower(unaccent(t))`, which
 * folded otherwise: "ß" to "ss" but not the final sigma, the Japanese voicing marks or the ligatures, so a
 * search found "Straße", "ΣΊΣΥΦΟΣ" or "イベント" on one store and not on the other.
 *
 * `lower` follows the database's LC_CTYPE, which under `C` or `POSIX` lower-cases ASCII letters only; given
 * a `collation` (one whose case mapping is Unicode's, FOLD_COLLATIONS), the non-ASCII branch lower-cases
 * under it instead, whatever the database's LC_CTYPE (migration 13, store/sql/schema.ts).
 */
import { FOLDED_LETTERS, markRanges } from "../../lib/text/fold";

/** A code point as a regular-expression escape of PostgreSQL (`\uXXXX`, `\UXXXXXXXX`). */
function escape(cp: number): string {
  return cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, "0")}` : `\\U${cp.toString(16).padStart(8, "0")}`;
}

/** A text as an SQL string literal (standard conforming: only quotes doubled). */
const literal = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** Collations that lower-case every script, in the order tried: ICU's root locale, then glibc's C.UTF-8. */
export const FOLD_COLLATIONS = ["und-x-icu", "C.utf8", "C.UTF-8"] as const;

export function foldFunctionSql(collation?: (typeof FOLD_COLLATIONS)[number]): string {
  const marks = markRanges().map(([a, b]) => (a === b ? escape(a) : `${escape(a)}-${escape(b)}`)).join("");
  const under = collation ? ` COLLATE "${collation}"` : "";
  let expr = `lower(regexp_replace(normalize(t, NFKD), ${literal(`[${marks}]+`)}, '', 'g')${under})`;
  const letters = Object.entries(FOLDED_LETTERS);
  const single = letters.filter(([, to]) => [...to].length === 1);
  expr = `translate(${expr}, ${literal(single.map(([from]) => from).join(""))}, ${literal(single.map(([, to]) => to).join(""))})`;
  for (const [from, to] of letters.filter(([, to]) => [...to].length > 1)) expr = `replace(${expr}, ${literal(from)}, ${literal(to)})`;
  // ASCII text folds to its lower case (nothing to decompose, no mark, no folded letter): 5× faster than
  // the whole expression on a title (measured, 20 000 texts of 110 characters: 44 against 225 ms)
  return `CREATE OR REPLACE FUNCTION fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fold$ ` +
    `SELECT CASE WHEN t !~ '[^\x01-\x7f]' THEN lower(t) ELSE ${expr} END $fold$`;
}
