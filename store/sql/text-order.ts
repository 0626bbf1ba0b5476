/**
 * What a PostgreSQL database's locale changes against the other stores, told at opening.
 *
 * Whether a PostgreSQL database compares text in byte order, as SQLite and MongoDB do. JSON strings compare
 * in the database's default collation, so a database made with a language's collation (`en_US.UTF-8`, an
 * ICU locale: the default of many installs and of the official container image) orders lists by a name
 * unlike the other stores ("_x" first, "Émile" before "zeta", case folded). Told by comparing, not by the
 * collation's name: C, POSIX and C.UTF-8 all order by code point.
 */
import type { SqlDriver } from "./driver";

const PROBES = `SELECT ('"B"'::jsonb < '"a"'::jsonb) AND ('"10"'::jsonb < '"_x"'::jsonb) AND NOT ('"Émile"'::jsonb < '"zeta"'::jsonb) AS bytewise,
  (SELECT datcollate FROM pg_database WHERE datname = current_database()) AS collation`;

/** undefined when the database orders text by bytes; else a notice naming its collation and the remedy. */
export async function textOrderNotice(driver: SqlDriver, location: string): Promise<string | undefined> {
  const [row] = await driver.all<{ bytewise: boolean; collation: string | null }>(PROBES);
  if (row?.bytewise) return undefined;
  return `PostgreSQL at ${location} does not compare text in byte order (its collation is ${row?.collation ?? "unknown"}, or an ICU locale): ` +
    "lists ordered by a name (categories and tags with orderby=name, slug or description) will not order as on SQLite and MongoDB. " +
    "Create the database with LC_COLLATE 'C' (README, \"Scaling out\").";
}

const CASE_PROBE = `SELECT fold('ДЖАЗ ΩΜΈΓΑ') = 'джаз ωμεγα' AS folds,
  (SELECT datctype FROM pg_database WHERE datname = current_database()) AS ctype`;

/**
 * undefined when the database's fold() lower-cases letters beyond ASCII; else a notice naming its LC_CTYPE
 * and the remedy. Searches and name matches fold text in the database (store/sql/fold-function.ts): under
 * an LC_CTYPE of `C` or `POSIX`, `lower` changes ASCII letters only, and migration 13 could lower-case under
 * a Unicode collation only if the server had one (ICU's or C.UTF-8); without, a search in Cyrillic or Greek
 * (the Bulgarian locale, any title) matches case-sensitively there and not on SQLite or MongoDB. Accented
 * Latin letters fold either way (their marks are stripped first).
 */
export async function caseFoldNotice(driver: SqlDriver, location: string): Promise<string | undefined> {
  const [row] = await driver.all<{ folds: boolean; ctype: string | null }>(CASE_PROBE);
  if (row?.folds) return undefined;
  return `PostgreSQL at ${location} lower-cases ASCII letters only (its LC_CTYPE is ${row?.ctype ?? "unknown"}): ` +
    "searches and name matches in Cyrillic, Greek and other scripts will be case-sensitive, unlike on SQLite and MongoDB. " +
    "Create the database with a UTF-8 LC_CTYPE such as 'C.UTF-8' (README, \"Scaling out\").";
}
