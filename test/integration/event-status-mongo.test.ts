/**
 * The event-status tests (test/integration/event-status.test.ts) on the MongoDB store's code: every
 * opening of MONGO_URI in this process reaches one in-memory stand-in server (test/helpers/mongo-stand-in.ts),
 * so the fields, their defaults, the list filters (an absent value read as the default) and the series'
 * scopes run through store/mongo/ and MongoDB's query language. What the stand-in cannot show is README
 * "MongoDB"'s.
 */
jest.mock("../../store/mongo/store", () => {
  const actual = jest.requireActual("../../store/mongo/store");
  const { mongoStandIn } = jest.requireActual("../helpers/mongo-stand-in");
  const server = mongoStandIn();
  return { ...actual, standIn: server, openMongo: async () => actual.connectedStore(server, "calendar", "stand-in", async () => undefined) };
});

process.env.MONGO_URI = "mongodb://stand-in.test/calendar?replicaSet=rs0";
require("./event-status.test");

test("it ran on the MongoDB store's code: the events were written to the stand-in", async () => {
  const { standIn } = jest.requireMock("../../store/mongo/store");
  const events = standIn.db("calendar").collection("events");
  expect(await events.countDocuments({ event_status: "canceled" })).toBeGreaterThan(0);
});
