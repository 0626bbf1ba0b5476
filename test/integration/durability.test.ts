/**
 * Crash safety of the embedded store with real processes (`node dist/server.js` on a DATA_DIR on disk):
 * a burst of creates and updates, `kill -9` while it is in flight, a restart on the same DATA_DIR, and every
 * acknowledged write is there (ids and values). Then a damaged database file stops the start-up with a
 * message naming the file (store/index.ts), and nothing is repaired by dropping data.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { startNode, waitForHttp, Node } from "../helpers/processes";
import { KEYS } from "../helpers/harness";
import { checkedFetch } from "../helpers/contract";

const KILL_CYCLES = 3;
const NS = "/wp-json/calendar/events/v1";

type Kind = "events" | "venues" | "organizers" | "categories" | "tags";
interface Acked { kind: Kind; id: number; fields: Record<string, unknown> }

/** The body of the n-th create of a kind and the fields its answer must keep. */
function createBody(kind: Kind, tag: string): { body: Record<string, unknown>; check: Record<string, unknown> } {
  switch (kind) {
    case "events": return { body: { title: `Crash ${tag}`, excerpt: `x-${tag}`, start_date: "tomorrow 10:00", end_date: "tomorrow 11:00" }, check: { title: `Crash ${tag}` } };
    case "venues": return { body: { venue: `Crash hall ${tag}`, city: `City ${tag}` }, check: { venue: `Crash hall ${tag}`, city: `City ${tag}` } };
    case "organizers": return { body: { organizer: `Crash org ${tag}`, phone: `555-${tag}` }, check: { organizer: `Crash org ${tag}`, phone: `555-${tag}` } };
    case "categories": return { body: { name: `Crash cat ${tag}` }, check: { name: `Crash cat ${tag}` } };
    case "tags": return { body: { name: `crash-tag-${tag}` }, check: { name: `crash-tag-${tag}` } };
  }
}

describe("durability of the embedded store across kill -9", () => {
  let dir: string;
  let node: Node | undefined;
  let base = "";
  let kills = 0;
  let ackedUpdates = 0;
  const acked: Acked[] = [];
  /** Records updated in chains: the last version acknowledged for each. */
  const lastAckedVersion = new Map<number, number>();

  beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "calendar-durability-")); });
  afterAll(async () => {
    if (node) await node.stop("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`durability: ${kills} kills, ${acked.length} acknowledged creates and ${ackedUpdates} acknowledged updates checked`);
  });

  async function start(): Promise<Node> {
    const n = await startNode({ DATA_DIR: dir, RATE_LIMIT: "", CACHER: "", LOG_LEVEL: "warn" }, { http: true });
    try {
      // every service, not just the gateway (the gateway may listen while the stores are still loading)
      await waitForHttp(`${n.base}/health/ready`, 200, 30_000);
      await waitForHttp(`${n.base}${NS}`, 200, 30_000);
    } catch (err) {
      await n.stop("SIGKILL");
      throw new Error(`${(err as Error).message}\n${n.output()}`);
    }
    node = n;
    base = n.base!;
    return n;
  }

  const call = async (method: string, p: string, body?: unknown) => {
    const res = await checkedFetch(`${base}${NS}${p}`, {
      method,
      headers: { Authorization: `Bearer ${KEYS.admin}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  /** Every acknowledged write, read back after a restart. */
  async function verifyAll(): Promise<string[]> {
    const problems: string[] = [];
    for (const a of acked) {
      const res = await call("GET", `/${a.kind}/${a.id}`);
      if (res.status !== 200) { problems.push(`${a.kind} ${a.id}: ${res.status}`); continue; }
      for (const [k, v] of Object.entries(a.fields)) if (res.body[k] !== v) problems.push(`${a.kind} ${a.id}.${k}: ${JSON.stringify(res.body[k])} ≠ ${JSON.stringify(v)}`);
    }
    for (const [id, version] of lastAckedVersion) {
      const res = await call("GET", `/events/${id}`);
      // v0 is the create itself (an empty excerpt)
      const excerpt = String(res.body?.excerpt ?? "");
      const stored = excerpt === "" && res.status === 200 ? 0 : Number(/^<p>v(\d+)<\/p>/.exec(excerpt)?.[1] ?? /^v(\d+)$/.exec(excerpt)?.[1] ?? -1);
      if (stored < version) problems.push(`event ${id}: update v${version} was acknowledged, v${stored} is stored (${res.status} ${JSON.stringify(res.body?.excerpt ?? res.body?.code)})`);
    }
    const ids = acked.map(a => `${a.kind === "categories" || a.kind === "tags" ? "term" : "post"}:${a.id}`);
    if (new Set(ids).size !== ids.length) problems.push("two acknowledged creates share an id");
    return problems;
  }

  test(`a burst of creates and updates killed ${KILL_CYCLES} times: every acknowledged write survives`, async () => {
    await start();
    // records whose updates run in chains during the bursts
    const chained: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await call("POST", "/events", { title: `Chain ${i}`, start_date: "tomorrow 09:00", end_date: "tomorrow 10:00" });
      expect(res.status).toBe(201);
      chained.push(res.body.id);
      lastAckedVersion.set(res.body.id, 0);
    }
    let version = 0;
    for (let cycle = 0; cycle < KILL_CYCLES; cycle++) {
      const proc = node!.proc;
      let ackedThisCycle = 0;
      const updatesBefore = ackedUpdates;
      let killed = false;
      const kinds: Kind[] = ["events", "venues", "organizers", "categories", "tags"];
      const creates = Array.from({ length: 60 }, (_, i) => (async () => {
        const kind = kinds[i % kinds.length];
        const { body, check } = createBody(kind, `c${cycle}n${i}`);
        try {
          const res = await call("POST", `/${kind}`, body);
          if (res.status === 201 && !killed) {
            acked.push({ kind, id: res.body.id, fields: check });
            ackedThisCycle++;
          } else if (res.status === 201) {
            acked.push({ kind, id: res.body.id, fields: check }); // answered before the kill took effect
          } else if (!killed) throw new Error(`create ${kind}: ${res.status} ${JSON.stringify(res.body)}`);
        } catch (err) {
          if (!killed) throw err; // only the kill may cut a request short
        }
      })());
      const updates = chained.map(id => (async () => {
        for (let k = 0; k < 12; k++) {
          const v = ++version;
          try {
            const res = await call("PATCH", `/events/${id}`, { excerpt: `v${v}` });
            if (res.status !== 200) { if (!killed) throw new Error(`update ${id}: ${res.status}`); return; }
            ackedUpdates++;
            if (v > (lastAckedVersion.get(id) ?? 0)) lastAckedVersion.set(id, v);
          } catch (err) {
            if (!killed) throw err;
            return;
          }
        }
      })());
      // kill -9 while the burst is in flight: once some writes are acknowledged, others still running
      const until = Date.now() + 10_000;
      while ((ackedThisCycle < 15 || ackedUpdates - updatesBefore < 10) && Date.now() < until) await new Promise(r => setTimeout(r, 2));
      killed = true;
      proc.kill("SIGKILL");
      kills++;
      await Promise.all([...creates, ...updates]);
      await new Promise<void>(resolve => (proc.exitCode !== null || proc.signalCode !== null ? resolve() : proc.once("exit", () => resolve())));
      expect(proc.signalCode).toBe("SIGKILL");
      await start();
      expect(await verifyAll()).toEqual([]);
    }
    // ids keep counting after the restarts: a new record never reuses an acknowledged id
    const fresh = await call("POST", "/events", { title: "After the crashes", start_date: "tomorrow 09:00", end_date: "tomorrow 10:00" });
    expect(fresh.status).toBe(201);
    expect(acked.filter(a => ["events", "venues", "organizers"].includes(a.kind)).map(a => a.id)).not.toContain(fresh.body.id);
    expect(acked.length).toBeGreaterThan(KILL_CYCLES * 15);
  }, 120_000);

  test("a damaged database file stops the start-up with a message naming the file; nothing is changed (C27: crash safety; C44: damaged embedded database)", async () => {
    // A clean stop folds the write-ahead log into the file (SQLite reads a page from the log while it holds one).
    await node!.stop("SIGTERM");
    node = undefined;
    const file = path.join(dir, "calendar.sqlite3");
    expect(fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0).toBe(0);
    const original = fs.readFileSync(file);
    const damaged = Buffer.from(original);
    damaged.write("#!garbage{{{####", 0, "latin1"); // the 16-byte header SQLite checks on open
    fs.writeFileSync(file, damaged);
    const n = await startNode({ DATA_DIR: dir, RATE_LIMIT: "", CACHER: "", LOG_LEVEL: "warn" }, { http: true });
    const code = await new Promise<number | null>(resolve => {
      const timer = setTimeout(() => resolve(null), 20_000);
      // "close", not "exit": the output is all read only once the process's streams are closed
      n.proc.once("close", c => { clearTimeout(timer); resolve(c); });
    });
    if (code === null) await n.stop("SIGKILL");
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(n.output()).toContain(file);
    expect(n.output()).toMatch(/not a database|malformed/);
    expect(fs.readFileSync(file).equals(damaged)).toBe(true);
    // once the header is back, everything is there
    fs.writeFileSync(file, original);
    await start();
    expect(await verifyAll()).toEqual([]);
  }, 60_000);
});
