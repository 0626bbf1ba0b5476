/**
 * SQLite's full-text index written once per transaction (store/sql/full-text-queue.ts): the events table's
 * triggers queue the rows a write touched, and the driver indexes them before the commit. Whatever the
 * path of the write (a unit of the group commit, a unit undone alone, a transaction) the committed index
 * holds exactly the committed records' texts, and the queue is empty.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { openSqlite, type SqlDriver } from "../../store/sql/driver";
import { migrate } from "../../store/sql/schema";
import { FULL_TEXT_QUEUE } from "../../store/sql/full-text-queue";
import { FTS_SITE_STRIDE } from "../../store/sql/text-plans";

const doc = (title: string) => JSON.stringify({ title, description: "", status: "draft" });

describe("SQLite's full-text queue", () => {
  let dir: string;
  let driver: SqlDriver;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "fts-queue-"));
    driver = openSqlite(path.join(dir, "calendar.sqlite3"));
    await migrate(driver);
  });

  afterEach(async () => {
    await driver.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The ids of site 1's events whose indexed texts hold `word`. */
  const found = async (word: string) =>
    (await driver.all<{ rowid: number }>("SELECT rowid FROM events_fts WHERE events_fts MATCH ? ORDER BY rowid", [`"${word}"`])).map(r => Number(r.rowid) - FTS_SITE_STRIDE);
  const queued = async () => Number((await driver.all<{ n: number }>(`SELECT COUNT(*) AS n FROM ${FULL_TEXT_QUEUE}`))[0].n);
  const insert = (id: number, title: string) => driver.unit!(tx => tx.run("INSERT INTO events (site, id, doc) VALUES (1, ?, jsonb(?))", [id, doc(title)]));

  test("a create's unit is indexed when its group commits, and the queue is emptied", async () => {
    await Promise.all([insert(1, "Jazz night"), insert(2, "Opera gala"), insert(3, "Jazz brunch")]);
    expect(await found("jazz")).toEqual([1, 3]);
    expect(await found("opera")).toEqual([2]);
    expect(await queued()).toBe(0);
  });

  test("a record written twice in one group is indexed as it stands at the commit", async () => {
    await insert(1, "Jazz night");
    await Promise.all([
      driver.unit!(tx => tx.run("UPDATE events SET doc = jsonb(?) WHERE site = 1 AND id = 1", [doc("Blues night")])),
      driver.unit!(tx => tx.run("UPDATE events SET doc = jsonb(?) WHERE site = 1 AND id = 1", [doc("Opera night")]))
    ]);
    expect(await found("jazz")).toEqual([]);
    expect(await found("blues")).toEqual([]);
    expect(await found("opera")).toEqual([1]);
    expect(await found("night")).toEqual([1]);
  });

  test("a record made and removed in one group is never indexed; a removed one leaves the index", async () => {
    await insert(1, "Jazz night");
    await Promise.all([
      insert(2, "Jazz brunch"),
      driver.unit!(tx => tx.run("DELETE FROM events WHERE site = 1 AND id = 2")),
      driver.unit!(tx => tx.run("DELETE FROM events WHERE site = 1 AND id = 1"))
    ]);
    expect(await found("jazz")).toEqual([]);
    expect(await queued()).toBe(0);
  });

  test("a unit undone alone takes its queued rows with it; the rest of its group is indexed", async () => {
    const failing = driver.unit!(tx => {
      tx.run("INSERT INTO events (site, id, doc) VALUES (1, 5, jsonb(?))", [doc("Jazz lost")]);
      throw new Error("refused");
    });
    await Promise.all([expect(failing).rejects.toThrow("refused"), insert(6, "Jazz kept")]);
    expect(await found("jazz")).toEqual([6]);
    expect(await found("lost")).toEqual([]);
  });

  test("a transaction's writes are indexed at its commit; a rolled back one leaves the index as it was", async () => {
    await driver.transaction(async tx => {
      await tx.run("INSERT INTO events (site, id, doc) VALUES (1, 7, jsonb(?))", [doc("Jazz seven")]);
      await tx.run("UPDATE events SET doc = jsonb(?) WHERE site = 1 AND id = 7", [doc("Jazz eight")]);
    });
    await expect(driver.transaction(async tx => {
      await tx.run("UPDATE events SET doc = jsonb(?) WHERE site = 1 AND id = 7", [doc("Opera")]);
      throw new Error("undone");
    })).rejects.toThrow("undone");
    expect(await found("eight")).toEqual([7]);
    expect(await found("seven")).toEqual([]);
    expect(await found("opera")).toEqual([]);
    expect(await queued()).toBe(0);
  });

  test("rows a writer without the drain left queued are indexed when the store opens again", async () => {
    driver.beforeCommit = undefined;
    await insert(9, "Jazz left");
    expect(await queued()).toBe(1);
    expect(await found("jazz")).toEqual([]);
    await migrate(driver);
    expect(await found("jazz")).toEqual([9]);
    expect(await queued()).toBe(0);
  });
});
