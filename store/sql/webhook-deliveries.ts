/**
 * The webhooks' deliveries on SQLite and PostgreSQL in batches (store/webhooks.ts keeps their meanings and
 * the one-at-a-time way every backend has): one statement adds a fan-out step's payloads or deliveries,
 * one claims an endpoint's due attempts, one records a group of attempts' results
 * (docs/webhooks.md#how-deliveries-are-made). Each statement is one transaction, so a node commits a few
 * times per group of deliveries instead of several times per delivery.
 *
 * - A claim takes the endpoint's oldest due deliveries of changes fanned out (at most `scan` of them, in the
 *   order of its index `endpoint, due, _id`): those with no earlier pending delivery of their record to that
 *   endpoint (at most `limit`) get the attempt's lease as their `due` and one more attempt; the others are
 *   parked, marked `waiting`, until the earlier one's `due` or `parkUntil`, whichever is later. PostgreSQL
 *   locks the rows it reads (`FOR UPDATE SKIP LOCKED`: a row another node is claiming is passed over, and a
 *   row claimed meanwhile is read again and no longer due); on SQLite the reads and writes are one unit
 *   under the database's write lock. No two nodes send the same attempt.
 * - A result is recorded only where the delivery still holds the lease it was claimed under. The waiting
 *   deliveries of the records whose delivery ended are made due at once, by a statement of their own
 *   after the results' commit (PostgreSQL), so one parked at the same moment is seen by one side or the
 *   other: the claim looks again at what it parked once its statement committed.
 */
import type { Param, SqlDriver, SyncRunner } from "./driver";
import { fieldExpr } from "./compile";
import { pgSequences, type PgSequences } from "./sequences";
import { feedHorizon } from "./feed";
import type { DeliveryDoc } from "../../lib/webhooks/present";
import type { Doc } from "../../lib/documents/store-query";
import { applyUpdate } from "../../lib/documents/update-ops";

const TABLE = "webhook_deliveries";
const PAYLOADS = "webhook_payloads";

/** One attempt's result: the update (`$set`, `$unset`) of the delivery `id` claimed under `lease`. */
export interface SqlSettlement {
  id: number;
  lease: number;
  update: Doc;
}

export interface ClaimRequest {
  endpoint: number;
  nowMs: number;
  maxSeq: number;
  limit: number;
  scan: number;
  leaseUntil: number;
  parkUntil: number;
}

interface Row { id: number | string; doc: string | Record<string, unknown> }

const rowDoc = (row: Row): Doc => ({ _id: Number(row.id), ...(typeof row.doc === "string" ? (JSON.parse(row.doc) as Doc) : row.doc) });
const toDelivery = (row: Row): DeliveryDoc => rowDoc(row) as DeliveryDoc;

export class SqlDeliveries {
  private readonly pg: boolean;
  private readonly sequences?: PgSequences;
  private readonly f: (field: string) => string;

  constructor(private readonly driver: SqlDriver, private readonly site: () => number) {
    this.pg = driver.dialect === "postgres";
    this.sequences = this.pg ? pgSequences(driver) : undefined;
    this.f = field => fieldExpr(driver.dialect, field);
  }

  /**
   * How far a reader of the change feed may go: PostgreSQL numbers entries by their writing transaction,
   * so only those below the oldest one still running are final (store/sql/feed.ts); SQLite numbers them in
   * commit order (undefined: no bound).
   */
  async feedHorizon(): Promise<number | undefined> {
    return this.pg ? feedHorizon(this.driver) : undefined;
  }

  /** Stores payloads `{seq, body, at}` not stored yet, in one statement. */
  async putPayloads(payloads: ReadonlyArray<{ seq: number; body: string; at: number }>): Promise<void> {
    if (!payloads.length) return;
    const json = JSON.stringify(payloads);
    if (this.pg) {
      await this.driver.run(`INSERT INTO ${PAYLOADS} (site, id, doc) SELECT ?, (v ->> 'seq')::bigint, jsonb_build_object('body', v -> 'body', 'at', v -> 'at') FROM jsonb_array_elements(?::jsonb) AS v ON CONFLICT DO NOTHING`, [this.site(), json]);
      return;
    }
    await this.driver.run(`INSERT INTO ${PAYLOADS} (site, id, doc) SELECT ?, json_extract(value, '$.seq'), jsonb_object('body', json_extract(value, '$.body'), 'at', json_extract(value, '$.at')) FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`, [this.site(), json]);
  }

  /** Adds deliveries in one statement; a key stored already (a fan-out run again) is passed over. */
  async addDeliveries(docs: ReadonlyArray<Omit<DeliveryDoc, "_id">>): Promise<void> {
    if (!docs.length) return;
    const site = this.site();
    const json = JSON.stringify(docs);
    if (this.pg) {
      const seq = await this.sequences!.of(site, TABLE, TABLE);
      await this.driver.run(`INSERT INTO ${TABLE} (site, id, doc) SELECT ?, nextval('${seq}'), v.value FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS v(value, n) ORDER BY v.n ON CONFLICT DO NOTHING`, [site, json]);
      return;
    }
    await this.driver.run(`INSERT INTO ${TABLE} (site, id, doc) SELECT ?, (SELECT COALESCE(MAX(id), 0) FROM ${TABLE} WHERE site = ?) + key + 1, jsonb(value) FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`, [site, site, json]);
  }

  /** The candidates of a claim and, for each, the `due` of the earlier pending delivery of its record (null: none). */
  private candidates(): string {
    const f = this.f;
    const e = (field: string) => f(field).replace(/\bdoc\b/g, "e.doc");
    const d = (field: string) => f(field).replace(/\bdoc\b/g, "d.doc");
    const pending = this.pg ? `'"pending"'::jsonb` : "'pending'";
    const param = this.pg ? "?::jsonb" : "?";
    const blocker = `(SELECT COALESCE(${this.pg ? `(${e("due")} #>> '{}')::bigint` : e("due")}, 0) FROM ${TABLE} AS e WHERE e.site = d.site AND ${e("chain")} = ${d("chain")} ` +
      `AND ${e("status")} = ${pending} AND ${e("seq")} < ${d("seq")} ORDER BY ${e("seq")}${this.pg ? " NULLS FIRST" : ""} LIMIT 1)`;
    const number = this.pg ? `jsonb_typeof(${d("due")}) = 'number'` : `${d("due")} IS NOT NULL`;
    const nulls = this.pg ? " NULLS FIRST" : "";
    return `SELECT d.id AS id, ${d("due")} AS due, ${blocker} AS blocker FROM ${TABLE} AS d ` +
      `WHERE d.site = ? AND ${d("endpoint")} = ${param} AND ${number} AND ${d("due")} <= ${param} AND ${d("seq")} <= ${param} AND ${d("status")} = ${pending} ` +
      `ORDER BY ${d("due")}${nulls}, d.id${nulls} LIMIT ?${this.pg ? " FOR UPDATE OF d SKIP LOCKED" : ""}`;
  }

  private candidateParams(c: ClaimRequest): Param[] {
    const j = (v: number): Param => (this.pg ? JSON.stringify(v) : v);
    return [this.site(), j(c.endpoint), j(c.nowMs), j(c.maxSeq), c.scan];
  }

  /** Claims up to `limit` of an endpoint's due attempts (see the head of this file); answers them as claimed. */
  async claim(c: ClaimRequest): Promise<DeliveryDoc[]> {
    const site = this.site();
    if (this.pg) {
      const rows = await this.driver.all<Row & { parked: boolean }>(
        `WITH c AS (${this.candidates()}), ` +
        `go AS (SELECT id FROM c WHERE blocker IS NULL ORDER BY due, id LIMIT ?), ` +
        `claimed AS (UPDATE ${TABLE} AS t SET doc = (t.doc - 'waiting') || jsonb_build_object('due', ?::bigint, 'attempts', COALESCE((t.doc ->> 'attempts')::integer, 0) + 1) ` +
        `FROM go WHERE t.site = ? AND t.id = go.id RETURNING t.id, t.doc), ` +
        `parked AS (UPDATE ${TABLE} AS t SET doc = t.doc || jsonb_build_object('due', GREATEST(c.blocker, ?::bigint), 'waiting', true) ` +
        `FROM c WHERE c.blocker IS NOT NULL AND t.site = ? AND t.id = c.id RETURNING t.id) ` +
        "SELECT id, doc, false AS parked FROM claimed UNION ALL SELECT id, NULL AS doc, true AS parked FROM parked",
        [...this.candidateParams(c), c.limit, c.leaseUntil, site, c.parkUntil, site]);
      const parked = rows.filter(r => r.parked).map(r => Number(r.id));
      // parked while its earlier one ended: released here, or by that one's end (head of this file)
      if (parked.length) await this.releaseIfFree(parked, Date.now());
      return rows.filter(r => !r.parked).map(toDelivery);
    }
    return this.driver.unit!((tx: SyncRunner) => {
      const rows = tx.all<{ id: number; due: number; blocker: number | null }>(this.candidates(), this.candidateParams(c));
      const go = rows.filter(r => r.blocker === null).slice(0, c.limit).map(r => r.id);
      const parked = rows.filter(r => r.blocker !== null);
      for (const r of parked)
        tx.run(`UPDATE ${TABLE} SET doc = jsonb_set(doc, '$.due', ?, '$.waiting', json('true')) WHERE site = ? AND id = ?`, [Math.max(r.blocker!, c.parkUntil), site, r.id]);
      if (!go.length) return [];
      return tx.all<Row>(`UPDATE ${TABLE} SET doc = jsonb_set(jsonb_remove(doc, '$.waiting'), '$.due', ?, '$.attempts', COALESCE(json_extract(doc, '$.attempts'), 0) + 1) ` +
        `WHERE site = ? AND id IN (SELECT value FROM json_each(?)) RETURNING id, json(doc) AS doc`, [c.leaseUntil, site, JSON.stringify(go)])
        .map(toDelivery).sort((a, b) => go.indexOf(a._id) - go.indexOf(b._id));
    });
  }

  /** PostgreSQL: the parked deliveries among `ids` whose record has no earlier pending delivery any more made due now. */
  private async releaseIfFree(ids: number[], nowMs: number): Promise<void> {
    const f = this.f;
    const e = (field: string) => f(field).replace(/\bdoc\b/g, "e.doc");
    const t = (field: string) => f(field).replace(/\bdoc\b/g, "t.doc");
    await this.driver.run(
      `UPDATE ${TABLE} AS t SET doc = (t.doc - 'waiting') || jsonb_build_object('due', ?::bigint) WHERE t.site = ? AND t.id IN (SELECT jsonb_array_elements_text(?::jsonb)::bigint) ` +
      `AND ${t("waiting")} = 'true'::jsonb AND NOT EXISTS (SELECT 1 FROM ${TABLE} AS e WHERE e.site = t.site AND ${e("chain")} = ${t("chain")} AND ${e("status")} = '"pending"'::jsonb AND ${e("seq")} < ${t("seq")})`,
      [nowMs, this.site(), JSON.stringify(ids)]);
  }

  /**
   * Records results (each a `$set`/`$unset` update) where their lease still stands; then the waiting
   * deliveries of the records whose delivery ended (its `due` unset) are due at `nowMs`. Answers the ids recorded.
   */
  async settle(results: readonly SqlSettlement[], chains: ReadonlyMap<number, string>, nowMs: number): Promise<Set<number>> {
    if (!results.length) return new Set();
    const site = this.site();
    const ended = (r: SqlSettlement) => Object.hasOwn((r.update.$unset ?? {}) as object, "due");
    if (this.pg) {
      const json = JSON.stringify(results.map(r => ({ id: r.id, lease: r.lease, set: r.update.$set ?? {}, unset: Object.keys((r.update.$unset ?? {}) as object) })));
      const rows = await this.driver.all<{ id: number | string }>(
        `UPDATE ${TABLE} AS t SET doc = (t.doc - ARRAY(SELECT jsonb_array_elements_text(v.unset))) || v.set ` +
        "FROM jsonb_to_recordset(?::jsonb) AS v(id bigint, lease jsonb, set jsonb, unset jsonb) " +
        "WHERE t.site = ? AND t.id = v.id AND (t.doc -> 'due') = v.lease RETURNING t.id", [json, site]);
      const done = new Set(rows.map(r => Number(r.id)));
      const free = [...new Set(results.filter(r => ended(r) && done.has(r.id)).map(r => chains.get(r.id)!))];
      if (free.length)
        await this.driver.run(`UPDATE ${TABLE} SET doc = (doc - 'waiting') || jsonb_build_object('due', ?::bigint) WHERE site = ? AND (doc -> 'chain') IN (SELECT jsonb_array_elements(?::jsonb)) AND (doc -> 'waiting') = 'true'::jsonb`,
          [nowMs, site, JSON.stringify(free)]);
      return done;
    }
    // SQLite: one unit under the write lock (one commit); each row read and written in it
    return this.driver.unit!((tx: SyncRunner) => {
      const done = new Set<number>();
      for (const r of results) {
        const [row] = tx.all<Row>(`SELECT id, json(doc) AS doc FROM ${TABLE} WHERE site = ? AND id = ? AND json_extract(doc, '$.due') = ?`, [site, r.id, r.lease]);
        if (!row) continue;
        const { _id, ...after } = applyUpdate(rowDoc(row), r.update);
        tx.run(`UPDATE ${TABLE} SET doc = jsonb(?) WHERE site = ? AND id = ?`, [JSON.stringify(after), site, r.id]);
        done.add(r.id);
      }
      const free = [...new Set(results.filter(r => ended(r) && done.has(r.id)).map(r => chains.get(r.id)!))];
      if (free.length)
        tx.run(`UPDATE ${TABLE} SET doc = jsonb_set(jsonb_remove(doc, '$.waiting'), '$.due', ?) WHERE site = ? AND ${this.f("chain")} IN (SELECT value FROM json_each(?)) AND ${this.f("waiting")} = 1`,
          [nowMs, site, JSON.stringify(free)]);
      return done;
    });
  }
}
