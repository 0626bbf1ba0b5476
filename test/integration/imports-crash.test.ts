/**
 * A node killed (SIGKILL) in the middle of an import, then started again on the same store: the import
 * is taken up again once its lease expires and completes without a duplicate. Runs on SQLite
 * (a DATA_DIR on disk) and, when the local server answers, PostgreSQL.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { freePort, KEYS } from "../helpers/harness";
import { startNode, waitForHttp, Node } from "../helpers/processes";
import { createTestDatabase, postgresReachable, TestDatabase } from "../helpers/postgres";
import { httpJson, importsReady, readAll, waitForImport } from "../helpers/imports";

const EVENTS = Number(process.env.IMPORT_CRASH_EVENTS ?? 300);

function feed(n: number): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//crash test//EN", "X-WR-CALNAME:Crash test"];
  for (let i = 0; i < n; i++) {
    const day = new Date(Date.UTC(2027, 0, 1) + i * 3_600_000 * 7).toISOString().replace(/[-:]/g, "").slice(0, 15);
    lines.push("BEGIN:VEVENT", `UID:crash-${i}@example.org`, `DTSTART:${day}Z`, `DTEND:${day.slice(0, 9)}235900Z`, `SUMMARY:Crash ${i}`, `LOCATION:Hall ${i % 5}`, "END:VEVENT");
  }
  lines.push("END:VCALENDAR");
  return lines.join("\r\n");
}

describe.each(["sqlite", "postgres"])("a SIGKILL during an import (%s)", store => {
  let env: Record<string, string>;
  let node: Node | undefined;
  let db: TestDatabase | undefined;
  let dir: string | undefined;
  let skip = false;

  beforeAll(async () => {
    if (store === "postgres") {
      if (!(await postgresReachable())) { skip = true; return; }
      db = await createTestDatabase("imports_crash");
    } else {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "imports-crash-"));
    }
    const port = await freePort();
    env = {
      PORT: String(port), HOST: "127.0.0.1", BASE_URL: `http://127.0.0.1:${port}`, IMPORT_POLL_MS: "100", IMPORT_LEASE_MS: "1500",
      ...(db ? { DATABASE_URL: db.url, DATA_DIR: ":memory:" } : { DATA_DIR: dir! })
    };
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
    await db?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("the import completes after a restart, without duplicates", async () => {
    if (skip) return console.warn("PostgreSQL is not reachable: the PostgreSQL crash test is skipped");
    const ns = `${env.BASE_URL}/wp-json/calendar/events/v1`;
    node = await startNode(env);
    await waitForHttp(ns, 200, 60_000);
    await importsReady(ns, KEYS.admin);
    const res = await httpJson("POST", `${ns}/imports`, KEYS.admin, feed(EVENTS), "text/calendar");
    expect(res.status).toBe(202);
    // killed once some events are in and many are not
    let seen = 0;
    let stateAtKill = "queued";
    for (let i = 0; i < 600 && seen < 40; i++) {
      const imp = await httpJson("GET", `${ns}/imports/${res.body.id}`, KEYS.admin);
      seen = imp.body.created ?? 0;
      stateAtKill = imp.body.state;
      if (imp.body.state === "done") break;
      await new Promise(r => setTimeout(r, 25));
    }
    await node.stop("SIGKILL");
    node = await startNode(env);
    await waitForHttp(ns, 200, 60_000);
    await importsReady(ns, KEYS.admin);
    // the kill came mid-run; the restarted node may already have taken the run over and finished it
    expect(stateAtKill).toBe("running");
    expect(seen).toBeLessThan(EVENTS);
    const before = await httpJson("GET", `${ns}/imports/${res.body.id}`, KEYS.admin);
    expect(["running", "done"]).toContain(before.body.state);
    const done = await waitForImport(ns, KEYS.admin, res.body.id, 120_000);
    expect(done).toMatchObject({ state: "done", failed: 0 });
    const events = await readAll(ns, KEYS.admin, "events");
    const sources = events.map(e => e.import_source?.source_id);
    expect(new Set(sources).size).toBe(sources.length);
    expect(events.length).toBe(EVENTS);
    expect(new Set(events.map(e => e.title)).size).toBe(EVENTS);
    const venues = await readAll(ns, KEYS.admin, "venues");
    expect(venues.map(v => v.venue).sort()).toEqual(["Hall 0", "Hall 1", "Hall 2", "Hall 3", "Hall 4"]);
  }, 240_000);
});
