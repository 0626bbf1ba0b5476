/**
 * PostgreSQL plans (store/sql/driver.ts PLANNED): the store's connections plan every execution of a
 * prepared statement for its own parameters — a generic plan, which PostgreSQL otherwise adopts after
 * five runs, cannot tell a search term found in every event from a rare one: a statement run seven
 * times on one connection is planned seven times. Lookups by key (`lookups`) have connections of their own
 * that keep a statement's plan: the same for any key, it was planned for longer than it ran.
 */
import type { SqlDriver } from "../../store/sql/driver";
import { openTestStore, TestStore } from "../helpers/test-store";

describe("PostgreSQL statements planned for their parameters", () => {
  let opened: TestStore | undefined;
  let driver: SqlDriver;

  beforeAll(async () => {
    opened = await openTestStore("postgres", "plans");
    if (opened) driver = opened.store.sql!;
  });

  afterAll(async () => {
    await opened?.close();
  });

  test("every connection of the store plans each execution (no generic plan after five runs)", async () => {
    if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
    const settings = await Promise.all(Array.from({ length: 4 }, () => driver.all<{ plan_cache_mode: string }>("SHOW plan_cache_mode")));
    for (const [row] of settings) expect(row.plan_cache_mode).toBe("force_custom_plan");
    // one statement run seven times on one connection: planned seven times, never generically
    await driver.run("CREATE TABLE skewed (id INTEGER PRIMARY KEY, tag TEXT NOT NULL)");
    await driver.run("INSERT INTO skewed SELECT g, CASE WHEN g = 1 THEN 'rare' ELSE 'common' END FROM generate_series(1, 2000) g");
    const counts = await driver.transaction(async tx => {
      for (let i = 0; i < 7; i++) await tx.all("SELECT count(*) AS n FROM skewed WHERE tag = ?", [i % 2 ? "rare" : "common"]);
      return tx.all<{ generic_plans: string; custom_plans: string }>(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE 'SELECT count(*) AS n FROM skewed%'");
    });
    expect(counts).toHaveLength(1);
    expect(Number(counts[0].generic_plans)).toBe(0);
    expect(Number(counts[0].custom_plans)).toBe(7);
  });

  test("lookups by key run on connections of their own that keep one plan per statement, and answer as the others do", async () => {
    if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
    const lookups = driver.lookups!;
    expect(lookups).toBeDefined();
    expect(lookups).not.toBe(driver);
    const [mode] = await lookups.all<{ plan_cache_mode: string }>("SHOW plan_cache_mode");
    expect(mode.plan_cache_mode).toBe("auto");
    await driver.run("CREATE TABLE keyed (id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
    await driver.run("INSERT INTO keyed SELECT g, 'name ' || g FROM generate_series(1, 2000) g");
    // run one after another, the lookups take the pool's one idle connection each time
    for (let i = 1; i <= 8; i++) {
      const [viaLookups] = await lookups.all<{ name: string }>("SELECT name FROM keyed WHERE id = ?", [i * 7]);
      const [viaDriver] = await driver.all<{ name: string }>("SELECT name FROM keyed WHERE id = ?", [i * 7]);
      expect(viaLookups).toEqual({ name: `name ${i * 7}` });
      expect(viaLookups).toEqual(viaDriver);
    }
    const [plans] = await lookups.all<{ generic_plans: string; custom_plans: string }>(
      "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE 'SELECT name FROM keyed%'");
    expect(Number(plans.generic_plans)).toBeGreaterThan(0);
    expect(Number(plans.generic_plans) + Number(plans.custom_plans)).toBe(8);
  });

  test("inside a shared transaction a lookup runs on the transaction's connection and sees its writes", async () => {
    if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
    await driver.run("CREATE TABLE IF NOT EXISTS keyed_tx (id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
    const seen = await driver.shared!(async () => {
      await driver.run("INSERT INTO keyed_tx (id, name) VALUES (?, ?)", [1, "written, not committed"]);
      return driver.lookups!.all<{ name: string }>("SELECT name FROM keyed_tx WHERE id = ?", [1]);
    });
    expect(seen).toEqual([{ name: "written, not committed" }]);
  });

  test("a record read by its id is a lookup: its statement keeps its plan on the lookups' connections", async () => {
    if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
    const venues = opened.store.collection("venues", []);
    for (let i = 1; i <= 3; i++) await venues.insert({ _id: 900 + i, title: `Hall ${i}` });
    for (let i = 0; i < 8; i++) expect(await venues.findOne({ _id: 901 + (i % 3) })).toMatchObject({ _id: 901 + (i % 3), title: `Hall ${1 + (i % 3)}` });
    expect(await venues.findOne({ _id: 999 })).toBeNull();
    const plans = await driver.lookups!.all<{ generic_plans: string }>(
      "SELECT generic_plans FROM pg_prepared_statements WHERE statement LIKE 'SELECT id, doc FROM venues WHERE site = $1 AND (id = $2) LIMIT 1%'");
    expect(plans).toHaveLength(1);
    expect(Number(plans[0].generic_plans)).toBeGreaterThan(0);
  });
});
