/**
 * The same behaviour on every store: one random sequence of requests (test/helpers/differential.ts) sent to
 * a service on SQLite and to one on PostgreSQL, on two sites of each; every answer must be the same on both. Written after the
 * text no store kept alike (docs/errors.md#text-every-store-keeps) and the folding of searches
 * (lib/text/fold.ts) were found by other means; it found that records made inline by one event write drew their
 * ids in whatever order their parallel creates reached the sequence (now one order,
 * docs/records.md#venue-and-organizer-input), and that an events list with unknown categories and tags
 * named whichever was refused first (now both, lib/errors.ts `allChecks`). DIFF_SEED=<n> replays a run,
 * DIFF_SEED=random draws one; DIFF_REQUESTS sets the length (1 000).
 */
import { startNode, waitForHttp, Node } from "../helpers/processes";
import { createTestDatabase, postgresReachable, TestDatabase } from "../helpers/postgres";
import { DIFF_ENV, differential, NS, prepareSites, SEED, SiteAccess, statusSummary, successes } from "../helpers/differential";

describe("the same answers on SQLite and on PostgreSQL", () => {
  let reachable = false;
  let db: TestDatabase | undefined;
  const nodes: Node[] = [];
  const sites: SiteAccess[][] = [];

  beforeAll(async () => {
    reachable = await postgresReachable();
    if (!reachable) return;
    db = await createTestDatabase("differential");
    for (const env of [{ DATA_DIR: ":memory:" }, { DATABASE_URL: db.url, DATA_DIR: ":memory:" }] as Array<Record<string, string>>) {
      // the series' horizon job runs often: a series being started is its writer's to plan, so the job
      // draws no ids between requests (docs/recurrence.md#many-nodes)
      const node = await startNode({ ...env, ...DIFF_ENV, CACHER: "off", SERIES_JOB_MS: process.env.DIFF_SERIES_JOB_MS ?? "300" }, { http: true });
      nodes.push(node);
    }
    await Promise.all(nodes.map(n => waitForHttp(`${n.base}${NS}`, 200, 60_000)));
    for (const n of nodes) sites.push(await prepareSites(n.base!));
  }, 90_000);

  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop()));
    await db?.drop();
  });

  test("every request answered alike", async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    const side = (label: string, i: number) => ({ label, bases: [nodes[i].base!], ports: [nodes[i].port!], sites: sites[i] });
    const { differences, statuses, requests, bySite } = await differential(side("sqlite", 0), side("postgres", 1));
    console.log(`differential: ${requests} requests (seed ${SEED}; ${statusSummary(statuses)}; successes by site ${bySite.join(" / ")}), ${differences.length} differing`);
    expect(differences).toEqual([]);
    expect(successes(statuses)).toBeGreaterThan(requests / 4);
    expect(bySite[1]).toBeGreaterThan(requests / 20);
  }, 240_000);
});
