/**
 * The deprecation registry (lib/api-policy/deprecations.ts, docs/api-policy.md#deprecations): every entry names a
 * routed action and, for a parameter, one of its documented args; 12 months at least between its date and
 * its sunset; which requests use an entry; the headers (RFC 9745, RFC 8594) and the sunset test.
 */
import { DEPRECATIONS, Deprecation, deprecationHeaders, deprecationsUsed, isSunset, MIN_NOTICE_DAYS, noticeDays } from "../../lib/api-policy/deprecations";
import { ROUTES } from "../../lib/http/routes";
import { documentedArgs } from "../../lib/discovery/args";
import { openApiDocument } from "../../lib/discovery/openapi";
import type { Json } from "../helpers/json";

const routed = new Map(ROUTES.flatMap(r => r.endpoints.map(e => [e.action, e.methods as string[]] as const)));

describe("the registry", () => {
  test.each(DEPRECATIONS.map(d => [d.id, d] as const))("%s names a routed action, its methods and (for a parameter) a documented arg", (_id, entry) => {
    expect(routed.has(entry.action)).toBe(true);
    for (const m of entry.methods) expect(routed.get(entry.action)).toContain(m);
    if (entry.what === "parameter") expect(documentedArgs(entry.action).map(a => a.name)).toContain(entry.name);
  });

  test("every entry gives at least 12 months between its date and its sunset, and a replacement", () => {
    for (const entry of DEPRECATIONS) {
      expect({ id: entry.id, enough: noticeDays(entry) >= MIN_NOTICE_DAYS }).toEqual({ id: entry.id, enough: true });
      expect(entry.replacement.length).toBeGreaterThan(0);
      expect(entry.doc.startsWith("/docs/api-policy.md#")).toBe(true);
    }
  });
});

const entries: Deprecation[] = [
  { id: "events.list.json_ld", what: "parameter", action: "events.list", methods: ["GET"], name: "json_ld", since: "2026-12-01", sunset: "2028-01-01", replacement: "GET /events/{id}", doc: "/docs/api-policy.md#a" },
  { id: "venues.get", what: "route", action: "venues.get", methods: ["GET"], since: "2026-01-01", sunset: "2027-01-01", replacement: "GET /venues/by-slug/{slug}", doc: "/docs/api-policy.md#b" },
  { id: "events.get.cost_details", what: "field", action: "events.get", methods: ["GET"], name: "cost_details", since: "2026-01-01", sunset: "2027-01-01", replacement: "cost", doc: "/docs/api-policy.md#c" }
];

describe("which requests use an entry", () => {
  test("a parameter: when the request sends it (any value), on the entry's methods only", () => {
    expect(deprecationsUsed({ action: "events.list", method: "GET", params: { json_ld: "0" } }, entries).map(d => d.id)).toEqual(["events.list.json_ld"]);
    expect(deprecationsUsed({ action: "events.list", method: "GET", params: {} }, entries)).toEqual([]);
    expect(deprecationsUsed({ action: "events.list", method: "POST", params: { json_ld: true } }, entries)).toEqual([]);
  });
  test("a route: every call of it", () => {
    expect(deprecationsUsed({ action: "venues.get", method: "GET", params: {} }, entries).map(d => d.id)).toEqual(["venues.get"]);
  });
  test("a field: unless _fields leaves it out", () => {
    expect(deprecationsUsed({ action: "events.get", method: "GET", params: {} }, entries).map(d => d.id)).toEqual(["events.get.cost_details"]);
    expect(deprecationsUsed({ action: "events.get", method: "GET", params: {}, fields: ["id", "title"] }, entries)).toEqual([]);
    expect(deprecationsUsed({ action: "events.get", method: "GET", params: {}, fields: ["cost_details.values"] }, entries)).toHaveLength(1);
  });
});

describe("headers and sunset", () => {
  test("Deprecation is @<seconds> of the date, Sunset an HTTP-date, Link rel=deprecation after the answer's own", () => {
    const h = deprecationHeaders([entries[0]], "https://cal.example", "<https://cal.example/x?page=2>; rel=\"next\"");
    expect(h.Deprecation).toBe(`@${Date.UTC(2026, 11, 1) / 1000}`);
    expect(h.Sunset).toBe("Sat, 01 Jan 2028 00:00:00 GMT");
    expect(h.Link).toBe("<https://cal.example/x?page=2>; rel=\"next\", <https://cal.example/docs/api-policy.md#a>; rel=\"deprecation\"; type=\"text/html\"");
    expect(deprecationHeaders([], "https://cal.example")).toEqual({});
  });
  test("the sunset comes at its date's midnight UTC", () => {
    expect(isSunset(entries[0], new Date("2027-12-31T23:59:59Z"))).toBe(false);
    expect(isSunset(entries[0], new Date("2028-01-01T00:00:00Z"))).toBe(true);
  });
  test("/doc marks a deprecated parameter, route and field", () => {
    const doc = openApiDocument("http://localhost:3000/wp-json", "en", entries) as Json;
    const list = doc.paths["/events"].get;
    expect(list.parameters.find((p: Json) => p.name === "json_ld")).toMatchObject({ deprecated: true, "x-sunset": "2028-01-01" });
    expect(list.deprecated).toBeUndefined();
    expect(doc.paths["/venues/{id}"].get).toMatchObject({ deprecated: true });
    expect(doc.paths["/venues/{id}"].post.deprecated).toBeUndefined();
    expect(doc.info["x-api-policy"]).toBe("http://localhost:3000/docs/api-policy.md");
  });
});
