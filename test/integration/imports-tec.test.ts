/**
 * An import from another instance of this service: a source started by the test as its own
 * process, reached only by its address on 127.0.0.1 (OUTBOUND_ALLOW_PRIVATE=1 on the importer), holding
 * IMPORT_TEST_EVENTS events (default 1 000), 50 venues, 50 organizers and their terms. Every record
 * arrives equal field by field (ids, addresses and clock fields aside); a second run creates and updates
 * nothing; 10 events changed at the source → exactly 10 updated. TEST_STORE=postgres runs the importer on
 * PostgreSQL.
 */
import { freePort, KEYS, startService, Running } from "../helpers/harness";
import { startNode, waitForHttp, Node } from "../helpers/processes";
import { httpJson, readAll, runImport, seedSource } from "../helpers/imports";
import type { Json } from "../helpers/json";

const EVENTS = Number(process.env.IMPORT_TEST_EVENTS ?? 1000);
const ADMIN = KEYS.admin;
let source: Node;
let sourceNs: string;
let base: string;
let svc: Running;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  source = await startNode({ PORT: String(port), HOST: "127.0.0.1", BASE_URL: base });
  sourceNs = `${base}/wp-json/calendar/events/v1`;
  await waitForHttp(sourceNs, 200, 60_000);
  await seedSource(sourceNs, ADMIN, { events: EVENTS, venues: 50, organizers: 50, categories: 10, tags: 10 });
  svc = await startService({ IMPORT_POLL_MS: "100", OUTBOUND_ALLOW_PRIVATE: "1" });
}, 300_000);
afterAll(async () => {
  await svc?.stop();
  await source?.stop();
});

/** Fields that differ between two calendars whatever the import does: ids, addresses, clocks, authors. */
const LOCAL = new Set(["id", "global_id", "global_id_lineage", "rest_url", "url", "urls", "link", "modified", "modified_utc", "author", "import_source", "json_ld", "parent", "count"]);
function comparable(v: Json): Json {
  if (Array.isArray(v)) return v.map(comparable);
  if (v && typeof v === "object" && "start_date" in v) {
    const e = { ...v };
    // an event without a website answers its own permalink there (local, like `url`)
    if (e.website === e.url) delete e.website;
    // a draft or pending event never given a date answers date_utc as zeros; its copy is given the source's date, so it has one
    if (String(e.date_utc).startsWith("0000") || e.status === "draft" || e.status === "pending") delete e.date_utc;
    v = e;
  }
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(([k]) => !LOCAL.has(k)).map(([k, x]) => [k, comparable(x)]));
  return v;
}

const byName = (records: Json[], field: string) => new Map(records.map(r => [r[field], r]));

describe("an import from another instance of this service", () => {
  let first: Json;
  beforeAll(async () => { first = await runImport(svc.ns, ADMIN, { url: `${base}/`, auth: { bearer: ADMIN } }, undefined); }, 300_000);

  test("ends done, every record created", () => {
    expect(first.errors).toEqual([]);
    expect(first).toMatchObject({ state: "done", type: "tec", failed: 0, updated: 0 });
    expect(first.created).toBe(EVENTS + 50 + 50 + 10 + 10);
  });

  test("terms, venues and organizers are equal field by field", async () => {
    for (const [list, field] of [["categories", "name"], ["tags", "name"], ["venues", "venue"], ["organizers", "organizer"]] as const) {
      const [theirs, ours] = await Promise.all([readAll(sourceNs, ADMIN, list), readAll(svc.ns, ADMIN, list)]);
      expect(ours.length).toBe(theirs.length);
      const mine = byName(ours, field);
      for (const r of theirs) expect(comparable(mine.get(r[field]))).toEqual(comparable(r));
    }
    // parents follow (by name)
    const [theirs, ours] = await Promise.all([readAll(sourceNs, ADMIN, "categories"), readAll(svc.ns, ADMIN, "categories")]);
    const nameOf = (list: Json[], id: number) => list.find(t => t.id === id)?.name ?? null;
    expect(ours.map(t => [t.name, nameOf(ours, t.parent)]).sort()).toEqual(theirs.map(t => [t.name, nameOf(theirs, t.parent)]).sort());
  });

  test("events are equal field by field, and carry their source identity", async () => {
    const [theirs, ours] = await Promise.all([readAll(sourceNs, ADMIN, "events"), readAll(svc.ns, ADMIN, "events")]);
    expect(ours.length).toBe(EVENTS);
    const bySource = new Map(ours.map(e => [Number(e.import_source?.source_id), e]));
    for (const e of theirs) {
      const mine = bySource.get(e.id);
      expect(mine?.import_source).toEqual({ import: first.id, source_id: String(e.id) });
      expect(comparable(mine)).toEqual(comparable(e));
    }
  });

  test("a second run creates and updates nothing", async () => {
    const again = await runImport(svc.ns, ADMIN, { url: `${base}/`, auth: { bearer: ADMIN } });
    expect(again).toMatchObject({ state: "done", created: 0, updated: 0, failed: 0, unchanged: first.created });
  }, 300_000);

  test("10 events changed at the source → exactly 10 updated", async () => {
    const theirs = await readAll(sourceNs, ADMIN, "events");
    for (const e of theirs.slice(0, 10)) {
      const res = await httpJson("POST", `${sourceNs}/events/${e.id}`, ADMIN, { title: `${e.title} (changed)` });
      expect(res.status).toBe(200);
    }
    const run = await runImport(svc.ns, ADMIN, { url: `${base}/`, auth: { bearer: ADMIN } });
    expect(run).toMatchObject({ state: "done", created: 0, updated: 10, failed: 0 });
    const ours = await readAll(svc.ns, ADMIN, "events");
    expect(ours.filter(e => e.title.endsWith("(changed)")).length).toBe(10);
  }, 300_000);
});

describe("bad TEC sources", () => {
  test("a site that is not TEC fails with a clear error", async () => {
    const imp = await runImport(svc.ns, ADMIN, { url: `${base}/health/live`, type: "tec" });
    expect(imp.state).toBe("failed");
    expect(imp.error).toMatch(/does not serve The Events Calendar/);
  });

  test("a 404 feed and a connection refused fail with clear errors", async () => {
    const missing = await runImport(svc.ns, ADMIN, { url: `${base}/nothing.ics` });
    expect(missing).toMatchObject({ state: "failed" });
    expect(missing.error).toMatch(/answered 404/);
    const closed = await runImport(svc.ns, ADMIN, { url: "http://127.0.0.1:9/feed.ics" });
    expect(closed.state).toBe("failed");
    expect(closed.error).toMatch(/127\.0\.0\.1:9/);
  });
});
