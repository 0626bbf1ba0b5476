/**
 * A PostgreSQL database that goes away while the service runs: requests that need it answer 503
 * `rest_service_unavailable` (the contract's error JSON) within the deadlines, never hang, and the
 * service answers again as soon as the database is back, without a restart. A server that refuses a
 * connection for its limits (too many clients) is unavailable the same way, never a 500.
 */
import { Client } from "pg";
import { openPostgres, StoreUnavailable } from "../../store/sql/driver";
import { startService, Running } from "../helpers/harness";
import { createTestDatabase, PG_ADMIN_URL, TestDatabase } from "../helpers/postgres";

const EVENT = { start_date: "2031-05-01 10:00:00", end_date: "2031-05-01 11:00:00" };

async function admin(sql: string): Promise<void> {
  const c = new Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe("PostgreSQL down and back", () => {
  let db: TestDatabase;
  let svc: Running;
  let name: string;

  beforeAll(async () => {
    db = await createTestDatabase("outage");
    name = new URL(db.url).pathname.slice(1);
    svc = await startService({ DATABASE_URL: db.url, CACHER: "" });
  }, 60_000);
  afterAll(async () => {
    await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await svc?.stop();
    await db?.drop();
  });

  test("writes answer 503 while the database refuses connections, 201 once it is back", async () => {
    expect((await svc.request("POST", "/events", { as: "admin", body: { title: "Before", ...EVENT } })).status).toBe(201);
    await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
    const t0 = Date.now();
    const down = await svc.request("POST", "/events", { as: "admin", body: { title: "During", ...EVENT } });
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: "rest_service_unavailable", data: { status: 503 } });
    const read = await svc.request("GET", "/events/1", { as: "admin" });
    expect(read.status).toBe(503);
    await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    const back = await svc.request("POST", "/events", { as: "admin", body: { title: "After", ...EVENT } });
    expect(back.status).toBe(201);
    expect((await svc.request("GET", `/events/${back.body.id}`, { as: "admin" })).body.title).toBe("After");
  }, 60_000);

  test("a connection refused for the connection limit (too many clients, 53300) is the store unavailable", async () => {
    // the limit binds roles that are not superusers: one of its own, allowed to connect, on a database at 0
    const role = `calendar_limited_${process.pid}`;
    const limited = await createTestDatabase("limit");
    const dbName = new URL(limited.url).pathname.slice(1);
    await admin(`CREATE ROLE ${role} LOGIN`);
    await admin(`ALTER DATABASE ${dbName} CONNECTION LIMIT 0`);
    const url = new URL(limited.url);
    url.username = role;
    const driver = openPostgres(url.toString(), { max: 2, connectTimeoutMs: 5000 });
    try {
      const refused = await driver.all("SELECT 1 AS one").then(() => undefined, (err: unknown) => err);
      expect(refused).toBeInstanceOf(StoreUnavailable);
      expect(String((refused as Error).message)).toMatch(/too many connections/);
    } finally {
      await driver.close();
      await limited.drop();
      await admin(`DROP ROLE IF EXISTS ${role}`);
    }
  }, 30_000);
});
