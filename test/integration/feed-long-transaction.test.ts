/**
 * PostgreSQL's change feed never skips a committed change however long its transaction ran (C43;
 * store/sql/feed.ts): one writer's transaction — an event's update and its feed entry, written the way the
 * store writes them — is held open for 30 s while other writes go through the API, and a reader resuming
 * from token to token through the whole window sees every one of them, the held change included once it
 * commits. (The entries were numbered by a sequence before, and a reader gave up on a number still
 * missing after 10 s: the held change was skipped for good.) SQLite cannot skip: its writers take the
 * database's lock in turn and number their entries under it, so a reader never sees a later entry before
 * an earlier one commits; the file runs on PostgreSQL only.
 */
import { startNode, waitForHttp, Node } from "../helpers/processes";
import { call as opsCall } from "../helpers/ops";
import { createTestDatabase, postgresReachable, TestDatabase } from "../helpers/postgres";
import { acquireStore, releaseStore, StoreConfig } from "../../store";
import { sqlCollection } from "../../store/sql/collection";
import type { SqlDriver, SqlRunner } from "../../store/sql/driver";
import { feedEntry } from "../../lib/changes/feed";
import { nowDb } from "../../lib/time/dates";

const HOLD_MS = 30_000;

describe("PostgreSQL change feed across a transaction held open for 30 s", () => {
  let db: TestDatabase | undefined;
  let config: StoreConfig;
  let node: Node | undefined;
  let base = "";

  beforeAll(async () => {
    if (!(await postgresReachable())) return;
    db = await createTestDatabase("feedhold");
    config = { dataDir: ":memory:", databaseUrl: db.url, connectTimeoutMs: 5000 };
    node = await startNode({ DATABASE_URL: db.url, RATE_LIMIT: "", CACHER: "", LOG_LEVEL: "warn", SERIES_JOB_MS: "0" }, { http: true });
    base = node.base!;
    await waitForHttp(`${base}/health/ready`, 200, 90_000);
  }, 120_000);
  afterAll(async () => {
    if (node && (node.proc.exitCode !== null || node.proc.signalCode !== null)) console.warn(`the node exited: ${node.output().slice(-3000)}`);
    await node?.stop("SIGKILL");
    await db?.drop();
  }, 30_000);

  const call = async (method: string, p: string, body?: unknown) => {
    const res = await opsCall(base, method, p, body);
    if (res.status === 0 || res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${res.error ?? JSON.stringify(res.body)}`);
    return res.body;
  };

  /** Reads the feed from `token` to its current end; answers the changes seen and the new token. */
  async function readOn(token: string | undefined): Promise<{ token: string; seen: Array<{ type: string; id: number; record?: { title?: { rendered?: string } | string } }> }> {
    const seen = [];
    for (;;) {
      const page = await call("GET", `/changes?per_page=50${token ? `&since=${token}` : ""}`);
      seen.push(...page.changes);
      token = page.next_token;
      if (!page.changes.length || !page.has_more) return { token: token!, seen };
    }
  }

  test("a reader resuming through the window misses nothing, the held change included", async () => {
    if (!db) return console.warn("PostgreSQL is not reachable: skipped");
    const held = await call("POST", "/events", { title: "Held before", status: "publish", start_date: "2030-03-01 10:00", end_date: "2030-03-01 11:00" });
    let { token } = await readOn(undefined);

    const store = await acquireStore(config);
    const driver = store.sql!;
    let release!: () => void;
    const holding = new Promise<void>(resolve => { release = resolve; });
    let wrote!: () => void;
    const written = new Promise<void>(resolve => { wrote = resolve; });
    // the held writer: the event's update and its feed entry in one transaction, committed after 30 s
    const transaction = driver.transaction(async (tx: SqlRunner) => {
      const inTx: SqlDriver = { ...tx, transaction: fn => fn(tx), withLock: (_k, fn) => fn(), close: async () => undefined };
      const events = sqlCollection(inTx, { table: "events", site: 1, feedTable: "changes", arrays: new Set() });
      const now = nowDb();
      await events.updateOne({ _id: held.id }, { $set: { title: "Held change", modified_utc: now } },
        { change: after => ({ ...feedEntry({ type: "event", id: held.id, action: "updated", modified_utc: now, snapshot: { status: String(after.status), author: after.author as number, date_utc: String(after.date_utc) } }) }) });
      wrote();
      await holding;
    });
    await written;

    // meanwhile: other writes through the API, the reader resuming after each
    const seen: Array<{ type: string; id: number; record?: { title?: { rendered?: string } | string } }> = [];
    const made: number[] = [];
    const started = Date.now();
    let i = 0;
    while (Date.now() - started < HOLD_MS) {
      made.push((await call("POST", "/events", { title: `During ${i++}`, status: "publish", start_date: "2030-03-02 10:00", end_date: "2030-03-02 11:00" })).id);
      const r = await readOn(token);
      seen.push(...r.seen);
      token = r.token;
      await new Promise(res => setTimeout(res, 1000));
    }
    // the held change is not visible while its transaction runs, and the reader waits for it
    expect(seen.some(c => c.id === held.id)).toBe(false);
    release();
    await transaction;
    await releaseStore(config);
    const after = await readOn(token);
    seen.push(...after.seen);

    const ids = seen.map(c => c.id);
    for (const id of made) expect(ids).toContain(id);
    const heldSeen = seen.filter(c => c.id === held.id);
    expect(heldSeen).toHaveLength(1);
    expect(JSON.stringify(heldSeen[0].record)).toContain("Held change");
    console.log(`held 30 s: ${made.length} writes meanwhile, ${seen.length} changes read, the held one last`);
  }, 120_000);
});
