/**
 * The platform API and imports: `POST /platform/v1/sites` answers 201 with the new site's
 * `Location`, and a purged site's import data (imports, their runs, texts and source rows) goes with it,
 * the other sites' data left. Runs on SQLite and (TEST_STORE=postgres) PostgreSQL.
 */
import * as http from "http";
import { startService, Running } from "../helpers/harness";
import { acquireStore, releaseStore, Store } from "../../store";
import { storeConfig } from "../../mixins/store.mixin";
import { IMPORT_TABLES } from "../../store/sql/import-tables";
import type { Json } from "../helpers/json";

const PLATFORM_KEY = "pk-imports-sites";
const NS = "/wp-json/calendar/events/v1";

function call(port: number, method: string, host: string, path: string, key?: string, body?: unknown): Promise<{ status: number; body: Json; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const headers: Record<string, string> = { Host: host, ...(key ? { Authorization: `Bearer ${key}` } : {}) };
    if (text !== undefined) {
      headers["Content-Type"] = typeof body === "string" ? "text/calendar" : "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(text));
    }
    const req = http.request({ host: "127.0.0.1", port, method, path, headers }, res => {
      const chunks: Buffer[] = [];
      res.on("data", c => chunks.push(c));
      res.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        let parsed: Json = raw;
        try { parsed = JSON.parse(raw); } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
      });
    });
    req.on("error", reject);
    if (text !== undefined) req.write(text);
    req.end();
  });
}

const feed = (site: string) => ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//sites test//EN", `X-WR-CALNAME:${site}`,
  "BEGIN:VEVENT", `UID:one@${site}`, "DTSTART:20270601T100000Z", `SUMMARY:${site} event`, "LOCATION:Purge Hall", "END:VEVENT", "END:VCALENDAR"].join("\r\n");

let svc: Running;
let store: Store;
beforeAll(async () => {
  svc = await startService({ PLATFORM_KEY, IMPORT_POLL_MS: "100" });
  store = await acquireStore(storeConfig());
});
afterAll(async () => {
  await releaseStore(storeConfig());
  await svc.stop();
});

async function importDone(host: string, key: string): Promise<number> {
  const made = await call(svc.port, "POST", host, `${NS}/imports`, key, feed(host));
  expect(made.status).toBe(202);
  for (let i = 0; i < 300; i++) {
    const imp = await call(svc.port, "GET", host, `${NS}/imports/${made.body.id}`, key);
    if (imp.body.state === "done") return made.body.id;
    await new Promise(r => setTimeout(r, 100));
  }
  throw new Error("the import did not end");
}

const rowsOf = async (site: number): Promise<Record<string, number>> =>
  Object.fromEntries(await Promise.all(IMPORT_TABLES.map(async t => [t, await store.collection(t, [], site).count({})] as const)));

test("a created site's Location names it; its purge takes its import data and leaves the others'", async () => {
  const created = await Promise.all(["purged.example", "kept.example"].map(host => call(svc.port, "POST", "any.example", "/platform/v1/sites", PLATFORM_KEY, { host })));
  for (const c of created) {
    expect(c.status).toBe(201);
    expect(c.headers.location).toBe(`${svc.base.replace("127.0.0.1", "localhost")}/platform/v1/sites/${c.body.id}`);
    const named = await call(svc.port, "GET", "any.example", new URL(c.headers.location!).pathname, PLATFORM_KEY);
    expect(named.body).toMatchObject({ id: c.body.id, host: c.body.host });
  }
  const [purged, kept] = created.map(c => c.body);
  for (const site of [purged, kept]) await importDone(site.host, site.api_key);
  const before = await rowsOf(purged.id);
  // an import, its run, its text and its source rows (the event and the venue of its LOCATION)
  expect(before).toEqual({ imports: 1, import_records: 2, import_texts: 1, import_runs: 1 });
  expect(await rowsOf(kept.id)).toEqual(before);

  expect((await call(svc.port, "DELETE", "any.example", `/platform/v1/sites/${purged.id}`, PLATFORM_KEY)).status).toBe(200);
  for (let i = 0; i < 200 && (await store.sites!.byId(purged.id)); i++) await new Promise(r => setTimeout(r, 100));
  expect(await store.sites!.byId(purged.id)).toBeUndefined();
  expect(await rowsOf(purged.id)).toEqual({ imports: 0, import_records: 0, import_texts: 0, import_runs: 0 });
  expect(await rowsOf(kept.id)).toEqual(before);
});
