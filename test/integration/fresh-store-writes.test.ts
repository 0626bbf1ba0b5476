/**
 * The first writes a new PostgreSQL store takes, all at once, on the service as `npm start` runs it: each
 * venue, organizer or event create holds a store lock of its own (its name's) and reads the site's custom
 * field definitions and tokens, whose collections are opened once. Opening one made its indexes under the
 * store's migration lock, which then waited for a lock connection those creates held, until every one of
 * them timed out (504). The record services make those indexes as the store opens (StoreOptions
 * `companions`), and a process makes a collection's indexes once.
 */
import { startNode, waitForHttp, type Node } from "../helpers/processes";
import { createTestDatabase, postgresReachable, type TestDatabase } from "../helpers/postgres";
import { KEYS } from "../helpers/harness";

const NS = "/wp-json/calendar/events/v1";

describe("the first concurrent writes on a new PostgreSQL store", () => {
  let db: TestDatabase | undefined;
  let node: Node | undefined;

  beforeAll(async () => {
    if (await postgresReachable()) db = await createTestDatabase("fresh");
  }, 30_000);

  afterAll(async () => {
    await node?.stop("SIGKILL");
    await db?.drop();
  }, 30_000);

  test("eight venue creates and then eight event creates at once, on a database no write has touched, are all stored", async () => {
    if (!db) return console.warn("PostgreSQL is not reachable: skipped");
    node = await startNode({ DATABASE_URL: db.url, REQUEST_TIMEOUT: "10000" }, { http: true });
    // the writes arrive the moment the service is ready, before any of its own work has used the store
    await waitForHttp(`${node.base}/health/ready`, 200, 90_000, 5);
    const post = (path: string, body: Record<string, unknown>) => fetch(`${node!.base}${NS}${path}`, {
      method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${KEYS.admin}` }, body: JSON.stringify(body)
    }).then(res => res.status);
    expect(await Promise.all(Array.from({ length: 8 }, (_, i) => post("/venues", { venue: `Hall ${i}` })))).toEqual(Array(8).fill(201));
    const events = await Promise.all(Array.from({ length: 8 }, (_, i) => post("/events", {
      title: `Opening ${i}`, start_date: "2030-01-01 10:00:00", end_date: "2030-01-01 11:00:00", organizer: [{ organizer: `Host ${i}` }]
    })));
    expect(events).toEqual(Array(8).fill(201));
  }, 120_000);
});
