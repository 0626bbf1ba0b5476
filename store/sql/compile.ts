/**
 * The services' queries (lib/documents/store-query.ts) as SQL over a table that keeps each record as one JSON
 * document (`doc`) beside its key columns (`site`, `id`). A field is read with the engine's own JSON
 * accessor — the same expression the table's indexes are built on (store/sql/schema.ts), so a condition
 * or an order on a listed field is answered from its index.
 *
 * Meaning (MongoDB's, which the queries are written for): a condition on an array field holds when an
 * element satisfies it (`$ne`/`$nin`: when none does); an absent field satisfies `$ne`, `$nin` and
 * `$exists: false` only; `$regex` takes literal patterns, compared case- and accent-insensitively with
 * the `i` flag. Anything else is refused as an UnsupportedQuery (a programming error, never user input).
 */
import type { Dialect, Param } from "./driver";
import { anchoredLiteral, Query, Sort } from "../../lib/documents/store-query";
import { foldText } from "../../lib/text/fold";
import { and, isPlain, negate, or, sqliteList, type Compiled } from "./compiled";
import { linkMembership, LinkPlans, type LinkMembership, type LinkShape } from "./link-plans";
import { ftsMember, type FtsShape } from "./text-plans";
import { memoByKey } from "../../lib/memo";

export class UnsupportedQuery extends Error {}

export interface TableShape {
  /** Fields holding arrays of scalars (links, languages). */
  arrays: ReadonlySet<string>;
  /** SQLite: the table's full-text index and the site it is read for (store/sql/text-plans.ts). */
  fts?: FtsShape;
  /** PostgreSQL: fields whose folded text is a stored column (store/sql/schema.ts FOLDED_COLUMNS), by field. */
  folded?: ReadonlyMap<string, string>;
  /** `_id` is an integer (posts, terms, changes) or a text key (translations). */
  textId?: boolean;
  /** The table's link fields, whose membership is read from the link table (store/sql/link-plans.ts). */
  links?: LinkShape;
  /**
   * Typed columns generated from fields (store/sql/schema.ts LIST_COLUMNS), by field: a condition a column
   * answers exactly is compiled onto it. Given to the compiler that counts lists only: pages keep the
   * document's expressions, which their order index is built on.
   */
  columns?: ReadonlyMap<string, { column: string; kind: "text" | "flag" }>;
}

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;

/** A field's SQLite JSON path, as an SQL literal (`'$.a[1]'`). */
function sqlitePath(field: string): string {
  if (!FIELD.test(field)) throw new UnsupportedQuery(`field name ${JSON.stringify(field)}`);
  return `'$${field.split(".").map(p => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join("")}'`;
}

/** The JSON accessor of a field: the index expressions of store/sql/schema.ts use exactly this text. */
export function fieldExpr(dialect: Dialect, field: string): string {
  if (field === "_id") return "id";
  if (dialect === "sqlite") return `json_extract(doc, ${sqlitePath(field)})`;
  if (!FIELD.test(field)) throw new UnsupportedQuery(`field name ${JSON.stringify(field)}`);
  const parts = field.split(".");
  return parts.length === 1 ? `(doc -> '${field}')` : `(doc #> '{${parts.join(",")}}')`;
}

/** The field as text (for substring tests). */
function textExpr(dialect: Dialect, field: string): string {
  if (field === "_id") return dialect === "sqlite" ? "CAST(id AS TEXT)" : "id::text";
  if (dialect === "sqlite") return fieldExpr(dialect, field);
  const parts = field.split(".");
  return parts.length === 1 ? `(doc ->> '${field}')` : `(doc #>> '{${parts.join(",")}}')`;
}

/** How many compiled conditions a compiler keeps; past that its memory starts over. */
const KEPT_CONDITIONS = 256;

/** Whether a query's JSON says all of it: no pattern, no date, no absent list element. */
function printsWhole(v: unknown): boolean {
  if (v === null || typeof v !== "object") return true;
  if (v instanceof RegExp || v instanceof Date) return false;
  if (Array.isArray(v)) return v.every(e => e !== undefined && printsWhole(e));
  for (const key in v) if (!printsWhole((v as Record<string, unknown>)[key])) return false;
  return true;
}

/**
 * A query's key for the compiled conditions: its JSON, or (marked apart) its JSON with patterns, dates
 * and absent list elements told apart from what they would print as (a date is refused where a text is a
 * parameter). Most queries print whole, and JSON without a replacer is the fast one.
 */
function whereKey(query: Query): string {
  if (printsWhole(query)) return `=${JSON.stringify(query)}`;
  return `~${JSON.stringify(query, function (this: Record<string, unknown>, k: string, v: unknown) {
    const raw = this[k];
    if (raw instanceof RegExp) return { $regex: raw.source, $flags: raw.flags };
    if (raw instanceof Date) return { $date: v };
    // an absent element of a list (JSON would print it as null)
    if (raw === undefined && Array.isArray(this)) return { $absent: true };
    return v;
  })}`;
}

/** A compiled condition, its parameters and what it reads made read-only. */
function freezeCompiled(c: Compiled): Compiled {
  Object.freeze(c.params);
  return Object.freeze(c);
}

export class QueryCompiler {
  /**
   * SQLite: the conditions are being compiled beside a read driven by the link table (`where`), with field
   * expressions no index answers, so the planner cannot walk a date index instead.
   */
  private unindexed = false;

  /** The plans of link memberships (store/sql/link-plans.ts), when the table has link fields. */
  private readonly links?: LinkPlans;

  constructor(readonly dialect: Dialect, readonly shape: TableShape) {
    if (shape.links) this.links = new LinkPlans(dialect, shape.links);
  }

  /** A value as a parameter compared with the field's accessor. */
  private value(field: string, v: unknown): { ph: string; param: Param } {
    if (field === "_id") {
      if (typeof v === "number" || typeof v === "string") return { ph: "?", param: v };
      throw new UnsupportedQuery(`_id value ${String(v)}`);
    }
    if (this.dialect === "sqlite") {
      if (typeof v === "boolean") return { ph: "?", param: v ? 1 : 0 };
      if (typeof v === "number" || typeof v === "string") return { ph: "?", param: v };
      throw new UnsupportedQuery(`value ${JSON.stringify(v)}`);
    }
    return { ph: "?::jsonb", param: JSON.stringify(v) };
  }

  /** `expr IN (list)` for scalar values. */
  private inList(field: string, expr: string, values: unknown[]): Compiled {
    if (values.length === 0) return { sql: "0=1", params: [] };
    if (this.dialect === "sqlite") {
      const list = sqliteList(values);
      return { sql: `${expr} IN ${list.sql}`, params: list.params };
    }
    if (field === "_id") return { sql: `${expr} = ANY(?::${this.shape.textId ? "text" : "bigint"}[])`, params: [values] };
    return { sql: `${expr} = ANY(?::jsonb[])`, params: [values.map(v => JSON.stringify(v))] };
  }

  /**
   * Some element of the array field is among `values`. A link field (TableShape.links) answers its integer
   * values from the link table's key, which lists exactly those elements (and a scalar stored in place of
   * the array); other values, if any, are compared in the document.
   */
  private arrayHasAny(field: string, values: unknown[]): Compiled {
    const links = this.shape.links;
    if (links?.fields.has(field)) {
      const ids = values.filter((v): v is number => Number.isSafeInteger(v));
      const rest = values.filter(v => !Number.isSafeInteger(v));
      if (ids.length === 0) return this.jsonHasAny(field, rest);
      const linked = this.links!.idAmong([this.links!.linkedIds(field, ids)]);
      return rest.length ? or([linked, this.jsonHasAny(field, rest)]) : linked;
    }
    return this.jsonHasAny(field, values);
  }

  /**
   * `$and`: every condition. Two or more link memberships among them (a list filtered by category and by
   * venue) are answered from the link table alone, so only the records linked to all are read.
   */
  private allOf(queries: Query[]): Compiled {
    const memberships = queries.map(q => linkMembership(q, this.shape.links));
    const linked = memberships.filter((m): m is LinkMembership => m !== undefined);
    if (linked.length < 2) return this.allTexts(queries.map(q => this.conditionOf(q)));
    const rest = queries.filter((_, i) => memberships[i] === undefined);
    const among = this.links!.among(linked);
    return and([among, ...this.allTexts(rest.map(q => this.conditionOf(q)), false)]);
  }

  /**
   * SQLite: conditions of which several are full-text memberships (the words of one search): those become
   * one query of the index, the AND of their terms, which the index intersects itself (C37: every term).
   */
  private allTexts(parts: Compiled[]): Compiled;
  private allTexts(parts: Compiled[], joined: false): Compiled[];
  private allTexts(parts: Compiled[], joined = true): Compiled | Compiled[] {
    const texts = parts.filter(p => p.fts);
    const out = texts.length < 2 ? parts : [ftsMember(this.dialect, this.shape.fts, texts.flatMap(p => p.fts!))!, ...parts.filter(p => !p.fts)];
    return joined ? and(out) : out;
  }

  /** The typed column of a field (TableShape.columns) when it is of that kind, for the counting compiler. */
  private column(field: string, kind: "text" | "flag"): string | undefined {
    const c = this.shape.columns?.get(field);
    if (c?.kind !== kind || this.shape.arrays.has(field)) return undefined;
    return this.unindexed ? `+${c.column}` : c.column;
  }

  /** A field's expression; `+expr` (which no index answers) when `unindexed`. */
  private expr(field: string, unindexed = this.unindexed): string {
    const e = fieldExpr(this.dialect, field);
    return unindexed && field !== "_id" ? `+${e}` : e;
  }

  /** Some element of the array field (in the document) is among `values`. */
  private jsonHasAny(field: string, values: unknown[]): Compiled {
    if (values.length === 0) return { sql: "0=1", params: [] };
    if (this.dialect === "sqlite") {
      return { sql: `EXISTS (SELECT 1 FROM json_each(doc, ${sqlitePath(field)}) WHERE value IN (SELECT value FROM json_each(?)))`, params: [JSON.stringify(values.map(v => (typeof v === "boolean" ? (v ? 1 : 0) : v)))] };
    }
    // Containment (`@>`) is what the GIN index of an array field answers.
    const expr = fieldExpr("postgres", field);
    if (values.length <= 64) return { sql: `(${values.map(() => `${expr} @> ?::jsonb`).join(" OR ")})`, params: values.map(v => JSON.stringify([v])) };
    return { sql: `EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${expr}) = 'array' THEN ${expr} ELSE '[]'::jsonb END) e WHERE e = ANY(?::jsonb[]))`, params: [values.map(v => JSON.stringify(v))] };
  }

  /** A literal pattern, optionally anchored (`^lit`, `lit$`, `^lit$`). */
  private literal(field: string, re: RegExp): Compiled {
    const anchored = anchoredLiteral(re);
    if (!anchored) throw new UnsupportedQuery(`pattern ${re}`);
    const { text: lit, start, end } = anchored;
    const raw = textExpr(this.dialect, field);
    const text = re.flags === "i" ? this.shape.folded?.get(field) ?? `fold(${raw})` : raw;
    const value = re.flags === "i" ? foldText(lit) : lit;
    if (start && end) return { sql: `${text} = ?`, params: [value] };
    // SQLite: a folded substring of three characters or more in an indexed field is the exact index's answer
    if (!start && !end && re.flags === "i") {
      const member = ftsMember(this.dialect, this.shape.fts, [{ fields: [field], text: value }]);
      if (member) return member;
    }
    const prefix = this.dialect === "sqlite" ? `substr(${text}, 1, ?)` : `left(${text}, ?)`;
    const suffix = this.dialect === "sqlite" ? `substr(${text}, -?)` : `right(${text}, ?)`;
    if (start) return { sql: `${prefix} = ?`, params: [value.length, value] };
    if (end) return { sql: `(length(${text}) >= ? AND ${suffix} = ?)`, params: [value.length, value.length, value] };
    // PostgreSQL: LIKE, which the trigram indexes of the searched fields (or of their folded columns) answer
    // (store/sql/schema.ts, C37: search semantics)
    if (this.dialect === "postgres") return { sql: `${text} LIKE ?`, params: [`%${value.replace(/[\\%_]/g, c => `\\${c}`)}%`] };
    return { sql: `instr(${text}, ?) > 0`, params: [value] };
  }

  /**
   * Not equal to the string `v`: absent, or ordered before or after it — the same rows as "not (= v)", as
   * ranges an index of the field answers (a record translated into a language: a few entries of the
   * language's index, where "not (= v)" read every document).
   */
  private unequal(field: string, v: string): Compiled {
    const column = this.column(field, "text");
    const expr = column ?? this.expr(field);
    const { ph, param } = column ? { ph: "?", param: v } : this.value(field, v);
    return { sql: `(${expr} IS NULL OR ${expr} < ${ph} OR ${expr} > ${ph})`, params: [param, param], docFree: !!column };
  }

  private existsExpr(field: string, exists: boolean): string {
    if (field === "_id") return exists ? "1=1" : "0=1";
    if (this.dialect === "sqlite") {
      return `json_type(doc, ${sqlitePath(field)}) IS ${exists ? "NOT " : ""}NULL`;
    }
    return `${fieldExpr("postgres", field)} IS ${exists ? "NOT " : ""}NULL`;
  }

  private isNull(field: string): string {
    const expr = this.expr(field);
    return this.dialect === "sqlite" || field === "_id" ? `${expr} IS NULL` : `(${expr} IS NULL OR ${expr} = 'null'::jsonb)`;
  }

  private equals(field: string, v: unknown): Compiled {
    const expr = this.expr(field);
    if (v === null || v === undefined) return { sql: this.isNull(field), params: [] };
    const text = typeof v === "string" ? this.column(field, "text") : undefined;
    if (text) return { sql: `${text} = ?`, params: [v as string], docFree: true };
    const flag = v === true ? this.column(field, "flag") : undefined;
    if (flag) return { sql: this.dialect === "sqlite" ? `${flag} = 1` : `${flag} = true`, params: [], docFree: true };
    if (v instanceof RegExp) return this.literal(field, v);
    if (Array.isArray(v)) {
      if (this.dialect === "sqlite") return { sql: `json(${expr}) = json(?)`, params: [JSON.stringify(v)] };
      return { sql: `${expr} = ?::jsonb`, params: [JSON.stringify(v)] };
    }
    if (this.shape.arrays.has(field)) {
      // Arrays of scalars: "holds the element" (and a scalar stored in place of an array, as itself).
      // The link table lists both (store/sql/schema.ts).
      if (this.shape.links?.fields.has(field) && Number.isSafeInteger(v)) return this.arrayHasAny(field, [v]);
      if (this.dialect === "postgres") return { sql: `(${expr} @> ?::jsonb OR ${expr} = ?::jsonb)`, params: [JSON.stringify([v]), JSON.stringify(v)] };
      const any = this.arrayHasAny(field, [v]);
      const same = this.value(field, v);
      return { sql: `(${any.sql} OR ${expr} = ${same.ph})`, params: [...any.params, same.param] };
    }
    // SQLite reads JSON true and false as 1 and 0: the type tells them from numbers, as the other stores do
    if (this.dialect === "sqlite" && typeof v === "boolean" && field !== "_id") return { sql: `(${expr} = ? AND json_type(doc, ${sqlitePath(field)}) = '${v}')`, params: [v ? 1 : 0] };
    const { ph, param } = this.value(field, v);
    return { sql: `${expr} = ${ph}`, params: [param] };
  }

  private operator(field: string, op: string, arg: unknown): Compiled {
    const expr = this.expr(field);
    const isArray = this.shape.arrays.has(field);
    switch (op) {
      case "$in": {
        const values = arg as unknown[];
        const scalars = values.filter(v => v !== null && v !== undefined && !(v instanceof RegExp));
        const text = values.length > 0 && values.every(v => typeof v === "string") ? this.column(field, "text") : undefined;
        if (text) {
          if (this.dialect === "postgres") return { sql: `${text} = ANY(?::text[])`, params: [values], docFree: true };
          const list = sqliteList(values);
          return { sql: `${text} IN ${list.sql}`, params: list.params, docFree: true };
        }
        const parts: Compiled[] = [isArray ? this.arrayHasAny(field, scalars) : this.inList(field, expr, scalars)];
        if (scalars.length !== values.length) parts.push({ sql: this.isNull(field), params: [] });
        return or(parts);
      }
      case "$nin":
        return negate(this.operator(field, "$in", arg));
      case "$ne": {
        // a flag column is never NULL: "not true" is one value of its index
        const flag = this.column(field, "flag");
        if (flag && arg === true) return { sql: this.dialect === "sqlite" ? `${flag} = 0` : `${flag} = false`, params: [], docFree: true };
        if (typeof arg === "string" && !isArray && field !== "_id") return this.unequal(field, arg);
        return negate(this.equals(field, arg));
      }
      case "$gt":
      case "$gte":
      case "$lt":
      case "$lte": {
        const sqlOp = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" }[op];
        const text = typeof arg === "string" ? this.column(field, "text") : undefined;
        if (text) return { sql: `${text} ${sqlOp} ?`, params: [arg as string], docFree: true };
        const { ph, param } = this.value(field, arg);
        // Like MongoDB, values of one type compare: a string bound never matches a number, and back.
        if (this.dialect === "postgres" && field !== "_id") {
          const type = typeof arg === "number" ? "number" : typeof arg === "string" ? "string" : "boolean";
          return { sql: `(jsonb_typeof(${expr}) = '${type}' AND ${expr} ${sqlOp} ${ph})`, params: [param] };
        }
        if (this.dialect === "sqlite" && field !== "_id") {
          const type = typeof arg === "number" ? "IN ('integer','real')" : typeof arg === "string" ? "= 'text'" : "IN ('true','false')";
          const path = sqlitePath(field);
          return { sql: `(json_type(doc, ${path}) ${type} AND ${expr} ${sqlOp} ${ph})`, params: [param] };
        }
        return { sql: `${expr} ${sqlOp} ${ph}`, params: [param] };
      }
      case "$exists": {
        // a text column is NULL where the field is absent (and where it holds no string): the document is
        // read only there
        const text = this.column(field, "text");
        const inDoc = this.existsExpr(field, !!arg);
        if (text) return { sql: arg ? `(${text} IS NOT NULL OR ${inDoc})` : `(${text} IS NULL AND ${inDoc})`, params: [] };
        return { sql: inDoc, params: [] };
      }
      case "$size": {
        if (this.dialect === "sqlite") {
          const path = sqlitePath(field);
          return { sql: `(json_type(doc, ${path}) = 'array' AND json_array_length(doc, ${path}) = ?)`, params: [Number(arg)] };
        }
        return { sql: `(jsonb_typeof(${expr}) = 'array' AND jsonb_array_length(${expr}) = ?)`, params: [Number(arg)] };
      }
      case "$regex":
        if (!(arg instanceof RegExp)) throw new UnsupportedQuery("$regex needs a RegExp");
        return this.literal(field, arg);
      case "$not":
        return negate(this.fieldCondition(field, arg));
      default:
        throw new UnsupportedQuery(`operator ${op}`);
    }
  }

  private fieldCondition(field: string, cond: unknown): Compiled {
    if (isPlain(cond) && Object.keys(cond).length > 0 && Object.keys(cond).every(k => k.startsWith("$"))) {
      return and(Object.entries(cond).map(([op, arg]) => this.operator(field, op, arg)));
    }
    return this.equals(field, cond);
  }

  /**
   * The WHERE condition of `query` (without the site, which the collection adds), kept for the queries
   * last asked (`whereKey`): a read compiles its query several times over (to plan, to count, to page), and
   * the lists ask the same few queries again and again. Kept frozen, as every caller only reads them.
   */
  readonly where: (query: Query) => Compiled = memoByKey(whereKey, query => freezeCompiled(this.conditionOf(query)), KEPT_CONDITIONS);

  /** `where`, compiled now (the nested conditions of a query). */
  private conditionOf(query: Query): Compiled {
    // SQLite, several link filters: the links drive. With a date index to walk, the planner walked the
    // whole window when the links matched few events or none (190 ms a page at 100 000 events, against
    // 0.3 ms read by id; docs/lists.md#event-filters), so no other condition of the query may use an index.
    if (this.dialect === "sqlite" && !this.unindexed && this.drivenByLinks(query)) {
      this.unindexed = true;
      try {
        return this.conditions(query);
      } finally {
        this.unindexed = false;
      }
    }
    return this.conditions(query);
  }

  /** Whether the query's `$and` holds two link memberships or more (`allOf` reads them from the link table first). */
  drivenByLinks(query: Query): boolean {
    const all = query?.$and;
    return Array.isArray(all) && all.filter(q => linkMembership(q, this.shape.links) !== undefined).length >= 2;
  }

  private conditions(query: Query): Compiled {
    const parts: Compiled[] = [];
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue;
      if (key === "$and") parts.push(this.allOf(value as Query[]));
      else if (key === "$or") parts.push(this.anyOf(value as Query[]));
      else if (key === "$nor") parts.push(negate(or((value as Query[]).map(q => this.conditionOf(q)))));
      else if (key === "$not") parts.push(negate(this.conditionOf(value as Query)));
      else if (key.startsWith("$")) throw new UnsupportedQuery(`operator ${key}`);
      else parts.push(this.fieldCondition(key, value));
    }
    return and(parts);
  }

  /** `$or`: memberships of one text in the full-text index become one membership of all their fields. */
  private anyOf(queries: Query[]): Compiled {
    const parts = queries.map(q => this.conditionOf(q));
    const single = (p: Compiled) => p.fts?.length === 1;
    const byText = new Map<string, string[]>();
    for (const p of parts) if (single(p)) byText.set(p.fts![0].text, [...(byText.get(p.fts![0].text) ?? []), ...p.fts![0].fields]);
    if (byText.size === 0) return or(parts);
    // each merged membership where its text's first membership was: a cheap condition written first
    // (whether the caller may read the event) is tested first, before the index's matches are read
    const out: Compiled[] = [];
    for (const p of parts) {
      if (!single(p)) out.push(p);
      else if (byText.has(p.fts![0].text)) {
        const text = p.fts![0].text;
        out.push(ftsMember(this.dialect, this.shape.fts, [{ fields: [...new Set(byText.get(text))], text }])!);
        byText.delete(text);
      }
    }
    return or(out);
  }

  /**
   * ORDER BY: absent values first when ascending, last when descending (as MongoDB orders). For `query`,
   * when its link filters drive (`where`), on expressions no index answers: an order index walked in full
   * is what the planner took then.
   */
  orderBy(sort: Sort | undefined, query?: Query): string {
    const keys = Object.entries(sort ?? {});
    if (keys.length === 0) return "";
    const unindexed = this.dialect === "sqlite" && query !== undefined && this.drivenByLinks(query);
    const terms = keys.map(([field, dir]) => {
      const expr = this.expr(field, unindexed);
      if (this.dialect === "sqlite") return `${expr} ${dir === -1 ? "DESC" : "ASC"}`;
      return `${expr} ${dir === -1 ? "DESC NULLS LAST" : "ASC NULLS FIRST"}`;
    });
    return ` ORDER BY ${terms.join(", ")}`;
  }
}

