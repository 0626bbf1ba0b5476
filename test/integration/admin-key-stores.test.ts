/**
 * The deployment's generated administrator key kept by the store (C40), through the store's
 * own port (store/sites.ts `keepGeneratedKey`) and lib/access/api-keys.ts `useStoredAdminKey`: two nodes of one
 * deployment (two stores on one MongoDB stand-in server; two stores on one PostgreSQL database) start at
 * once; exactly one keeps and prints its key, both know that key (as its hash) and no other.
 * The whole service on PostgreSQL: admin-key-store.test.ts.
 */
import { connectedStore } from "../../store/mongo/store";
import { mongoStandIn } from "../helpers/mongo-stand-in";
import { createTestDatabase, postgresReachable, type TestDatabase } from "../helpers/postgres";
import { acquireStore, releaseStore, type Store, type StoreConfig } from "../../store";
import { loadApiKeys, useStoredAdminKey } from "../../lib/access/api-keys";
import { readSettings } from "../../lib/settings";
import { hashApiKey } from "../../lib/sites/keys";

/** Starts two "nodes" on `stores` at once; answers the printed keys and what each then knows. */
async function twoNodes(stores: Store[], env: Record<string, string>) {
  const printed: string[] = [];
  const s = readSettings({ ...env, DATA_DIR: ":memory:" });
  const known: Array<Map<string, unknown>> = [];
  await Promise.all(stores.map(store => useStoredAdminKey(store.sites!, s, msg => {
    const m = /generated the administrator key ([0-9a-f]+)/.exec(msg);
    if (m) printed.push(m[1]);
  })));
  // each node then loads its keys (the stored one included)
  for (const store of stores) {
    await useStoredAdminKey(store.sites!, s, () => undefined);
    known.push(new Map(loadApiKeys(s, () => undefined)));
  }
  return { printed, known };
}

test("MongoDB (stand-in): one generated key for the deployment, known to every node", async () => {
  const server = mongoStandIn();
  const stores = await Promise.all([0, 1].map(() => connectedStore(server, "calendar", "stand-in", async () => undefined)));
  const { printed, known } = await twoNodes(stores, { MONGO_URI: "mongodb://stand-in/calendar" });
  expect(printed).toHaveLength(1);
  for (const keys of known) {
    expect(keys.get(hashApiKey(printed[0]))).toEqual({ id: 1, role: "administrator" });
    expect(keys.size).toBe(1);
  }
  // kept as its hash, never as the key
  const docs = await server.db("calendar").collection("api_keys").find({}).toArray();
  expect(docs.map(d => d.hash)).toEqual([hashApiKey(printed[0])]);
  expect(JSON.stringify(docs)).not.toContain(printed[0]);
});

describe("PostgreSQL", () => {
  let db: TestDatabase | undefined;
  let config: StoreConfig | undefined;
  beforeAll(async () => {
    if (await postgresReachable()) db = await createTestDatabase("adminkeys");
  }, 30_000);
  afterAll(async () => {
    if (config) await releaseStore(config);
    await db?.drop();
  }, 30_000);

  test("one generated key for the deployment, known to every node", async () => {
    if (!db) return console.warn("PostgreSQL is not reachable: skipped");
    config = { dataDir: ":memory:", databaseUrl: db.url, connectTimeoutMs: 10_000 };
    const store = await acquireStore(config);
    // two nodes share the database: the same port twice races on one unique row
    const { printed, known } = await twoNodes([store, store], { DATABASE_URL: db.url });
    expect(printed).toHaveLength(1);
    for (const keys of known) expect(keys.get(hashApiKey(printed[0]))).toEqual({ id: 1, role: "administrator" });
  });
});
