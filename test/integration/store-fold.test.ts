/**
 * One folding of text on every store (lib/text/fold.ts, migration 12, docs/lists.md#search): a search term and
 * the texts it is compared with fold alike on SQLite (its full-text index) and PostgreSQL (its `fold()`,
 * the stored folded texts and their indexes), as `foldText` folds them: ligatures, full-width forms, "ß",
 * the final sigma, Japanese voicing marks. Before, "strasse" found "Straße" on PostgreSQL only and
 * "ΣΊΣΥΦΟΣ" or "イベント" on SQLite only. A database written before the migration is folded again at
 * upgrade.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { openPostgres, openSqlite, SqlDriver } from "../../store/sql/driver";
import { FTS_TABLES, migrate } from "../../store/sql/schema";
import { acquireStore, releaseStore, StoreConfig } from "../../store";
import { buildEventQuery } from "../../lib/events/event-query";
import { foldText } from "../../lib/text/fold";
import { createTestDatabase, postgresReachable } from "../helpers/postgres";

const TITLES = ["Straße Fest", "ﬁnance night", "ΣΊΣΥΦΟΣ live", "東京 イベント", "ＡＢＣ expo", "Øresund bridge", "Café Noir", "Plain jazz"];
const TERMS = ["strasse", "STRASSE", "straße", "finance", "ﬁnance", "σίσυφος", "ΣΊΣΥΦΟΣ", "σισυφοσ", "イベント", "ｲﾍﾞﾝﾄ", "abc", "oresund", "cafe", "CAFÉ", "jazz"];
/** Before this version the stores folded otherwise. */
const BEFORE = 11;

/** The ids a plain scan finds: every term's folded form inside a folded title. */
function scan(docs: Array<{ _id: number; title: string }>, term: string): number[] {
  return docs.filter(d => foldText(d.title).includes(foldText(term))).map(d => d._id);
}

/** The code points (hex) of whole Unicode blocks whose text PostgreSQL's fold() folds unlike `foldText`. */
async function foldedApart(config: StoreConfig): Promise<string[]> {
  const store = await acquireStore(config);
  try {
    const blocks: Array<[number, number]> = [[0x20, 0x24f], [0x370, 0x4ff], [0x590, 0x6ff], [0x900, 0x97f], [0x1e00, 0x1fff], [0x3040, 0x30ff], [0xfb00, 0xfb4f], [0xff00, 0xffef]];
    const texts = blocks.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => `${String.fromCodePoint(a + i)}Xy`));
    const rows = await store.sql!.all<{ f: string }>("SELECT fold(x) AS f FROM unnest(?::text[]) WITH ORDINALITY AS u(x, i) ORDER BY i", [texts as unknown as string]);
    return texts.filter((t, i) => rows[i].f !== foldText(t)).map(t => t.codePointAt(0)!.toString(16));
  } finally {
    await releaseStore(config);
  }
}

function suite(kind: "sqlite" | "postgres") {
  describe(`folding on ${kind}`, () => {
    let config: StoreConfig;
    let driver: () => SqlDriver;
    let cleanup: () => Promise<void> = async () => undefined;
    let reachable = true;

    beforeAll(async () => {
      if (kind === "postgres") {
        reachable = await postgresReachable();
        if (!reachable) return;
        const db = await createTestDatabase("fold");
        config = { dataDir: ":memory:", databaseUrl: db.url, connectTimeoutMs: 10_000 };
        driver = () => openPostgres(db.url);
        cleanup = () => db.drop();
      } else {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fold-"));
        config = { dataDir: dir, connectTimeoutMs: 1000 };
        driver = () => openSqlite(path.join(dir, "calendar.sqlite3"));
        cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
      }
    });
    afterAll(() => cleanup());

    test("a store written before migration 12 is folded again at upgrade; then every term finds what a scan finds, new records too", async () => {
      if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
      const old = driver();
      await migrate(old, BEFORE);
      const docs = TITLES.map((title, i) => ({ _id: i + 1, title, status: "publish", start_date: "2030-01-01 10:00:00" }));
      const json = old.dialect === "sqlite" ? "jsonb(?)" : "?::jsonb";
      for (const { _id, ...doc } of docs) await old.run(`INSERT INTO events (site, id, doc) VALUES (1, ?, ${json})`, [_id, JSON.stringify(doc)]);
      if (old.dialect === "sqlite") {
        // the full-text index as an earlier version filled it: folded by decomposition and lower case only
        const fts = FTS_TABLES.events;
        const earlier = (s: string) => s.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase();
        await old.run(`INSERT INTO ${fts.table} (${fts.table}) VALUES ('delete-all')`);
        for (const d of docs) await old.run(`INSERT INTO ${fts.table} (rowid, title, excerpt, description) VALUES (?, ?, '', '')`, [2 ** 32 + d._id, earlier(d.title)]);
      } else {
        // PostgreSQL's fold() of then (unaccent) kept the Japanese voicing marks
        const [row] = await old.all<{ f: string }>("SELECT f_title AS f FROM events WHERE id = 4");
        expect(row.f).not.toBe(foldText(TITLES[3]));
      }
      await old.close();

      const store = await acquireStore(config);
      try {
        const events = store.collection("events", [{ field: "start_date", then: ["date"] }]);
        const found = async (term: string) => (await events.find(buildEventQuery({ statuses: ["publish"], bounds: {}, searchAccess: "all", search: term }), { sort: { _id: 1 } })).map(d => d._id);
        for (const term of TERMS) {
          const expected = scan(docs, term);
          expect({ term, ids: await found(term) }).toEqual({ term, ids: expected });
          expect({ term, n: expected.length }).not.toEqual({ term, n: 0 });
        }
        // written after the upgrade: the triggers and stored columns fold the new way
        await events.insert({ _id: 20, title: "Neue STRASSE ﬂow ς", status: "publish", start_date: "2030-01-02 10:00:00" });
        expect(await found("straße")).toEqual([1, 20]);
        expect(await found("flow")).toEqual([20]);
        if (kind === "postgres") {
          const rows = await store.sql!.all<{ f: string }>("SELECT fold(?) AS f", ["Neue STRASSE ﬂow ς ΣΊΣΥΦΟΣ ｲﾍﾞﾝﾄ Øre Łódź"]);
          expect(rows[0].f).toBe(foldText("Neue STRASSE ﬂow ς ΣΊΣΥΦΟΣ ｲﾍﾞﾝﾄ Øre Łódź"));
        }
      } finally {
        await releaseStore(config);
      }
    });

    if (kind === "postgres") {
      test("PostgreSQL's fold() is foldText over whole blocks: Latin, Greek, Cyrillic, Hebrew, Arabic, Devanagari, kana, full-width forms", async () => {
        if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
        expect(await foldedApart(config)).toEqual([]);
      });

      test("the same on a database whose LC_CTYPE is C (fold() lower-cases under a Unicode collation there, migration 13)", async () => {
        if (!reachable) return console.warn("PostgreSQL is not reachable: skipped");
        const db = await createTestDatabase("fold_c", { ctype: "C" });
        try {
          expect(await foldedApart({ dataDir: ":memory:", databaseUrl: db.url, connectTimeoutMs: 20_000 })).toEqual([]);
        } finally {
          await db.drop();
        }
      });
    }
  });
}

suite("sqlite");
suite("postgres");
