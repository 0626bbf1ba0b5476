/**
 * Custom field filters and search read indexes, not every record (docs/lists.md#custom-field-filters), on
 * SQLite and PostgreSQL: at 100 000 events carrying custom field tokens (lib/fields/values.ts), a list's
 * `meta[<key>]=<value>` filter — alone, and beside a category filter — is read through the link table's
 * key (`links`, field `custom_links`), and a search of a custom text value through the full-text table
 * (SQLite) or the folded column's trigram index (PostgreSQL); neither plan reads every event row. The
 * answers are checked against what the documents say. The events are written straight into the store,
 * many a statement (`seed`), so the full size loads in seconds; the statistics are made before planning. */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { acquireStore, releaseStore, Store, StoreConfig } from "../../store";
import type { Collection } from "../../store/collection";
import { buildEventQuery, eventSort } from "../../lib/events/event-query";
import type { Doc } from "../../lib/documents/store-query";
import { CUSTOM_LINKS, FOLDED_COLUMNS, foldedName, FTS_TABLES, LINK_FIELDS, LINK_TABLE } from "../../store/sql/schema";
import { QueryCompiler } from "../../store/sql/compile";
import { markWrittenStatement } from "../../store/sql/write-marks";
import { linkPairsFill } from "../../store/sql/link-pairs";
import { pairMembersFill } from "../../store/sql/pair-members";
import { createTestDatabase, TestDatabase } from "../helpers/postgres";
import { analyzedWithoutSamples } from "../../store/sql/sqlite-statistics";

const SITE = 1;
/** The size the issue names (FIELD_PLAN_EVENTS sets another, for a quick look; the plans asserted are those of this size). */
const FULL = 100_000;
const EVENTS = Number(process.env.FIELD_PLAN_EVENTS) || FULL;
const FIELDS = LINK_FIELDS.events;
/** Events per INSERT statement (two parameters each: within both stores' limits). */
const SEED_ROWS = 2000;
const INDEXES = [...FIELDS.map(field => ({ field, array: true })), ...["start_date", "end_date"].map(field => ({ field })), { field: "start_date", then: ["date"] }];
/** Token ids as the dictionary would hand them out: 1 the field's presence, 2…21 its twenty values. */
const PRESENCE = 1;
const valueToken = (v: number) => 2 + v;
/** The one event whose custom text holds a word no other text holds. */
const LANTERN = Math.min(4242, EVENTS);

function newDoc(id: number): Doc {
  const day = String(1 + (id % 28)).padStart(2, "0");
  const value = id % 20;
  return {
    _id: id, title: `Event ${id}`, description: "", excerpt: "", status: "publish", start_date: `2030-03-${day} 10:00:00`, end_date: `2030-03-${day} 12:00:00`,
    date: "2029-01-01 00:00:00", date_utc: "2029-01-01 00:00:00", hide_from_listings: false, categories: [1 + (id % 7)], tags: [], venues: [], organizers: [],
    custom_values: { "1": `stage-${value}` }, custom_text: id === LANTERN ? "Bring your zyxwvut lantern" : `stage-${value}`, [CUSTOM_LINKS]: [PRESENCE, valueToken(value)]
  };
}

/**
 * The events written many rows a statement, in one transaction, with the store's triggers that keep the
 * term counts, their feed entries and the write marks set aside (no plan here reads them; per row they
 * cost more than the rest of the load): SQLite drops those triggers and makes them again from their own
 * text in the same transaction, its link and full-text triggers working as for any write; PostgreSQL sets
 * every row trigger aside (`session_replication_role`) and makes the link rows in one statement, the link
 * trigger's (store/sql/schema.ts `postgresLinks`) over every event, and their pairs (store/sql/link-pairs.ts
 * `linkPairsFill`) with their members (store/sql/pair-members.ts), as bench/seed-straight.ts does. The
 * site's write marks are then moved on as a bulk load must (store/sql/write-marks.ts). Row by row with
 * every trigger, 100 000 events took over two minutes on PostgreSQL.
 */
async function seed(store: Store, kind: "sqlite" | "postgres"): Promise<void> {
  const row = kind === "sqlite" ? `(${SITE}, ?, jsonb(?))` : `(${SITE}, ?::bigint, ?::jsonb)`;
  await store.sql!.transaction(async tx => {
    const asides = kind === "sqlite"
      ? await tx.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events' AND (name LIKE 'events_counts_%' OR name LIKE 'events_marks_%')")
      : [];
    if (kind === "sqlite") for (const t of asides) await tx.run(`DROP TRIGGER ${t.name}`);
    else await tx.run("SET LOCAL session_replication_role = replica");
    for (let from = 1; from <= EVENTS; from += SEED_ROWS) {
      const ids = Array.from({ length: Math.min(SEED_ROWS, EVENTS - from + 1) }, (_, k) => from + k);
      await tx.run(`INSERT INTO events (site, id, doc) VALUES ${ids.map(() => row).join(", ")}`, ids.flatMap(id => [id, JSON.stringify(newDoc(id))]));
    }
    if (kind === "postgres") {
      await tx.run(`INSERT INTO ${LINK_TABLE} (site, type, field, target, id) SELECT e.site, 'events', f.field, t, e.id FROM events AS e, ` +
        `(VALUES ${FIELDS.map(f => `('${f}')`).join(", ")}) AS f(field), link_targets(e.doc -> f.field) AS t WHERE e.site = ? ORDER BY 1, 2, 3, 4, 5 ON CONFLICT DO NOTHING`, [SITE]);
      // and the link pairs and their members, which a list filtered by a meta value and a category reads (store/sql/link-pairs.ts, pair-members.ts)
      await tx.run(linkPairsFill("postgres", "events", FIELDS, `r.site = ${SITE}`));
      await tx.run(pairMembersFill("postgres", "events", FIELDS, `r.site = ${SITE}`));
    }
    for (const t of asides) await tx.run(t.sql);
    await tx.run(markWrittenStatement("events"), [SITE]);
  }, { unbounded: true });
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
      const started = Date.now();
      const cpu = process.cpuUsage();
      await seed(store, kind);
      const seeded = Date.now();
      const used = process.cpuUsage(cpu);
      await (kind === "sqlite" ? analyzedWithoutSamples(store.sql!, "ANALYZE") : store.sql!.run("ANALYZE events"));
      if (kind === "postgres") await store.sql!.run(`ANALYZE ${LINK_TABLE}`);
      // the load's time, for whoever sizes this test (this process's CPU: SQLite's work, PostgreSQL's is the server's)
      process.stderr.write(`${kind}: ${EVENTS} events seeded in ${seeded - started} ms (${Math.round((used.user + used.system) / 1000)} ms CPU here), analyzed in ${Date.now() - seeded} ms\n`);
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
    /** A read of every event row (SQLite's SCAN of the table itself, PostgreSQL's sequential scan). */
    const SCAN = kind === "sqlite" ? /^SCAN events\b(?! VIRTUAL)/m : /Seq Scan/;
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
        expect(plan).not.toMatch(SCAN);
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
      expect((await events.find(query)).map(d => d._id)).toEqual([LANTERN]);
      // SQLite: the search's one full-text query holds the custom text column. PostgreSQL: the search ORs
      // the custom text's condition with the other texts', each with its trigram index, which the planner
      // reads side by side (BitmapOr) at the full size; on a smaller table it would rather read the site's
      // rows for the OR of four, so there the custom text's own condition is asked, with scans set aside
      const smaller = EVENTS < FULL;
      const asked = kind === "sqlite" || !smaller ? query : { $and: [{ status: { $in: ["publish"] } }, { custom_text: /zyxwvut/i }] };
      const where = compiler().where(asked);
      const sql = `SELECT id FROM events WHERE site = ? AND (${where.sql}) ORDER BY id`;
      const plan = await planOf(sql, [SITE, ...where.params], smaller);
      expect(plan).toMatch(kind === "sqlite" ? /events_fts VIRTUAL TABLE INDEX/ : /Bitmap Index Scan on tx_events_f_custom_text/);
      expect(plan).not.toMatch(SCAN);
      if (kind === "sqlite") expect(where.params).toContain('{title excerpt description custom_text event_status_reason} : "zyxwvut"');
      expect((await events.find(asked)).map(d => d._id)).toEqual([LANTERN]);
      // the link table holds each record's tokens
      const rows = await store.sql!.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${LINK_TABLE} WHERE site = ? AND type = 'events' AND field = '${CUSTOM_LINKS}'`, [SITE]);
      expect(Number(rows[0].n)).toBe(EVENTS * 2);
    });
  });
}

suite("sqlite");
suite("postgres");
