/**
 * Migrations (store/sql/schema.ts): a database written by an older version of the schema is upgraded in
 * place at start, its records kept; many nodes starting at once apply each migration once.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { openPostgres, openSqlite, SqlDriver } from "../../store/sql/driver";
import { appliedVersions, migrate, MIGRATIONS } from "../../store/sql/schema";
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
