/**
 * A collection over one SQL table of store/sql/schema.ts: `(site, id, doc)`, the record as a JSON
 * document, every query narrowed to one site. Conditions and orders are compiled by
 * store/sql/compile.ts; an update reads and rewrites its row inside one transaction (the row locked on
 * PostgreSQL, the database's write lock on SQLite), so concurrent writers of one record never lose a field.
 */
import type { Collection } from "../collection";
import type { Doc, Query } from "../../lib/store-query";
import { applyUpdate } from "../../lib/update-ops";
import { QueryCompiler, TableShape, fieldExpr } from "./compile";
import type { Param, SqlDriver, SqlRunner } from "./driver";

interface Row {
  id: number | string;
  doc: string | Doc;
}

export interface TableOptions extends TableShape {
  table: string;
  site: number;
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

export function sqlCollection(driver: SqlDriver, opts: TableOptions): Collection {
  const { table, site } = opts;
  const compiler = new QueryCompiler(driver.dialect, opts);
  const sqlite = driver.dialect === "sqlite";
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
  const select = (runner: SqlRunner, query: Query, tail = ""): Promise<Row[]> => {
    const where = compiler.where(query);
    return runner.all<Row>(`SELECT id, ${docCol} FROM ${table} WHERE site = ? AND (${where.sql})${tail}`, [site, ...where.params]);
  };
  const idParam = (id: unknown): Param => (opts.textId ? String(id) : Number(id));

  async function updateRows(query: Query, update: Doc, limit?: 1): Promise<Array<{ before: Doc; after: Doc }>> {
    return driver.transaction(async tx => {
      const rows = await select(tx, query, `${limit ? " LIMIT 1" : ""}${sqlite ? "" : " FOR UPDATE"}`);
      const out: Array<{ before: Doc; after: Doc }> = [];
      for (const row of rows) {
        const before = toDoc(row);
        const after = applyUpdate(before, update);
        await tx.run(`UPDATE ${table} SET doc = ${docParam} WHERE site = ? AND id = ?`, [body(after), site, row.id]);
        out.push({ before, after });
      }
      return out;
    });
  }

  return {
    async find(query, o = {}) {
      let tail = compiler.orderBy(o.sort);
      if (o.limit) tail += ` LIMIT ${Math.floor(o.limit)}`;
      if (o.skip) tail += `${o.limit ? "" : sqlite ? " LIMIT -1" : ""} OFFSET ${Math.floor(o.skip)}`;
      const docs = (await select(driver, query, tail)).map(toDoc);
      return o.projection ? docs.map(doc => project(doc, o.projection!)) : docs;
    },
    async findByIds(ids) {
      if (ids.length === 0) return [];
      return this.find({ _id: { $in: [...ids] } });
    },
    async count(query) {
      const where = compiler.where(query);
      const [row] = await driver.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table} WHERE site = ? AND (${where.sql})`, [site, ...where.params]);
      return Number(row.n);
    },
    async idsWhere(field, value) {
      const where = compiler.where({ [field]: value });
      const rows = await driver.all<{ id: number | string }>(`SELECT id FROM ${table} WHERE site = ? AND (${where.sql})`, [site, ...where.params]);
      return rows.map(r => toId(r.id));
    },
    async findOne(query) {
      const [row] = await select(driver, query, " LIMIT 1");
      return row ? toDoc(row) : null;
    },
    async insert(doc) {
      if (doc._id === undefined || doc._id === null) throw new Error(`${table}: a document needs its _id before it is stored`);
      await driver.run(`INSERT INTO ${table} (site, id, doc) VALUES (?, ?, ${docParam})`, [site, idParam(doc._id), body(doc)]);
      return doc;
    },
    async append(doc, carry) {
      const params: Param[] = [];
      let value = docParam;
      if (carry) {
        // the carried value, read in the same statement as the insert (the newest document of that match)
        const match = fieldExpr(driver.dialect, carry.match);
        const from = sqlite ? `jsonb_extract(doc, '$.${carry.from}')` : `(doc -> '${carry.from}')`;
        const previous = `(SELECT ${from} FROM ${table} WHERE site = ? AND ${match} = ${sqlite ? "?" : "?::jsonb"} ORDER BY id DESC LIMIT 1)`;
        value = sqlite ? `jsonb_set(${docParam}, '$.${carry.into}', ${previous})` : `jsonb_set(${docParam}, '{${carry.into}}', COALESCE(${previous}, 'null'::jsonb))`;
        const key = doc[carry.match] as Param;
        params.push(body(doc), site, sqlite ? key : JSON.stringify(key));
      } else params.push(body(doc));
      const [row] = sqlite
        ? await driver.all<{ id: number | string; doc: string }>(`INSERT INTO ${table} (site, id, doc) SELECT ?, COALESCE(MAX(id), 0) + 1, ${value} FROM ${table} WHERE site = ? RETURNING id, json(doc) AS doc`, [site, ...params, site])
        : await driver.all<{ id: number | string; doc: Doc }>(
          `WITH s AS (INSERT INTO sequences (site, name, value) VALUES (?, ?, 1) ON CONFLICT (site, name) DO UPDATE SET value = sequences.value + 1 RETURNING value) ` +
          `INSERT INTO ${table} (site, id, doc) SELECT ?, value, ${value} FROM s RETURNING id, doc`, [site, table, site, ...params]);
      return toDoc(row);
    },
    async updateOne(query, update) {
      const [change] = await updateRows(query, update, 1);
      return change?.after ?? null;
    },
    async updateOneChange(query, update) {
      const [change] = await updateRows(query, update, 1);
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

/** The index statement of a listed field (what `ensureIndexes` in store/sql/schema.ts runs). */
export function indexStatement(driver: SqlDriver, table: string, field: string, o: { unique?: boolean; array?: boolean; unlessStatus?: string[]; thenById?: boolean }): string {
  const name = `${o.unique ? "ux" : "ix"}_${table}_${field.replace(/\./g, "_")}${o.thenById ? "_id" : ""}`;
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
