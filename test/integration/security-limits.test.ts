/**
 * Limits and hardening of the gateway through HTTP: the 1 MB body limit (C18: limits), the `per_page` maximum,
 * rate limiting per key and per address (C18) with its headers, shared through Redis between gateway
 * nodes, time limits (504), security headers on every answer, configurable CORS, malformed paths, and
 * no internal names in any answer.
 */
import * as net from "net";
import { startService, Running, KEYS } from "../helpers/harness";
import { expectContractError, missingSecurityHeaders, leakIn } from "../helpers/security";
import type { Json } from "../helpers/json";

/** Settings a test file must not leak into the next harness it starts. */
const OFF = { RATE_LIMIT: "", CACHER: "", CORS_ORIGINS: "", REQUEST_TIMEOUT: "", NAMESPACE: "" };
afterAll(() => {
  for (const name of Object.keys(OFF)) delete process.env[name];
});

/** A raw request line on a socket (for paths fetch would normalise). */
function rawGet(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
      socket.write(`GET ${path} HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n${extra}\r\n`);
    });
    let data = "";
    socket.on("data", d => { data += d; });
    socket.on("end", () => {
      const [head, ...rest] = data.split("\r\n\r\n");
      resolve({ status: Number(/^HTTP\/1\.[01] (\d+)/.exec(head)?.[1] ?? 0), head, body: rest.join("\r\n\r\n") });
    });
    socket.on("error", reject);
  });
}

describe("limits and headers (rate limit off)", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({ ...OFF }); });
  afterAll(async () => { await svc.stop(); });

  test("bodies up to 1 MB are read; larger JSON and form bodies are 413 rest_payload_too_large", async () => {
    const nearly = await svc.request("POST", "/events", { as: "admin", body: { title: "Big", description: "d".repeat(1000 * 1000 - 200), start_date: "tomorrow 10:00", end_date: "tomorrow 11:00" } });
    expect(nearly.status).toBe(201);
    expect(nearly.body.description.length).toBeGreaterThan(999_000);
    const json = await svc.request("POST", "/events", { as: "admin", body: { title: "x".repeat(1024 * 1024 + 10), start_date: "tomorrow", end_date: "tomorrow" } });
    expectContractError(json, 413, "rest_payload_too_large");
    const form = await svc.request("POST", "/venues", { as: "admin", form: { venue: "v".repeat(1024 * 1024 + 10) } });
    expectContractError(form, 413, "rest_payload_too_large");
    // the same limit for anonymous callers (the body is refused before anything looks at it)
    expectContractError(await svc.request("POST", "/organizers", { body: { organizer: "o".repeat(1024 * 1024 + 10) } }), 413, "rest_payload_too_large");
  });

  test("per_page is capped at 50 on every post list; a non-positive or non-integer per_page is 400", async () => {
    for (let i = 0; i < 55; i++) {
      await svc.request("POST", "/organizers", { as: "admin", body: { organizer: `Capped ${i}` } });
    }
    for (const perPage of ["51", "1000", "9007199254740991"]) {
      const res = await svc.get(`/organizers?per_page=${perPage}`);
      expect(res.status).toBe(200);
      expect(res.body.organizers).toHaveLength(50);
      expect(res.body.rest_url).toContain("per_page=50");
    }
    for (const perPage of ["0", "-1", "1.5", "abc", "99999999999999999999999"]) {
      expectContractError(await svc.get(`/organizers?per_page=${perPage}`), 400, "rest_invalid_param");
    }
  });

  test("malformed percent-escapes in a path are 404 rest_no_route, never 500", async () => {
    const paths = ["/events/by-slug/%E0%A4%A", "/venues/by-slug/%", "/organizers/by-slug/%zz", "/events/%E0%A4%A", "/categories/%", "/wp-json/calendar/events/v1/%FF%FE/x"];
    for (const p of paths) {
      const res = await svc.get(p.startsWith("/wp-json") ? p : `${svc.ns}${p}`);
      expectContractError(res, 404, "rest_no_route");
      expect(missingSecurityHeaders(res.headers)).toEqual([]);
    }
    for (const method of ["DELETE", "PUT", "PATCH", "POST"]) {
      expectContractError(await svc.request(method, `${svc.ns}/events/by-slug/%E0%A4%A`, { as: "admin", body: { title: "x" } }), 404, "rest_no_route");
    }
    // raw paths fetch would normalise: a lone %, encoded slashes and NULs, dot segments
    for (const p of ["/wp-json/calendar/events/v1/events/by-slug/%", "/wp-json/calendar/events/v1/events/by-slug/a%2Fb", "/wp-json/calendar/events/v1/events/by-slug/%00",
      "/wp-json/calendar/events/v1/../../../etc/passwd", "/wp-json/calendar/events/v1/events/%2e%2e"]) {
      const res = await rawGet(svc.port, p);
      expect([p, res.status < 500]).toEqual([p, true]);
      expect(JSON.parse(res.body)).toEqual(expect.objectContaining({ code: expect.any(String), data: expect.objectContaining({ status: res.status }) }));
    }
    // a malformed escape in the query string is just text
    expect((await svc.get("/events?search=%E0%A4%A")).status).toBe(200);
  });

  test("requests Node cannot take (huge URL or headers, broken HTTP) are answered in the contract's JSON too", async () => {
    const huge = await rawGet(svc.port, `/wp-json/calendar/events/v1/events?search=${"x".repeat(20_000)}`);
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toEqual({ code: "rest_request_header_too_large", message: expect.any(String), data: { status: 431 } });
    expect(huge.head).toMatch(/x-content-type-options: nosniff/i);
    const bigHeader = await rawGet(svc.port, "/wp-json/calendar/events/v1", { "X-Filler": "y".repeat(20_000) });
    expect(bigHeader.status).toBe(431);
    const broken = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(svc.port, "127.0.0.1", () => socket.write("GARBAGE \u0001 / HTTP/9.9\r\n\r\n"));
      let data = "";
      socket.on("data", d => { data += d; });
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
    });
    expect(broken).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(broken.split("\r\n\r\n")[1])).toEqual({ code: "rest_bad_request", message: expect.any(String), data: { status: 400 } });
    // the server goes on serving
    expect((await svc.get("/events")).status).toBe(200);
  });

  test("security headers on every answer: success, errors, health, docs and preflights", async () => {
    const answers = [
      await svc.get(svc.ns.replace(svc.base, "")),
      await svc.get("/events"),
      await svc.get("/events/987654"),
      await svc.get("/nothing"),
      await svc.request("POST", "/events", { body: {} }),
      await svc.request("POST", "/events", { as: "subscriber", body: { title: "t", start_date: "tomorrow", end_date: "tomorrow" } }),
      await svc.request("GET", "/events", { headers: { Authorization: "Bearer unknown" } }),
      await svc.request("POST", "/events", { as: "admin", body: "{bad json" }),
      await svc.get("/health/live"),
      await svc.get("/health/ready"),
      await svc.get(`${svc.base}/docs`),
      await svc.get(`${svc.base}/docs/swagger-ui.css`),
      await svc.get(`${svc.base}/docs/no-such-file.js`),
      await svc.request("OPTIONS", "/events", { headers: { Origin: "https://app.example", "Access-Control-Request-Method": "POST" } })
    ];
    for (const res of answers) expect({ status: res.status, missing: missingSecurityHeaders(res.headers) }).toEqual({ status: res.status, missing: [] });
    expect(answers[0].headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(answers[10].headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(answers[13].status).toBe(204);
  });

  test("CORS is open by default: any origin, the paging and rate-limit headers exposed", async () => {
    const res = await svc.request("GET", "/events", { headers: { Origin: "https://anywhere.example" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = res.headers.get("access-control-expose-headers") ?? "";
    for (const h of ["X-WP-Total", "X-TEC-Total", "Link", "Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]) expect(exposed).toContain(h);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull(); // off unless RATE_LIMIT is set
  });

  test("HTML in text fields: events keep it as sent (D24: text rendering), venue/organizer address fields and term names are cleaned (D27: term names are sanitised)", async () => {
    const xss = "<script>alert(1)</script><b onmouseover=\"x()\">Bold</b> & co";
    const ev = await svc.request("POST", "/events", { as: "admin", body: { title: xss, description: xss, excerpt: xss, start_date: "tomorrow 10:00", end_date: "tomorrow 11:00" } });
    expect(ev.status).toBe(201);
    expect(ev.body.title).toBe(xss);
    expect(ev.body.description).toContain("<script>alert(1)</script>");
    expect(ev.headers.get("content-type")).toMatch(/^application\/json/);
    const venue = await svc.request("POST", "/venues", { as: "admin", body: { venue: `Hall ${Date.now()}`, address: "<b>Main</b> <script>steal()</script>street 1", city: "<i>Rome</i>", zip: "<img src=x onerror=y>00100", phone: "<a href='x'>555</a>", description: xss } });
    expect(venue.status).toBe(201);
    expect(venue.body).toMatchObject({ address: "Main street 1", city: "Rome", zip: "00100", phone: "555" });
    expect(venue.body.description).toContain("<script>alert(1)</script>"); // descriptions are stored as given
    const org = await svc.request("POST", "/organizers", { as: "admin", body: { organizer: `Org ${Date.now()}`, phone: "<b>1</b>", email: "<script>x</script>a@b.example" } });
    expect(org.body).toMatchObject({ phone: "1", email: "a@b.example" });
    const cat = await svc.request("POST", "/categories", { as: "admin", body: { name: "<b>Rock</b> <script>x()</script>& <Roll>", description: "<em>as given</em>" } });
    expect(cat.status).toBe(201);
    expect(cat.body.name).toBe("Rock &amp;");
    expect(cat.body.description).toBe("<em>as given</em>");
    const tag = await svc.request("POST", "/tags", { as: "admin", body: { name: "a < b > c & d" } });
    expect(tag.body.name).toBe("a &lt; b &gt; c &amp; d");
    expectContractError(await svc.request("POST", "/tags", { as: "admin", body: { name: "<p></p>" } }), 400, "empty_term_name");
  });

  test("a slow service is 504 rest_gateway_timeout in the contract's JSON, naming nothing internal", async () => {
    const events: Json = (svc.broker as Json).getLocalService("events");
    const original = events.listEvents;
    events.listEvents = async function (this: Json, ...args: unknown[]) {
      await new Promise(r => setTimeout(r, 400));
      return original.apply(this, args);
    };
    const before = (svc.broker as Json).options.requestTimeout;
    (svc.broker as Json).options.requestTimeout = 100;
    try {
      const res = await svc.get("/events?per_page=3");
      expectContractError(res, 504, "rest_gateway_timeout");
    } finally {
      (svc.broker as Json).options.requestTimeout = before;
      events.listEvents = original;
    }
    expect((await svc.get("/events?per_page=4")).status).toBe(200);
  });

  test("an unexpected failure is 500 rest_internal_error without the error's text or trace", async () => {
    const venues: Json = (svc.broker as Json).getLocalService("venues");
    const original = venues.linked.reader.list;
    venues.linked.reader.list = async () => { throw new TypeError("Cannot read properties of undefined (reading 'x') at /work/main/mixins/linked-post.mixin.ts:42"); };
    try {
      const res = await svc.get("/venues");
      expectContractError(res, 500, "rest_internal_error");
      expect(res.text).not.toContain("Cannot read");
      expect(res.text).not.toContain("linked-post");
    } finally {
      venues.linked.reader.list = original;
    }
  });

  test("no answer names an internal service, action, file or the framework", async () => {
    const probes = [
      "/$node/list", "/api/rest", "/~node/health", "/wp-json/calendar/events/v1/events.list", "/wp-json/calendar/events/v1/$node/services",
      "/wp-json/calendar/events/v1/events/1/../../venues", "/wp-json/calendar/events/v1/doc?i18n_language=xx"
    ];
    for (const p of probes) {
      const res = await svc.get(p);
      expect([p, res.status < 500, leakIn(res.text)]).toEqual([p, true, undefined]);
      expect(res.headers.get("x-powered-by")).toBeNull();
    }
  });
});

describe("CORS_ORIGINS", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({ ...OFF, CORS_ORIGINS: "https://app.example, https://admin.example/" }); });
  afterAll(async () => { await svc.stop(); });

  test("a listed origin is echoed (with Vary: Origin) and its preflight answered", async () => {
    const res = await svc.request("GET", "/events", { headers: { Origin: "https://admin.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://admin.example");
    expect(res.headers.get("vary")).toContain("Origin");
    const pre = await svc.request("OPTIONS", "/events", { headers: { Origin: "https://app.example", "Access-Control-Request-Method": "DELETE", "Access-Control-Request-Headers": "authorization, content-type" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-methods")).toContain("DELETE");
    expect(pre.headers.get("access-control-allow-origin")).toBe("https://app.example");
  });

  test("another origin is refused with 403 rest_forbidden in the contract's JSON; requests without Origin are served", async () => {
    const res = await svc.request("GET", "/events", { headers: { Origin: "https://evil.example" } });
    expectContractError(res, 403, "rest_forbidden");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expectContractError(await svc.request("OPTIONS", "/events", { headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" } }), 403, "rest_forbidden");
    expect((await svc.get("/events")).status).toBe(200);
  });
});

describe("rate limiting (RATE_LIMIT=<requests>/<seconds>)", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({ ...OFF, RATE_LIMIT: "5/2" }); });
  afterAll(async () => { await svc.stop(); });

  const waitForNewWindow = async (res: { headers: Headers }) => {
    const reset = Number(res.headers.get("x-ratelimit-reset")) * 1000;
    await new Promise(r => setTimeout(r, Math.max(0, reset - Date.now()) + 50));
  };

  test("each key has its own budget; the 6th request in the window is 429 with Retry-After and the standard headers", async () => {
    const seen: Array<[number, string | null]> = [];
    let last: Json;
    for (let i = 0; i < 7; i++) {
      last = await svc.get("/events", "author");
      seen.push([last.status, last.headers.get("x-ratelimit-remaining")]);
    }
    expect(seen).toEqual([[200, "4"], [200, "3"], [200, "2"], [200, "1"], [200, "0"], [429, "0"], [429, "0"]]);
    expectContractError(last, 429, "rest_too_many_requests");
    expect(last.headers.get("x-ratelimit-limit")).toBe("5");
    const retryAfter = Number(last.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    const reset = Number(last.headers.get("x-ratelimit-reset"));
    expect(reset * 1000).toBeGreaterThan(Date.now() - 1000);
    expect(reset * 1000).toBeLessThanOrEqual(Date.now() + 3000);
    expect(missingSecurityHeaders(last.headers)).toEqual([]);
    // other keys, and anonymous callers (by address), have their own budgets
    expect((await svc.get("/events", "editor")).status).toBe(200);
    expect((await svc.get("/events")).status).toBe(200);
    // writes count too, and are refused without running
    expectContractError(await svc.request("POST", "/venues", { as: "author", body: { venue: "Throttled" } }), 429, "rest_too_many_requests");
    expect((await svc.get("/venues?search=Throttled", "editor")).body.venues).toEqual([]);
    // a new window gives the budget back
    await waitForNewWindow(last);
    const again = await svc.get("/events", "author");
    expect(again.status).toBe(200);
    expect(again.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  test("anonymous callers are limited per address; unknown keys count against the address and still get 401", async () => {
    const first = await svc.get("/events");
    await waitForNewWindow(first);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await svc.request("GET", "/events", { headers: { Authorization: `Bearer guess-${i}` } })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const anon = await svc.get("/events");
    expectContractError(anon, 429, "rest_too_many_requests");
    // a valid key is its own bucket
    expect((await svc.get("/events", "contributor")).status).toBe(200);
  });

  test("health probes and CORS preflights are not counted", async () => {
    const first = await svc.get("/events", "subscriber");
    await waitForNewWindow(first);
    for (let i = 0; i < 8; i++) {
      const live = await svc.request("GET", "/health/live", { as: "subscriber" });
      expect(live.status).toBe(200);
      expect(live.headers.get("x-ratelimit-limit")).toBeNull();
    }
    for (let i = 0; i < 8; i++) expect((await svc.request("OPTIONS", "/events", { headers: { Origin: "https://a.example", "Access-Control-Request-Method": "GET" } })).status).toBe(204);
    expect((await svc.get("/events", "subscriber")).headers.get("x-ratelimit-remaining")).toBe("4");
  });

  test("the API key itself is never stored as the counter name", () => {
    const limiter = (svc.broker as Json).getLocalService("api").rateLimiter;
    const windows: Map<string, unknown> = limiter.store.windows;
    for (const key of windows.keys()) for (const secret of Object.values(KEYS)) expect(key).not.toContain(secret);
  });
});

describe("rate limiting shared through Redis by two gateway nodes", () => {
  const namespace = `rl-${process.pid}-${Date.now()}`;
  let a: Running;
  let b: Running;
  beforeAll(async () => {
    const env = { ...OFF, RATE_LIMIT: "6/3", CACHER: "redis://127.0.0.1:6379", NAMESPACE: namespace };
    a = await startService(env);
    b = await startService(env);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  test("one budget per key across both nodes", async () => {
    const statuses: number[] = [];
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 8; i++) {
      const node = i % 2 === 0 ? a : b;
      const res = await node.get("/events", "editor");
      statuses.push(res.status);
      remaining.push(res.headers.get("x-ratelimit-remaining"));
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    expect(remaining).toEqual(["5", "4", "3", "2", "1", "0", "0", "0"]);
    // the other node refuses too, and another key still passes on both
    expect((await a.get("/events", "editor")).status).toBe(429);
    expect((await b.get("/events", "author")).status).toBe(200);
    expect((await a.get("/events", "author")).headers.get("x-ratelimit-remaining")).toBe("4");
  });
});
