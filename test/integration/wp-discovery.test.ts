/**
 * WordPress discovery: the site's home points WordPress clients at the REST index, which lists our
 * namespace and its routes; node-wpapi's `WPAPI.discover` finds the namespace and lists events with it.
 */
import { startService, Running } from "../helpers/harness";
import { translate } from "../../lib/i18n/messages";
import type { Json } from "../helpers/json";

// node-wpapi (CommonJS, its own superagent transport)
const WPAPI = require("wpapi");

describe("WordPress discovery", () => {
  let svc: Running;
  let site: string;
  beforeAll(async () => {
    svc = await startService({ SITE_NAME: "Jazz Club Calendar" });
    site = `http://localhost:${svc.port}`; // BASE_URL defaults to http://localhost:{PORT}
    const created = await svc.request("POST", "/events", { as: "admin", body: { title: "Discovered concert", start_date: "tomorrow 20:00", end_date: "tomorrow 22:00" } });
    expect(created.status).toBe(201);
  });
  afterAll(async () => { await svc.stop(); });

  test("GET and HEAD on the site's home: 200 JSON with the discovery Link header", async () => {
    const get = await svc.get(`${svc.base}/`);
    expect(get.status).toBe(200);
    expect(get.headers.get("content-type")).toContain("application/json");
    expect(get.headers.get("link")).toBe(`<${site}/wp-json/>; rel="https://api.w.org/"`);
    expect(get.body).toEqual({
      name: "Jazz Club Calendar", description: translate("doc.description", "en"), url: site, home: site, rest_url: `${site}/wp-json/`
    });
    const head = await svc.request("HEAD", `${svc.base}/`);
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers.get("link")).toBe(`<${site}/wp-json/>; rel="https://api.w.org/"`);
    // an unknown key is refused there too
    expect((await svc.request("GET", `${svc.base}/`, { headers: { Authorization: "Bearer nope" } })).status).toBe(401);
  });

  test("the REST index on every root, with and without the trailing slash, is where the namespace index points up", async () => {
    for (const root of ["", "/fr", "/pt-br", "/zh-hans"]) {
      const ns = await svc.get(`${svc.base}${root}/wp-json/calendar/events/v1`);
      const up = ns.body._links.up[0].href;
      expect(up).toBe(`${site}${root}/wp-json/`);
      for (const path of [`${root}/wp-json/`, `${root}/wp-json`]) {
        const res = await svc.get(`${svc.base}${path}`);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body)).toEqual(["name", "description", "url", "home", "timezone_string", "namespaces", "authentication", "routes", "_links"]);
        expect(res.body).toMatchObject({ name: "Jazz Club Calendar", url: `${site}${root}`, home: `${site}${root}`, namespaces: ["calendar/events/v1"], timezone_string: "UTC" });
        expect(res.body.authentication["api-key"]).toMatchObject({ header: "Authorization", scheme: "Bearer" });
        const routes = Object.keys(res.body.routes);
        expect(routes[0]).toBe("/");
        // the namespace index's routes, as it lists them
        expect(routes.slice(1)).toEqual(Object.keys(ns.body.routes));
        // (the list's default end date is computed from the clock, to the second: left out)
        const withoutClock = (route: Json) => JSON.stringify(route).replace(/"default":"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"/g, "\"default\":\"<date>\"");
        expect(withoutClock(res.body.routes["/calendar/events/v1/events"])).toBe(withoutClock(ns.body.routes["/calendar/events/v1/events"]));
        expect(ns.body.routes["/calendar/events/v1/venues/(?P<id>\\d+)"].endpoints.length).toBe(3);
        expect(res.body.routes["/calendar/events/v1/venues/(?P<id>\\d+)"]).toEqual(ns.body.routes["/calendar/events/v1/venues/(?P<id>\\d+)"]);
        expect(res.body.routes["/"]._links.self[0].href).toBe(up);
      }
    }
    const fr = await svc.get(`${svc.base}/fr/wp-json/`);
    expect(fr.body.description).toBe(translate("doc.description", "fr"));
    const ja = await svc.get(`${svc.base}/wp-json/?i18n_language=ja`);
    expect(ja.body.description).toBe(translate("doc.description", "ja"));
  });

  test("other paths outside the namespace stay 404 rest_no_route", async () => {
    for (const path of ["/nope", "/wp-json/nope", "/fr/wp-json/other/v2", "/fr"]) {
      const res = await svc.get(`${svc.base}${path}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("rest_no_route");
    }
    expect((await svc.request("POST", `${svc.base}/`, { body: {} })).status).toBe(404);
  });

  test("node-wpapi: WPAPI.discover(base_url) finds the namespace and lists events through it", async () => {
    const wp = await WPAPI.discover(site);
    const calendar = wp.namespace("calendar/events/v1");
    expect(typeof calendar.events).toBe("function");
    const page = await calendar.events().perPage(5);
    expect(page.events.map((e: Json) => e.title)).toContain("Discovered concert");
    expect(page.total).toBeGreaterThanOrEqual(1);
    const one = await calendar.events().id(page.events[0].id);
    expect(one.id).toBe(page.events[0].id);
    // the client built its request on the discovered root
    expect(calendar.events().id(page.events[0].id).toString()).toBe(`${site}/wp-json/calendar/events/v1/events/${page.events[0].id}`);
  });
});
