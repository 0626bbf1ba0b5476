/**
 * PostgreSQL upkeep (store/sql/upkeep.ts): where the server's autovacuum is off, as on this machine, the
 * store vacuums the tables autovacuum's thresholds say are due — a small table whose rows were updated
 * many times (a term's count) is, an untouched one is not — and the dead versions are gone after. Where
 * autovacuum runs, the store leaves vacuuming to it.
 */
import type { SqlDriver } from "../../store/sql/driver";
import { vacuumWhereNeeded } from "../../store/sql/upkeep";
import { openTestStore, TestStore } from "../helpers/test-store";

describe("PostgreSQL upkeep where autovacuum is off", () => {
  let opened: TestStore | undefined;
  let driver: SqlDriver;

  beforeAll(async () => {
    opened = await openTestStore("postgres", "upkeep");
    if (opened) driver = opened.store.sql!;
  });

  afterAll(async () => {
    await opened?.close();
  });

  /** The dead row versions the server counts for `table`, once its statistics have caught up. */
  async function deadRows(table: string, until: (n: number) => boolean): Promise<number> {
    let n = -1;
    for (let i = 0; i < 50; i++) {
      const [row] = await driver.all<{ n: string }>("SELECT n_dead_tup AS n FROM pg_stat_user_tables WHERE relname = ?", [table]);
      n = Number(row?.n ?? -1);
      if (until(n)) return n;
      await new Promise(r => setTimeout(r, 100));
    }
    return n;
  }

  test("a table whose rows were updated many times is vacuumed; an untouched one is left", async () => {
    if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
    const [setting] = await driver.all<{ a: string }>("SELECT current_setting('autovacuum') AS a");
    await driver.run("CREATE TABLE counted (id INTEGER PRIMARY KEY, doc JSONB NOT NULL)");
    await driver.run("CREATE INDEX ix_counted_doc ON counted ((doc -> 'count'))");
    await driver.run("CREATE TABLE quiet (id INTEGER PRIMARY KEY)");
    await driver.run("INSERT INTO counted SELECT g, jsonb_build_object('count', 0) FROM generate_series(1, 10) g");
    await driver.run("INSERT INTO quiet SELECT g FROM generate_series(1, 10) g");
    // a term count moved 30 times per term: never a HOT update, since an index is built on the document
    for (let i = 0; i < 30; i++) await driver.run("UPDATE counted SET doc = jsonb_build_object('count', (doc ->> 'count')::int + 1)");
    expect(await deadRows("counted", n => n >= 300)).toBeGreaterThanOrEqual(300);

    const vacuumed = await vacuumWhereNeeded(driver);
    if (setting.a !== "off") {
      expect(vacuumed).toEqual([]);
      return console.warn("autovacuum runs on this server: the store leaves vacuuming to it");
    }
    expect(vacuumed).toContain("counted");
    expect(vacuumed).not.toContain("quiet");
    expect(await deadRows("counted", n => n === 0)).toBe(0);
    // nothing is due any more
    expect(await vacuumWhereNeeded(driver)).not.toContain("counted");
  });
});
