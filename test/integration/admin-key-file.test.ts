/**
 * The generated administrator key (docs/contract.md#starting, C39: migrations and upgrades): a first start without API_KEYS keeps
 * the key alone in DATA_DIR/admin-api-key.txt, and `Authorization: Bearer <the file's content>` is an
 * administrator (the README's curl example); a key file of the old `key:role:id` form is rewritten as the
 * bare key and keeps working. Real processes from the compiled entry point, as `npm start` runs.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { startNode, waitForHttp, Node } from "../helpers/processes";
import type { Json } from "../helpers/json";

const NS = "/wp-json/calendar/events/v1";
const running: Node[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map(n => n.stop()));
});
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "admin-key-"));
  dirs.push(dir);
  return dir;
}

/** `npm start` without API_KEYS on that DATA_DIR, ready. */
async function start(dir: string): Promise<Node> {
  const node = await startNode({ DATA_DIR: dir, API_KEYS: "", RATE_LIMIT: "", CACHER: "" }, { http: true });
  running.push(node);
  await waitForHttp(`${node.base}${NS}`, 200, 45000);
  return node;
}

async function createEvent(node: Node, authorization: string) {
  const res = await fetch(`${node.base}${NS}/events`, {
    method: "POST",
    headers: { Authorization: authorization, "Content-Type": "application/json" },
    body: JSON.stringify({ title: "Jazz night", start_date: "tomorrow 8pm", end_date: "tomorrow 11pm" })
  });
  return { status: res.status, body: await res.json() as Json };
}

describe("the generated administrator key file", () => {
  jest.setTimeout(120000);

  test("holds the key alone, which a client sends as Bearer; it stays the same across restarts", async () => {
    const dir = dataDir();
    const file = path.join(dir, "admin-api-key.txt");
    let node = await start(dir);
    const text = fs.readFileSync(file, "utf8");
    expect(text).toMatch(/^[0-9a-f]{48}\n$/);
    const key = text.trim();
    expect(node.output()).toContain(key);

    const created = await createEvent(node, `Bearer ${key}`);
    expect(created.status).toBe(201);
    expect(created.body.author).toBe("1");
    const edit = await fetch(`${node.base}${NS}/events/${created.body.id}?context=edit`, { headers: { Authorization: `Bearer ${key}` } });
    expect(edit.status).toBe(200);
    // another key is refused, the old `key:role:id` text too
    expect((await createEvent(node, `Bearer ${key}x`)).status).toBe(401);
    expect((await createEvent(node, `Bearer ${key}:administrator:1`)).status).toBe(401);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    await node.stop();
    running.splice(0);
    node = await start(dir);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    expect((await createEvent(node, `Bearer ${key}`)).status).toBe(201);
    expect(node.output()).not.toContain(key);
  });

  test("an old key:role:id file is rewritten as the bare key and the key keeps working", async () => {
    const dir = dataDir();
    const file = path.join(dir, "admin-api-key.txt");
    const key = "0123456789abcdef0123456789abcdef0123456789abcdef";
    fs.writeFileSync(file, `${key}:administrator:1\n`, { mode: 0o600 });
    const node = await start(dir);
    expect(fs.readFileSync(file, "utf8")).toBe(`${key}\n`);
    const created = await createEvent(node, `Bearer ${fs.readFileSync(file, "utf8").trim()}`);
    expect(created.status).toBe(201);
    expect((await createEvent(node, `Bearer ${key}:administrator:1`)).status).toBe(401);
    expect(fs.readdirSync(dir).filter(f => f.startsWith("admin-api-key"))).toEqual(["admin-api-key.txt"]);
  });

  test("a key file that holds no key stops the start naming the file", async () => {
    const dir = dataDir();
    const file = path.join(dir, "admin-api-key.txt");
    fs.writeFileSync(file, "not a key at all\n");
    const node = await startNode({ DATA_DIR: dir, API_KEYS: "" }, { http: true });
    running.push(node);
    const code = node.proc.exitCode ?? await new Promise<number | null>(resolve => node.proc.once("exit", c => resolve(c)));
    expect(code).toBe(1);
    expect(node.output()).toContain(file);
    expect(fs.readFileSync(file, "utf8")).toBe("not a key at all\n");
  });
});
