/**
 * Discovery through HTTP: the namespace index, the /doc document and the /docs page (docs/discovery.md).
 */
import { execFile } from "child_process";
import path from "path";
import { startService, Running } from "../helpers/harness";
import { translate, LANGUAGES } from "../../lib/i18n/messages";

describe("discovery over HTTP", () => {
  let svc: Running;
  let site: string;
  beforeAll(async () => {
    svc = await startService();
    site = `http://localhost:${svc.port}`; // BASE_URL defaults to http://localhost:{PORT}
  });
  afterAll(async () => { await svc.stop(); });

  test("the index answers 200 on the default and the language roots, with links on the root it came in on", async () => {
    for (const root of ["", "/fr", "/pt-br", "/zh-hans"]) {
      const res = await svc.get(`${root}/wp-json/calendar/events/v1`);
      expect(res.status).toBe(200);
      expect(res.body.namespace).toBe("calendar/events/v1");
      // `help`: the change policy (docs/api-policy.md)
      expect(res.body._links).toEqual({ up: [{ href: `${site}${root}/wp-json/` }], help: [{ href: `${site}/docs/api-policy.md` }] });
      const routes = res.body.routes;
      expect(Object.keys(routes)[0]).toBe("/calendar/events/v1");
      // the reference's 15 routes, then the change feed, a series' occurrences (README "Beyond the reference") the seven of webhooks, the four of imports, the two of custom fields, then the deprecation registry (experimental)
      expect(Object.keys(routes)).toHaveLength(31);
      expect(Object.keys(routes)[17]).toBe("/calendar/events/v1/webhooks");
      expect(Object.keys(routes)[15]).toBe("/calendar/events/v1/changes");
      expect(Object.keys(routes)[16]).toBe("/calendar/events/v1/events/(?P<id>\\d+)/occurrences");
      expect(routes["/calendar/events/v1/events"]._links.self[0].href).toBe(`${site}${root}/wp-json/calendar/events/v1/events`);
      expect(routes["/calendar/events/v1/events/(?P<id>\\d+)"]._links).toBeUndefined();
    }
  });

  test("index args: the route's own params, i18n_language last, computed date defaults", async () => {
    const res = await svc.get("/wp-json/calendar/events/v1");
    const root = res.body.routes["/calendar/events/v1"].endpoints[0].args;
    expect(root).toEqual({
      namespace: { default: "calendar/events/v1", required: false },
      context: { default: "view", required: false },
      i18n_language: { type: "string", enum: [...LANGUAGES], required: false }
    });
    const list = res.body.routes["/calendar/events/v1/events"].endpoints[0];
    expect(list.methods).toEqual(["GET"]);
    expect(list.args.page).toMatchObject({ type: "integer", default: 1, required: false });
    expect(list.args.start_date.default).toMatch(/^\d{4}-\d\d-\d\d 23:59:00$/);
    expect(list.args.end_date.default).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(Object.keys(list.args).pop()).toBe("i18n_language");
    const create = res.body.routes["/calendar/events/v1/events"].endpoints[1];
    expect(create.args.title).toMatchObject({ type: "string", required: true });
  });

  test("the index's texts follow the language: i18n_language, else the path language", async () => {
    const en = await svc.get("/wp-json/calendar/events/v1");
    const page = en.body.routes["/calendar/events/v1/events"].endpoints[0].args.page;
    for (const [path, lang] of [["/fr/wp-json/calendar/events/v1", "fr"], ["/wp-json/calendar/events/v1?i18n_language=de", "de"], ["/fr/wp-json/calendar/events/v1?i18n_language=ja", "ja"]]) {
      const res = await svc.get(path);
      expect(res.status).toBe(200);
      const args = res.body.routes["/calendar/events/v1/events"].endpoints[0].args;
      expect(args.page).toEqual({ ...page, description: translate(page.description, lang) });
      expect(args.page.description).not.toBe(page.description);
    }
  });

  test("the index's parameters: namespace=other is 404 rest_invalid_namespace, ours is fine, a bad language is 400", async () => {
    const other = await svc.get("/wp-json/calendar/events/v1?namespace=other/v2");
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ code: "rest_invalid_namespace", data: { status: 404 } });
    const ours = await svc.get("/wp-json/calendar/events/v1?namespace=calendar/events/v1&context=help");
    expect(ours.status).toBe(200);
    const bad = await svc.get("/wp-json/calendar/events/v1?i18n_language=xx");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("rest_invalid_param");
  });

  test("/doc: the OpenAPI document with the request's real root", async () => {
    const res = await svc.get("/doc");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(Object.keys(res.body)).toEqual(["openapi", "info", "components", "servers", "paths", "webhooks"]);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.servers).toEqual([{ url: `${site}/wp-json/calendar/events/v1/` }]);
    expect(Object.keys(res.body.components.schemas)).toEqual(["ImageSize", "CostDetails", "Term", "Image", "DateDetails", "Event", "Venue", "Organizer"]);
    expect(Object.keys(res.body.paths)).toEqual(["/doc", "/events", "/events/{id}", "/events/by-slug/{slug}", "/venues", "/venues/{id}",
      "/venues/by-slug/{slug}", "/organizers", "/organizers/{id}", "/organizers/by-slug/{slug}", "/categories", "/categories/{id}", "/tags", "/tags/{id}", "/changes", "/events/{id}/occurrences",
      "/webhooks", "/webhooks/{id}", "/webhooks/{id}/secret", "/webhooks/{id}/deliveries", "/webhooks/{id}/ping", "/webhooks/{id}/replay", "/webhooks/{id}/deliveries/{delivery_id}/retry", "/imports", "/imports/{id}", "/imports/{id}/run", "/imports/{id}/runs", "/fields", "/fields/{id}", "/deprecations"]);
    const fr = await svc.get("/fr/wp-json/calendar/events/v1/doc");
    expect(fr.body.servers).toEqual([{ url: `${site}/fr/wp-json/calendar/events/v1/` }]);
  });

  test("/doc as served is valid OpenAPI for both third-party validators, in every language root", async () => {
    const docs: unknown[] = [];
    for (const root of ["", "/fr", "/pt-br", "/zh-hans"]) {
      const res = await svc.get(`${svc.base}${root}/wp-json/calendar/events/v1/doc`);
      expect(res.status).toBe(200);
      expect(res.body.servers[0].url).toBe(`${site}${root}/wp-json/calendar/events/v1/`);
      docs.push(res.body);
    }
    const script = path.join(__dirname, "..", "helpers", "openapi-validators.mjs");
    // in a child process, waited for without blocking this one: the service under test runs here, and a
    // loop blocked for seconds let its keep-alive sockets expire under the next test's first request
    const out = await new Promise<unknown>((resolve, reject) => {
      const child = execFile(process.execPath, [script], { maxBuffer: 256 * 1024 * 1024, timeout: 120_000 }, (err, stdout) => {
        if (err) reject(err);
        else resolve(JSON.parse(stdout));
      });
      child.stdin!.end(JSON.stringify(docs));
    });
    expect(out).toEqual(docs.map(() => ({ seriousme: [], swaggerParser: null })));
  });

  test("/doc texts follow the language (i18n_language, then the path language)", async () => {
    const en = await svc.get("/doc");
    expect(en.body.info.title).toBe(translate("doc.title", "en"));
    const fr = await svc.get("/doc?i18n_language=fr");
    expect(fr.status).toBe(200);
    expect(fr.body.info).toEqual({ version: "1.0.0", title: translate("doc.title", "fr"), description: translate("doc.description", "fr"), "x-api-policy": `${site}/docs/api-policy.md` });
    expect(fr.body.info.title).not.toBe(en.body.info.title);
    expect(fr.body.paths["/doc"].get.responses["200"].description).toBe(translate("doc.ok", "fr"));
    expect(fr.body.paths["/events/{id}"].delete.responses["410"].description).toBe(translate("doc.gone", "fr"));
    const ja = await svc.get("/fr/wp-json/calendar/events/v1/doc?i18n_language=ja");
    expect(ja.body.info.title).toBe(translate("doc.title", "ja"));
    const pathFr = await svc.get("/fr/wp-json/calendar/events/v1/doc");
    expect(pathFr.body.info.title).toBe(translate("doc.title", "fr"));
  });

  test("/doc may be read from another origin (the docs page may be opened on another host name)", async () => {
    const res = await svc.request("GET", "/doc", { headers: { Origin: "http://127.0.0.1:1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("/docs serves Swagger UI from swagger-ui-dist, pointed at /doc, whatever the Authorization header", async () => {
    for (const path of ["/docs", "/docs/"]) {
      const page = await svc.request("GET", `${svc.base}${path}`, { headers: { Authorization: "Bearer not-a-key" } });
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(page.text).toContain("<script src=\"/docs/swagger-ui-bundle.js\"></script>");
      expect(page.text).toContain(`data-spec-url="${site}/wp-json/calendar/events/v1/doc"`);
      expect(page.text).not.toMatch(/https?:\/\/(?!localhost)[^"]*\.js/); // nothing from a CDN
    }
    const bundle = await svc.request("GET", `${svc.base}/docs/swagger-ui-bundle.js`, { headers: { Authorization: "Basic abc" } });
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toContain("javascript");
    expect(bundle.text).toContain("SwaggerUIBundle");
    const css = await svc.get(`${svc.base}/docs/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
    const init = await svc.get(`${svc.base}/docs/docs-init.js`);
    expect(init.text).toContain("data-spec-url");
    for (const missing of ["/docs/nope.js", "/docs/index.html", "/docs/package.json", "/docs/%2e%2e%2fpackage.json"]) {
      const res = await svc.request("GET", `${svc.base}${missing}`, { headers: { Authorization: "Bearer not-a-key" } });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("rest_no_route");
    }
  });
});
