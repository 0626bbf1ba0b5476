/**
 * The planner's statistics on SQLite (store/sql/sqlite-statistics.ts): the store's analyses keep the row
 * counts (sqlite_stat1) and none of the key samples (sqlite_stat4), which would have SQLite compile a list's
 * statements again before every run.
 */
import { openSqlite, type SqlDriver } from "../../store/sql/driver";
import { migrate, refreshStatistics } from "../../store/sql/schema";
import { analyzedWithoutSamples } from "../../store/sql/sqlite-statistics";

describe("SQLite's planner statistics", () => {
  let driver: SqlDriver;

  beforeAll(async () => {
    driver = openSqlite(":memory:");
    await migrate(driver);
    await driver.run("CREATE TABLE sample_rows (k INTEGER NOT NULL, v TEXT NOT NULL)");
    await driver.run("CREATE INDEX ix_sample_rows_k ON sample_rows (k)");
    for (let i = 0; i < 300; i++) await driver.run("INSERT INTO sample_rows (k, v) VALUES (?, ?)", [i % 17, `value ${i}`]);
  });

  afterAll(async () => {
    await driver.close();
  });

  const count = async (table: string) => Number((await driver.all<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);

  test("a plain ANALYZE of this build writes samples (what the store's analyses remove)", async () => {
    await driver.run("ANALYZE");
    expect(await count("sqlite_stat4")).toBeGreaterThan(0);
  });

  test("the store's refresh keeps the row counts and removes the samples", async () => {
    await driver.run("ANALYZE");
    await refreshStatistics(driver);
    expect(await count("sqlite_stat4")).toBe(0);
    const rows = await driver.all<{ idx: string }>("SELECT idx FROM sqlite_stat1 WHERE tbl = 'sample_rows'");
    expect(rows.map(r => r.idx)).toContain("ix_sample_rows_k");
  });

  test("an analysis run through it leaves no samples, and the index is still chosen by its row counts", async () => {
    await analyzedWithoutSamples(driver, "ANALYZE sample_rows");
    expect(await count("sqlite_stat4")).toBe(0);
    const plan = (await driver.all<{ detail: string }>("EXPLAIN QUERY PLAN SELECT v FROM sample_rows WHERE k = ?", [3])).map(r => r.detail).join("\n");
    expect(plan).toMatch(/USING INDEX ix_sample_rows_k/);
  });
});
