/**
 * A PostgreSQL connection ended by the server while the store holds it between two statements of a
 * transaction (an administrator's pg_terminate_backend, a database dropped with FORCE, a failover): the
 * transaction fails with the store's unavailable error, the process goes on, and the next work runs.
 */
import { Client } from "pg";
import { StoreUnavailable } from "../../store/errors";
import type { SqlDriver } from "../../store/sql/driver";
import { PG_ADMIN_URL } from "../helpers/postgres";
import { openTestStore, TestStore } from "../helpers/test-store";

describe("PostgreSQL: a held connection ended by the server", () => {
  let opened: TestStore | undefined;
  let driver: SqlDriver;

  beforeAll(async () => {
    opened = await openTestStore("postgres", "terminated");
    if (opened) driver = opened.store.sql!;
  });

  afterAll(async () => {
    await opened?.close();
  });

  test("the transaction holding it fails as unavailable, nothing crashes, and the store answers after", async () => {
    if (!opened) return console.warn("PostgreSQL is not reachable: skipped");
    const admin = new Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      const held = driver.transaction(async tx => {
        const [{ pid }] = await tx.all<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        await admin.query("SELECT pg_terminate_backend($1)", [pid]);
        // the server's notice reaches the held client between statements
        await new Promise(resolve => setTimeout(resolve, 200));
        return tx.all("SELECT 1 AS one");
      });
      await expect(held).rejects.toBeInstanceOf(StoreUnavailable);
    } finally {
      await admin.end();
    }
    expect(await driver.all<{ one: number }>("SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });
});
