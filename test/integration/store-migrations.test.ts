/**
 * Migrations (store/sql/schema.ts): a database written by an older version of the schema is upgraded in
 * place at start, its records kept; many nodes starting at once apply each migration once.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { openPostgres, openSqlite, SqlDriver } from "../../store/sql/driver";
import { appliedVersions, LINK_FIELDS, LINK_TABLE, migrate, MIGRATION_LOCK, MIGRATIONS } from "../../store/sql/schema";
import { FILL_INDEX, linkPairsFill } from "../../store/sql/link-pairs";
import { pairMembersFill } from "../../store/sql/pair-members";
import { acquireStore, releaseStore, StoreConfig } from "../../store";
import { createTestDatabase, TestDatabase } from "../helpers/postgres";

const LATEST = MIGRATIONS[MIGRATIONS.length - 1].version;

function suite(name: string, open: () => Promise<{ driver: () => SqlDriver; config: StoreConfig; cleanup(): Promise<void> }>) {
  describe(name, () => {
    test("a database of schema version 1 is upgraded in place at start; its records stay", async () => {
      const env = await open();
      try {
        const old = env.driver();
        expect(await migrate(old, 1)).toEqual([1]);
        expect(await appliedVersions(old)).toEqual([1]);
        const doc = old.dialect === "sqlite" ? "jsonb(?)" : "?::jsonb";
        await old.run(`INSERT INTO events (site, id, doc) VALUES (1, 7, ${doc})`, [JSON.stringify({ title: "Written by version 1", status: "publish", slug: "v1" })]);
        await old.close();

        // the service's start-up opens the store: every later migration runs, once
        const store = await acquireStore(env.config);
        const events = store.collection("events", []);
        expect(await events.findOne({ _id: 7 })).toMatchObject({ _id: 7, title: "Written by version 1", slug: "v1" });
        expect(await appliedVersions(store.sql!)).toEqual(MIGRATIONS.map(m => m.version));
        const sites = await store.sql!.all<{ n: number | string }>("SELECT COUNT(*) AS n FROM sites");
        expect(Number(sites[0].n)).toBe(0);
        await releaseStore(env.config);
      } finally {
        await env.cleanup();
      }
    });

    test("a database of schema version 4: the link table is filled from its records at upgrade, then kept", async () => {
      const env = await open();
      try {
        const old = env.driver();
        expect(await migrate(old, 4)).toEqual([1, 2, 3, 4]);
        const doc = old.dialect === "sqlite" ? "jsonb(?)" : "?::jsonb";
        const write = (site: number, id: number, d: object) => old.run(`INSERT INTO events (site, id, doc) VALUES (?, ?, ${doc})`, [site, id, JSON.stringify(d)]);
        await write(1, 1, { title: "a", categories: [10, 11], venues: [20], tags: [], organizers: [30] });
        await write(1, 2, { title: "b", categories: [11], venues: 21, tags: ["x"] });
        await write(2, 1, { title: "other site", categories: [10], venues: [20] });
        await old.run(`INSERT INTO venue_locations (site, id, doc) VALUES (1, 20, ${doc})`, [JSON.stringify({ cells: [7, 8, 9], searchable: true })]);
        await old.close();

        const store = await acquireStore(env.config);
        expect(await appliedVersions(store.sql!)).toEqual(MIGRATIONS.map(m => m.version));
        const links = await store.sql!.all<{ site: number | string; type: string; field: string; target: number | string; id: number | string }>(
          `SELECT site, type, field, target, id FROM ${LINK_TABLE} ORDER BY site, type, id, field, target`);
        expect(links.map(l => `${l.site} ${l.type} ${l.id} ${l.field} ${l.target}`)).toEqual([
          "1 events 1 categories 10", "1 events 1 categories 11", "1 events 1 organizers 30", "1 events 1 venues 20",
          "1 events 2 categories 11", "1 events 2 venues 21",
          "1 venue_locations 20 cells 7", "1 venue_locations 20 cells 8", "1 venue_locations 20 cells 9",
          "2 events 1 categories 10", "2 events 1 venues 20"
        ]);
        const events = store.collection("events", []);
        expect((await events.find({ categories: 11, venues: { $in: [20, 21] } }, { sort: { _id: 1 } })).map(d => d._id)).toEqual([1, 2]);
        // the triggers keep it from here on
        await events.updateOne({ _id: 1 }, { $set: { categories: [12] } });
        expect((await events.find({ categories: { $in: [10, 11] } })).map(d => d._id)).toEqual([2]);
        expect((await store.collection("venue_locations", []).find({ cells: { $in: [8] } })).map(d => d._id)).toEqual([20]);
        await releaseStore(env.config);
      } finally {
        await env.cleanup();
      }
    });

    test("a database of schema version 14: its events' publication dates join the window columns at upgrade", async () => {
      const env = await open();
      try {
        const old = env.driver();
        expect(await migrate(old, 14)).toEqual(MIGRATIONS.filter(m => m.version <= 14).map(m => m.version));
        const doc = old.dialect === "sqlite" ? "jsonb(?)" : "?::jsonb";
        const base = { start_date: "2030-03-01 09:00:00", end_date: "2030-03-01 11:00:00" };
        const written: Array<[number, object]> = [
          [1, { ...base, status: "publish", date_utc: "2030-01-01 00:00:00" }],
          [2, { ...base, status: "future", date_utc: "2030-01-15 00:00:00" }],
          [3, { ...base, status: "future", date_utc: "2030-06-01 00:00:00" }],
          [4, { ...base, status: "future", date_utc: 20300101 }],
          [5, { ...base, status: "future" }]
        ];
        for (const [id, d] of written) await old.run(`INSERT INTO events (site, id, doc) VALUES (1, ?, ${doc})`, [id, JSON.stringify(d)]);
        await old.close();

        const store = await acquireStore(env.config);
        expect(await appliedVersions(store.sql!)).toEqual(MIGRATIONS.map(m => m.version));
        const events = store.collection("events", []);
        // published, or `future` and due on 2030-02-01 (C13: a due `future` post counts as published; lib/events/due-events.ts): counted on the columns, read from the documents
        const due = { $and: [{ status: { $in: ["publish", "future"] } }, { $or: [{ status: { $ne: "future" } }, { date_utc: { $lte: "2030-02-01 00:00:00" } }] }] };
        expect((await events.find(due, { sort: { _id: 1 } })).map(d => d._id)).toEqual([1, 2]);
        expect(await events.count(due)).toBe(2);
        if (store.sql!.dialect === "postgres") {
          // the table its new stored column rewrote was vacuumed: its pages all visible, so counts read the index alone
          const [pages] = await store.sql!.all<{ visible: number | string }>("SELECT relallvisible AS visible FROM pg_class WHERE relname = 'events' AND relnamespace = current_schema()::regnamespace");
          expect(Number(pages.visible)).toBeGreaterThan(0);
        }
        // the column follows a write of the document
        await events.updateOne({ _id: 3 }, { $set: { date_utc: "2030-01-20 00:00:00" } });
        expect(await events.count(due)).toBe(3);
        await releaseStore(env.config);
      } finally {
        await env.cleanup();
      }
    });

    test("a database of schema version 31: its records' link pairs are counted and their members listed at upgrade, then kept", async () => {
      const env = await open();
      try {
        const old = env.driver();
        expect(await migrate(old, 31)).toEqual(MIGRATIONS.filter(m => m.version <= 31).map(m => m.version));
        const doc = old.dialect === "sqlite" ? "jsonb(?)" : "?::jsonb";
        const write = (site: number, id: number, d: object) => old.run(`INSERT INTO events (site, id, doc) VALUES (?, ?, ${doc})`, [site, id, JSON.stringify(d)]);
        await write(1, 1, { title: "a", categories: [10, 11], venues: [20] });
        await write(1, 2, { title: "b", categories: [11], venues: 21, organizers: [30] });
        await write(1, 3, { title: "c", categories: [11], venues: [20] });
        await write(2, 1, { title: "other site", categories: [10], venues: [21] });
        await old.close();

        const store = await acquireStore(env.config);
        expect(await appliedVersions(store.sql!)).toEqual(MIGRATIONS.map(m => m.version));
        const pairs = async () => (await store.sql!.all<{ k: string; n: number | string }>(
          "SELECT site || ' ' || a_field || ' ' || a_target || ' ' || b_field || ' ' || b_target AS k, SUM(n) AS n FROM link_pairs " +
          "WHERE type = 'events' GROUP BY site, a_field, a_target, b_field, b_target")).filter(r => Number(r.n) !== 0).map(r => `${r.k} ${Number(r.n)}`).sort();
        expect(await pairs()).toEqual([
          "1 categories 10 categories 11 1", "1 categories 10 venues 20 1", "1 categories 11 organizers 30 1", "1 categories 11 venues 20 2",
          "1 categories 11 venues 21 1", "1 organizers 30 venues 21 1", "2 categories 10 venues 21 1"
        ].sort());
        if (store.sql!.dialect === "sqlite") {
          // the index the fill joined through is the migration's own: gone once it is done
          expect(await store.sql!.all("SELECT name FROM sqlite_master WHERE name = 'ix_links_pair_fill'")).toEqual([]);
          // with it, each record's links are found by the record's id (without it, a large store's links were compared with every other)
          await store.sql!.run(FILL_INDEX.made);
          for (const fill of [linkPairsFill("sqlite", "events", LINK_FIELDS.events), pairMembersFill("sqlite", "events", LINK_FIELDS.events)]) {
            const plan = await store.sql!.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${fill}`);
            expect(plan.map(p => p.detail).join("\n")).toMatch(/SEARCH b USING (COVERING )?INDEX ix_links_pair_fill \(type=\? AND site=\? AND id=\?/);
          }
          await store.sql!.run(FILL_INDEX.dropped);
        }
        // and the records holding each pair (store/sql/pair-members.ts), made at upgrade too
        const members = await store.sql!.all<{ k: string }>(
          "SELECT site || ' ' || a_field || ' ' || a_target || ' ' || b_field || ' ' || b_target || ' ' || id AS k FROM link_pair_members WHERE type = 'events'");
        expect(members.map(m => m.k).sort()).toEqual([
          "1 categories 10 categories 11 1", "1 categories 10 venues 20 1", "1 categories 11 venues 20 1", "1 categories 11 organizers 30 2",
          "1 categories 11 venues 21 2", "1 organizers 30 venues 21 2", "1 categories 11 venues 20 3", "2 categories 10 venues 21 1"
        ].sort());
        const events = store.collection("events", []);
        expect((await events.find({ $and: [{ categories: 11 }, { venues: 20 }] }, { sort: { _id: 1 } })).map(d => d._id)).toEqual([1, 3]);
        expect(await events.find({ $and: [{ categories: 10 }, { venues: 21 }] })).toEqual([]);
        // the triggers keep them from here on
        await events.updateOne({ _id: 3 }, { $set: { venues: [21] } });
        expect((await events.find({ $and: [{ categories: 11 }, { venues: 21 }] }, { sort: { _id: 1 } })).map(d => d._id)).toEqual([2, 3]);
        expect(await pairs()).toContain("1 categories 11 venues 20 1");
        await releaseStore(env.config);
      } finally {
        await env.cleanup();
      }
    });

    test("a database of schema version 36: its event write triggers are made again at upgrade, and keep what the older ones kept", async () => {
      const env = await open();
      try {
        const old = env.driver();
        expect(await migrate(old, 36)).toEqual(MIGRATIONS.filter(m => m.version <= 36).map(m => m.version));
        const doc = old.dialect === "sqlite" ? "jsonb(?)" : "?::jsonb";
        const write = (table: string, id: number, d: object) => old.run(`INSERT INTO ${table} (site, id, doc) VALUES (1, ?, ${doc})`, [id, JSON.stringify(d)]);
        await write("terms", 1, { taxonomy: "category", slug: "top", parent: 0, count: 0, tree_count: 0 });
        await write("terms", 2, { taxonomy: "category", slug: "child", parent: 1, count: 0, tree_count: 0 });
        await write("events", 1, { status: "publish", categories: [2], venues: [20] });
        await old.close();

        const store = await acquireStore(env.config);
        expect(await appliedVersions(store.sql!)).toEqual(MIGRATIONS.map(m => m.version));
        // the triggers as written now: a record's elements read once (SQLite), a term's own counts in one update
        if (store.sql!.dialect === "sqlite") {
          const [pairs] = await store.sql!.all<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'events_pairs_ai'");
          expect(pairs.sql).toContain("MATERIALIZED");
        } else {
          const [fn] = await store.sql!.all<{ src: string }>("SELECT prosrc AS src FROM pg_proc WHERE proname = 'events_term_counts'");
          expect(fn.src).not.toContain("terms_tree_shift");
        }
        const events = store.collection("events", []);
        await events.insert({ _id: 2, status: "publish", categories: [1, 2], venues: [20], organizers: [30] });
        await events.updateOne({ _id: 1 }, { $set: { categories: [1] } });
        const terms = store.collection("terms", []);
        expect((await terms.find({}, { sort: { _id: 1 } })).map(t => [t._id, t.count, t.tree_count])).toEqual([[1, 2, 3], [2, 1, 1]]);
        const members = await store.sql!.all<{ k: string }>(
          "SELECT a_field || ' ' || a_target || ' ' || b_field || ' ' || b_target || ' ' || id AS k FROM link_pair_members WHERE type = 'events'");
        expect(members.map(m => m.k).sort()).toEqual([
          "categories 1 categories 2 2", "categories 1 organizers 30 2", "categories 1 venues 20 1", "categories 1 venues 20 2",
          "categories 2 organizers 30 2", "categories 2 venues 20 2", "organizers 30 venues 20 2"
        ].sort());
        await releaseStore(env.config);
      } finally {
        await env.cleanup();
      }
    });

    test("numbering continues past every number drawn by the older version (its counters and its records)", async () => {
      const env = await open();
      try {
        const old = env.driver();
        await migrate(old, 1);
        const doc = old.dialect === "sqlite" ? "jsonb(?)" : "?::jsonb";
        // version 1 numbered with counter rows: posts up to 41 (the newest post 40), the feed up to 7
        await old.run("INSERT INTO sequences (site, name, value) VALUES (1, 'posts', 41), (1, 'changes', 7), (1, 'terms', 3)");
        await old.run("INSERT INTO post_types (site, id, type) VALUES (1, 40, 'event')");
        await old.run(`INSERT INTO changes (site, id, doc) VALUES (1, 7, ${doc})`, [JSON.stringify({ key: "post:40", after: { status: "publish" } })]);
        await old.close();

        const store = await acquireStore(env.config);
        const reg = store.registry(1);
        const post = await reg.allocate("posts", "event");
        // SQLite numbers posts past the highest id recorded; PostgreSQL past the counter too
        expect(post).toBe(old.dialect === "sqlite" ? 41 : 42);
        expect(await reg.allocate("terms", "category")).toBe(4);
        const feed = store.collection("changes", [{ field: "key", thenById: true }]);
        const entry = await feed.append({ key: "post:40", after: { status: "draft" } }, { match: "key", from: "after", into: "before" });
        // SQLite: one past the highest; PostgreSQL: the writing transaction's place, past every older entry (store/sql/term-counts.ts feed_id)
        expect(entry).toMatchObject({ before: { status: "publish" } });
        if (old.dialect === "sqlite") expect(entry._id).toBe(8);
        else expect(entry._id).toBeGreaterThan(7);
        await releaseStore(env.config);
      } finally {
        await env.cleanup();
      }
    });

    test("nodes starting at once apply each migration once", async () => {
      const env = await open();
      try {
        const drivers = [env.driver(), env.driver(), env.driver(), env.driver()];
        const applied = await Promise.all(drivers.map(d => migrate(d)));
        expect(applied.flat().sort()).toEqual(MIGRATIONS.map(m => m.version).sort());
        for (const d of drivers) expect(await appliedVersions(d)).toEqual(MIGRATIONS.map(m => m.version));
        expect(Math.max(...(await appliedVersions(drivers[0])))).toBe(LATEST);
        await Promise.all(drivers.map(d => d.close()));
      } finally {
        await env.cleanup();
      }
    });

    test("nodes starting at once create the services' indexes at once: every node starts", async () => {
      const env = await open();
      // Four nodes of one store: each its own pool (a store is opened once per process and URL).
      const configs = [1, 2, 3, 4].map(n => ({ ...env.config, ...(env.config.databaseUrl ? { databaseUrl: `${env.config.databaseUrl}?application_name=node${n}` } : {}) }));
      const indexes = [{ field: "status" }, { field: "slug" }, { field: "start_date" }, { field: "end_date" }, { field: "start_date", then: ["date"] }, { field: "translations", array: true }];
      try {
        const stores = await Promise.all(configs.map(c => acquireStore(c)));
        for (let round = 0; round < 5; round++) {
          const table = `nodes_${round}`;
          const started = await Promise.allSettled(stores.flatMap(s => [s.ensureIndexes(table, indexes), s.ensureIndexes("events", indexes)]));
          expect(started.filter(r => r.status === "rejected").map(r => String((r as PromiseRejectedResult).reason))).toEqual([]);
        }
      } finally {
        await Promise.all(configs.map(c => releaseStore(c)));
        await env.cleanup();
      }
    });
  });
}

suite("migrations on SQLite", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "migrations-"));
  const file = path.join(dir, "calendar.sqlite3");
  return {
    driver: () => openSqlite(file),
    config: { dataDir: dir, connectTimeoutMs: 1000 },
    cleanup: async () => fs.rmSync(dir, { recursive: true, force: true })
  };
});

suite("migrations on PostgreSQL", async () => {
  const db: TestDatabase = await createTestDatabase("migrations");
  return {
    driver: () => openPostgres(db.url),
    config: { dataDir: ":memory:", databaseUrl: db.url, connectTimeoutMs: 5000 },
    cleanup: () => db.drop()
  };
});

describe("the event write's trigger functions keep their plans (PostgreSQL, migration 17)", () => {
  test("each runs with plan_cache_mode auto, whatever the connection's; feed_id in PL/pgSQL, 1 024 entries to a transaction (migration 27)", async () => {
    const db = await createTestDatabase("kept_plans");
    const driver = openPostgres(db.url);
    try {
      await migrate(driver);
      const fns = await driver.all<{ proname: string; lang: string; config: string[] | null }>(
        "SELECT p.proname, l.lanname AS lang, p.proconfig AS config FROM pg_proc AS p JOIN pg_language AS l ON l.oid = p.prolang " +
        "WHERE p.proname IN ('feed_id', 'events_term_counts', 'terms_tree_shift', 'terms_tree_moves', 'events_links', 'venue_locations_links', " +
        "'events_marks_events', 'translations_marks_events', 'write_mark') ORDER BY p.proname");
      expect(fns.map(f => f.proname)).toEqual(["events_links", "events_marks_events", "events_term_counts", "feed_id", "terms_tree_moves", "terms_tree_shift",
        "translations_marks_events", "venue_locations_links", "write_mark"]);
      for (const f of fns) expect(f.config).toEqual(["plan_cache_mode=auto"]);
      expect(fns.find(f => f.proname === "feed_id")!.lang).toBe("plpgsql");
      // one transaction's entries: its slot, FEED_ID_STEP apart; a key's next entry just past its newest
      const ids = await driver.transaction(async tx => {
        const base = Number((await tx.all<{ x: string }>("SELECT pg_current_xact_id()::text::bigint * 65536 AS x"))[0].x);
        const first = Number((await tx.all<{ id: string }>("INSERT INTO changes (site, id, doc) VALUES (1, feed_id(1, '\"post:1\"'::jsonb), '{\"key\": \"post:1\"}'::jsonb) RETURNING id"))[0].id);
        const second = Number((await tx.all<{ id: string }>("INSERT INTO changes (site, id, doc) VALUES (1, feed_id(1, '\"post:2\"'::jsonb), '{\"key\": \"post:2\"}'::jsonb) RETURNING id"))[0].id);
        return [first - base, second - base];
      });
      expect(ids).toEqual([0, 64]);
      // a batch written in one transaction (store/sql/shared-transaction.ts): its 1 024 entries stay in its slot, each its own id
      const batch = await driver.transaction(async tx => {
        const base = Number((await tx.all<{ x: string }>("SELECT pg_current_xact_id()::text::bigint * 65536 AS x"))[0].x);
        const out: number[] = [];
        for (let k = 0; k < 1024; k++) {
          out.push(Number((await tx.all<{ id: string }>(`INSERT INTO changes (site, id, doc) VALUES (1, feed_id(1, '"batch:${k}"'::jsonb), '{"key": "batch:${k}"}'::jsonb) RETURNING id`))[0].id) - base);
        }
        return out;
      });
      expect(new Set(batch).size).toBe(1024);
      expect(Math.max(...batch)).toBeLessThan(65536);
    } finally {
      await driver.close();
      await db.drop();
    }
  });
});

describe("a migration outlasts the deadlines of requests (PostgreSQL)", () => {
  test("statements of an unbounded transaction (a migration's) run past the statement and query deadlines; others stop at them", async () => {
    const db = await createTestDatabase("unbounded");
    // deadlines of 300 ms (the service's are 10 s): a statement of 600 ms is past them
    const driver = openPostgres(db.url, { statementTimeoutMs: 300 });
    try {
      const refused = await driver.all("SELECT pg_sleep(0.6)").then(() => undefined, (err: unknown) => err);
      expect(String(refused)).toMatch(/statement timeout|timeout/i);
      const inside = await driver.transaction(tx => tx.all("SELECT pg_sleep(0.6) AS slept"), { unbounded: true });
      expect(inside).toHaveLength(1);
      // the lifted deadline ends with the transaction (SET LOCAL)
      const [after] = await driver.all<{ statement_timeout: string }>("SHOW statement_timeout");
      expect(after.statement_timeout).toBe("300ms");
      const bounded = await driver.transaction(tx => tx.all("SELECT pg_sleep(0.6)")).then(() => undefined, (err: unknown) => err);
      expect(String(bounded)).toMatch(/timeout/i);
    } finally {
      await driver.close();
      await db.drop();
    }
  });

  test("migrate() runs each migration unbounded", async () => {
    const db = await createTestDatabase("unbounded_migrate");
    const driver = openPostgres(db.url, { statementTimeoutMs: 300 });
    const seen: string[] = [];
    const transaction = driver.transaction.bind(driver);
    // what each migration's transaction is asked for
    driver.transaction = (fn, opts) => {
      seen.push(opts?.unbounded ? "unbounded" : "bounded");
      return transaction(fn, opts);
    };
    try {
      await migrate(driver);
      expect(seen.length).toBe(MIGRATIONS.length);
      expect(new Set(seen)).toEqual(new Set(["unbounded"]));
    } finally {
      await driver.close();
      await db.drop();
    }
  });

  test("a node starting behind another's long migration waits for its lock past the lock deadline, says so once, then finds the schema made", async () => {
    const db = await createTestDatabase("unbounded_lock");
    const holder = openPostgres(db.url);
    // a lock deadline of 300 ms (the service's is 30 s); the other node holds the migration lock 900 ms
    const waiter = openPostgres(db.url, { lockTimeoutMs: 300 });
    try {
      let release!: () => void;
      const held = new Promise<void>(resolve => { release = resolve; });
      let locked!: () => void;
      const isLocked = new Promise<void>(resolve => { locked = resolve; });
      let holderWaits = 0;
      await migrate(holder, 3, () => holderWaits++);
      // nobody held the lock: no wait told
      expect(holderWaits).toBe(0);
      const holding = holder.withLock(MIGRATION_LOCK, async () => {
        locked();
        await held;
      }, { unbounded: true });
      await isLocked;
      // a bounded wait gives up at the deadline
      const bounded = await waiter.withLock(MIGRATION_LOCK, async () => "got it").then(() => "got it", (err: unknown) => String(err));
      expect(bounded).toMatch(/timeout/i);
      setTimeout(() => release(), 900);
      const started = Date.now();
      let waits = 0;
      expect(await migrate(waiter, Infinity, () => waits++)).toEqual(MIGRATIONS.filter(m => m.version > 3).map(m => m.version));
      expect(Date.now() - started).toBeGreaterThan(300);
      // the wait was told, once (the service logs it: store/index.ts)
      expect(waits).toBe(1);
      await holding;
      // the waiter's lock connection is back to its deadline
      const again = await waiter.withLock(MIGRATION_LOCK, async () => "got it");
      expect(again).toBe("got it");
    } finally {
      await Promise.all([holder.close(), waiter.close()]);
      await db.drop();
    }
  });
});
