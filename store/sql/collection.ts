/**
 * A collection over one SQL table of store/sql/schema.ts: `(site, id, doc)`, the record as a JSON
 * document, every query narrowed to one site. Conditions and orders are compiled by
 * store/sql/compile.ts; an update reads and rewrites its row inside one transaction (the database's write
 * lock on SQLite, the row locked on PostgreSQL; there one record is first set only where it still holds
 * what was read, `setOneRow`), so concurrent writers of one record never lose a field.
 */
import { FEED_CARRY, FEED_COLLECTION, type Carry, type Collection, type FindOptions, type InsertOptions, type UpdateOptions } from "../collection";
import type { CountPart, Doc, Query, Sort } from "../../lib/documents/store-query";
import { applyUpdate } from "../../lib/documents/update-ops";
import { QueryCompiler, TableShape, fieldExpr } from "./compile";
import { FEW_MATCHES, ftsRowid } from "./text-plans";
import { and, isPlain, type Compiled } from "./compiled";
import type { PgSequences } from "./sequences";
import { UniqueViolation, type Dialect, type Param, type SqlDriver, type SqlRunner } from "./driver";
import { marksOf } from "./write-marks";
import { KeptTotals, queryKey, type MarkedTotal } from "../../lib/documents/kept-totals";

interface Row {
  id: number | string;
  doc: string | Doc;
}

export interface TableOptions extends TableShape {
  table: string;
  site: number;
  /** The change feed's table (entries written with this table's writes). */
  feedTable: string;
  /** PostgreSQL: the store's sequences (store/sql/sequences.ts). */
  sequences?: PgSequences;
  /** The covering index of the table's typed columns (`columns`; store/sql/schema.ts windowIndexName). */
  columnsIndex?: string;
  /** SQLite: the index of the typed columns keyed by id (store/sql/schema.ts idWindowIndexName). */
  idColumnsIndex?: string;
  /** SQLite: the text columns that index holds, by field (store/sql/schema.ts LIST_COLUMNS, ID_WINDOW_ORDER): what a page its links drive is sorted on. */
  idColumnsOrder?: ReadonlyMap<string, string>;
  /** The orders an index of the table keeps (IndexSpec `then`: its fields, then `_id`). */
  orders?: ReadonlyArray<readonly string[]>;
  /** The fields with an index of their own (IndexSpec with no option): what FindOptions `rare` reads through. */
  indexed?: ReadonlySet<string>;
  /** The totals kept for the store's collections (`storeTotals`; by default the collection's own). */
  totals?: KeptTotals;
  /** The write marks its counts are kept under (store/sql/write-marks.ts MARKED); none: every count is counted. */
  marks?: string;
}

/**
 * How many totals a store keeps (lib/documents/kept-totals.ts), over all its sites and tables: a busy site's
 * many filters and many quiet sites' few share them (a total and its key: a few hundred bytes).
 */
const KEPT_TOTALS = 8192;

/** The totals a store keeps (TableOptions `totals`), one set for all its collections. */
export function storeTotals(): KeptTotals {
  return new KeptTotals(KEPT_TOTALS);
}

/**
 * SQLite: up to this many ids are read one primary-key lookup each. An `IN` list builds a temporary table
 * per execution; each autocommit lookup pays its own read transaction. Two ids read faster as lookups,
 * three or more as a list (the measures: docs/caching.md#the-uncached-path).
 */
const POINT_READS_UP_TO = 2;

/**
 * SQLite, a search's page in an order an index keeps (`walkedPage`): how many of that order's first
 * candidates are tested on their documents before the page is read as before, for a page ending `wanted`
 * records in (at most WALK_WANTED): enough for a word in one event in 30 of the window (each test costs
 * little beside reading the page as before).
 */
const walkBudget = (wanted: number): number => 64 + 32 * wanted;
const WALK_WANTED = 120;

/** PostgreSQL: reads of a record an update makes before it locks the row instead (`setOneRow`). */
const SET_ATTEMPTS = 3;

/** `sort` is what one of `orders` keeps: its fields, ascending, from the first (store/index.ts IndexSpec `then`). */
function keptOrder(sort: Sort | undefined, orders: ReadonlyArray<readonly string[]>): boolean {
  const keys = Object.entries(sort ?? {});
  return keys.length > 0 && keys.every(([, dir]) => dir === 1) && orders.some(o => keys.every(([f], i) => o[i] === f));
}

/**
 * The statement appending `doc` to `table` under the next number of that table's sequence (SQLite: one
 * past the highest, the writer holding the database's lock; PostgreSQL: the sequence `seq`, see
 * store/sql/sequences.ts), with `carry` read from the newest document of the same match in the same
 * statement. It answers `id, doc`; on PostgreSQL it is a CTE `f`, drawing a number only for each row of
 * `gate` when one is given.
 */
function appendStatement(dialect: Dialect, table: string, site: number, doc: Doc, carry?: Carry, pg?: { seq?: string; gate?: string }): { sql: string; params: Param[] } {
  const sqlite = dialect === "sqlite";
  const docParam = sqlite ? "jsonb(?)" : "?::jsonb";
  const { _id, ...rest } = doc;
  const params: Param[] = [JSON.stringify(rest)];
  let value = docParam;
  if (carry) {
    const match = fieldExpr(dialect, carry.match);
    const from = sqlite ? `jsonb_extract(doc, '$.${carry.from}')` : `(doc -> '${carry.from}')`;
    const previous = `(SELECT ${from} FROM ${table} WHERE site = ? AND ${match} = ${sqlite ? "?" : "?::jsonb"} ORDER BY id DESC LIMIT 1)`;
    value = sqlite ? `jsonb_set(${docParam}, '$.${carry.into}', ${previous})` : `jsonb_set(${docParam}, '{${carry.into}}', COALESCE(${previous}, 'null'::jsonb))`;
    const key = doc[carry.match] as Param;
    params.push(site, sqlite ? key : JSON.stringify(key));
  }
  // PostgreSQL's feed: numbered by the writing transaction (store/sql/term-counts.ts feed_id), never by a
  // sequence a reader could see move past a change still being committed (store/sql/feed.ts)
  const feed = !sqlite && table === FEED_COLLECTION;
  if (sqlite || (!pg?.seq && !feed)) {
    return { sql: `INSERT INTO ${table} (site, id, doc) SELECT ?, COALESCE(MAX(id), 0) + 1, ${value} FROM ${table} WHERE site = ? RETURNING id, json(doc) AS doc`, params: [site, ...params, site] };
  }
  const number = feed ? "feed_id(?::integer, ?::jsonb)" : `nextval('${pg!.seq}')`;
  return { sql: `f AS (INSERT INTO ${table} (site, id, doc) SELECT ?, ${number}, ${value}${pg?.gate ? ` FROM ${pg.gate}` : ""} RETURNING id, doc)`, params: [site, ...(feed ? [site, JSON.stringify(doc.key ?? null)] : []), ...params] };
}

/** The fields a projection keeps (inclusion: those named and `_id`; exclusion: all but those named). */
function project(doc: Doc, projection: Record<string, 0 | 1>): Doc {
  const named = Object.entries(projection);
  if (named.length === 0) return doc;
  if (named.every(([, v]) => v === 0)) {
    const out = { ...doc };
    for (const [k] of named) delete out[k];
    return out;
  }
  const out: Doc = projection._id === 0 ? {} : { _id: doc._id };
  for (const [k, v] of named) if (v && k in doc) out[k] = doc[k];
  return out;
}

const tableName = (name: string): string => {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`not a collection name: ${name}`);
  return name;
};

export function sqlCollection(driver: SqlDriver, opts: TableOptions): Collection {
  const { table, site } = opts;
  const sqlite = driver.dialect === "sqlite";
  const compiler = new QueryCompiler(driver.dialect, { ...opts, columns: undefined });
  // SQLite: the full-text index's matches probed row by row, never driving the read. A page in an order an
  // index keeps walks that index, and a count the window columns' index; started from the matches, a
  // common word's page read and sorted every match, and its count read every match's document
  // (docs/lists.md#search).
  const probed = sqlite && opts.fts ? { ...opts.fts, probe: true } : undefined;
  const walker = probed ? new QueryCompiler(driver.dialect, { ...opts, columns: undefined, fts: probed }) : compiler;
  // Every condition tested on the documents, the full-text index's memberships too (`walkedPage`).
  const plain = probed ? new QueryCompiler(driver.dialect, { ...opts, columns: undefined, fts: undefined }) : compiler;
  // Counts read the typed columns where they answer a condition (store/sql/schema.ts LIST_COLUMNS).
  const counter = opts.columns ? new QueryCompiler(driver.dialect, { ...opts, fts: probed ?? opts.fts }) : compiler;
  const docCol = sqlite ? "json(doc) AS doc" : "doc";
  const docParam = sqlite ? "jsonb(?)" : "?::jsonb";
  const toId = (id: number | string): number | string => (opts.textId ? String(id) : Number(id));
  const toDoc = (row: Row): Doc => {
    const body = typeof row.doc === "string" ? (JSON.parse(row.doc) as Doc) : row.doc;
    return { _id: toId(row.id), ...body };
  };
  const body = (doc: Doc): string => {
    const { _id, ...rest } = doc;
    return JSON.stringify(rest);
  };
  const select = (runner: SqlRunner, query: Query, tail = "", by = compiler, from = table): Promise<Row[]> => {
    const where = by.where(query);
    return runner.all<Row>(`SELECT id, ${docCol} FROM ${from} WHERE site = ? AND (${where.sql})${tail}`, [site, ...where.params]);
  };
  /**
   * SQLite, a search's page in an order an index keeps: read first from that order's first candidates
   * alone — the records meeting the query's own top-level conditions (its date range), at most
   * `walkBudget` of them, walked through the order's index — each tested on its document. When they fill
   * the page, it is the page: the records before it in the order are among those candidates too. Reading
   * the full-text index's matches instead costs in proportion to them (a word found in most of 100 000
   * events: 20 ms; testing 144 documents: 0.3 ms; docs/lists.md#search); a rarer word, whose first
   * candidates do not fill the page, is read as before. Undefined then.
   */
  const walkedPage = async (query: Query, o: FindOptions & { limit: number }): Promise<Row[] | undefined> => {
    const skip = Math.floor(o.skip ?? 0);
    const limit = Math.floor(o.limit);
    if (skip + limit > WALK_WANTED) return undefined;
    const within = plain.where(Object.fromEntries(Object.entries(query).filter(([k]) => !k.startsWith("$"))));
    const all = plain.where(query);
    const order = plain.orderBy(o.sort, query);
    const rows = await driver.all<Row>(
      `SELECT id, ${docCol} FROM (SELECT site, id, doc FROM ${table} WHERE site = ? AND (${within.sql})${order} LIMIT ${walkBudget(skip + limit)}) AS ${table} ` +
      `WHERE (${all.sql})${order} LIMIT ${limit} OFFSET ${skip}`, [site, ...within.params, ...all.params]);
    return rows.length === limit ? rows : undefined;
  };
  // SQLite, a list whose links drive (compile.ts `drivenByLinks`): its events are looked up by id, and the
  // index of the typed columns keyed by id holds their window, so the conditions the columns answer are
  // tested there instead of on each document (a venue's events probed for a category: the count in a third
  // of the time, the page in a little over half; docs/lists.md#event-filters has the measures). The planner prices both
  // key lookups alike, not counting what computing the columns from each document costs: it is named.
  const byLinks = (query: Query): string | undefined =>
    (sqlite && opts.idColumnsIndex && counter !== compiler && counter.drivenByLinks(query) ? `${table} INDEXED BY ${opts.idColumnsIndex}` : undefined);
  /**
   * SQLite, a page its links drive in an order whose every field that index holds (`idColumnsOrder`; the
   * events' start, publication date and id): the page's ids sorted from that index alone, then only their
   * documents read (the statement's text when it can, undefined otherwise). Sorted on the documents, every
   * event its links found was read and its document carried through the sort: a venue's 2 000 events at
   * 100 000 for a page of ten (docs/lists.md#event-filters). A text column orders as its field when the
   * field is text or absent, as the order's fields always are.
   */
  const byColumns = (sort: Sort | undefined, limit: number | undefined, skip: number | undefined): string | undefined => {
    const keys = Object.entries(sort ?? {});
    const columns = opts.idColumnsOrder;
    if (!sqlite || !columns || keys.length === 0 || !keys.every(([f]) => f === "_id" || columns.has(f))) return undefined;
    const order = keys.map(([f, dir]) => `${f === "_id" ? "id" : columns.get(f)} ${dir === -1 ? "DESC" : "ASC"}`).join(", ");
    return ` ORDER BY ${order} LIMIT ${limit ? Math.floor(limit) : -1}${skip ? ` OFFSET ${Math.floor(skip)}` : ""}`;
  };
  /**
   * SQLite: the table read through the index of `field` (FindOptions and CountPart `rare`) when the query
   * asks for values of it (equal to one, or among some), itself or in one of its `$and` conditions, with
   * the condition `by` compiles; undefined otherwise. The statistics tell the planner only how many records a value holds on average,
   * so a status that few events hold (`future`) was read by scanning every event (docs/benchmarks.md has
   * the measures).
   */
  const throughRare = (query: Query, field: string | undefined, by: QueryCompiler): { from: string; where: Compiled } | undefined => {
    if (!sqlite || !field || !opts.indexed?.has(field)) return undefined;
    const asked = (q: unknown): unknown => {
      const v = isPlain(q) ? q[field] : undefined;
      return typeof v === "string" || typeof v === "number" || (isPlain(v) && Object.keys(v).length === 1 && Array.isArray(v.$in)) ? v : undefined;
    };
    const all = Array.isArray(query.$and) ? (query.$and as unknown[]) : [];
    const value = asked(query) ?? all.map(asked).find(v => v !== undefined);
    // the condition again, first and compiled alone: in a list that its links drive, the query's own
    // conditions are written so that no index answers them (store/sql/compile.ts `where`)
    return value === undefined ? undefined : { from: `${table} INDEXED BY ${indexName(table, field, {})}`, where: and([compiler.where({ [field]: value }), by.where(query)]) };
  };
  /**
   * SQLite: the compiler `by` knowing the ids of each full-text query of `query` that has at most
   * FEW_MATCHES matches in the site (read now, one capped query each), so those matches drive the read:
   * a search whose words are found together in few events reads those events, not the list's window
   * (docs/lists.md#search). `by` itself when there are none.
   */
  const withFewMatches = async (by: QueryCompiler, query: Query): Promise<QueryCompiler> => {
    const fts = by.shape.fts;
    if (!sqlite || !fts) return by;
    const matches = [...new Set(by.where(query).matches ?? [])];
    if (matches.length === 0) return by;
    const few = new Map<string, number[]>();
    const base = ftsRowid(fts.site, 0);
    for (const match of matches) {
      const within = [match, base, ftsRowid(fts.site + 1, 0)];
      // counted first (no row handed over): a common word's thousand ids are not read to be dropped
      const [{ n }] = await driver.all<{ n: number }>(
        `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${fts.table} WHERE ${fts.table} MATCH ? AND rowid > ? AND rowid < ? LIMIT ${FEW_MATCHES + 1})`, within);
      if (Number(n) > FEW_MATCHES) continue;
      const rows = await driver.all<{ id: number }>(`SELECT rowid - ? AS id FROM ${fts.table} WHERE ${fts.table} MATCH ? AND rowid > ? AND rowid < ?`, [base, ...within]);
      few.set(match, rows.map(r => Number(r.id)));
    }
    return few.size ? new QueryCompiler(by.dialect, { ...by.shape, fts: { ...fts, few } }) : by;
  };
  const idParam = (id: unknown): Param => (opts.textId ? String(id) : Number(id));
  const pointReads = async (ids: readonly unknown[]): Promise<Doc[]> => {
    const docs: Doc[] = [];
    for (const id of new Set(ids.map(idParam))) {
      const [row] = await driver.all<Row>(`SELECT id, ${docCol} FROM ${table} WHERE site = ? AND id = ?`, [site, id]);
      if (row) docs.push(toDoc(row));
    }
    return docs;
  };
  // An idempotency claim marked with the record its create produced (InsertOptions.claim), in the insert's statement or unit.
  const claimStatement = (claim: NonNullable<InsertOptions["claim"]>): string =>
    `UPDATE ${tableName(claim.collection)} SET doc = ${sqlite ? "jsonb_set(doc, '$.produced', jsonb(?))" : "jsonb_set(doc, '{produced}', ?::jsonb)"} WHERE site = ? AND id = ?`;
  const claimParams = (claim: NonNullable<InsertOptions["claim"]>): Param[] => [JSON.stringify(claim.produced), site, claim.id];

  /**
   * PostgreSQL: runs a write that stores a feed entry again when another writer took the entry's id at the
   * same moment (two entries of one record written outside the record's lock, e.g. changes recorded apart
   * from their write, both placed just past its newest entry: store/sql/term-counts.ts `feed_id`). The
   * refused statement or transaction stored nothing.
   */
  const feedRetry = async <T>(write: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        if (sqlite || attempt >= 5 || !(err instanceof UniqueViolation) || err.constraint !== `${opts.feedTable}_pkey`) throw err;
      }
    }
  };
  const pgSeq = async (numbered: string): Promise<{ seq: string } | undefined> =>
    (opts.sequences ? { seq: await opts.sequences.of(site, numbered, numbered) } : undefined);
  /**
   * PostgreSQL: one statement writing a record (`write`, an INSERT or UPDATE of at most one row) and,
   * when it wrote one, the feed entry `entry`; the feed's sequence moves only then. Answers whether the
   * row was written.
   */
  const writtenWithEntry = async (write: string, params: Param[], entry: Doc | null | undefined, claim?: InsertOptions["claim"]): Promise<boolean> => {
    let statement = `WITH r AS (${write} RETURNING id)`;
    const all = [...params];
    if (claim) {
      statement += `, k AS (${claimStatement(claim)} AND EXISTS (SELECT 1 FROM r) RETURNING id)`;
      all.push(...claimParams(claim));
    }
    if (entry) {
      const feed = appendStatement("postgres", opts.feedTable, site, entry, FEED_CARRY, { gate: "r" });
      statement += `, ${feed.sql}`;
      all.push(...feed.params);
    }
    const [row] = await feedRetry(() => driver.all<{ n: number | string }>(`${statement} SELECT COUNT(*) AS n FROM r`, all));
    return Number(row.n) > 0;
  };

  /**
   * PostgreSQL, one record: the row read, then one statement that stores the new document only where the
   * row still holds the document read (compare-and-set), with its feed entry drawn only for a stored row.
   * A writer that changed the row meanwhile (committed, or holding its lock until it commits) makes the
   * set miss, and the record is read again. Answers undefined when the row kept changing: the caller then
   * takes the transaction's path. One round trip to the server in place of five (`BEGIN`, the locked read,
   * the update, the feed entry, `COMMIT`): each waits its turn on a busy event loop (docs/benchmarks.md).
   */
  async function setOneRow(query: Query, update: Doc, o: UpdateOptions): Promise<Array<{ before: Doc; after: Doc }> | undefined> {
    // the caller's copy stands for the first read when the update names its record alone
    let before = o.expected && Object.keys(query).length === 1 && query._id !== undefined && query._id === o.expected._id ? o.expected : undefined;
    for (let attempt = 0; attempt < SET_ATTEMPTS; attempt++, before = undefined) {
      if (!before) {
        const [row] = await select(driver, query, " LIMIT 1");
        if (!row) return [];
        before = toDoc(row);
      }
      const after = applyUpdate(before, update);
      const set = `UPDATE ${table} SET doc = ?::jsonb WHERE site = ? AND id = ? AND doc = ?::jsonb`;
      if (await writtenWithEntry(set, [body(after), site, idParam(before._id), body(before)], o.change?.(after))) return [{ before, after }];
    }
    return undefined;
  }

  async function updateRows(query: Query, update: Doc, limit?: 1, o: UpdateOptions = {}): Promise<Array<{ before: Doc; after: Doc }>> {
    const { change } = o;
    if (!sqlite && limit === 1 && opts.sequences) {
      const set = await setOneRow(query, update, o);
      if (set) return set;
    }
    return feedRetry(() => driver.transaction(async tx => {
      const rows = await select(tx, query, `${limit ? " LIMIT 1" : ""}${sqlite ? "" : " FOR UPDATE"}`);
      const out: Array<{ before: Doc; after: Doc }> = [];
      for (const row of rows) {
        const before = toDoc(row);
        const after = applyUpdate(before, update);
        // the record's entry first: what the row's triggers record (a term's count, store/sql/term-counts.ts) follows it
        const entry = change?.(after);
        if (entry) {
          const feed = appendStatement(driver.dialect, opts.feedTable, site, entry, FEED_CARRY);
          await tx.all(sqlite ? feed.sql : `WITH ${feed.sql} SELECT id FROM f`, feed.params);
        }
        await tx.run(`UPDATE ${table} SET doc = ${docParam} WHERE site = ? AND id = ?`, [body(after), site, row.id]);
        out.push({ before, after });
      }
      return out;
    }));
  }

  // The write marks of what this table's counts read (store/sql/write-marks.ts), as a subquery of the site.
  const marks = opts.marks ? marksOf(opts.marks) : undefined;
  const kept = marks ? (opts.totals ?? storeTotals()) : undefined;
  // the site and table in every key: the kept totals are the store's
  const keyOf = (query: Query): string => `${table} ${site} ${queryKey(query)}`;
  const readMark = async (): Promise<number> => Number((await driver.all<{ m: number | string }>(`SELECT ${marks} AS m`, [site]))[0].m);
  /** The statement counting a query's matches (`COUNT(*) AS n`). */
  async function countStatement(query: Query, rare?: string): Promise<{ sql: string; params: Param[] }> {
    // the few records holding a rare value, found through its index, each tested on its document
    const through = rare ? throughRare(query, rare, await withFewMatches(compiler, query)) : undefined;
    if (through) return { sql: `SELECT COUNT(*) AS n FROM ${through.from} WHERE site = ? AND (${through.where.sql})`, params: [site, ...through.where.params] };
    const where = (await withFewMatches(counter, query)).where(query);
    // A count of typed columns only is read from their covering index alone. SQLite's planner prices a
    // scan of the table below it (it does not count what computing the columns from each document costs),
    // so it is named; PostgreSQL chooses it from its statistics. A SQLite count that reads the full-text
    // index walks that index too, probing the matches; one driven by a short list of the index's ids
    // looks each up in the columns' index keyed by id.
    const byIds = sqlite && where.fewIds && opts.idColumnsIndex ? `${table} INDEXED BY ${opts.idColumnsIndex}` : undefined;
    const from = byLinks(query) ?? byIds ?? (sqlite && (where.docFree || where.textIndex) && opts.columnsIndex ? `${table} INDEXED BY ${opts.columnsIndex}` : table);
    return { sql: `SELECT COUNT(*) AS n FROM ${from} WHERE site = ? AND (${where.sql})`, params: [site, ...where.params] };
  }

  /**
   * The totals of `queries` (`marked`: and the table's write mark, read in the same statement, so all are
   * of one snapshot; SQLite answers no mark when its connection holds a transaction whose writes it would
   * count before they are committed).
   */
  async function countedTogether(parts: readonly CountPart[], marked = false): Promise<{ totals: number[]; mark?: number }> {
    const counts = await Promise.all(parts.map(p => countStatement(p.query, p.rare)));
    const unmarked = async () => ({ totals: await Promise.all(counts.map(async c => Number((await driver.all<{ n: number | string }>(c.sql, c.params))[0].n))) });
    if (!marked || !marks) return unmarked();
    const both = `SELECT ${counts.map((c, i) => `(${c.sql}) AS n${i}`).join(", ")}, ${marks} AS m`;
    const params = [...counts.flatMap(c => c.params), site];
    const rows = driver.readCommitted ? await driver.readCommitted<Record<string, number | string>>(both, params) : await driver.all<Record<string, number | string>>(both, params);
    if (!rows) return unmarked();
    return { totals: counts.map((_, i) => Number(rows[0][`n${i}`])), mark: Number(rows[0].m) };
  }

  /** A query's total, with the mark it was counted under when `marked` (`countedTogether`). */
  async function counted(query: Query, marked = false): Promise<MarkedTotal> {
    const { totals: [total], mark } = await countedTogether([{ query }], marked);
    return { total, mark };
  }

  return {
    async find(query, o = {}) {
      const finish = (rows: Row[]) => (o.projection ? rows.map(row => project(toDoc(row), o.projection!)) : rows.map(toDoc));
      let tail = compiler.orderBy(o.sort, query);
      if (o.limit) tail += ` LIMIT ${Math.floor(o.limit)}`;
      if (o.skip) tail += `${o.limit ? "" : sqlite ? " LIMIT -1" : ""} OFFSET ${Math.floor(o.skip)}`;
      const rare = throughRare(query, o.rare, compiler);
      if (rare) return finish(await driver.all<Row>(`SELECT id, ${docCol} FROM ${rare.from} WHERE site = ? AND (${rare.where.sql})${tail}`, [site, ...rare.where.params]));
      const linked = byLinks(query);
      if (linked) {
        const by = await withFewMatches(counter, query);
        const sorted = byColumns(o.sort, o.limit, o.skip);
        if (!sorted) return finish(await select(driver, query, tail, by, linked));
        const where = by.where(query);
        return finish(await driver.all<Row>(
          `SELECT id, ${docCol} FROM ${table} WHERE site = ? AND id IN (SELECT id FROM ${linked} WHERE site = ? AND (${where.sql})${sorted})${compiler.orderBy(o.sort, query)}`,
          [site, site, ...where.params]));
      }
      const ordered = !!o.limit && keptOrder(o.sort, opts.orders ?? []);
      const by = await withFewMatches(ordered ? walker : compiler, query);
      // a word in more than FEW_MATCHES events: its page from the order's first candidates, if they fill it
      const walked = ordered && probed && by.where(query).matches?.length ? await walkedPage(query, { ...o, limit: o.limit! }) : undefined;
      return finish(walked ?? (await select(driver, query, tail, by)));
    },
    async findByIds(ids) {
      if (ids.length === 0) return [];
      if (sqlite && ids.length <= POINT_READS_UP_TO) return pointReads(ids);
      return this.find({ _id: { $in: [...ids] } });
    },
    async count(query, o = {}) {
      if (!kept || o.moving) return (await counted(query)).total;
      return kept.total(keyOf(query), readMark, () => counted(query, true));
    },
    async countParts(parts) {
      const sum = (totals: readonly number[]) => totals.reduce((a, b) => a + b, 0);
      if (!kept) return sum((await countedTogether(parts)).totals);
      // the moving parts counted in one statement with the mark, which then tells whether the other parts' kept totals stand
      const moving = parts.filter(p => p.moving);
      const now = moving.length ? await countedTogether(moving, true) : undefined;
      const markNow = now?.mark;
      let total = now ? sum(now.totals) : 0;
      for (const p of parts) if (!p.moving) total += await kept.total(keyOf(p.query), markNow === undefined ? readMark : async () => markNow, () => counted(p.query, true));
      return total;
    },
    async idsWhere(field, value) {
      const where = compiler.where({ [field]: value });
      const rows = await driver.all<{ id: number | string }>(`SELECT id FROM ${table} WHERE site = ? AND (${where.sql})`, [site, ...where.params]);
      return rows.map(r => toId(r.id));
    },
    async findOne(query) {
      // a record named by its id is a lookup by key, whatever else the query asks of it
      const byKey = typeof query._id === "number" || typeof query._id === "string";
      const [row] = await select(byKey ? (driver.lookups ?? driver) : driver, query, " LIMIT 1");
      return row ? toDoc(row) : null;
    },
    async insert(doc, o = {}) {
      if (doc._id === undefined || doc._id === null) throw new Error(`${table}: a document needs its _id before it is stored`);
      const guard = o.unlessTaken && doc[o.unlessTaken] !== undefined && doc[o.unlessTaken] !== "" ? o.unlessTaken : undefined;
      if (!guard && !o.change && !o.claim) {
        await driver.run(`INSERT INTO ${table} (site, id, doc) VALUES (?, ?, ${docParam})`, [site, idParam(doc._id), body(doc)]);
        return doc;
      }
      // the record (unless its value of `guard` is taken) and its feed entry: one atomic unit
      let sql = `INSERT INTO ${table} (site, id, doc) SELECT ?, ?, ${docParam}`;
      const params: Param[] = [site, idParam(doc._id), body(doc)];
      if (guard) {
        const where = compiler.where({ [guard]: doc[guard] });
        sql += ` WHERE NOT EXISTS (SELECT 1 FROM ${table} WHERE site = ? AND (${where.sql}))`;
        params.push(site, ...where.params);
      }
      const taken = () => new UniqueViolation(`${table}.${guard}`);
      if (sqlite) {
        // SQLite: the guard is a statement of its own in the unit (one writer, so nothing comes between it
        // and the insert), and the insert binds no value its planner reads. With the statistics the store
        // makes (sqlite_stat4, store/sql/schema.ts refreshStatistics) SQLite prepares again, at every run, a
        // statement whose plan may hang on a bound value (the slug compared with an index): the insert with
        // the guard in it was compiled anew for every event, and with it every trigger of the events table
        // (the term counts' statements the most): several times the CPU of the insert itself (the measures:
        // docs/benchmarks.md "Creates on a calendar grown through the API").
        const guarded = guard ? compiler.where({ [guard]: doc[guard] }) : undefined;
        const plain = { sql: `INSERT INTO ${table} (site, id, doc) VALUES (?, ?, ${docParam})`, params: [site, idParam(doc._id), body(doc)] };
        await driver.unit!(tx => {
          if (guarded && tx.all(`SELECT 1 FROM ${table} WHERE site = ? AND (${guarded.sql}) LIMIT 1`, [site, ...guarded.params]).length) throw taken();
          // the entry first (what the row's triggers record follows it); a refused insert undoes it with the unit
          if (o.change) {
            const feed = appendStatement("sqlite", opts.feedTable, site, o.change, FEED_CARRY);
            tx.run(feed.sql, feed.params);
          }
          tx.run(plain.sql, plain.params);
          if (o.claim) tx.run(claimStatement(o.claim), claimParams(o.claim));
        });
        return doc;
      }
      // PostgreSQL: one statement; the feed's sequence moves only when the record was stored
      if (!(await writtenWithEntry(sql, params, o.change, o.claim))) throw taken();
      return doc;
    },
    async append(doc, carry) {
      const st = appendStatement(driver.dialect, table, site, doc, carry, table === FEED_COLLECTION ? undefined : await pgSeq(table));
      const [row] = await feedRetry(() => driver.all<Row>(sqlite ? st.sql : `WITH ${st.sql} SELECT id, doc FROM f`, st.params));
      return toDoc(row);
    },
    ...(sqlite ? {} : {
      async appendAll(docs: readonly Doc[]) {
        const seq = table === FEED_COLLECTION ? undefined : await pgSeq(table);
        if (!seq) throw new Error(`${table} has no sequence of its own to append several documents with`);
        if (!docs.length) return [];
        // the documents as one array parameter, each numbered from the sequence in the array's order
        const rows = await driver.all<Row>(`INSERT INTO ${table} (site, id, doc) SELECT ?, nextval('${seq.seq}'), x.d FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS x(d, n) ORDER BY x.n RETURNING id, doc`,
          [site, JSON.stringify(docs.map(({ _id, ...rest }) => rest))]);
        return rows.map(toDoc);
      }
    }),
    async updateOne(query, update, o = {}) {
      const [change] = await updateRows(query, update, 1, o);
      return change?.after ?? null;
    },
    async updateOneChange(query, update, o = {}) {
      const [change] = await updateRows(query, update, 1, o);
      return change ?? null;
    },
    async updateMany(query, update) {
      return (await updateRows(query, update)).length;
    },
    async removeMany(query) {
      const where = compiler.where(query);
      return driver.run(`DELETE FROM ${table} WHERE site = ? AND (${where.sql})`, [site, ...where.params]);
    },
    // Indexes belong to the schema (store/sql/schema.ts), made when the store opens.
    async ensureIndex() {}
  };
}

/**
 * The statements making the index of a listed field (what `ensureIndexes` in store/index.ts runs). A
 * sparse index (not unique) holds only the records that have the field: a partial index, whose planner
 * statistics count those records alone. A full index of a field most records lack (`series_horizon`,
 * set on the first event of a series only) told SQLite's planner that every record held one value, and a
 * range on it scanned the table instead (the horizon job's lookup, scanned, took a couple of hundred
 * times as long as through the partial index: README.md "The store"). Any condition comparing the field (`=`, `<`, `$in` …) implies it is
 * present, so both databases use the partial index for it. The full index an older version made under
 * the plain name is dropped. A unique index stays whole: absent values never collide there anyway, and a
 * unique index must never be missing, not even between a drop and its new version.
 */
export function indexStatements(driver: SqlDriver, table: string, field: string, o: { unique?: boolean; sparse?: boolean; array?: boolean; unlessStatus?: string[]; thenById?: boolean; then?: string[] }): string[] {
  if (!o.sparse || o.unique || o.then || o.unlessStatus?.length || (driver.dialect === "postgres" && o.array)) return [indexStatement(driver, table, field, o)];
  const name = indexName(table, field, o);
  const expr = fieldExpr(driver.dialect, field);
  return [`DROP INDEX IF EXISTS ${name}`, `CREATE INDEX IF NOT EXISTS ${name}_present ON ${table} (site, ${expr}${o.thenById ? ", id" : ""}) WHERE ${expr} IS NOT NULL`];
}

const indexName = (table: string, field: string, o: { unique?: boolean; thenById?: boolean }): string =>
  `${o.unique ? "ux" : "ix"}_${table}_${field.replace(/\./g, "_")}${o.thenById ? "_id" : ""}`;

function indexStatement(driver: SqlDriver, table: string, field: string, o: { unique?: boolean; array?: boolean; unlessStatus?: string[]; thenById?: boolean; then?: string[] }): string {
  if (o.then) {
    // a list's order (store/sql/compile.ts `orderBy`: on PostgreSQL absent values first when ascending)
    const fields = [field, ...o.then, "_id"];
    const nulls = driver.dialect === "postgres" ? " NULLS FIRST" : "";
    const columns = fields.map(f => `${fieldExpr(driver.dialect, f)}${nulls}`).join(", ");
    return `CREATE INDEX IF NOT EXISTS ix_${table}_${fields.map(f => f.replace(/[._]/g, "")).join("_")} ON ${table} (site, ${columns})`;
  }
  const name = indexName(table, field, o);
  const expr = fieldExpr(driver.dialect, field);
  if (driver.dialect === "postgres" && o.array) return `CREATE INDEX IF NOT EXISTS ${name} ON ${table} USING GIN (${expr} jsonb_path_ops)`;
  let where = "";
  if (o.unlessStatus?.length) {
    const text = (f: string) => (driver.dialect === "sqlite" ? fieldExpr("sqlite", f) : `(doc ->> '${f}')`);
    const statuses = o.unlessStatus.map(st => `'${st.replace(/'/g, "''")}'`).join(", ");
    where = ` WHERE ${text(field)} <> '' AND ${text("status")} NOT IN (${statuses})`;
  }
  return `CREATE ${o.unique ? "UNIQUE " : ""}INDEX IF NOT EXISTS ${name} ON ${table} (site, ${expr}${o.thenById ? ", id" : ""})${where}`;
}
