/**
 * `POST {api_root}/batch/v1` (docs/api-policy.md#batch-requests) through HTTP, as WordPress core serves it:
 * 25 creates in one request, the limit, require-all-validate writing nothing when one request is invalid,
 * mixed methods and routes answered in order, routes that do not allow batching, each request run with the
 * batch's caller and site (another site's key: each 401), the rate limit counting each request, a language
 * prefix in a path, per-request and whole-batch Idempotency-Keys, OPTIONS telling the limit, node-wpapi
 * driving it. Runs on the embedded store and (package.json `test:postgres`) on PostgreSQL.
 */
import * as http from "http";
import { startService, Running, KEYS, KeyName } from "../helpers/harness";
import { dayAt, token } from "../helpers/events";
import type { Json } from "../helpers/json";

// node-wpapi (CommonJS, its own superagent transport)
const WPAPI = require("wpapi");

let svc: Running;
const PLATFORM_KEY = "pk-batch-test";

beforeAll(async () => {
  svc = await startService({ PLATFORM_KEY });
});
afterAll(async () => {
  await svc.stop();
});

const NS = "/calendar/events/v1";
const batch = (body: unknown, as: KeyName | null = "admin", headers: Record<string, string> = {}) =>
  svc.request("POST", "/wp-json/batch/v1", { as: as ?? undefined, body, headers });
const eventBody = (title: string, extra: Record<string, unknown> = {}) => ({ title, start_date: dayAt(7, "18:00:00"), end_date: dayAt(7, "19:00:00"), ...extra });
/** One HTTP request with an explicit Host header (fetch does not let a client choose it). */
function raw(method: string, path: string, host: string, key: string | undefined, payload?: unknown, port = svc.port): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    const headers: Record<string, string> = { Host: host };
    if (key) headers.Authorization = `Bearer ${key}`;
    if (body !== undefined) Object.assign(headers, { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) });
    const req = http.request({ host: "127.0.0.1", port, method, path, headers }, res => {
      const chunks: Buffer[] = [];
      res.on("data", c => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: Json = text;
        try { parsed = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
const countEvents = async (word: string) => (await svc.get(`/events?search=${word}&per_page=50`, "admin")).body.events.length;

describe("a batch of creates", () => {
  test("25 creates in one request: 207, 25 answers 201 in order, 25 records", async () => {
    const word = token("batch25");
    const requests = Array.from({ length: 25 }, (_, i) => ({ path: `${NS}/events`, body: eventBody(`${word} ${i}`) }));
    const res = await batch({ requests });
    expect(res.status).toBe(207);
    expect(res.body.responses).toHaveLength(25);
    res.body.responses.forEach((r: Json, i: number) => {
      expect(r.status).toBe(201);
      expect(r.body.title).toBe(`${word} ${i}`);
      expect(r.headers.Location).toBe(r.body.rest_url);
      // only the answer's own headers: none of the exchange's (security, framing)
      expect(r.headers["Content-Security-Policy"]).toBeUndefined();
    });
    expect(await countEvents(word)).toBe(25);
  });

  test("26 requests: 400 naming requests, nothing written", async () => {
    const word = token("batch26");
    const res = await batch({ requests: Array.from({ length: 26 }, (_, i) => ({ path: `${NS}/events`, body: eventBody(`${word} ${i}`) })) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("rest_invalid_param");
    expect(Object.keys(res.body.data.params)).toEqual(["requests"]);
    expect(await countEvents(word)).toBe(0);
  });

  test("GET is not batchable, and a bad validation value is refused: the whole batch 400", async () => {
    const get = await batch({ requests: [{ method: "GET", path: `${NS}/events` }] });
    expect(get.status).toBe(400);
    expect(Object.keys(get.body.data.params)).toEqual(["requests"]);
    const validation = await batch({ validation: "all", requests: [] });
    expect(validation.status).toBe(400);
    expect(Object.keys(validation.body.data.params)).toEqual(["validation"]);
    const missing = await batch({});
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe("rest_missing_callback_param");
  });
});

describe("validation", () => {
  test("require-all-validate with one invalid request: {failed: validation}, its error in place, nothing written", async () => {
    const word = token("rav");
    const requests = [
      { path: `${NS}/events`, body: eventBody(`${word} a`) },
      { path: `${NS}/events`, body: { title: `${word} b`, start_date: "not a date", end_date: dayAt(7, "19:00:00") } },
      { path: `${NS}/venues`, body: { venue: `${word} hall` } }
    ];
    const res = await batch({ validation: "require-all-validate", requests });
    expect(res.status).toBe(207);
    expect(res.body.failed).toBe("validation");
    expect(res.body.responses[0]).toBeNull();
    expect(res.body.responses[2]).toBeNull();
    expect(res.body.responses[1].status).toBe(400);
    expect(res.body.responses[1].body.code).toBe("rest_invalid_param");
    expect(Object.keys(res.body.responses[1].body.data.params)).toContain("start_date");
    expect(await countEvents(word)).toBe(0);
    expect((await svc.get(`/venues?search=${word}`, "admin")).body.venues ?? []).toHaveLength(0);
  });

  test("require-all-validate with every request valid runs them all; normal runs the valid ones (not a transaction, C70: a batch is not a transaction)", async () => {
    const word = token("rav-ok");
    const ok = await batch({ validation: "require-all-validate", requests: [0, 1].map(i => ({ path: `${NS}/events`, body: eventBody(`${word} ${i}`) })) });
    expect(ok.status).toBe(207);
    expect(ok.body.failed).toBeUndefined();
    expect(ok.body.responses.map((r: Json) => r.status)).toEqual([201, 201]);
    const word2 = token("normal");
    const normal = await batch({ requests: [{ path: `${NS}/events`, body: eventBody(`${word2} a`) }, { path: `${NS}/events`, body: { title: `${word2} b` } }] });
    expect(normal.body.responses.map((r: Json) => r.status)).toEqual([201, 400]);
    expect(await countEvents(word2)).toBe(1);
  });
});

describe("routes, methods and order", () => {
  test("mixed methods and routes answer in request order, each as it would alone", async () => {
    const word = token("mixed");
    const event = (await svc.request("POST", "/events", { as: "admin", body: eventBody(`${word} first`) })).body;
    const tag = (await svc.request("POST", "/tags", { as: "admin", body: { name: `${word}-tag` } })).body;
    const res = await batch({ requests: [
      { method: "POST", path: `${NS}/venues`, body: { venue: `${word} hall` } },
      { method: "PUT", path: `${NS}/events/${event.id}`, body: { title: `${word} renamed` } },
      { method: "PATCH", path: `${NS}/events/${event.id}?i18n_language=fr`, body: { excerpt: "x" } },
      { method: "DELETE", path: `${NS}/tags/${tag.id}` },
      { path: `${NS}/categories`, body: { name: `${word}-cat` } },
      { path: `${NS}/nowhere`, body: {} }
    ] });
    expect(res.status).toBe(207);
    const statuses = res.body.responses.map((r: Json) => r.status);
    expect(statuses).toEqual([201, 200, 200, 200, 201, 404]);
    expect(res.body.responses[0].body.venue).toBe(`${word} hall`);
    expect(res.body.responses[1].body.title).toBe(`${word} renamed`);
    expect(res.body.responses[2].body.excerpt).toContain("x");
    expect(res.body.responses[4].body.name).toBe(`${word}-cat`);
    expect(res.body.responses[5].body.code).toBe("rest_no_route");
    expect((await svc.get(`/events/${event.id}`, "admin")).body.title).toBe(`${word} renamed`);
    expect((await svc.get(`/tags/${tag.id}`, "admin")).status).not.toBe(200);
  });

  test("a route that does not allow batching: that request's 400 rest_batch_not_allowed, the others run", async () => {
    const word = token("notallowed");
    const res = await batch({ requests: [
      { path: `${NS}/webhooks`, body: { url: "https://example.invalid/hook" } },
      { path: "/batch/v1", body: { requests: [] } },
      { path: `${NS}/events`, body: eventBody(word) }
    ] });
    expect(res.status).toBe(207);
    expect(res.body.responses[0]).toMatchObject({ status: 400, body: { code: "rest_batch_not_allowed", data: { status: 400 } } });
    expect(res.body.responses[1]).toMatchObject({ status: 400, body: { code: "rest_batch_not_allowed" } });
    expect(res.body.responses[2].status).toBe(201);
    // the namespace index says which endpoints allow it, as WordPress prints it
    const index = (await svc.get(NS.replace("/calendar", "/wp-json/calendar"))).body;
    const events = index.routes[`${NS}/events`].endpoints;
    expect(events[0].allow_batch).toBeUndefined();
    expect(events[1]).toMatchObject({ methods: ["POST"], allow_batch: { v1: true } });
    expect(index.routes[`${NS}/webhooks`].endpoints[1].allow_batch).toBeUndefined();
  });

  test("a language prefix in a path answers in that language", async () => {
    const res = await batch({ requests: [
      { path: "/fr/calendar/events/v1/events", body: { title: "x" } },
      { path: `${NS}/events`, body: { title: "x" } }
    ] });
    const [fr, en] = res.body.responses;
    expect(fr.status).toBe(400);
    expect(en.status).toBe(400);
    expect(fr.body.code).toBe(en.body.code);
    expect(fr.body.message).not.toBe(en.body.message);
    // a refusal made before the request runs is in the path's language too
    const refused = await batch({ requests: [{ path: "/fr/calendar/events/v1/webhooks", body: {} }, { path: `${NS}/webhooks`, body: {} }] });
    expect(refused.body.responses.map((r: Json) => r.body.code)).toEqual(["rest_batch_not_allowed", "rest_batch_not_allowed"]);
    expect(refused.body.responses[0].body.message).not.toBe(refused.body.responses[1].body.message);
  });

  test("OPTIONS tells the most requests a batch takes; GET answers the batch namespace's index", async () => {
    const options = await svc.request("OPTIONS", "/wp-json/batch/v1");
    expect(options.status).toBe(200);
    expect(options.body.endpoints[0].args.requests.maxItems).toBe(25);
    expect(options.body.endpoints[0].args.requests.items.properties.method.enum).toEqual(["POST", "PUT", "PATCH", "DELETE"]);
    const index = await svc.get("/wp-json/batch/v1");
    expect(index.body.namespace).toBe("batch/v1");
    expect(index.body.routes["/batch/v1"].endpoints[0].args.requests.maxItems).toBe(25);
  });
});

describe("idempotency", () => {
  test("a request's own Idempotency-Key in its headers replays its first answer", async () => {
    const word = token("itemkey");
    const requests = [{ path: `${NS}/events`, body: eventBody(word), headers: { "Idempotency-Key": `k-${word}` } }];
    const first = await batch({ requests });
    const again = await batch({ requests });
    expect(first.body.responses[0].status).toBe(201);
    expect(again.body.responses[0].status).toBe(201);
    expect(again.body.responses[0].body.id).toBe(first.body.responses[0].body.id);
    expect(again.body.responses[0].headers["Idempotent-Replayed"]).toBe("true");
    expect(await countEvents(word)).toBe(1);
  });

  test("a resend of the whole batch with its Idempotency-Key: the same 207, nothing written twice", async () => {
    const word = token("batchkey");
    const event = (await svc.request("POST", "/events", { as: "admin", body: eventBody(`${word} base`) })).body;
    const body = { requests: [
      { path: `${NS}/events`, body: eventBody(`${word} new`) },
      { method: "DELETE", path: `${NS}/events/${event.id}` },
      { path: `${NS}/tags`, body: { name: `${word}-t` } }
    ] };
    const key = `batch-${word}`;
    const first = await batch(body, "admin", { "Idempotency-Key": key });
    expect(first.status).toBe(207);
    expect(first.body.responses.map((r: Json) => r.status)).toEqual([201, 200, 201]);
    const again = await batch(body, "admin", { "Idempotency-Key": key });
    expect(again.status).toBe(207);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await countEvents(`${word} new`)).toBe(1);
    const other = await batch({ requests: body.requests.slice(0, 1) }, "admin", { "Idempotency-Key": key });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("rest_idempotency_mismatch");
  });
});

describe("clients", () => {
  test("node-wpapi drives it through its batch namespace route", async () => {
    const word = token("wpapi");
    const wp = new WPAPI({ endpoint: `${svc.base}/wp-json` }).setHeaders("Authorization", `Bearer ${KEYS.admin}`);
    wp.batch = wp.registerRoute("batch", "/v1");
    const answer = await wp.batch().create({ requests: [0, 1].map(i => ({ path: `${NS}/events`, body: eventBody(`${word} ${i}`) })) });
    expect(answer.responses.map((r: Json) => r.status)).toEqual([201, 201]);
    expect(await countEvents(word)).toBe(2);
  });
});

// last: once a site exists, only BASE_URL's host reaches the default site
describe("who is calling", () => {
  test("each request runs as the batch's caller: a subscriber's creates are each 403, anonymous each 401", async () => {
    const word = token("who");
    const requests = [0, 1].map(i => ({ path: `${NS}/events`, body: eventBody(`${word} ${i}`) }));
    const sub = await batch({ requests }, "subscriber");
    expect(sub.body.responses.map((r: Json) => r.status)).toEqual([403, 403]);
    const anon = await batch({ requests }, null);
    expect(anon.body.responses.map((r: Json) => r.status)).toEqual([401, 401]);
    expect(await countEvents(word)).toBe(0);
  });

  test("another site's key: each request 401, nothing written on either site", async () => {
    const host = `${token("site")}.test`;
    const site = await raw("POST", "/platform/v1/sites", `localhost:${svc.port}`, PLATFORM_KEY, { host });
    expect(typeof site.body.api_key).toBe("string");
    const word = token("othersite");
    // to the default site (BASE_URL's host) with the other site's key
    const res = await raw("POST", "/wp-json/batch/v1", `localhost:${svc.port}`, site.body.api_key,
      { requests: [0, 1, 2].map(i => ({ path: `${NS}/events`, body: eventBody(`${word} ${i}`) })) });
    expect(res.status).toBe(207);
    expect(res.body.responses.map((r: Json) => [r.status, r.body.code])).toEqual([0, 1, 2].map(() => [401, "rest_invalid_api_key"]));
    const list = await raw("GET", `/wp-json${NS}/events?search=${word}`, `localhost:${svc.port}`, KEYS.admin);
    expect(list.body.events).toHaveLength(0);
    const there = await raw("GET", `/wp-json${NS}/events?search=${word}`, host, site.body.api_key);
    expect(there.body.events).toHaveLength(0);
  });
});

// its own deployment, started last (the settings in force become that deployment's)
describe("the rate limit", () => {
  test("counts each request of a batch, not the batch itself", async () => {
    const limited = await startService({ RATE_LIMIT: "4/60" });
    try {
      const word = token("limit");
      // BASE_URL's host: the store (one in-memory database per process) already holds another site
      const host = `localhost:${limited.port}`;
      const res = await raw("POST", "/wp-json/batch/v1", host, KEYS.editor, { requests: Array.from({ length: 6 }, (_, i) => ({ path: `${NS}/events`, body: eventBody(`${word} ${i}`) })) }, limited.port);
      expect(res.status).toBe(207);
      expect(res.body.responses.map((r: Json) => r.status)).toEqual([201, 201, 201, 201, 429, 429]);
      expect(res.body.responses[4].headers["Retry-After"]).toBeDefined();
      expect((await raw("GET", `/wp-json${NS}/events`, host, KEYS.editor, undefined, limited.port)).status).toBe(429);
    } finally {
      await limited.stop();
    }
  });
});
