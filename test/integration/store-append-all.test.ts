/**
 * `appendAll` (store/collection.ts) on PostgreSQL, where an import batch stores its new mapping rows with it
 * (domain/imports/import-run.ts): the documents under the collection's own numbers in their order, in one
 * statement, and none of them when one key is taken. SQLite has none (the batch stores its rows one by one).
 */
import { acquireStore, releaseStore, Store, StoreConfig } from "../../store";
import { createTestDatabase, TestDatabase } from "../helpers/postgres";

const INDEXES = [{ field: "key", unique: true }];

describe("appending several documents in one statement", () => {
  let db: TestDatabase;
  let config: StoreConfig;
  let store: Store;

  beforeAll(async () => {
    db = await createTestDatabase("appendall");
    config = { dataDir: ":memory:", databaseUrl: db.url, connectTimeoutMs: 5000 };
    store = await acquireStore(config);
    await store.ensureIndexes("import_records", INDEXES);
  }, 30000);
  afterAll(async () => {
    await releaseStore(config);
    await db?.drop();
  });

  test("the documents are stored under the collection's next numbers, in order, beside those appended one by one", async () => {
    const col = store.collection("import_records", INDEXES, 7001);
    const first = await col.append({ key: "a" });
    const made = await col.appendAll!([{ key: "b", n: 1 }, { key: "c", n: 2 }, { key: "d", n: 3 }]);
    expect(made.map(d => d.key).sort()).toEqual(["b", "c", "d"]);
    const stored = await col.find({}, { sort: { _id: 1 } });
    expect(stored.map(d => d.key)).toEqual(["a", "b", "c", "d"]);
    expect(stored.map(d => d._id)).toEqual([1, 2, 3, 4].map(k => Number(first._id) + k - 1));
    expect(await col.appendAll!([])).toEqual([]);
  });

  test("a taken key stores none of them", async () => {
    const col = store.collection("import_records", INDEXES, 7002);
    await col.append({ key: "x" });
    await expect(col.appendAll!([{ key: "y" }, { key: "x" }])).rejects.toThrow();
    expect((await col.find({})).map(d => d.key)).toEqual(["x"]);
  });

  test("SQLite offers none", async () => {
    const local = { dataDir: ":memory:", connectTimeoutMs: 1000 };
    const sqlite = await acquireStore(local);
    try {
      await sqlite.ensureIndexes("import_records", INDEXES);
      expect(sqlite.collection("import_records", INDEXES, 7003).appendAll).toBeUndefined();
    } finally {
      await releaseStore(local);
    }
  });
});
