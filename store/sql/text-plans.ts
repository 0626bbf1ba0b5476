/**
 * SQLite's full-text reads of a compiled condition (store/sql/compile.ts): a search's terms as one query
 * of the exact full-text index (migration 7, store/sql/schema.ts), and when its few matches are read first
 * and drive the read as a list of ids (docs/lists.md#search).
 */
import type { Dialect } from "./driver";
import { sqliteList, type Compiled } from "./compiled";

/** A record's row in a SQLite full-text index: its site and id in one integer (ids below 2^32). */
export const FTS_SITE_STRIDE = 2 ** 32;
export function ftsRowid(site: number, id: number): number {
  return site * FTS_SITE_STRIDE + id;
}

/**
 * SQLite: the table's full-text index (store/sql/schema.ts) and the site it is read for. `probe`: each
 * row is tested against the index's matches, which never drive the read (a page walking its order
 * index, docs/lists.md#search). `few`: the ids of the matches of a full-text query (its MATCH text, see
 * `Compiled.matches`) that has at most FEW_MATCHES of them, read before the statement: such a query is
 * compiled as that list of ids, which drives the read (docs/lists.md#search).
 */
export interface FtsShape { table: string; columns: readonly string[]; site: number; probe?: boolean; few?: ReadonlyMap<string, readonly number[]> }

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

/**
 * SQLite: the ids where, for every term, one of its folded `fields` holds its `text`, from the exact
 * full-text index (migration 7, store/sql/schema.ts); undefined when the index cannot answer (a text
 * shorter than a trigram, a field it does not hold). A query with few matches (TableShape.fts `few`) is
 * their list of ids.
 */
export function ftsMember(dialect: Dialect, fts: FtsShape | undefined, terms: ReadonlyArray<{ fields: readonly string[]; text: string }>): Compiled | undefined {
  if (dialect !== "sqlite" || !fts || terms.some(t => [...t.text].length < 3 || !t.fields.every(f => fts.columns.includes(f)))) return undefined;
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
