/**
 * The store's lock (SqlDriver `withLock`) holds across processes: two drivers opened on one database, as
 * two processes open it, never run work under the same lock at once. On SQLite the lock is a row of the
 * file with a lease (a holder that died frees it when the lease ends); on PostgreSQL an advisory lock.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FILE_LOCK_LEASE_MS, openPostgres, openSqlite, type SqlDriver } from "../../store/sql/driver";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres";

const onPostgres = process.env.TEST_STORE === "postgres";
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** Work that sleeps `ms`, and the most copies of it ever running at once. */
function overlapCounter(ms: number): { work: () => Promise<void>; most: () => number } {
  let inside = 0;
  let most = 0;
  const work = async () => {
    inside++;
    most = Math.max(most, inside);
    await sleep(ms);
    inside--;
  };
  return { work, most: () => most };
}

describe(`the store's lock across two connections (${onPostgres ? "PostgreSQL" : "SQLite file"})`, () => {
  let dir: string | undefined;
  let db: TestDatabase | undefined;
  let drivers: SqlDriver[] = [];

  beforeAll(async () => {
    if (onPostgres) {
      db = await createTestDatabase("locks");
      drivers = [openPostgres(db.url, { max: 3 }), openPostgres(db.url, { max: 3 })];
    } else {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "locks-"));
      const file = path.join(dir, "calendar.sqlite3");
      drivers = [openSqlite(file), openSqlite(file)];
    }
  });

  afterAll(async () => {
    for (const d of drivers) await d.close();
    await db?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("work under one lock from both connections runs one at a time", async () => {
    const { work, most } = overlapCounter(5);
    await Promise.all(Array.from({ length: 12 }, (_, i) => drivers[i % 2].withLock(41_000_001, work)));
    expect(most()).toBe(1);
  });

  test("another lock is taken while the first is held", async () => {
    let release!: () => void;
    const held = new Promise<void>(resolve => { release = resolve; });
    let entered!: () => void;
    const inFirst = new Promise<void>(resolve => { entered = resolve; });
    const first = drivers[0].withLock(41_000_006, async () => { entered(); await held; });
    await inFirst;
    await expect(drivers[1].withLock(41_000_007, async () => "taken while the first is held")).resolves.toBe("taken while the first is held");
    release();
    await first;
  });

  test("a lock is free again after its work throws", async () => {
    await expect(drivers[0].withLock(41_000_003, async () => { throw new Error("failed inside"); })).rejects.toThrow("failed inside");
    await expect(drivers[1].withLock(41_000_003, async () => "taken")).resolves.toBe("taken");
  });

  /** `work`, or a rejection naming `what` when it has not settled within `ms` (a holder waiting on itself never does). */
  const within = <T>(ms: number, what: string, work: Promise<T>): Promise<T> =>
    Promise.race([work, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms).unref())]);

  test("the lock asked for again inside its own work is its own: taken at once, not waited for", async () => {
    const inner = drivers[0].withLock(41_000_040, async () => drivers[0].withLock(41_000_040, async () => "again"));
    await expect(within(3000, "the inner call", inner)).resolves.toBe("again");
    await expect(drivers[1].withLock(41_000_040, async () => "free")).resolves.toBe("free");
  });

  test("work started under a lock that asks for it after the lock was let go waits for the next holder like any other", async () => {
    const { work, most } = overlapCounter(60);
    let late: Promise<void> | undefined;
    await drivers[0].withLock(41_000_041, async () => {
      // runs in the holder's call context, but after its holder has let the lock go
      late = new Promise(resolve => setTimeout(resolve, 20)).then(() => drivers[0].withLock(41_000_041, work));
    });
    await Promise.all([drivers[0].withLock(41_000_041, work), late]);
    expect(most()).toBe(1);
  });

  test("the holders of one lock in one process take it in the order they asked", async () => {
    const order: number[] = [];
    await Promise.all(Array.from({ length: 8 }, (_, i) => drivers[0].withLock(41_000_042, async () => { order.push(i); await sleep(5); })));
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  (onPostgres ? test.skip : test)("SQLite: the lock row of a holder that died is taken over once its lease has ended", async () => {
    // a holder that is gone: its row stays, its lease ended a moment ago
    await drivers[0].run("INSERT INTO store_locks (key, holder, until) VALUES (?, ?, ?)", [41_000_004, "a process that died", Date.now() - 1]);
    await expect(drivers[1].withLock(41_000_004, async () => "taken")).resolves.toBe("taken");
    // one whose lease still runs is waited for
    await drivers[0].run("INSERT INTO store_locks (key, holder, until) VALUES (?, ?, ?)", [41_000_005, "a live process", Date.now() + 300]);
    const started = Date.now();
    let told = 0;
    await drivers[1].withLock(41_000_005, async () => undefined, { onWait: () => told++ });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(told).toBe(1);
    expect(FILE_LOCK_LEASE_MS).toBeGreaterThan(1000);
    expect(await drivers[0].all("SELECT key FROM store_locks")).toEqual([]);
  });

  (onPostgres ? test : test.skip)("PostgreSQL: locks taken inside the work of holders that hold every lock connection need no other connection", async () => {
    // a pool of two lock connections, both held by holders whose work takes two more locks each (one
    // waited for without a deadline, as the schema lock of a collection opened on first use): on a
    // connection of their own they waited for the pool until its deadline
    const tiny = openPostgres(db!.url, { max: 2, lockTimeoutMs: 3000 });
    try {
      let ready!: () => void;
      let entered = 0;
      const both = new Promise<void>(resolve => { ready = resolve; });
      const order: string[] = [];
      const holder = (key: number) => tiny.withLock(key, async () => {
        if (++entered === 2) ready();
        await both;
        await tiny.withLock(41_000_020, async () => { order.push(`schema ${key}`); await sleep(20); }, { unbounded: true });
        return tiny.withLock(41_000_021, async () => { order.push(`inner ${key}`); return key; });
      });
      await expect(Promise.all([holder(41_000_010), holder(41_000_011)])).resolves.toEqual([41_000_010, 41_000_011]);
      expect(order.sort()).toEqual(["inner 41000010", "inner 41000011", "schema 41000010", "schema 41000011"]);
      // and every lock was let go: the other driver takes each at once
      for (const key of [41_000_010, 41_000_011, 41_000_020, 41_000_021]) await expect(drivers[1].withLock(key, async () => key)).resolves.toBe(key);
    } finally {
      await tiny.close();
    }
  }, 20_000);

  (onPostgres ? test : test.skip)("PostgreSQL: work under one holder taking the same inner lock twice at once runs one at a time, and an enclosing lock is its own", async () => {
    const { work, most } = overlapCounter(10);
    await drivers[0].withLock(41_000_030, async () => {
      await Promise.all(Array.from({ length: 4 }, () => drivers[0].withLock(41_000_031, work)));
      // the enclosing lock again, inside its own work: taken at once
      await expect(drivers[0].withLock(41_000_030, async () => "again")).resolves.toBe("again");
    });
    expect(most()).toBe(1);
    // let go after: taken from the other connection
    await expect(drivers[1].withLock(41_000_031, async () => "free")).resolves.toBe("free");
    await expect(drivers[1].withLock(41_000_030, async () => "free")).resolves.toBe("free");
  });
});
