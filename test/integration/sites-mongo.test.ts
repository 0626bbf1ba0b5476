/**
 * The 50-site test (test/integration/sites.test.ts) on the MongoDB store's code: every opening of
 * MONGO_URI in this process reaches one in-memory stand-in server (test/helpers/mongo-stand-in.ts, a
 * replica set member, with transactions), so sites, their databases, keys, slugs, feeds and deletion run
 * through store/mongo/ as they would on a server. What the stand-in cannot show is README "MongoDB"'s.
 */
jest.mock("../../store/mongo/store", () => {
  const actual = jest.requireActual("../../store/mongo/store");
  const { mongoStandIn } = jest.requireActual("../helpers/mongo-stand-in");
  const server = mongoStandIn();
  return { ...actual, standIn: server, openMongo: async () => actual.connectedStore(server, "calendar", "stand-in", async () => undefined) };
});

process.env.MONGO_URI = "mongodb://stand-in.test/calendar?replicaSet=rs0";
require("./sites.test");

test("it ran on the MongoDB store's code: a database per site that was written, the sites and keys in the default one", async () => {
  const { standIn } = jest.requireMock("../../store/mongo/store");
  const names = [...standIn.databases.keys()] as string[];
  const written = [];
  for (const name of names.filter(n => /^calendar_site\d+$/.test(n))) if ((await standIn.db(name).collection("events").countDocuments({})) > 0) written.push(name);
  // 50 sites made, one deleted (its database dropped)
  expect(written).toHaveLength(49);
  expect(await standIn.db("calendar").collection("sites").countDocuments({})).toBe(50);
  expect(await standIn.db("calendar").collection("api_keys").countDocuments({})).toBeGreaterThanOrEqual(50);
});
