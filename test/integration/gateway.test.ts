import { startService, Running } from "../helpers/harness";
import type { Json } from "../helpers/json";

describe("gateway: routes, languages, callers and errors", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService(); });
  afterAll(async () => { await svc.stop(); });

  const expectContractError = (body: Json, status: number, code: string) => {
    expect(body).toEqual(expect.objectContaining({ code, message: expect.any(String), data: expect.objectContaining({ status }) }));
  };

  test("the namespace root answers 200 on the default and the language roots", async () => {
    for (const path of ["/wp-json/calendar/events/v1", "/fr/wp-json/calendar/events/v1", "/pt-br/wp-json/calendar/events/v1/", "/zh-hans/wp-json/calendar/events/v1"]) {
      const res = await svc.get(path);
      expect(res.status).toBe(200);
      expect(res.body.namespace).toBe("calendar/events/v1");
    }
  });

  test("an unsupported language segment is no route", async () => {
    const res = await svc.get("/de/wp-json/calendar/events/v1");
    expect(res.status).toBe(404);
    expectContractError(res.body, 404, "rest_no_route");
  });

  test("unknown paths and methods are rest_no_route", async () => {
    for (const [method, path] of [["GET", "/nothing"], ["DELETE", "/doc"], ["GET", "/events/abc"], ["GET", "/wp-json/other/v1"]]) {
      const res = await svc.request(method, path.startsWith("/wp-json") ? path : `${svc.ns}${path}`);
      expect(res.status).toBe(404);
      expectContractError(res.body, 404, "rest_no_route");
    }
  });

  test("internal actions are not reachable", async () => {
    for (const path of ["/api/live", "/$node/list", "/~node/list", "/wp-json/calendar/events/v1/$node/list"]) {
      const res = await svc.get(path);
      expect(res.status).toBe(404);
    }
  });

  test("an unknown key is 401 at once, whatever the path", async () => {
    for (const path of ["/events", "/nothing-at-all"]) {
      const res = await svc.request("GET", `${svc.ns}${path}`, { headers: { Authorization: "Bearer nope" } });
      expect(res.status).toBe(401);
      expectContractError(res.body, 401, "rest_invalid_api_key");
    }
    const basic = await svc.request("GET", svc.ns, { headers: { Authorization: "Basic abc" } });
    expect(basic.status).toBe(401);
  });

  test("operators and objects in parameters are refused with 400", async () => {
    const res = await svc.get("/events?search[$gt]=a");
    expect(res.status).toBe(400);
    expectContractError(res.body, 400, "rest_invalid_param");
    expect(Object.keys(res.body.data.params)).toEqual(["search"]);
    const body = await svc.request("POST", "/events", { as: "admin", body: { title: { $ne: 1 }, start_date: "tomorrow", end_date: "tomorrow" } });
    expect(body.status).toBe(400);
    expect(body.body.data.params).toHaveProperty("title");
  });

  test("a body over 1 MB is 413 and malformed JSON is 400 rest_invalid_json", async () => {
    const big = await svc.request("POST", "/events", { as: "admin", body: JSON.stringify({ title: "x".repeat(2 * 1024 * 1024) }) });
    expect(big.status).toBe(413);
    expectContractError(big.body, 413, "rest_payload_too_large");
    const bad = await svc.request("POST", "/events", { as: "admin", body: "{bad" });
    expect(bad.status).toBe(400);
    expectContractError(bad.body, 400, "rest_invalid_json");
  });

  test("an unsupported i18n_language is 400 and messages follow the language", async () => {
    const res = await svc.get("/doc?i18n_language=xx");
    expect(res.status).toBe(400);
    expect(res.body.data.params).toHaveProperty("i18n_language");
    const fr = await svc.get("/fr/wp-json/calendar/events/v1/nothing");
    const en = await svc.get("/wp-json/calendar/events/v1/nothing");
    expect(fr.body.message).not.toBe(en.body.message);
  });

  test("health endpoints", async () => {
    expect((await svc.get("/health/live")).status).toBe(200);
    const ready = await svc.get("/health/ready");
    expect(ready.status).toBe(200);
  });

  test("responses carry security headers and expose the paging headers", async () => {
    const res = await svc.get("/wp-json/calendar/events/v1");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("access-control-expose-headers")).toContain("X-WP-Total");
  });
});
