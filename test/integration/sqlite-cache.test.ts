/**
 * The SQLite store's page cache (store/sql/driver.ts): 128 MB unless SQLITE_CACHE_MB says otherwise, set on
 * the connection the store opens, so the full-text index's merges at every create find their pages in memory.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { acquireStore, releaseStore, type StoreConfig } from "../../store";
import { readSettings } from "../../lib/settings";

/** The connection's cache size in kibibytes (SQLite reports a size in kibibytes as a negative number). */
async function cacheKib(config: StoreConfig): Promise<number> {
  const store = await acquireStore(config);
  try {
    const [row] = await store.sql!.all<{ cache_size: number }>("PRAGMA cache_size");
    return -Number(row.cache_size);
  } finally {
    await releaseStore(config);
  }
}

describe("the SQLite store's page cache", () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "sqlite-cache-"));
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("128 MB when SQLITE_CACHE_MB is unset", async () => {
    const { sqliteCacheMb } = readSettings({ DATA_DIR: dir });
    expect(await cacheKib({ dataDir: dir, connectTimeoutMs: 1000, sqliteCacheMb })).toBe(128 * 1024);
  });

  test("the megabytes SQLITE_CACHE_MB gives", async () => {
    const { sqliteCacheMb } = readSettings({ DATA_DIR: dir, SQLITE_CACHE_MB: "24" });
    expect(await cacheKib({ dataDir: dir, connectTimeoutMs: 1000, sqliteCacheMb })).toBe(24 * 1024);
  });
});
