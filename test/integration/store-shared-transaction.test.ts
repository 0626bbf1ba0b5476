/**
 * One transaction shared by a piece of work (store/sql/shared-transaction.ts, SqlDriver `shared`): on
 * PostgreSQL everything the work writes commits together and is seen by nobody before; a step is undone
 * alone; what the work tells others waits for the commit; work under a lock commits on its own; another
 * driver's statements are not part of it. SQLite has no shared transaction (its group commit shares
 * commits already), which the SQLite run checks.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openPostgres, openSqlite, type SqlDriver } from "../../store/sql/driver";
import { afterCommit, StepUndone } from "../../store/sql/shared-transaction";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres";

const onPostgres = process.env.TEST_STORE === "postgres";
const pgTest = onPostgres ? test : test.skip;

describe(`a transaction shared by a piece of work (${onPostgres ? "PostgreSQL" : "SQLite"})`, () => {
  let db: TestDatabase | undefined;
  let dir: string | undefined;
  let driver: SqlDriver;
  let other: SqlDriver;
  const rows = async (d: SqlDriver = other) => (await d.all<{ v: string }>("SELECT v FROM shared_t ORDER BY id")).map(r => r.v);

  beforeAll(async () => {
    if (onPostgres) {
      db = await createTestDatabase("shared");
      driver = openPostgres(db.url, { max: 3 });
      other = openPostgres(db.url, { max: 3 });
      await driver.run("CREATE TABLE shared_t (id serial PRIMARY KEY, v text UNIQUE)");
    } else {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "shared-"));
      driver = openSqlite(path.join(dir, "calendar.sqlite3"));
      other = driver;
    }
  });
  beforeEach(async () => {
    if (onPostgres) await driver.run("DELETE FROM shared_t");
  });
  afterAll(async () => {
    await driver.close();
    if (other !== driver) await other.close();
    await db?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  (onPostgres ? test.skip : test)("SQLite: the driver offers none, so callers write as they would without it", () => {
    expect(driver.shared).toBeUndefined();
  });

  pgTest("what the work writes is seen by no other connection before the commit, and by all after", async () => {
    let seenInside: string[] = [];
    await driver.shared!(async () => {
      await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["a"]);
      await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["b"]);
      seenInside = await rows();
      // the work's own statements see its writes
      expect(await rows(driver)).toEqual(["a", "b"]);
    });
    expect(seenInside).toEqual([]);
    expect(await rows()).toEqual(["a", "b"]);
  });

  pgTest("work that throws leaves nothing written", async () => {
    await expect(driver.shared!(async () => {
      await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["a"]);
      throw new Error("failed after a write");
    })).rejects.toThrow("failed after a write");
    expect(await rows()).toEqual([]);
  });

  pgTest("a step whose statement fails is undone alone: the steps around it are committed", async () => {
    await driver.shared!(async () => {
      await driver.transaction(async () => driver.run("INSERT INTO shared_t (v) VALUES (?)", ["a"]));
      await expect(driver.transaction(async () => {
        await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["b"]);
        await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["a"]);
      })).rejects.toThrow();
      await driver.transaction(async () => driver.run("INSERT INTO shared_t (v) VALUES (?)", ["c"]));
    });
    expect(await rows()).toEqual(["a", "c"]);
  });

  pgTest("a step whose work went on after a failed statement is undone and says so (StepUndone)", async () => {
    await driver.shared!(async () => {
      await expect(driver.transaction(async () => {
        await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["a"]);
        await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["a"]).catch(() => undefined);
        return "answered as if written";
      })).rejects.toBeInstanceOf(StepUndone);
      await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["b"]);
    });
    expect(await rows()).toEqual(["b"]);
  });

  pgTest("a statement that failed outside any step rolls everything back, even when the work went on", async () => {
    await expect(driver.shared!(async () => {
      await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["a"]);
      await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["a"]).catch(() => undefined);
    })).rejects.toThrow(/nothing of it was written/);
    expect(await rows()).toEqual([]);
  });

  pgTest("steps begun at once take turns, and a step inside a step nests", async () => {
    await driver.shared!(async () => {
      await Promise.all(["a", "b", "c", "d"].map(v => driver.transaction(async () => {
        await driver.run("INSERT INTO shared_t (v) VALUES (?)", [v]);
        await driver.transaction(async () => driver.run("INSERT INTO shared_t (v) VALUES (?)", [`${v}2`]));
      })));
    });
    expect((await rows()).sort()).toEqual(["a", "a2", "b", "b2", "c", "c2", "d", "d2"]);
  });

  pgTest("what the work tells others runs after the commit, and not at all after a rollback", async () => {
    const told: string[][] = [];
    await driver.shared!(async () => {
      await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["a"]);
      await afterCommit(async () => { told.push(await rows()); });
      expect(told).toEqual([]);
    });
    expect(told).toEqual([["a"]]);
    await expect(driver.shared!(async () => {
      await afterCommit(() => told.push(["rolled back"]));
      throw new Error("no");
    })).rejects.toThrow("no");
    expect(told).toEqual([["a"]]);
    // outside a shared transaction: at once
    await afterCommit(() => told.push(["now"]));
    expect(told).toEqual([["a"], ["now"]]);
  });

  pgTest("work under a lock commits on its own, before the lock is let go", async () => {
    let seenAfterLock: string[] = [];
    await driver.shared!(async () => {
      await driver.withLock(41_100_001, async () => driver.run("INSERT INTO shared_t (v) VALUES (?)", ["locked"]));
      seenAfterLock = await rows();
      await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["shared"]);
    });
    expect(seenAfterLock).toEqual(["locked"]);
    expect(await rows()).toEqual(["locked", "shared"]);
  });

  pgTest("another driver's statements are not part of it", async () => {
    await driver.shared!(async () => {
      await other.run("INSERT INTO shared_t (v) VALUES (?)", ["other"]);
      expect(await rows()).toEqual(["other"]);
      await driver.run("INSERT INTO shared_t (v) VALUES (?)", ["mine"]);
    });
    expect(await rows()).toEqual(["other", "mine"]);
  });
});
