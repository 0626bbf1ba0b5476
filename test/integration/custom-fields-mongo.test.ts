/**
 * The custom fields' HTTP tests (test/integration/custom-fields.test.ts) on the MongoDB store's code:
 * every opening of MONGO_URI in this process reaches one in-memory stand-in server
 * (test/helpers/mongo-stand-in.ts), so definitions (their unique key and place), the token dictionary,
 * `meta[<key>]` filters (an array field's membership there) and a field's deletion run through
 * store/mongo/ as they would on a server.
 */
jest.mock("../../store/mongo/store", () => {
  const actual = jest.requireActual("../../store/mongo/store");
  const { mongoStandIn } = jest.requireActual("../helpers/mongo-stand-in");
  const server = mongoStandIn();
  return { ...actual, standIn: server, openMongo: async () => actual.connectedStore(server, "calendar", "stand-in", async () => undefined) };
});

process.env.MONGO_URI = "mongodb://stand-in.test/calendar?replicaSet=rs0";
require("./custom-fields.test");

test("it ran on the MongoDB store's code: the events' stored values are the stand-in's, and no token outlived its field", async () => {
  const { standIn } = jest.requireMock("../../store/mongo/store");
  expect(await standIn.db("calendar").collection("events").countDocuments({ custom_links: { $exists: true } })).toBeGreaterThan(0);
  // every test deleted the fields it made: their values and tokens went with them
  expect(await standIn.db("calendar").collection("events").countDocuments({ "custom_links.0": { $exists: true } })).toBe(0);
  expect(await standIn.db("calendar").collection("field_tokens").countDocuments({})).toBe(0);
});
