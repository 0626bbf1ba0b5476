/**
 * The shape of the queries the services build (lib/events/event-query.ts, lib/linked/query.ts,
 * lib/terms/term-query.ts, lib/i18n/store-query.ts) and every store answers: MongoDB's operator subset
 * — equality, $in, $nin, $ne, $gt/$gte/$lt/$lte, $exists, $regex (literal patterns only), $or, $and,
 * and a document-level $not — over documents with a scalar or integer `_id`. The SQL stores compile it
 * (store/sql/compile.ts); MongoDB reads it as it is.
 */
/**
 * A stored document as the stores hand it over: fields as its service wrote them. Each service reads it
 * through its own record type (PostDoc, TermDoc, LocationDoc, ChangeDoc…); this type stays open so those
 * interfaces (which carry no index signature) pass in and out of the stores unchanged.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one open document type of the store layer (see above)
export type Doc = Record<string, any>;

export type Query = Record<string, unknown>;
export type Sort = Record<string, 1 | -1>;

/** One part of a total: the parts of a total are disjoint and together hold what it counts. */
export interface CountPart {
  query: Query;
  /** It names the present moment (its total moves with the clock as well as with writes): never kept. */
  moving?: boolean;
  /** A field whose asked values few records hold (as FindOptions `rare`). */
  rare?: string;
}

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  projection?: Record<string, 0 | 1>;
  /**
   * A field of the query whose asked value few records hold (a `future` status among published events):
   * the read goes through that field's index. For a store whose planner cannot tell a rare value from a
   * common one: SQLite's statistics hold each index's mean number of records per value, no samples of the
   * values (store/sql/sqlite-statistics.ts). PostgreSQL and MongoDB choose by their own statistics.
   */
  rare?: string;
}

/** Characters a pattern must escape to mean them literally (`-` and `/` may be escaped, need not be). */
const SPECIAL = new Set([..."\\^$.*+?()[]{}|"]);
const ESCAPABLE = new Set([...SPECIAL, "-", "/"]);

/** The literal text a pattern matches (an escaped string, flags "" or "i"), undefined for real patterns. */
export function literalOf(re: RegExp): string | undefined {
  if (re.flags !== "i" && re.flags !== "") return undefined;
  const src = re.source;
  let out = "";
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") {
      const next = src[++i];
      if (next === undefined || !ESCAPABLE.has(next)) return undefined;
      out += next;
    } else if (SPECIAL.has(c)) return undefined;
    else out += c;
  }
  return out === "" ? undefined : out;
}

/**
 * A literal pattern with its anchors: the text it matches, and whether it must start and end the value
 * (`^`, an unescaped `$`); undefined for real patterns.
 */
export function anchoredLiteral(re: RegExp): { text: string; start: boolean; end: boolean } | undefined {
  const src = re.source;
  const start = src.startsWith("^");
  const end = src.endsWith("$") && !src.endsWith("\\$");
  const text = literalOf(new RegExp(src.slice(start ? 1 : 0, end ? -1 : undefined), re.flags));
  return text === undefined ? undefined : { text, start, end };
}

