/**
 * Kept totals on the SQL stores (store/sql/write-marks.ts, lib/documents/kept-totals.ts, docs/lists.md#counting-a-list):
 * an events count is counted once and answered again while nothing it counts was written, and is exact
 * after any write — by this node, by another node's connection, by a raw statement, by a transaction
 * still open while it was counted, or by one rolled back — on SQLite and PostgreSQL. A list's total in
 * parts (lib/events/due-events.ts `dueCountParts`) follows the clock with no write at all.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { acquireStore, releaseStore, sqliteFile, type IndexSpec, type Store, type StoreConfig } from "../../store";
import type { Collection } from "../../store/collection";
import { sqlCollection } from "../../store/sql/collection";
import { openPostgres, openSqlite, type SqlDriver } from "../../store/sql/driver";
import { buildEventQuery } from "../../lib/events/event-query";
import { dueCountParts, dueStatuses, withDueStatuses } from "../../lib/events/due-events";
import type { Doc, Query } from "../../lib/documents/store-query";
import { createTestDatabase, postgresReachable } from "../helpers/postgres";

const SITE = 1;
const INDEXES: IndexSpec[] = [{ field: "start_date" }, { field: "start_date", then: ["date"] }];
const WINDOW: Query = buildEventQuery({ statuses: ["publish"], bounds: { start_date: "2030-01-01 00:00:00", end_date: "2031-12-31 23:59:59" }, searchAccess: "all" });

const event = (id: number, o: Doc = {}): Doc => ({ _id: id, status: "publish", start_date: "2030-03-01 10:00:00", end_date: "2030-03-01 12:00:00", date_utc: "2029-01-01 00:00:00", title: `Event ${id}`, ...o });

interface Opened { store: Store; other: SqlDriver; close(): Promise<void> }

async function open(kind: "sqlite" | "postgres"): Promise<Opened | undefined> {
  let config: StoreConfig;
  let other: SqlDriver | undefined;
  let drop: () => Promise<void>;
  if (kind === "postgres") {
    if (!(await postgresReachable())) return undefined;
    const db = await createTestDatabase("kept");
    config = { dataDir: ":memory:", databaseUrl: db.url, connectTimeoutMs: 5000 };
    other = openPostgres(db.url);
    drop = () => db.drop();
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kept-"));
    config = { dataDir: dir, connectTimeoutMs: 1000 };
    drop = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  const store = await acquireStore(config);
  // another node's connection to the same database (SQLite: another process's, on the same file)
  const second = other ?? openSqlite(sqliteFile(config.dataDir));
  return { store, other: second, close: async () => { await second.close(); await releaseStore(config); await drop(); } };
}

function suite(kind: "sqlite" | "postgres") {
  describe(`kept totals on ${kind}`, () => {
    let opened: Opened | undefined;
    let events: Collection;
    /** The same table counted through a driver that tells how many counts reached the database. */
    let counted: Collection;
    let counts = 0;
    let statements = 0;

    beforeAll(async () => {
      opened = await open(kind);
      if (!opened) return;
      const { store } = opened;
      await store.ensureIndexes("events", INDEXES);
      events = store.collection("events", INDEXES, SITE);
      for (let id = 1; id <= 20; id++) await events.insert(event(id));
      const driver = store.sql!;
      const tell = (sql: string) => { statements++; if (/COUNT\(\*\)/.test(sql)) counts++; };
      const counting: SqlDriver = {
        ...driver,
        all: (sql, params) => { tell(sql); return driver.all(sql, params); },
        readCommitted: driver.readCommitted ? (sql, params) => { tell(sql); return driver.readCommitted!(sql, params); } : undefined
      };
      counted = sqlCollection(counting, { table: "events", site: SITE, feedTable: "changes", arrays: new Set(), marks: "events" });
    }, 120_000);

    afterAll(async () => {
      await opened?.close();
    });

    const skip = () => { console.warn("PostgreSQL is not reachable: skipped"); };

    test("counted once while nothing is written; every kind of write is seen by the next count", async () => {
      if (!opened) return skip();
      counts = 0;
      expect(await counted.count(WINDOW)).toBe(20);
      expect(await counted.count(WINDOW)).toBe(20);
      expect(counts).toBe(1);
      // this node's write
      await events.insert(event(21));
      expect(await counted.count(WINDOW)).toBe(21);
      expect(counts).toBe(2);
      // another node's write, through its own connection, as a raw statement
      const doc = opened.store.kind === "postgres" ? "?::jsonb" : "jsonb(?)";
      const { _id, ...body } = event(22);
      await opened.other.run(`INSERT INTO events (site, id, doc) VALUES (?, ?, ${doc})`, [SITE, _id as number, JSON.stringify(body)]);
      expect(await counted.count(WINDOW)).toBe(22);
      // an update that takes an event out of the window, and a delete
      await events.updateOne({ _id: 1 }, { $set: { status: "draft" } });
      expect(await counted.count(WINDOW)).toBe(21);
      await events.removeMany({ _id: 2 });
      expect(await counted.count(WINDOW)).toBe(20);
      // a write of another site's events leaves this site's total kept
      const before = counts;
      await opened.store.collection("events", INDEXES, SITE + 1).insert(event(1));
      expect(await counted.count(WINDOW)).toBe(20);
      expect(counts).toBe(before);
      // a translation's write moves the events' marks too (a search in another language reads them)
      await opened.store.collection("translations", [], SITE).insert({ _id: "event:3:fr", title: "Concert" });
      expect(await counted.count(WINDOW)).toBe(20);
      expect(counts).toBe(before + 1);
    });

    test("one store keeps the totals of all its sites and tables, each under its own key, and more than 128 of them", async () => {
      if (!opened) return skip();
      const { store } = opened;
      // the same query on two sites (one store-wide set of kept totals) answers each site's own total
      const here = store.collection("events", INDEXES, SITE + 5);
      const there = store.collection("events", INDEXES, SITE + 6);
      for (let id = 1; id <= 3; id++) await here.insert(event(id));
      await there.insert(event(1));
      expect(await here.count(WINDOW)).toBe(3);
      expect(await there.count(WINDOW)).toBe(1);
      expect(await here.count(WINDOW)).toBe(3);
      expect(await there.count(WINDOW)).toBe(1);
      // 180 filters counted in turn, twice (a list by 20 categories and 9 values of a field): the second
      // round reaches the database for none of them
      const filters = Array.from({ length: 180 }, (_, k) => ({ ...WINDOW, title: `Event ${k}` }));
      const totals = async () => { for (const f of filters) await counted.count(f); };
      await totals();
      counts = 0;
      await totals();
      expect(counts).toBe(0);
    });

    test("32 concurrent counts of one stale total reach the database once", async () => {
      if (!opened) return skip();
      await events.insert(event(30));
      counts = 0;
      const answers = await Promise.all(Array.from({ length: 32 }, () => counted.count(WINDOW)));
      expect(new Set(answers)).toEqual(new Set([21]));
      expect(counts).toBe(1);
    });

    test("a transaction open while the total is counted: its rows are never kept as counted, committed or not", async () => {
      if (!opened) return skip();
      const driver = opened.store.sql!;
      const base = await counted.count(WINDOW);
      const rolledBack = driver.transaction(async tx => {
        const { _id, ...body } = event(40);
        await tx.run(`INSERT INTO events (site, id, doc) VALUES (?, ?, ${kind === "postgres" ? "?::jsonb" : "jsonb(?)"})`, [SITE, _id as number, JSON.stringify(body)]);
        // counted while the insert is not committed (SQLite: on the connection that holds it)
        await counted.count(WINDOW);
        throw new Error("undone");
      });
      await expect(rolledBack).rejects.toThrow("undone");
      expect(await counted.count(WINDOW)).toBe(base);
      // a committed write of an event outside the window moves the marks by as much as the undone one did
      await events.insert(event(41, { start_date: "2040-01-01 10:00:00", end_date: "2040-01-01 11:00:00" }));
      expect(await counted.count(WINDOW)).toBe(base);
      expect(await counted.count(WINDOW)).toBe((await events.find(WINDOW)).length);
      // and one committed while it was open is counted after it
      await driver.transaction(async tx => {
        const { _id, ...body } = event(42);
        await tx.run(`INSERT INTO events (site, id, doc) VALUES (?, ?, ${kind === "postgres" ? "?::jsonb" : "jsonb(?)"})`, [SITE, _id as number, JSON.stringify(body)]);
        await counted.count(WINDOW);
      });
      expect(await counted.count(WINDOW)).toBe(base + 1);
    });

    test("a transaction held open with an event's write never makes another writer wait (PostgreSQL; SQLite has one writer at a time)", async () => {
      if (!opened) return skip();
      if (kind !== "postgres") return;
      const base = await counted.count(WINDOW);
      let release!: () => void;
      const holding = new Promise<void>(resolve => { release = resolve; });
      let wrote!: () => void;
      const written = new Promise<void>(resolve => { wrote = resolve; });
      const held = opened.store.sql!.transaction(async tx => {
        await tx.run("UPDATE events SET doc = doc WHERE site = ? AND id = ?", [SITE, 3]);
        wrote();
        await holding;
      });
      await written;
      // eight writes of other events, each its own transaction, while the held one keeps its mark row
      const others = (async () => {
        for (let id = 60; id < 68; id++) {
          const { _id, ...body } = event(id);
          await opened!.other.run("INSERT INTO events (site, id, doc) VALUES (?, ?, ?::jsonb)", [SITE, _id as number, JSON.stringify(body)]);
        }
        return "done";
      })();
      const first = await Promise.race([others, new Promise(resolve => setTimeout(() => resolve("waited"), 5000))]);
      release();
      await held;
      expect(first).toBe("done");
      expect(await counted.count(WINDOW)).toBe(base + 8);
    });

    test("a list's total in parts follows the clock: a `future` event becomes due with no write", async () => {
      if (!opened) return skip();
      await events.insert(event(50, { status: "future", date_utc: "2030-02-01 00:00:00" }));
      const build = (statuses: string[]) => buildEventQuery({ statuses, bounds: { start_date: "2030-01-01 00:00:00", end_date: "2031-12-31 23:59:59" }, searchAccess: "all" });
      const totalAt = async (now: string) => {
        const parts = dueCountParts(build, dueStatuses(["publish"], now));
        const apart = (await Promise.all(parts.map(p => counted.count(p.query, { moving: p.moving })))).reduce((a, b) => a + b, 0);
        const together = await counted.countParts(parts);
        expect(together).toBe(apart);
        return together;
      };
      const exact = async (now: string) => {
        const due = dueStatuses(["publish"], now);
        return (await events.find(withDueStatuses(build(due.statuses), due.condition))).length;
      };
      const before = await totalAt("2030-01-15 00:00:00");
      expect(before).toBe(await exact("2030-01-15 00:00:00"));
      expect(await totalAt("2030-02-02 00:00:00")).toBe(before + 1);
      expect(await totalAt("2030-02-02 00:00:00")).toBe(await exact("2030-02-02 00:00:00"));
      // kept: one statement counts the moving part and reads the mark that keeps the other
      statements = 0;
      expect(await counted.countParts(dueCountParts(build, dueStatuses(["publish"], "2030-02-02 00:00:00")))).toBe(before + 1);
      expect(statements).toBe(1);
      // not yet due (`future` alone): the other way round
      const future = (now: string) => counted.countParts(dueCountParts(build, dueStatuses(["future"], now)));
      expect(await future("2030-01-15 00:00:00")).toBe(1);
      expect(await future("2030-02-02 00:00:00")).toBe(0);
    });
  });
}

suite("sqlite");
suite("postgres");
