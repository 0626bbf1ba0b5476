/**
 * PostgreSQL's text order (store/sql/text-order.ts): JSON strings compare in the database's collation, so a
 * database made with a language's collation orders lists by a name unlike SQLite and MongoDB. Opening such
 * a store warns, naming the collation and the remedy; a database in byte order (C) opens without it. The
 * order itself is shown on both, through the store: the terms' name order the warning is about.
 */
import { acquireStore, releaseStore, StoreConfig } from "../../store";
import { createTestDatabase, postgresReachable, TestDatabase } from "../helpers/postgres";

const NAMES = ["zeta", "Émile", "_x", "10", "B", "a"];

async function openAndOrder(db: TestDatabase | undefined): Promise<{ notices: Array<[string, string | undefined]>; order: string[] }> {
  const notices: Array<[string, string | undefined]> = [];
  const config: StoreConfig = { dataDir: ":memory:", databaseUrl: db?.url, connectTimeoutMs: 20_000, onNotice: (msg, level) => notices.push([msg, level]) };
  const store = await acquireStore(config);
  try {
    const terms = store.collection("terms", [{ field: "name" }]);
    for (const [i, name] of NAMES.entries()) await terms.insert({ _id: i + 1, name });
    const order = (await terms.find({}, { sort: { name: 1 } })).map(d => d.name as string);
    return { notices, order };
  } finally {
    await releaseStore(config);
  }
}

describe("PostgreSQL databases that do not order text by bytes", () => {
  let reachable = false;
  beforeAll(async () => { reachable = await postgresReachable(); });

  test("a C database opens without a notice and orders names by bytes, as SQLite", async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    const db = await createTestDatabase("order_c");
    try {
      const { notices, order } = await openAndOrder(db);
      expect(notices.filter(([, level]) => level === "warn")).toEqual([]);
      expect(order).toEqual(["10", "B", "_x", "a", "zeta", "Émile"]);
      expect((await openAndOrder(undefined)).order).toEqual(order);
    } finally {
      await db.drop();
    }
  });

  test("an ICU en-US database warns at opening, naming the collation and the remedy (its order is the language's)", async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    const db = await createTestDatabase("order_icu", { icuLocale: "en-US" });
    try {
      const { notices, order } = await openAndOrder(db);
      const warnings = notices.filter(([, level]) => level === "warn").map(([msg]) => msg);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/does not compare text in byte order/);
      expect(warnings[0]).toMatch(/LC_COLLATE 'C'/);
      expect(warnings[0]).not.toMatch(/postgres:\/\/[^*]*@/);
      // what the warning is about: this is not the other stores' order
      expect(order).not.toEqual(["10", "B", "_x", "a", "zeta", "Émile"]);
    } finally {
      await db.drop();
    }
  });
});
