/**
 * The generated administrator key on PostgreSQL (C40): two nodes of one deployment start on the
 * same database without API_KEYS at once; exactly one of them generates and prints the key, it is kept
 * in the store as its hash (no key file is written), and both nodes take it as an administrator.
 * (The embedded store keeps its DATA_DIR/admin-api-key.txt: admin-key-file.test.ts.)
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Client } from "pg";
import { startNode, waitForHttp, Node } from "../helpers/processes";
import { createTestDatabase, postgresReachable, TestDatabase } from "../helpers/postgres";

const NS = "/wp-json/calendar/events/v1";

describe("the generated administrator key on PostgreSQL", () => {
  let db: TestDatabase | undefined;
  const nodes: Node[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    if (await postgresReachable()) db = await createTestDatabase("adminkey");
  }, 30_000);
  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop("SIGKILL")));
    await db?.drop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  test("one key for the deployment, made and printed by one node, kept as its hash, known to every node", async () => {
    if (!db) return console.warn("PostgreSQL is not reachable: skipped");
    const start = () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "admin-key-pg-"));
      dirs.push(dir);
      return startNode({ DATABASE_URL: db!.url, DATA_DIR: dir, API_KEYS: "", RATE_LIMIT: "", CACHER: "", LOG_LEVEL: "warn" }, { http: true });
    };
    nodes.push(...(await Promise.all([start(), start()])));
    await Promise.all(nodes.map(n => waitForHttp(`${n.base}/health/ready`, 200, 90_000)));
    const printed = nodes.flatMap(n => [...n.output().matchAll(/generated the administrator key ([0-9a-f]+)/g)].map(m => m[1]));
    expect(printed).toHaveLength(1);
    const key = printed[0];
    // no key file on either node; the store holds the hash, never the key
    for (const dir of dirs) expect(fs.existsSync(path.join(dir, "admin-api-key.txt"))).toBe(false);
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const rows = (await client.query("SELECT hash FROM api_keys WHERE site = 1")).rows as Array<{ hash: string }>;
      expect(rows).toHaveLength(1);
      expect(rows[0].hash).toMatch(/^[0-9a-f]{64}$/);
      expect(rows[0].hash).not.toContain(key);
    } finally {
      await client.end();
    }
    for (const n of nodes) {
      const res = await fetch(`${n.base}${NS}/tags`, { method: "POST", headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }, body: JSON.stringify({ name: `Key ${n.port}` }) });
      expect(res.status).toBe(201);
      const wrong = await fetch(`${n.base}${NS}/tags`, { method: "POST", headers: { Authorization: `Bearer ${key}x`, "Content-Type": "application/json" }, body: JSON.stringify({ name: "No" }) });
      expect(wrong.status).toBe(401);
    }
  }, 150_000);
});
