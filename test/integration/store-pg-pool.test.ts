/**
 * DATABASE_POOL_MAX: one process opens at most that many PostgreSQL connections for its queries (and as
 * many again, at most 4, for its locks, and WEBHOOK_DATABASE_POOL_MAX for the webhooks service's own pool
 * when it runs there), however many requests run at once: what lets an operator size many nodes against
 * the server's max_connections (README "Scaling out").
 */
import { Client } from "pg";
import { startService, Running } from "../helpers/harness";
import { createTestDatabase, postgresReachable, PG_ADMIN_URL, TestDatabase } from "../helpers/postgres";

async function connectionsTo(name: string): Promise<number> {
  const c = new Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    const { rows } = await c.query("SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name]);
    return rows[0].n as number;
  } finally {
    await c.end();
  }
}

describe("PostgreSQL connections per process", () => {
  let reachable = false;
  let db: TestDatabase | undefined;
  let svc: Running | undefined;

  beforeAll(async () => {
    reachable = await postgresReachable();
    if (!reachable) return;
    db = await createTestDatabase("pool");
    svc = await startService({ DATABASE_URL: db.url, CACHER: "off", DATABASE_POOL_MAX: "2", WEBHOOK_DATABASE_POOL_MAX: "1" });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await db?.drop();
  });

  test("64 creates at once through a process with DATABASE_POOL_MAX=2 open at most 2 + 2 connections (and 1 of the webhooks' own pool), and all succeed", async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    const name = new URL(db!.url).pathname.slice(1);
    let most = 0;
    let writing = true;
    const watch = (async () => {
      while (writing) {
        most = Math.max(most, await connectionsTo(name));
        await new Promise(r => setTimeout(r, 10));
      }
    })();
    const answers = await Promise.all(Array.from({ length: 64 }, (_, i) =>
      svc!.request("POST", "/events", { as: "admin", body: { title: `Pool ${i}`, start_date: "2031-05-01 10:00:00", end_date: "2031-05-01 11:00:00" } })));
    writing = false;
    await watch;
    expect(answers.map(a => a.status).filter(s => s !== 201)).toEqual([]);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(5);
  }, 60_000);
});
