/**
 * The same behaviour on one process and on many: one random sequence of requests (test/helpers/differential.ts)
 * sent to the whole service in one process with its cache off, and to the hosted topology — two gateways
 * (taking the requests in turn), two events nodes, venues and organizers, two taxonomy nodes, i18n,
 * changes, geolocation and the platform each on their own node, over a real nats-server, with Redis as the
 * shared cache — each on a PostgreSQL database of its own, with two sites each. Every answer must be the same: a write through
 * one gateway is what the next read through the other sees (kept answers included: lists, single records,
 * embedded records, term counts, totals), and nothing a message over the bus carries reads differently
 * from an in-process call. DIFF_SEED / DIFF_REQUESTS as in the stores' run.
 */
import { startNats, startNode, waitForHttp, Nats, Node } from "../helpers/processes";
import { createTestDatabase, postgresReachable, TestDatabase } from "../helpers/postgres";
import { DIFF_ENV, differential, NS, prepareSites, SEED, SiteAccess, statusSummary, successes } from "../helpers/differential";

const REDIS_URL = "redis://127.0.0.1:6379";
const SPLIT = ["events", "events", "venues,organizers", "taxonomy", "taxonomy", "i18n", "changes", "geolocation,platform"];

describe("the same answers from one process and from many nodes", () => {
  let reachable = false;
  let nats: Nats | undefined;
  const dbs: TestDatabase[] = [];
  const nodes: Node[] = [];
  let single: Node;
  let gateways: Node[] = [];
  let sites: SiteAccess[][] = [];

  beforeAll(async () => {
    reachable = await postgresReachable();
    if (!reachable) return;
    nats = await startNats();
    const [one, many] = [await createTestDatabase("topo_one"), await createTestDatabase("topo_many")];
    dbs.push(one, many);
    // 4 connections per node (README "Scaling out"): this file and store-nodes-postgres may run at once on
    // the two jest workers, and at the default of 10 they took more than the server's 100
    const common = { ...DIFF_ENV, DATA_DIR: ":memory:", SERIES_JOB_MS: "300", DATABASE_POOL_MAX: "4" };
    single = await startNode({ ...common, DATABASE_URL: one.url, CACHER: "off" }, { http: true });
    const env = { ...common, DATABASE_URL: many.url, TRANSPORTER: nats.url, NAMESPACE: `topo-${process.pid}-${Date.now().toString(36)}`, CACHER: REDIS_URL };
    // the first node makes the schema; the others start together (migrations run under a store lock)
    const first = await startNode({ ...env, SERVICES: SPLIT[0] });
    const rest = await Promise.all([
      ...SPLIT.slice(1).map(services => startNode({ ...env, SERVICES: services })),
      startNode({ ...env, SERVICES: "api" }, { http: true }),
      startNode({ ...env, SERVICES: "api" }, { http: true })
    ]);
    gateways = rest.slice(-2);
    nodes.push(single, first, ...rest);
    await waitForHttp(`${single.base}${NS}`, 200, 60_000);
    await Promise.all(gateways.map(g => waitForHttp(`${g.base}/health/ready`, 200, 60_000)));
    sites = [await prepareSites(single.base!), await prepareSites(gateways[0].base!)];
  }, 120_000);

  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop()));
    await nats?.stop();
    for (const db of dbs) await db.drop();
  });

  test("every request answered alike", async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    const { differences, statuses, requests, bySite } = await differential(
      { label: "one process", bases: [single.base!], ports: [single.port!], sites: sites[0] },
      { label: "many nodes", bases: gateways.map(g => g.base!), ports: gateways.map(g => g.port!), sites: sites[1] }
    );
    console.log(`topology differential: ${requests} requests (seed ${SEED}; ${statusSummary(statuses)}; successes by site ${bySite.join(" / ")}), ${differences.length} differing`);
    expect(differences).toEqual([]);
    expect(successes(statuses)).toBeGreaterThan(requests / 4);
    expect(bySite[1]).toBeGreaterThan(requests / 20);
  }, 300_000);
});
