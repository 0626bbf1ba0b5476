/**
 * The change policy through HTTP (docs/api-policy.md): a deprecated parameter answered with `Deprecation`,
 * `Sunset` and `Link` rel="deprecation", marked `deprecated: true` in /doc; 410 `rest_gone` naming the
 * replacement once the (set) clock passes its sunset; each use counted per site, read through the platform
 * API and in the Prometheus metrics without a site label; an experimental route answering only with
 * `X-Calendar-Experimental: 1`; the policy served and linked from the namespace index and /doc. Runs on the
 * embedded store and (package.json `test:postgres`) on PostgreSQL.
 */
import * as http from "http";
import { startService, Running, KEYS, freePort } from "../helpers/harness";
import type { Json } from "../helpers/json";

let svc: Running;
let metricsPort: number;
const PLATFORM_KEY = "pk-policy-test";
const NS = "/wp-json/calendar/events/v1";

beforeAll(async () => {
  metricsPort = await freePort();
  svc = await startService({ PLATFORM_KEY, METRICS_PORT: String(metricsPort) });
});
afterAll(async () => {
  await svc.stop();
});

/** The gateway's clock and registry, as the change policy reads them (services/api.service.ts). */
const gateway = () => svc.broker.getLocalService("api") as unknown as Json;

/** One HTTP request with an explicit Host header (fetch does not let a client choose it). */
function raw(method: string, path: string, host: string, key?: string, payload?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    const all: Record<string, string> = { Host: host, ...headers };
    if (key) all.Authorization = `Bearer ${key}`;
    if (body !== undefined) Object.assign(all, { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) });
    const req = http.request({ host: "127.0.0.1", port: svc.port, method, path, headers: all }, res => {
      const chunks: Buffer[] = [];
      res.on("data", c => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: Json = text;
        try { parsed = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("a deprecated parameter (json_ld on event lists)", () => {
  test("is answered as before, with Deprecation, Sunset and Link rel=deprecation (after the paging links)", async () => {
    const plain = await svc.get("/events?per_page=1", "admin");
    expect(plain.headers.get("deprecation")).toBeNull();
    const res = await svc.get("/events?json_ld=1&per_page=1", "admin");
    expect(res.status).toBe(200);
    expect(res.headers.get("deprecation")).toBe(`@${Date.UTC(2026, 11, 1) / 1000}`);
    expect(res.headers.get("sunset")).toBe("Sat, 01 Jan 2028 00:00:00 GMT");
    expect(res.headers.get("link")).toMatch(/<http:\/\/localhost:\d+\/docs\/api-policy\.md#the-first-deprecation-json_ld-on-event-lists>; rel="deprecation"/);
    // a second identical request is not answered from the response cache without them
    const again = await svc.get("/events?json_ld=1&per_page=1", "admin");
    expect(again.headers.get("deprecation")).toBe(res.headers.get("deprecation"));
  });

  test("/doc marks it deprecated: true with its sunset", async () => {
    const doc = (await svc.get("/doc")).body;
    const param = doc.paths["/events"].get.parameters.find((p: Json) => p.name === "json_ld");
    expect(param).toMatchObject({ deprecated: true, "x-sunset": "2028-01-01" });
    expect(doc.info["x-api-policy"]).toMatch(/\/docs\/api-policy\.md$/);
  });

  test("after its sunset (the clock set past it): 410 rest_gone naming the replacement; without it, as before", async () => {
    const api = gateway();
    const clock = api.clock;
    api.clock = () => new Date("2028-01-02T00:00:00Z");
    try {
      const res = await svc.get("/events?json_ld=1", "admin");
      expect(res.status).toBe(410);
      expect(res.body.code).toBe("rest_gone");
      expect(res.body.data).toMatchObject({ status: 410, replacement: "GET /events/{id}, whose answer carries json_ld" });
      expect(res.body.message).toContain("GET /events/{id}");
      expect((await svc.get("/events", "admin")).status).toBe(200);
    } finally {
      api.clock = clock;
    }
  });

  test("each use is counted per site: the platform API and the metrics (no site label)", async () => {
    const host = `policy-${Date.now()}.test`;
    const site = await raw("POST", "/platform/v1/sites", `localhost:${svc.port}`, PLATFORM_KEY, { host });
    expect(site.status).toBe(201);
    const home = `localhost:${svc.port}`;
    const before = (await raw("GET", "/platform/v1/sites/1/deprecations", home, PLATFORM_KEY)).body["events.list.json_ld"]?.count ?? 0;
    for (let i = 0; i < 3; i++) expect((await raw("GET", `${NS}/events?json_ld=1`, host, site.body.api_key)).headers.deprecation).toBeDefined();
    expect((await raw("GET", `${NS}/events?json_ld=true`, home, KEYS.admin)).status).toBe(200);
    const there = await raw("GET", `/platform/v1/sites/${site.body.id}/deprecations`, home, PLATFORM_KEY);
    expect(there.status).toBe(200);
    expect(there.body["events.list.json_ld"].count).toBe(3);
    const here = await raw("GET", "/platform/v1/sites/1/deprecations", home, PLATFORM_KEY);
    expect(here.body["events.list.json_ld"].count).toBe(before + 1);
    expect((await raw("GET", "/platform/v1/sites/99999/deprecations", home, PLATFORM_KEY)).status).toBe(404);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const line = metrics.split("\n").find(l => l.startsWith("calendar_deprecation_uses_total{"));
    expect(line).toMatch(/^calendar_deprecation_uses_total\{[^}]*deprecation="events\.list\.json_ld"[^}]*\} \d+/);
    expect(line).not.toMatch(/site/);
    expect(Number(line!.split(" ").pop())).toBeGreaterThanOrEqual(4);
  });
});

describe("an experimental route (GET {ns}/deprecations)", () => {
  test("answers only with X-Calendar-Experimental: 1, else 400 naming the header", async () => {
    const host = `localhost:${svc.port}`;
    const refused = await raw("GET", `${NS}/deprecations`, host, KEYS.admin);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("rest_invalid_param");
    expect(Object.keys(refused.body.data.params)).toEqual(["X-Calendar-Experimental"]);
    expect(refused.body.message).toContain("X-Calendar-Experimental");
    const ok = await raw("GET", `${NS}/deprecations`, host, KEYS.admin, undefined, { "X-Calendar-Experimental": "1" });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual([expect.objectContaining({ id: "events.list.json_ld", what: "parameter", name: "json_ld", since: "2026-12-01", sunset: "2028-01-01" })]);
    const doc = await raw("GET", `${NS}/doc`, host);
    expect(doc.body.paths["/deprecations"].get["x-experimental"]).toBe(true);
  });
});

describe("the policy", () => {
  test("is served beside the interactive documentation and linked from the namespace index", async () => {
    const host = `localhost:${svc.port}`;
    const index = await raw("GET", NS, host);
    const href = index.body._links.help[0].href;
    expect(href).toBe(`http://localhost:${svc.port}/docs/api-policy.md`);
    const page = await raw("GET", "/docs/api-policy.md", host);
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/markdown/);
    expect(String(page.body)).toContain("# The change policy");
  });
});
