/**
 * DATABASE_POOL_MAX: one process opens at most that many PostgreSQL connections for its queries (and as
 * many again, at most 4, for its locks, DATABASE_LOOKUP_POOL_MAX for lookups by key, and
 * WEBHOOK_DATABASE_POOL_MAX for the webhooks service's own pool when it runs there), however many requests
 * run at once: what lets an operator size many nodes against
 * the server's max_connections (README "Scaling out").
 */
import { Client } from "pg";
import { LOOKUP_CONNECTIONS } from "../../store/sql/driver";
import { startService, Running } from "../helpers/harness";
import { createTestDatabase, postgresReachable, PG_ADMIN_URL, TestDatabase } from "../helpers/postgres";

/** The connections open to database `name`, or those of them named `application`. */
async function connectionsTo(name: string, application?: string): Promise<number> {
  const c = new Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    const { rows } = await c.query("SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND ($2::text IS NULL OR application_name = $2)", [name, application ?? null]);
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
    svc = await startService({ DATABASE_URL: db.url, CACHER: "off", DATABASE_POOL_MAX: "2", DATABASE_LOOKUP_POOL_MAX: "1", WEBHOOK_DATABASE_POOL_MAX: "1" });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await db?.drop();
  });

  test("64 creates at once, then 128 reads of them, through a process with DATABASE_POOL_MAX=2 open at most 2 + 2 connections (and 1 for lookups, 1 of the webhooks' own pool), and all succeed", async () => {
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
    // each event read twice at once: the first reads keep its answer, the later ones look it up by key
    const ids = answers.map(a => (a.body as { id: number }).id);
    const reads = await Promise.all([...ids, ...ids].map(id => svc!.request("GET", `/events/${id}`)));
    writing = false;
    await watch;
    expect(answers.map(a => a.status).filter(s => s !== 201)).toEqual([]);
    expect(reads.map(r => r.status).filter(s => s !== 200)).toEqual([]);
    expect(reads.map(r => (r.body as { title: string }).title)).toEqual([...answers, ...answers].map(a => (a.body as { title: string }).title));
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(6);
    // the reads by key went to the lookups' connection (idle connections stay open for a while)
    expect(await connectionsTo(name, LOOKUP_CONNECTIONS)).toBe(1);
  }, 60_000);
});
