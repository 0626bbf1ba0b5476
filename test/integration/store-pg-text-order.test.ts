/**
 * PostgreSQL's locale against the other stores (store/sql/text-order.ts): JSON strings compare in the
 * database's collation, so a database made with a language's collation orders lists by a name unlike SQLite
 * and MongoDB (opening such a store warns, naming the collation and the remedy; shown through the terms'
 * name order); and `lower` follows LC_CTYPE, which under `C` changes ASCII letters only, so fold() lower-cases
 * under a Unicode collation there (migration 13): a search in Cyrillic finds what SQLite finds, on a new
 * database and on one whose texts were stored before.
 */
import { acquireStore, releaseStore, StoreConfig } from "../../store";
import { openPostgres, SqlDriver } from "../../store/sql/driver";
import { migrate } from "../../store/sql/schema";
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
    // a folded search, as an events or terms `search` asks the store (lib/text/fold.ts folds the asked text)
    const found = (await terms.find({ name: /джаз/i })).map(d => d.name as string);
    return { notices, order, found };
  } finally {
    await releaseStore(config);
  }
}

/** `fn` on a new database made with `opts` (test/helpers/postgres.ts), dropped afterwards. */
async function onDatabase(label: string, opts: { icuLocale?: string; ctype?: string }, fn: (db: TestDatabase) => Promise<void>): Promise<void> {
  const db = await createTestDatabase(label, opts);
  try {
    await fn(db);
  } finally {
    await db.drop();
  }
}

/** `fn` with a driver of its own on `db`, closed afterwards. */
async function withDriver(db: TestDatabase, fn: (driver: SqlDriver) => Promise<void>): Promise<void> {
  const driver = openPostgres(db.url);
  try {
    await fn(driver);
  } finally {
    await driver.close();
  }
}

describe("PostgreSQL databases that do not order text by bytes", () => {
  let reachable = false;
  beforeAll(async () => { reachable = await postgresReachable(); });

  test("a C database opens without a notice and orders names by bytes, as SQLite", async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    await onDatabase("order_c", {}, async db => {
      const { notices, order, found } = await openAndOrder(db);
      expect(notices.filter(([, level]) => level === "warn")).toEqual([]);
      expect(order).toEqual(["10", "B", "_x", "a", "zeta", "Émile"]);
      expect(found).toEqual(["ДЖАЗ вечер"]);
      const sqlite = await openAndOrder(undefined);
      expect(sqlite.order).toEqual(order);
      expect(sqlite.found).toEqual(found);
    });
  });

  test("an ICU en-US database warns at opening, naming the collation and the remedy (its order is the language's)", async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    await onDatabase("order_icu", { icuLocale: "en-US" }, async db => {
      const { notices, order } = await openAndOrder(db);
      const warnings = notices.filter(([, level]) => level === "warn").map(([msg]) => msg);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/does not compare text in byte order/);
      expect(warnings[0]).toMatch(/LC_COLLATE 'C'/);
      expect(warnings[0]).not.toMatch(/postgres:\/\/[^*]*@/);
      // what the warning is about: this is not the other stores' order
      expect(order).not.toEqual(["10", "B", "_x", "a", "zeta", "Émile"]);
    });
  });

  test("a database whose LC_CTYPE is C folds Cyrillic as SQLite does and opens without a notice (migration 13's collation)", async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    await onDatabase("ctype_c", { ctype: "C" }, async db => {
      const { notices, order, found } = await openAndOrder(db);
      expect(notices.filter(([, level]) => level === "warn")).toEqual([]);
      expect(order).toEqual(["10", "B", "_x", "a", "zeta", "Émile"]);
      expect(found).toEqual(["ДЖАЗ вечер"]);
    });
  });

  test("an older C-ctype database, its texts stored before migration 13, finds them case-insensitively after it", async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    await onDatabase("ctype_up", { ctype: "C" }, async db => {
      await withDriver(db, async driver => {
        await migrate(driver, 12);
        // what migration 13 is about: here lower() keeps Cyrillic capitals
        const [before] = await driver.all<{ folded: string }>("SELECT fold('ДЖАЗ') AS folded");
        expect(before.folded).toBe("ДЖАЗ");
        await driver.run("INSERT INTO events (site, id, doc) VALUES (1, 1, ?::jsonb)", [JSON.stringify({ title: "ДЖАЗ ВЕЧЕР", status: "publish" })]);
        const stored = await driver.all<{ f: string }>("SELECT f_title AS f FROM events WHERE id = 1");
        expect(stored[0].f).toBe("ДЖАЗ ВЕЧЕР");
        await migrate(driver);
        const after = await driver.all<{ f: string; folded: string }>("SELECT f_title AS f, fold('ДЖАЗ') AS folded FROM events WHERE id = 1");
        expect(after).toEqual([{ f: "джаз вечер", folded: "джаз" }]);
      });
    });
  });

  test("a database whose lower() already folds keeps migration 12's fold() (no rewrite)", async () => {
    if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
    await onDatabase("ctype_utf8", {}, async db => {
      await withDriver(db, async driver => {
        await migrate(driver, 12);
        const [twelve] = await driver.all<{ src: string }>("SELECT prosrc AS src FROM pg_proc WHERE proname = 'fold'");
        await migrate(driver);
        const [thirteen] = await driver.all<{ src: string }>("SELECT prosrc AS src FROM pg_proc WHERE proname = 'fold'");
        expect(thirteen.src).toBe(twelve.src);
        expect(thirteen.src).not.toMatch(/COLLATE/);
      });
    });
  });
});
