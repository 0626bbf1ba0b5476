/**
 * A compiled condition (store/sql/compile.ts): its SQL and parameters, with what it reads (the document,
 * typed columns, the full-text index, a list of ids), and how conditions combine (AND, OR, NOT) keeping
 * that knowledge, which the collection (store/sql/collection.ts) plans its reads by.
 */
import type { Dialect, Param } from "./driver";

export interface Compiled {
  sql: string;
  params: Param[];
  /** The condition reads typed columns only, never the document (a count of it is read from their index alone). */
  docFree?: boolean;
  /**
   * SQLite: the condition is exactly "for every one of these terms, one of its `fields`, folded, holds its
   * `text`", read from the full-text index in one query.
   */
  fts?: ReadonlyArray<{ fields: readonly string[]; text: string }>;
  /** SQLite: the condition reads the full-text index (somewhere within it). */
  textIndex?: boolean;
  /**
   * SQLite: the full-text queries (MATCH texts) the condition asks whose matches could drive its read (not
   * within a disjunction or a negation), none answered by a list of ids (`few`).
   */
  matches?: readonly string[];
  /** SQLite: the condition holds a short list of ids from the full-text index (`few`), which may drive the read. */
  fewIds?: boolean;
}

/** The most values a SQLite `IN` list takes as placeholders (longer lists are one JSON parameter). */
const SHORT_LIST = 64;

/**
 * A SQLite `IN` list of values (booleans as 1/0): a short list of scalars as one placeholder per value,
 * which the planner answers from the index on the tested expression (a list read from `json_each` made it
 * scan the table), anything else as one JSON parameter.
 */
export function sqliteList(values: readonly unknown[]): Compiled {
  const params = values.map(v => (typeof v === "boolean" ? (v ? 1 : 0) : v)) as Param[];
  if (params.length <= SHORT_LIST && params.every(v => typeof v === "number" || typeof v === "string"))
    return { sql: `(${params.map(() => "?").join(", ")})`, params };
  return { sql: "(SELECT value FROM json_each(?))", params: [JSON.stringify(params)] };
}

/** `column` (a bigint column) is one of the integers `ids`: an array parameter on PostgreSQL, `sqliteList` on SQLite. */
export function idsIn(dialect: Dialect, column: string, ids: readonly number[]): Compiled {
  if (dialect === "postgres") return { sql: `${column} = ANY(?::bigint[])`, params: [[...ids]] };
  const list = sqliteList(ids);
  return { sql: `${column} IN ${list.sql}`, params: list.params };
}

/** A plain object (an operator document), not an array, a pattern or a date. */
export function isPlain(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === "object" && !Array.isArray(v) && !(v instanceof RegExp) && !(v instanceof Date);
}

/** Not `inner` (a condition that is unknown, NULL, does not hold). */
export function negate(inner: Compiled): Compiled {
  return { sql: `NOT (COALESCE((${inner.sql}), 0=1))`, params: inner.params, docFree: inner.docFree, textIndex: inner.textIndex };
}

/**
 * What a condition made of `parts` reads: no document when none does, the text index when one does (and
 * which of its queries), a short list of its ids when one part is such a list.
 */
const reads = (parts: Compiled[], all: boolean) => ({
  docFree: parts.every(p => p.docFree),
  textIndex: parts.some(p => p.textIndex),
  // the queries whose matches could drive the read: those of a conjunction's parts (a disjunction's or a
  // negation's are tested row by row, and read only when a row needs them)
  matches: all ? parts.flatMap(p => p.matches ?? []) : [],
  // a list drives a conjunction it is part of, a disjunction only when every branch is one
  fewIds: all ? parts.some(p => p.fewIds) : parts.every(p => p.fewIds)
});

export function and(parts: Compiled[]): Compiled {
  if (parts.length === 0) return { sql: "1=1", params: [], docFree: true };
  if (parts.length === 1) return parts[0];
  return { sql: parts.map(p => `(${p.sql})`).join(" AND "), params: parts.flatMap(p => p.params), ...reads(parts, true) };
}

export function or(parts: Compiled[]): Compiled {
  if (parts.length === 0) return { sql: "0=1", params: [], docFree: true };
  if (parts.length === 1) return parts[0];
  return { sql: `(${parts.map(p => `(${p.sql})`).join(" OR ")})`, params: parts.flatMap(p => p.params), ...reads(parts, false) };
}
