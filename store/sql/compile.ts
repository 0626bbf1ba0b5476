/**
 * The services' queries (lib/store-query.ts) as SQL over a table that keeps each record as one JSON
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
import { anchoredLiteral, Query, Sort } from "../../lib/store-query";
import { foldText } from "../../lib/fold";

/** A record's row in a SQLite full-text index: its site and id in one integer (ids below 2^32). */
export const FTS_SITE_STRIDE = 2 ** 32;
export function ftsRowid(site: number, id: number): number {
  return site * FTS_SITE_STRIDE + id;
}

export class UnsupportedQuery extends Error {}

export interface TableShape {
  /** Fields holding arrays of scalars (links, languages). */
  arrays: ReadonlySet<string>;
  /**
   * SQLite: the table's full-text index (store/sql/schema.ts) and the site it is read for. `probe`: each
   * row is tested against the index's matches, which never drive the read (a page walking its order
   * index, docs/lists.md#search). `few`: the ids of the matches of a full-text query (its MATCH text, see
   * `Compiled.matches`) that has at most FEW_MATCHES of them, read before the statement: such a query is
   * compiled as that list of ids, which drives the read (docs/lists.md#search).
   */
  fts?: { table: string; columns: readonly string[]; site: number; probe?: boolean; few?: ReadonlyMap<string, readonly number[]> };
  /** PostgreSQL: fields whose folded text is a stored column (store/sql/schema.ts FOLDED_COLUMNS), by field. */
  folded?: ReadonlyMap<string, string>;
  /** `_id` is an integer (posts, terms, changes) or a text key (translations). */
  textId?: boolean;
  /**
   * The table's link fields (store/sql/schema.ts LINK_FIELDS): membership of integers in them is read from
   * the link table, for `site`; `type` is the record table's name. The fields in LINK_FIELDS' order:
   * the filter of the first one asked drives a list filtered by several (`linkedProbed`, `linkedChosen`).
   */
  links?: { table: string; type: string; fields: ReadonlySet<string>; site: number };
  /**
   * Typed columns generated from fields (store/sql/schema.ts LIST_COLUMNS), by field: a condition a column
   * answers exactly is compiled onto it. Given to the compiler that counts lists only: pages keep the
   * document's expressions, which their order index is built on.
   */
  columns?: ReadonlyMap<string, { column: string; kind: "text" | "flag" }>;
}

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

/**
 * SQLite: a full-text query with at most this many matches in the site is answered by the list of their
 * ids, read first (store/sql/collection.ts), so the matches drive the read; with more, each row of the
 * list's own order (the window) is tested against them. At 100 000 events, a count by 1 000 ids reads 1 000
 * entries of the window index keyed by id, where walking the window reads 100 000 (docs/lists.md#search).
 */
export const FEW_MATCHES = 1000;

/** The MATCH text of a conjunction of terms, each "one of these columns holds this text" (a phrase). */
export function ftsMatch(terms: ReadonlyArray<{ fields: readonly string[]; text: string }>): string {
  return terms.map(t => `{${t.fields.join(" ")}} : "${t.text.replace(/"/g, '""')}"`).join(" AND ");
}

/** The most values a SQLite `IN` list takes as placeholders (longer lists are one JSON parameter). */
const SHORT_LIST = 64;

/** Records whose link `field` holds one of `ids` (`{venues: 5}`, `{categories: {$in: [2, 3]}}`). */
/** PostgreSQL: the most links of the driving membership read by probing the others (`linkedChosen`). */
const PROBED_DRIVING_MAX = 500;

interface LinkMembership {
  field: string;
  ids: number[];
}

/**
 * A SQLite `IN` list of values (booleans as 1/0): a short list of scalars as one placeholder per value,
 * which the planner answers from the index on the tested expression (a list read from `json_each` made it
 * scan the table), anything else as one JSON parameter.
 */
function sqliteList(values: readonly unknown[]): Compiled {
  const params = values.map(v => (typeof v === "boolean" ? (v ? 1 : 0) : v)) as Param[];
  if (params.length <= SHORT_LIST && params.every(v => typeof v === "number" || typeof v === "string"))
    return { sql: `(${params.map(() => "?").join(", ")})`, params };
  return { sql: "(SELECT value FROM json_each(?))", params: [JSON.stringify(params)] };
}

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;

function isPlain(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === "object" && !Array.isArray(v) && !(v instanceof RegExp) && !(v instanceof Date);
}

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

export class QueryCompiler {
  /**
   * SQLite: the conditions are being compiled beside a read driven by the link table (`where`), with field
   * expressions no index answers, so the planner cannot walk a date index instead.
   */
  private unindexed = false;

  constructor(readonly dialect: Dialect, readonly shape: TableShape) {}

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
      const linked = this.idAmong([this.linkedIds(field, ids)]);
      return rest.length ? or([linked, this.jsonHasAny(field, rest)]) : linked;
    }
    return this.jsonHasAny(field, values);
  }

  /** The ids of the records whose link field holds one of `ids` (a SELECT of the link table's key). */
  private linkedIds(field: string, ids: readonly number[]): Compiled {
    const rows = this.linkRows("", { field, ids: [...ids] });
    return { sql: `SELECT id FROM ${this.shape.links!.table} WHERE ${rows.sql}`, params: rows.params };
  }

  /** The condition on the link table's rows of one membership, its columns prefixed with `alias`. */
  private linkRows(alias: string, m: LinkMembership): Compiled {
    const links = this.shape.links!;
    const on = `${alias}site = ? AND ${alias}type = '${links.type}' AND ${alias}field = '${m.field}'`;
    if (this.dialect === "postgres") return { sql: `${on} AND ${alias}target = ANY(?::bigint[])`, params: [links.site, [...m.ids]] };
    const targets = sqliteList(m.ids);
    return { sql: `${on} AND ${alias}target IN ${targets.sql}`, params: [links.site, ...targets.params] };
  }

  /**
   * The record's id is in every one of these id sets. PostgreSQL: as one array, read through the link
   * table's key before the records are (a plan that holds without the planner's statistics too); SQLite
   * chooses with its statistics.
   */
  private idAmong(sets: Compiled[]): Compiled {
    const inner = sets.map(x => x.sql).join(" INTERSECT ");
    const params = sets.flatMap(x => x.params);
    return this.dialect === "sqlite" ? { sql: `id IN (${inner})`, params } : { sql: `id = ANY(ARRAY(${inner}))`, params };
  }

  /**
   * The integer targets of `q` when it is only a membership test of one link field (`{venues: 5}`,
   * `{venues: {$in: [5, 6]}}`): what the link table answers alone.
   */
  private linkMembership(q: Query): LinkMembership | undefined {
    const keys = Object.keys(q ?? {}).filter(k => q[k] !== undefined);
    if (keys.length !== 1 || !this.shape.links?.fields.has(keys[0])) return undefined;
    const v = q[keys[0]];
    const ids = Number.isSafeInteger(v) ? [v as number]
      : isPlain(v) && Object.keys(v).length === 1 && Array.isArray(v.$in) && v.$in.length > 0 && v.$in.every(x => Number.isSafeInteger(x)) ? (v.$in as number[])
      : undefined;
    return ids && { field: keys[0], ids };
  }

  /**
   * `$and`: every condition. Two or more link memberships among them (a list filtered by category and by
   * venue) are answered from the link table alone, so only the records linked to all are read.
   */
  private allOf(queries: Query[]): Compiled {
    const memberships = queries.map(q => this.linkMembership(q));
    const linked = memberships.filter((m): m is LinkMembership => m !== undefined);
    if (linked.length < 2) return this.allTexts(queries.map(q => this.where(q)));
    const rest = queries.filter((_, i) => memberships[i] === undefined);
    const among = this.dialect === "sqlite" ? this.linkedProbed(linked) : this.linkedChosen(linked);
    return and([among, ...this.allTexts(rest.map(q => this.where(q)), false)]);
  }

  /**
   * SQLite: conditions of which several are full-text memberships (the words of one search): those become
   * one query of the index, the AND of their terms, which the index intersects itself (C37: every term).
   */
  private allTexts(parts: Compiled[]): Compiled;
  private allTexts(parts: Compiled[], joined: false): Compiled[];
  private allTexts(parts: Compiled[], joined = true): Compiled | Compiled[] {
    const texts = parts.filter(p => p.fts);
    const out = texts.length < 2 ? parts : [this.ftsMember(texts.flatMap(p => p.fts!))!, ...parts.filter(p => !p.fts)];
    return joined ? and(out) : out;
  }

  /**
   * SQLite: the links of one membership, each kept when every other membership holds its record too (a
   * key lookup per link and membership). The membership of the field declared first in LINK_FIELDS drives
   * (store/sql/schema.ts: venues, organizers, then terms; a venue's events are fewer than a category's), since
   * an intersection read both sets whole: a category's links and a venue's took several times as long as the
   * venue's links probed (the measures: docs/lists.md#event-filters).
   */
  private linkedProbed(memberships: readonly LinkMembership[]): Compiled {
    const probed = this.probedIds(memberships, (table, rows) => `EXISTS (SELECT 1 FROM ${table} p WHERE ${rows} AND p.id = d.id)`);
    return { sql: `id IN (${probed.sql})`, params: probed.params };
  }

  /**
   * The ids of the links of the driving membership (the first in LINK_FIELDS' order) that every other
   * membership holds too, each tested by `probe` (a condition on the link table `p`, correlated to `d.id`).
   */
  private probedIds(memberships: readonly LinkMembership[], probe: (table: string, rows: string) => string): Compiled {
    const table = this.shape.links!.table;
    const [drive, ...others] = this.drivingFirst(memberships);
    const driving = this.linkRows("d.", drive);
    const checks = others.map(m => this.linkRows("p.", m));
    return {
      sql: `SELECT d.id FROM ${table} d WHERE ${driving.sql}${checks.map(c => ` AND ${probe(table, c.sql)}`).join("")}`,
      params: [...driving.params, ...checks.flatMap(c => c.params)]
    };
  }

  /** The memberships in LINK_FIELDS' order: the first drives a probed read. */
  private drivingFirst(memberships: readonly LinkMembership[]): LinkMembership[] {
    const rank = [...this.shape.links!.fields];
    return [...memberships].sort((a, b) => rank.indexOf(a.field) - rank.indexOf(b.field));
  }

  /**
   * PostgreSQL: the probed read of `linkedProbed` when the driving membership has at most
   * PROBED_DRIVING_MAX links, the intersection of whole sets otherwise, chosen in the statement itself
   * (its count reads at most that many index entries; only the chosen branch runs). PostgreSQL plans an
   * EXISTS as a hash semi-join, which reads the probed set whole, so each probe is a subquery with LIMIT,
   * run per driving link through the link table's key. At 100 000 events a venue's 100 links probed
   * against a category's 5 000 took 0.3 ms where the intersection took 2.0 ms (docs/lists.md#event-filters).
   * A probe costs a few µs where a link read into an intersection costs a fraction of one: a large
   * driving set is intersected.
   */
  private linkedChosen(memberships: readonly LinkMembership[]): Compiled {
    const [drive] = this.drivingFirst(memberships);
    const counted = this.linkedIds(drive.field, drive.ids);
    const size = `(SELECT count(*) FROM (${counted.sql} LIMIT ${PROBED_DRIVING_MAX + 1}) AS driving)`;
    const probed = this.probedIds(memberships, (table, rows) => `(SELECT 1 FROM ${table} p WHERE ${rows} AND p.id = d.id LIMIT 1) IS NOT NULL`);
    const sets = memberships.map(m => this.linkedIds(m.field, m.ids));
    return {
      sql: `id = ANY(CASE WHEN ${size} <= ${PROBED_DRIVING_MAX} THEN ARRAY(${probed.sql}) ELSE ARRAY(${sets.map(x => x.sql).join(" INTERSECT ")}) END)`,
      params: [...counted.params, ...probed.params, ...sets.flatMap(x => x.params)]
    };
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
      const member = this.ftsMember([{ fields: [field], text: value }]);
      if (member) return member;
    }
    const prefix = this.dialect === "sqlite" ? `substr(${text}, 1, ?)` : `left(${text}, ?)`;
    const suffix = this.dialect === "sqlite" ? `substr(${text}, -?)` : `right(${text}, ?)`;
    if (start) return { sql: `${prefix} = ?`, params: [value.length, value] };
    if (end) return { sql: `(length(${text}) >= ? AND ${suffix} = ?)`, params: [value.length, value.length, value] };
    // PostgreSQL: LIKE, which the trigram indexes of the searched fields (or of their folded columns) answer
    // (store/sql/schema.ts, C37)
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

  /** The WHERE condition of `query` (without the site, which the collection adds). */
  where(query: Query): Compiled {
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
    return Array.isArray(all) && all.filter(q => this.linkMembership(q) !== undefined).length >= 2;
  }

  private conditions(query: Query): Compiled {
    const parts: Compiled[] = [];
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue;
      if (key === "$and") parts.push(this.allOf(value as Query[]));
      else if (key === "$or") parts.push(this.anyOf(value as Query[]));
      else if (key === "$nor") parts.push(negate(or((value as Query[]).map(q => this.where(q)))));
      else if (key === "$not") parts.push(negate(this.where(value as Query)));
      else if (key.startsWith("$")) throw new UnsupportedQuery(`operator ${key}`);
      else parts.push(this.fieldCondition(key, value));
    }
    return and(parts);
  }

  /**
   * SQLite: the ids where, for every term, one of its folded `fields` holds its `text`, from the exact
   * full-text index (migration 7, store/sql/schema.ts); undefined when the index cannot answer (a text
   * shorter than a trigram, a field it does not hold). A query with few matches (TableShape.fts `few`) is
   * their list of ids.
   */
  private ftsMember(terms: ReadonlyArray<{ fields: readonly string[]; text: string }>): Compiled | undefined {
    const fts = this.shape.fts;
    if (this.dialect !== "sqlite" || !fts || terms.some(t => [...t.text].length < 3 || !t.fields.every(f => fts.columns.includes(f)))) return undefined;
    const match = ftsMatch(terms);
    const base = ftsRowid(fts.site, 0);
    const index = (key: string) => ({ sql: `${key} IN (SELECT rowid - ? FROM ${fts.table} WHERE ${fts.table} MATCH ? AND rowid > ? AND rowid < ?)`, params: [base, match, base, ftsRowid(fts.site + 1, 0)] });
    const few = fts.few?.get(match);
    if (few) {
      if (few.length === 0) return { sql: "0=1", params: [], fts: terms, fewIds: true, docFree: true };
      // the ids drive; the index still decides (a write between the ids' read and this statement may have
      // taken an event's words away)
      const list = sqliteList(few);
      const still = index("+id");
      return { sql: `id IN ${list.sql} AND ${still.sql}`, params: [...list.params, ...still.params], fts: terms, fewIds: true, docFree: true };
    }
    // `+id` is the same value but no key of `events`: the planner cannot start from the matches
    const member = index(fts.probe ? "+id" : "id");
    return { ...member, fts: terms, textIndex: true, matches: [match] };
  }

  /** `$or`: memberships of one text in the full-text index become one membership of all their fields. */
  private anyOf(queries: Query[]): Compiled {
    const parts = queries.map(q => this.where(q));
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
        out.push(this.ftsMember([{ fields: [...new Set(byText.get(text))], text }])!);
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

/** Not `inner` (a condition that is unknown, NULL, does not hold). */
function negate(inner: Compiled): Compiled {
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

function and(parts: Compiled[]): Compiled {
  if (parts.length === 0) return { sql: "1=1", params: [], docFree: true };
  if (parts.length === 1) return parts[0];
  return { sql: parts.map(p => `(${p.sql})`).join(" AND "), params: parts.flatMap(p => p.params), ...reads(parts, true) };
}

function or(parts: Compiled[]): Compiled {
  if (parts.length === 0) return { sql: "0=1", params: [], docFree: true };
  if (parts.length === 1) return parts[0];
  return { sql: `(${parts.map(p => `(${p.sql})`).join(" OR ")})`, params: parts.flatMap(p => p.params), ...reads(parts, false) };
}
