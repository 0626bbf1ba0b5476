/**
 * A store of its own for one test file, on either SQL backend: a fresh PostgreSQL database or a SQLite
 * directory, dropped by `close`. Undefined when PostgreSQL is asked for and not reachable (the file's
 * tests say so and skip).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { acquireStore, releaseStore, Store, StoreConfig } from "../../store";
import { createTestDatabase, postgresReachable } from "./postgres";

export interface TestStore {
  store: Store;
  close(): Promise<void>;
}

export async function openTestStore(kind: "sqlite" | "postgres", label: string): Promise<TestStore | undefined> {
  let config: StoreConfig;
  let drop: () => Promise<void>;
  if (kind === "postgres") {
    if (!(await postgresReachable())) return undefined;
    const db = await createTestDatabase(label);
    // lookups by key on connections of their own, as the service opens them (DATABASE_LOOKUP_POOL_MAX's default)
    config = { dataDir: ":memory:", databaseUrl: db.url, connectTimeoutMs: 5000, lookupMax: 5 };
    drop = () => db.drop();
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
    config = { dataDir: dir, connectTimeoutMs: 1000 };
    drop = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  const store = await acquireStore(config);
  return { store, close: async () => { await releaseStore(config); await drop(); } };
}
