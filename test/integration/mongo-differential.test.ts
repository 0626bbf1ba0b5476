/**
 * The same answers on the MongoDB store's code as on SQLite: the stores differential's random requests
 * (test/helpers/differential.ts) sent to a service on SQLite (a child process) and to one in this process
 * whose MongoDB driver is the in-memory stand-in (test/helpers/mongo-stand-in.ts, on mingo: no MongoDB
 * server runs here, README "MongoDB"). It checks the services and store/mongo/ over MongoDB's query
 * language, not a MongoDB server's own answers. One site (the differential's two sites are both the
 * default one on each side); the sites on MongoDB are test/integration/sites-mongo.test.ts's.
 */
import { startNode, waitForHttp, Node } from "../helpers/processes";
import { startService, Running } from "../helpers/harness";
import { DIFF_ENV, differential, NS, SiteAccess, statusSummary, successes } from "../helpers/differential";
import { KEYS } from "../helpers/harness";

jest.mock("../../store/mongo/store", () => {
  const actual = jest.requireActual("../../store/mongo/store");
  const { mongoStandIn } = jest.requireActual("../helpers/mongo-stand-in");
  const server = mongoStandIn();
  // every opening of MONGO_URI in this process reaches the one stand-in server
  return { ...actual, openMongo: async () => actual.connectedStore(server, "calendar", "stand-in", async () => undefined) };
});

describe("the same answers on SQLite and on the MongoDB store's code (driver stood in for)", () => {
  let sqlite: Node;
  let mongo: Running;
  const env = { BASE_URL: DIFF_ENV.BASE_URL, TRUST_PROXY: DIFF_ENV.TRUST_PROXY, RATE_LIMIT: "", CACHER: "off", SERIES_JOB_MS: process.env.DIFF_SERIES_JOB_MS ?? "300" };
  const oneSite: SiteAccess[] = [{ host: new URL(DIFF_ENV.BASE_URL).host, keys: KEYS }, { host: new URL(DIFF_ENV.BASE_URL).host, keys: KEYS }];

  beforeAll(async () => {
    sqlite = await startNode({ DATA_DIR: ":memory:", ...env }, { http: true });
    mongo = await startService({ MONGO_URI: "mongodb://stand-in.test/calendar", ...env });
    await waitForHttp(`${sqlite.base}${NS}`, 200, 60_000);
    await waitForHttp(`${mongo.base}${NS}`, 200, 60_000);
  }, 90_000);

  afterAll(async () => {
    await sqlite?.stop();
    await mongo?.stop();
  });

  test("every request answered alike", async () => {
    const { differences, statuses, requests } = await differential(
      { label: "sqlite", bases: [sqlite.base!], ports: [sqlite.port!], sites: oneSite },
      { label: "mongo", bases: [mongo.base], ports: [mongo.port], sites: oneSite }
    );
    console.log(`mongo differential: ${requests} requests (${statusSummary(statuses)}), ${differences.length} differing`);
    expect(differences).toEqual([]);
    expect(successes(statuses)).toBeGreaterThan(requests / 4);
  }, 240_000);
});
