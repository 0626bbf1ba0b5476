/**
 * A MONGO_URI whose server is no replica set member is a start-up error naming what is missing (the
 * store writes a record and its feed entry in one transaction, which MongoDB runs only on a replica set):
 * the whole service started in this process on a stand-in server that answers `isMaster` without
 * `setName` (test/helpers/mongo-stand-in.ts; no MongoDB server runs here, README "MongoDB"). server.ts
 * prints a start-up error and exits 1.
 */
import type { ServiceBroker } from "moleculer";

const PLAIN = "mongodb://plain.test:27017/calendar";

jest.mock("../../store/mongo/store", () => {
  const actual = jest.requireActual("../../store/mongo/store");
  const { mongoStandIn } = jest.requireActual("../helpers/mongo-stand-in");
  const server = mongoStandIn({ replicaSet: false });
  return { ...actual, openMongo: async (uri: string) => actual.connectedStore(server, "calendar", uri, async () => undefined) };
});

test("a MONGO_URI without a replica set: the service does not start, and says what is missing", async () => {
  Object.assign(process.env, { MONGO_URI: PLAIN, DATABASE_URL: "", DATA_DIR: ":memory:", PORT: "0", HOST: "127.0.0.1", METRICS_PORT: "0", API_KEYS: "k1:administrator", LOG_LEVEL: "fatal" });
  const { readSettings, useSettings } = require("../../lib/settings");
  const { brokerOptions } = require("../../moleculer.config");
  const { createServices } = require("../../services");
  const { ServiceBroker: Broker } = require("moleculer");
  const s = readSettings(process.env);
  useSettings(s);
  const broker: ServiceBroker = new Broker(brokerOptions(s, { logger: false, nodeID: "mongo-start" }));
  createServices(broker, s);
  // the store mixin reports a store that cannot serve as fatal (the process exits 1): kept from ending jest
  const exit = jest.spyOn(process, "exit").mockImplementation((() => undefined) as never);
  const fatal = jest.spyOn(broker, "fatal");
  const message = /MONGO_URI: the MongoDB at mongodb:\/\/plain\.test:27017\/calendar is not a replica set member \(its isMaster answer has no setName\)\. .*transaction.*--replSet rs0.*rs\.initiate\(\).*\?replicaSet=rs0/;
  try {
    await expect(broker.start()).rejects.toThrow(message);
    expect(fatal.mock.calls[0][0]).toMatch(message);
    expect(exit).toHaveBeenCalledWith(1);
  } finally {
    exit.mockRestore();
    await broker.stop().catch(() => undefined);
  }
}, 60_000);
