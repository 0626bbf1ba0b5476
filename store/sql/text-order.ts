/**
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
