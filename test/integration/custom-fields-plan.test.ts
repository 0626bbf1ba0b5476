/**
 * Custom field filters and search read indexes, not every record (docs/lists.md#custom-field-filters), on
 * SQLite and PostgreSQL: at 5 000 events carrying custom field tokens (lib/fields/values.ts), a list's
 * `meta[<key>]=<value>` filter — alone, and beside a category filter — is read through the link table's
 * key (`links`, field `custom_links`), and a search of a custom text value through the full-text table
 * (SQLite) or the folded column's trigram index (PostgreSQL). The answers are checked against what the
 * documents say. PostgreSQL's planner may prefer a scan of a table this small for the search: that plan is
 * asked with `SET LOCAL enable_seqscan = off` inside a transaction (the index must be usable at all; at
 * 100 000 events the planner picks it by itself).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { acquireStore, releaseStore, Store, StoreConfig } from "../../store";
import type { Collection } from "../../store/collection";
import { buildEventQuery, eventSort } from "../../lib/events/event-query";
import type { Doc } from "../../lib/store-query";
import { CUSTOM_LINKS, FOLDED_COLUMNS, foldedName, FTS_TABLES, LINK_FIELDS, LINK_TABLE } from "../../store/sql/schema";
import { QueryCompiler } from "../../store/sql/compile";
import { createTestDatabase, TestDatabase } from "../helpers/postgres";

const SITE = 1;
/** FIELD_PLAN_EVENTS raises it (100 000 is a manual run, README "Custom fields": CI keeps this one short). */
const EVENTS = Number(process.env.FIELD_PLAN_EVENTS) || 5000;
const FIELDS = LINK_FIELDS.events;
const INDEXES = [...FIELDS.map(field => ({ field, array: true })), ...["start_date", "end_date"].map(field => ({ field })), { field: "start_date", then: ["date"] }];
/** Token ids as the dictionary would hand them out: 1 the field's presence, 2…21 its twenty values. */
const PRESENCE = 1;
const valueToken = (v: number) => 2 + v;

function newDoc(id: number): Doc {
  const day = String(1 + (id % 28)).padStart(2, "0");
  const value = id % 20;
  return {
    _id: id, title: `Event ${id}`, description: "", excerpt: "", status: "publish", start_date: `2030-03-${day} 10:00:00`, end_date: `2030-03-${day} 12:00:00`,
    date: "2029-01-01 00:00:00", date_utc: "2029-01-01 00:00:00", hide_from_listings: false, categories: [1 + (id % 7)], tags: [], venues: [], organizers: [],
    custom_values: { "1": `stage-${value}` }, custom_text: id === 4242 ? "Bring your zyxwvut lantern" : `stage-${value}`, [CUSTOM_LINKS]: [PRESENCE, valueToken(value)]
  };
}

function suite(kind: "sqlite" | "postgres") {
  describe(`custom field indexes on ${kind}`, () => {
    let db: TestDatabase | undefined;
    let dir: string | undefined;
    let config: StoreConfig;
    let store: Store;
    let events: Collection;

    beforeAll(async () => {
      if (kind === "postgres") {
        db = await createTestDatabase("fieldplan");
        config = { dataDir: ":memory:", databaseUrl: db.url, connectTimeoutMs: 5000 };
      } else {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "fieldplan-"));
        config = { dataDir: dir, connectTimeoutMs: 1000 };
      }
      store = await acquireStore(config);
      await store.ensureIndexes("events", INDEXES);
      events = store.collection("events", INDEXES, SITE);
      // in one statement per 500 (the triggers keep the link and full-text rows as for any write)
      for (let from = 1; from <= EVENTS; from += 500) {
        await store.sql!.transaction(async tx => {
          for (let id = from; id < from + 500; id++) {
            await tx.run(kind === "sqlite" ? "INSERT INTO events (site, id, doc) VALUES (?, ?, jsonb(?))" : "INSERT INTO events (site, id, doc) VALUES (?, ?, ?::jsonb)", [SITE, id, JSON.stringify(newDoc(id))]);
          }
        });
      }
      await store.sql!.run(kind === "sqlite" ? "ANALYZE" : "ANALYZE events");
      if (kind === "postgres") await store.sql!.run(`ANALYZE ${LINK_TABLE}`);
    }, 300_000);

    afterAll(async () => {
      await releaseStore(config);
      await db?.drop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    const compiler = () => new QueryCompiler(kind, {
      arrays: new Set(FIELDS), links: { table: LINK_TABLE, type: "events", fields: new Set(FIELDS), site: SITE },
      fts: kind === "sqlite" ? { ...FTS_TABLES.events, site: SITE } : undefined,
      folded: kind === "postgres" ? new Map(FOLDED_COLUMNS.events.map(f => [f, foldedName(f)])) : undefined
    });
    const window = { start_date: "2030-03-01 00:00:00", end_date: "2030-03-31 23:59:59" };

    async function planOf(sql: string, params: unknown[], noSeqScan = false): Promise<string> {
      if (kind === "sqlite") return (await store.sql!.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params as never[])).map(r => r.detail).join("\n");
      return store.sql!.transaction(async tx => {
        if (noSeqScan) await tx.run("SET LOCAL enable_seqscan = off");
        return (await tx.all<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`, params as never[])).map(r => r["QUERY PLAN"]).join("\n");
      });
    }

    test("a meta filter is read through the link table's key, alone and beside a category", async () => {
      for (const categoryIds of [undefined, [3]]) {
        const query = buildEventQuery({ statuses: ["publish"], bounds: window, searchAccess: "all", categoryIds, fieldConditions: [{ [CUSTOM_LINKS]: { $in: [valueToken(7)] } }] });
        const where = compiler().where(query);
        const sql = `SELECT id FROM events WHERE site = ? AND (${where.sql})${compiler().orderBy(eventSort(false), query)} LIMIT 10`;
        const plan = await planOf(sql, [SITE, ...where.params]);
        expect(plan).toMatch(kind === "sqlite" ? /SEARCH \w+ USING PRIMARY KEY \(site=\? AND type=\? AND field=\? AND target=\?\)/ : /links_pkey[\s\S]*Index Cond: .*target = ANY/);
        expect(plan).not.toMatch(kind === "sqlite" ? /json_each EXISTS/ : /@>/);
        // the answer is the documents'
        const found = (await events.find(query, { sort: eventSort(false) })).map(d => d._id as number).sort((a, b) => a - b);
        const expected = Array.from({ length: EVENTS }, (_, i) => i + 1).filter(id => id % 20 === 7 && (!categoryIds || 1 + (id % 7) === 3));
        expect(found).toEqual(expected);
        expect(await events.count(query)).toBe(expected.length);
      }
    });

    test("a search of a custom text value reads the text index", async () => {
      // as store-search.test.ts asks it: no date window (whose index the planner would rather walk here)
      const query = buildEventQuery({ statuses: ["publish"], bounds: {}, searchAccess: "all", search: "zyxwvut" });
      expect((await events.find(query)).map(d => d._id)).toEqual([4242]);
      // SQLite: the search's one full-text query holds the custom text column. PostgreSQL: the custom text's
      // own condition (the search ORs it with the other texts', each with its trigram index; on a table this
      // small the planner reads the site's rows for the OR of four rather than four indexes)
      const asked = kind === "sqlite" ? query : { $and: [{ status: { $in: ["publish"] } }, { custom_text: /zyxwvut/i }] };
      const where = compiler().where(asked);
      const sql = `SELECT id FROM events WHERE site = ? AND (${where.sql}) ORDER BY id`;
      const plan = await planOf(sql, [SITE, ...where.params], true);
      expect(plan).toMatch(kind === "sqlite" ? /events_fts VIRTUAL TABLE INDEX/ : /Bitmap Index Scan on tx_events_f_custom_text/);
      if (kind === "sqlite") expect(where.params).toContain('{title excerpt description custom_text} : "zyxwvut"');
      expect((await events.find(asked)).map(d => d._id)).toEqual([4242]);
      // the link table holds each record's tokens
      const rows = await store.sql!.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${LINK_TABLE} WHERE site = ? AND type = 'events' AND field = '${CUSTOM_LINKS}'`, [SITE]);
      expect(Number(rows[0].n)).toBe(EVENTS * 2);
    });
  });
}

suite("sqlite");
suite("postgres");
