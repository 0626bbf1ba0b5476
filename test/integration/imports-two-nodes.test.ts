/**
 * Two nodes importing one feed at once: each runs its own import of the same iCalendar feed
 * on one store, at the same moment; every source record is created once (the source row's key is unique
 * in the store: domain/imports/import-run.ts `reserve`). Runs on SQLite (a DATA_DIR on disk shared by both
 * processes) and, when the local server answers, PostgreSQL, there with pools of two connections
 * (DATABASE_POOL_MAX): every write of a run once failed waiting for a lock connection that the holders of
 * the venues' name locks held while each waited for another (store/sql/driver.ts `withLock`).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { freePort, KEYS } from "../helpers/harness";
import { startNode, waitForHttp, Node } from "../helpers/processes";
import { createTestDatabase, postgresReachable, TestDatabase } from "../helpers/postgres";
import { httpJson, importsReady, readAll, waitForImport } from "../helpers/imports";

const EVENTS = Number(process.env.IMPORT_TWO_NODES_EVENTS ?? 120);

function feed(n: number): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//two nodes//EN", "X-WR-CALNAME:Two nodes"];
  for (let i = 0; i < n; i++) {
    const day = new Date(Date.UTC(2027, 0, 1) + i * 3_600_000 * 5).toISOString().replace(/[-:]/g, "").slice(0, 15);
    lines.push("BEGIN:VEVENT", `UID:twice-${i}@example.org`, `DTSTART:${day}Z`, `SUMMARY:Twice ${i}`, `LOCATION:Room ${i % 4}`, `CATEGORIES:Track ${i % 3}`, "END:VEVENT");
  }
  lines.push("END:VCALENDAR");
  return lines.join("\r\n");
}

// A poll sent on a kept-alive connection the node closes at that moment is asked again (test/helpers/imports.ts
// waitForImport): under the whole suite's load a node's event loop was once busy long enough for its idle
// timer to fire as the next poll arrived, which reset the test's connection.
const STORES = ["sqlite", "postgres"];

describe.each(STORES)("two nodes importing one feed at once (%s)", store => {
  const nodes: Node[] = [];
  let db: TestDatabase | undefined;
  let dir: string | undefined;
  let skip = false;
  let shared: Record<string, string>;

  beforeAll(async () => {
    if (store === "postgres") {
      if (!(await postgresReachable())) { skip = true; return; }
      db = await createTestDatabase("imports_two_nodes");
    } else {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "imports-two-nodes-"));
    }
    // PostgreSQL with pools of two connections: a write that holds one while it waits for another of its pool fails
    shared = { IMPORT_POLL_MS: "100", ...(db ? { DATABASE_URL: db.url, DATA_DIR: ":memory:", DATABASE_POOL_MAX: "2" } : { DATA_DIR: dir! }) };
  }, 60_000);
  afterAll(async () => {
    for (const n of nodes) await n.stop();
    await db?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("each source record is created once", async () => {
    if (skip) return console.warn("PostgreSQL is not reachable: the PostgreSQL two-node import test is skipped");
    const bases: string[] = [];
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      nodes.push(await startNode({ ...shared, PORT: String(port), HOST: "127.0.0.1", BASE_URL: base }));
      await waitForHttp(`${base}/wp-json/calendar/events/v1`, 200, 60_000);
      await importsReady(`${base}/wp-json/calendar/events/v1`, KEYS.admin);
      bases.push(`${base}/wp-json/calendar/events/v1`);
    }
    const text = feed(EVENTS);
    const posted = await Promise.all(bases.map(ns => httpJson("POST", `${ns}/imports`, KEYS.admin, text, "text/calendar")));
    expect(posted.map(p => p.status)).toEqual([202, 202]);
    // a node that ends or resets a connection says why: its output goes with the failure
    const done = await Promise.all(posted.map((p, i) => waitForImport(bases[i], KEYS.admin, p.body.id, 180_000))).catch((e: Error) => {
      throw new Error(`${e.message} (${String((e as { cause?: unknown }).cause ?? "")})\n${nodes.map((n, i) => `node ${i}${n.proc.exitCode !== null || n.proc.signalCode !== null ? ` exited (${n.proc.exitCode ?? n.proc.signalCode})` : ""}:\n${n.output().slice(-3000)}`).join("\n")}`);
    });
    for (const d of done) expect(d).toMatchObject({ state: "done", failed: 0 });
    // between them, every record was made once; the other run found it
    expect(done[0].created + done[1].created).toBe(EVENTS);
    const events = await readAll(bases[0], KEYS.admin, "events");
    const uids = events.map(e => e.import_source?.source_id);
    expect(events).toHaveLength(EVENTS);
    expect(new Set(uids).size).toBe(EVENTS);
    const venues = await readAll(bases[0], KEYS.admin, "venues");
    expect(venues.map(v => v.venue).sort()).toEqual(["Room 0", "Room 1", "Room 2", "Room 3"]);
    const categories = await readAll(bases[0], KEYS.admin, "categories");
    expect(categories.map(c => c.name).filter(n => n.startsWith("Track")).sort()).toEqual(["Track 0", "Track 1", "Track 2"]);
  }, 300_000);
});
