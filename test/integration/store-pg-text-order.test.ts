/**
 * PostgreSQL's locale against the other stores (store/sql/text-order.ts): JSON strings compare in the
 * database's collation, so a database made with a language's collation orders lists by a name unlike SQLite
 * and MongoDB; and `lower` follows LC_CTYPE, so under `C` a folded search matches letters beyond ASCII
 * case-sensitively. Opening such a store warns, naming the setting and the remedy; a database made as the
 * README says (C collation, C.UTF-8 character classes) opens without either. What each warning is about is
 * shown through the store: the terms' name order, a search in Cyrillic.
 */
import { acquireStore, releaseStore, StoreConfig } from "../../store";
import { createTestDatabase, postgresReachable, TestDatabase } from "../helpers/postgres";

const NAMES = ["zeta", "Émile", "_x", "10", "B", "a"];

async function openAndOrder(db: TestDatabase | undefined): Promise<{ notices: Array<[string, string | undefined]>; order: string[]; found: string[] }> {
  const notices: Array<[string, string | undefined]> = [];
  const config: StoreConfig = { dataDir: ":memory:", databaseUrl: db?.url, connectTimeoutMs: 20_000, onNotice: (msg, level) => notices.push([msg, level]) };
  const store = await acquireStore(config);
  try {
    const terms = store.collection("terms", [{ field: "name" }]);
    for (const [i, name] of NAMES.entries()) await terms.insert({ _id: i + 1, name });
    const order = (await terms.find({}, { sort: { name: 1 } })).map(d => d.name as string);
    await terms.insert({ _id: NAMES.length + 1, name: "ДЖАЗ вечер" });
    // a folded search, as an events or terms `search` asks the store (lib/fold.ts folds the asked text)
    const found = (await terms.find({ name: /джаз/i })).map(d => d.name as string);
    return { notices, order, found };
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
      const { notices, order, found } = await openAndOrder(db);
      expect(notices.filter(([, level]) => level === "warn")).toEqual([]);
      expect(order).toEqual(["10", "B", "_x", "a", "zeta", "Émile"]);
      expect(found).toEqual(["ДЖАЗ вечер"]);
      const sqlite = await openAndOrder(undefined);
      expect(sqlite.order).toEqual(order);
      expect(sqlite.found).toEqual(found);
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

  test("a database whose LC_CTYPE is C warns at opening, naming it and the remedy (a Cyrillic search there is case-sensitive)", async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    const db = await createTestDatabase("ctype_c", { ctype: "C" });
    try {
      const { notices, order, found } = await openAndOrder(db);
      const warnings = notices.filter(([, level]) => level === "warn").map(([msg]) => msg);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/lower-cases ASCII letters only \(its LC_CTYPE is C\)/);
      expect(warnings[0]).toMatch(/UTF-8 LC_CTYPE/);
      expect(warnings[0]).not.toMatch(/postgres:\/\/[^*]*@/);
      // byte order holds (the collation is C): only the case folding differs
      expect(order).toEqual(["10", "B", "_x", "a", "zeta", "Émile"]);
      // what the warning is about: SQLite finds it
      expect(found).toEqual([]);
    } finally {
      await db.drop();
    }
  });
});
