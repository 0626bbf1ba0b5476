/**
 * The namespace index, the OpenAPI document and docs/action-api.md, generated from the route table and
 * the params table (lib/http/action-schemas.ts) (docs/discovery.md#namespace-index, #the-openapi-document).
 */
import fs from "fs";
import path from "path";
import { ROUTES } from "../../lib/http/routes";
import { describeSchema, ParamsSchema, schema, integer, string, dateTime, untyped, idList, stringList, boolean } from "../../lib/http/params";
import { schemaOf } from "../../lib/http/action-schemas";
import { LANGUAGES, translate } from "../../lib/i18n/messages";
import {
  actionApiMarkdown, ACTION_API_PATH, endpointArgs, namespaceIndex, openApiDocument, openApiPath, openApiType, verbOf
} from "../../lib/discovery";
import type { Json } from "../helpers/json";

const API_ROOT = "http://localhost:3000/wp-json";
const NS = "/calendar/events/v1";
const NOW = new Date("2025-06-10T12:34:56Z");
const I18N = { type: "string", enum: [...LANGUAGES], required: false };

const ROUTE_ORDER = [
  "", "/doc", "/events", "/events/(?P<id>\\d+)", "/events/by-slug/(?P<slug>[^/]+)",
  "/venues", "/venues/(?P<id>\\d+)", "/venues/by-slug/(?P<slug>[^/]+)",
  "/organizers", "/organizers/(?P<id>\\d+)", "/organizers/by-slug/(?P<slug>[^/]+)",
  "/categories", "/categories/(?P<id>\\d+)", "/tags", "/tags/(?P<id>\\d+)", "/changes", "/events/(?P<id>\\d+)/occurrences",
  "/webhooks", "/webhooks/(?P<id>\\d+)", "/webhooks/(?P<id>\\d+)/secret", "/webhooks/(?P<id>\\d+)/deliveries", "/webhooks/(?P<id>\\d+)/ping", "/webhooks/(?P<id>\\d+)/replay", "/webhooks/(?P<id>\\d+)/deliveries/(?P<delivery_id>[^/]+)/retry",
  "/imports", "/imports/(?P<id>\\d+)", "/imports/(?P<id>\\d+)/run", "/imports/(?P<id>\\d+)/runs", "/fields", "/fields/(?P<id>\\d+)", "/deprecations"
].map(p => `${NS}${p}`);

const PATH_ORDER = ["/doc", "/events", "/events/{id}", "/events/by-slug/{slug}", "/venues", "/venues/{id}", "/venues/by-slug/{slug}",
  "/organizers", "/organizers/{id}", "/organizers/by-slug/{slug}", "/categories", "/categories/{id}", "/tags", "/tags/{id}", "/changes", "/events/{id}/occurrences",
  "/webhooks", "/webhooks/{id}", "/webhooks/{id}/secret", "/webhooks/{id}/deliveries", "/webhooks/{id}/ping", "/webhooks/{id}/replay", "/webhooks/{id}/deliveries/{delivery_id}/retry", "/imports", "/imports/{id}", "/imports/{id}/run", "/imports/{id}/runs",
  "/fields", "/fields/{id}", "/deprecations"];

/** lib/discovery reading a params table of only `schemas` over the real one (the real table stays untouched). */
function isolatedDiscovery(schemas: Record<string, ParamsSchema>): typeof import("../../lib/discovery") {
  let mod: typeof import("../../lib/discovery") | undefined;
  jest.isolateModules(() => {
    jest.doMock("../../lib/http/action-schemas", () => ({ schemaOf: (action: string) => schemas[action] }));
    mod = require("../../lib/discovery");
  });
  return mod as typeof import("../../lib/discovery");
}

const ARG_KEYS = ["description", "type", "default", "format", "enum", "items"] as const;

/** What the index must print for a rule, derived independently of the generator. */
function expectedIndexArg(doc: Record<string, Json>, required: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ARG_KEYS) if (doc[key] !== undefined && !(key === "description" && doc[key] === "")) out[key] = doc[key];
  out.required = required;
  return out;
}

describe("namespace index", () => {
  const index = namespaceIndex(API_ROOT, { now: NOW, siteZone: "UTC" }) as Json;

  test("lists the routes in the reference's order, each with its namespace, methods and endpoints", () => {
    expect(Object.keys(index)).toEqual(["namespace", "routes", "_links"]);
    expect(index.namespace).toBe("calendar/events/v1");
    expect(Object.keys(index.routes)).toEqual(ROUTE_ORDER);
    expect(index._links).toEqual({ up: [{ href: `${API_ROOT}/` }] });
    const item = index.routes[`${NS}/events/(?P<id>\\d+)`];
    expect(item.methods).toEqual(["GET", "DELETE", "POST", "PUT", "PATCH"]);
    expect(item.endpoints.map((e: Json) => e.methods)).toEqual([["GET"], ["DELETE"], ["POST", "PUT", "PATCH"]]);
    expect(index.routes[`${NS}/categories/(?P<id>\\d+)`].methods).toEqual(["GET", "POST", "PUT", "PATCH", "DELETE"]);
    for (const [key, route] of Object.entries<Json>(index.routes)) {
      expect(Object.keys(route).slice(0, 3)).toEqual(["namespace", "methods", "endpoints"]);
      expect(route.namespace).toBe("calendar/events/v1");
      expect(route.methods).toEqual(route.endpoints.flatMap((e: Json) => e.methods));
      if (key.includes("(?P<")) expect(route._links).toBeUndefined();
      else expect(route._links).toEqual({ self: [{ href: `${API_ROOT}${key}` }] });
    }
  });

  test("the index's own args: namespace and context with their defaults, then i18n_language", () => {
    const root = index.routes[NS];
    expect(root.endpoints).toEqual([{ methods: ["GET"], args: {
      namespace: { default: "calendar/events/v1", required: false },
      context: { default: "view", required: false },
      i18n_language: I18N
    } }]);
    expect(index.routes[`${NS}/doc`].endpoints).toEqual([{ methods: ["GET"], args: { i18n_language: I18N } }]);
  });

  test("args come from the action's schema: kept keys in order, then required; `in` never printed; i18n_language last", () => {
    const discovery = isolatedDiscovery({
      "events.get": schema({
        id: integer({ description: "The event ID.", required: true, in: "path" }),
        password: string({ description: "The event password.", in: "path" }),
        start_date: dateTime({ description: "From.", typed: false, default: "yesterday 23:59" }),
        end_date: dateTime({ description: "To.", typed: false, default: "+24 months" }),
        venue: untyped({ description: "Venues.", default: null, items: { type: "integer" } }),
        unit: string({ description: "Unit.", enum: ["mi", "km"], default: "mi" }),
        include: idList({ description: "Only these." }),
        status: stringList({ description: "Statuses.", format: "string" }),
        hide_empty: boolean({ description: "Hide.", default: "1" })
      })
    });
    const ix = discovery.namespaceIndex(API_ROOT, { now: NOW, siteZone: "UTC" }) as Json;
    const args = ix.routes[`${NS}/events/(?P<id>\\d+)`].endpoints[0].args;
    expect(args).toEqual({
      id: { description: "The event ID.", type: "integer", required: true },
      password: { description: "The event password.", type: "string", required: false },
      start_date: { description: "From.", default: "2025-06-09 23:59:00", required: false },
      end_date: { description: "To.", default: "2027-06-10 12:34:56", required: false },
      venue: { description: "Venues.", default: null, items: { type: "integer" }, required: false },
      unit: { description: "Unit.", type: "string", default: "mi", enum: ["mi", "km"], required: false },
      include: { description: "Only these.", type: "array", items: { type: "integer" }, required: false },
      status: { description: "Statuses.", format: "string", required: false },
      hide_empty: { description: "Hide.", type: "boolean", default: "1", required: false },
      i18n_language: I18N
    });
    expect(Object.keys(args)).toEqual(["id", "password", "start_date", "end_date", "venue", "unit", "include", "status", "hide_empty", "i18n_language"]);
    expect(Object.keys(args.unit)).toEqual(["description", "type", "default", "enum", "required"]);
    expect(Object.keys(args.venue)).toEqual(["description", "default", "items", "required"]);
    expect(JSON.stringify(args)).not.toContain("\"in\"");
    // The relative defaults follow the site zone.
    const ny = (discovery.namespaceIndex(API_ROOT, { now: NOW, siteZone: "America/New_York" }) as Json)
      .routes[`${NS}/events/(?P<id>\\d+)`].endpoints[0].args;
    expect(ny.start_date.default).toBe("2025-06-09 23:59:00");
    expect(ny.end_date.default).toBe("2027-06-10 08:34:56");
    // An action without a schema still takes i18n_language.
    expect(ix.routes[`${NS}/events`].endpoints[0].args).toEqual({ i18n_language: I18N });
  });

  test("arg descriptions follow the language; every documented description has its translations", () => {
    const fr = namespaceIndex(API_ROOT, { now: NOW, siteZone: "UTC", language: "fr" }) as Json;
    const en = index.routes[`${NS}/events`].endpoints[0].args;
    const frArgs = fr.routes[`${NS}/events`].endpoints[0].args;
    expect(Object.keys(frArgs)).toEqual(Object.keys(en));
    expect(frArgs.page.description).toBe(translate(en.page.description, "fr"));
    expect(frArgs.page.description).not.toBe(en.page.description);
    expect({ ...frArgs.page, description: en.page.description }).toEqual(en.page);
    const missing: string[] = [];
    for (const route of ROUTES) {
      for (const endpoint of route.endpoints) {
        for (const { doc: d } of describeSchema(schemaOf(endpoint.action) ?? {})) {
          if (!d.description) continue;
          for (const lang of LANGUAGES) if (lang !== "en" && translate(d.description, lang) === d.description) missing.push(`${lang}: ${d.description}`);
        }
      }
    }
    expect(missing).toEqual([]);
    const doc = openApiDocument(API_ROOT, "ja") as Json;
    const page = doc.paths["/events"].get.parameters.find((p: Json) => p.name === "page");
    expect(page.description).toBe(translate(en.page.description, "ja"));
  });

  test("an endpoint declared with no args prints []", () => {
    expect(endpointArgs([], { now: NOW, siteZone: "UTC" }, false)).toEqual([]);
    expect(JSON.stringify(endpointArgs([], { now: NOW, siteZone: "UTC" }, false))).toBe("[]");
  });
});

describe("OpenAPI document", () => {
  const doc = openApiDocument(API_ROOT, "en") as Json;
  const COMPONENTS = ["ImageSize", "CostDetails", "Term", "Image", "DateDetails", "Event", "Venue", "Organizer"];
  const ops = () => Object.entries<Json>(doc.paths).flatMap(([path, item]) => Object.entries<Json>(item).map(([verb, op]) => ({ path, verb, op })));

  test("top-level keys, info, servers and components keep the reference's structure", () => {
    expect(Object.keys(doc)).toEqual(["openapi", "info", "components", "servers", "paths", "webhooks"]);
    // what the webhooks POST (OpenAPI 3.1 top-level `webhooks`), one entry per event type and the ping
    expect(Object.keys(doc.webhooks)).toHaveLength(16);
    expect(doc.webhooks["event.created"].post.requestBody.content["application/json"].schema.required).toEqual(["type", "timestamp", "data"]);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toEqual({ version: "1.0.0", title: translate("doc.title", "en"), description: translate("doc.description", "en"), "x-api-policy": "http://localhost:3000/docs/api-policy.md" });
    expect(doc.servers).toEqual([{ url: `${API_ROOT}/calendar/events/v1/` }]);
    expect(Object.keys(doc.components)).toEqual(["schemas"]);
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas)).toEqual(COMPONENTS);
    for (const s of Object.values<Json>(schemas)) {
      expect(s.type).toBe("object");
      expect(s.additionalProperties).toBe(false);
      expect(s.required).toBeUndefined(); // _fields may keep any subset
      for (const p of Object.values<Json>(s.properties)) expect(typeof p.description).toBe("string");
    }
    expect(Object.keys(schemas.ImageSize.properties)).toEqual(["width", "height", "mime-type", "url"]);
    expect(schemas.CostDetails.properties.values).toMatchObject({ type: "array", items: { type: "string" } });
    expect(Object.keys(schemas.Image.properties)).toEqual(["url", "id", "extension", "width", "height", "sizes"]);
    expect(schemas.Image.properties.sizes.items).toEqual({ $ref: "#/components/schemas/ImageSize" });
    expect(Object.keys(schemas.DateDetails.properties)).toEqual(["year", "month", "day", "hour", "minutes", "seconds"]);
    for (const p of Object.values<Json>(schemas.DateDetails.properties)) expect(p.type).toBe("string");
  });

  test("fields are typed as the service sends them", () => {
    const ev = doc.components.schemas.Event.properties;
    expect(ev.id.type).toBe("integer");
    expect(ev.author).toMatchObject({ type: "string", pattern: "^[0-9]+$" });
    expect(ev.image.oneOf).toEqual([{ const: false }, { $ref: "#/components/schemas/Image" }]);
    expect(ev.start_date_details.$ref).toBe("#/components/schemas/DateDetails");
    expect(ev.cost_details.$ref).toBe("#/components/schemas/CostDetails");
    expect(ev.categories.items).toEqual({ $ref: "#/components/schemas/Term" });
    expect(ev.venue.anyOf).toEqual([{ $ref: "#/components/schemas/Venue" }, expect.objectContaining({ type: "array", items: { $ref: "#/components/schemas/Venue" } })]);
    expect(ev.organizer.items).toEqual({ $ref: "#/components/schemas/Organizer" });
    expect(ev.featured.type).toEqual(["boolean", "null"]);
    expect(doc.components.schemas.Venue.properties.geo_lat).toMatchObject({ type: "number", format: "double" });
    expect(doc.components.schemas.Organizer.properties).toHaveProperty("email");
  });

  test("paths in order; PUT and PATCH beside POST on item routes; one tag per resource; unique operation ids", () => {
    expect(Object.keys(doc.paths)).toEqual(PATH_ORDER);
    expect(Object.keys(doc.paths["/events"])).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/events/{id}"])).toEqual(["get", "delete", "post", "put", "patch"]);
    expect(Object.keys(doc.paths["/tags/{id}"])).toEqual(["get", "post", "put", "patch", "delete"]);
    const ids = ops().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, op } of ops()) expect(op.tags).toEqual([path.split("/")[1]]);
    expect(doc.paths["/events/{id}"].put.parameters).toEqual(doc.paths["/events/{id}"].post.parameters);
    expect(doc.paths["/events/{id}"].patch.requestBody).toEqual(doc.paths["/events/{id}"].post.requestBody);
  });

  test("responses: every status the operation answers, errors with the contract's body, lists as envelopes", () => {
    const codes = (p: string, verb: string) => Object.keys(doc.paths[p][verb].responses);
    const errors = ["400", "401", "403", "404", "408", "429", "431", "500", "503", "504"];
    // 410: a deprecated parameter of the list (json_ld) after its sunset (lib/api-policy/deprecations.ts)
    expect(codes("/events", "get")).toEqual(["200", "304", ...errors, "410"].sort());
    expect(codes("/events", "post")).toEqual(["201", ...errors, "409", "413", "422"].sort());
    expect(codes("/events/{id}", "put")).toEqual(["200", ...errors, "412", "413"].sort());
    expect(codes("/events/{id}", "delete")).toEqual(["200", ...errors, "410", "412"].sort());
    const list = doc.paths["/events"].get.responses["200"].content;
    expect(Object.keys(list)).toEqual(["application/json", "text/calendar"]);
    expect(list["application/json"].schema).toMatchObject({ title: "events", type: "object", required: ["events", "total", "total_pages"] });
    expect(list["application/json"].schema.properties.events.items).toEqual({ $ref: "#/components/schemas/Event" });
    expect(doc.paths["/venues/{id}"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Venue" });
    expect(doc.paths["/categories"].get.responses["200"].content["application/json"].schema.properties.categories.items).toEqual({ $ref: "#/components/schemas/Term" });
    expect(doc.paths["/changes"].get.responses["200"].content["application/json"].schema.required).toEqual(["changes", "next_token", "has_more"]);
    expect(doc.paths["/doc"].get.responses["400"].content["application/json"].schema).toMatchObject({ required: ["code", "message", "data"] });
    for (const { path, op } of ops()) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        expect(typeof response.description).toBe("string");
        if (status === "304") expect(response.content).toBeUndefined();
        if (Number(status) >= 400) {
          expect(Object.keys(response.content)).toEqual(["application/json"]);
          const schema = response.content["application/json"].schema;
          expect(schema.$ref ?? "").toBe(path === "/doc" && status === "400" ? "" : "#/paths/~1doc/get/responses/400/content/application~1json/schema");
        }
      }
    }
  });

  test("parameters: path parameters are required placeholders; comma lists form-style; i18n_language and _fields everywhere", () => {
    const params = doc.paths["/events"].get.parameters as Json[];
    const byName = Object.fromEntries(params.map(p => [p.name, p]));
    expect(byName.page).toEqual({ in: "query", schema: { type: "integer" }, description: expect.any(String), required: false, name: "page" });
    for (const name of ["categories", "tags", "venue", "organizer", "include"]) {
      expect(byName[name]).toMatchObject({ in: "query", schema: { type: "array", items: { type: "integer" } }, style: "form", explode: false });
    }
    for (const name of ["page", "status", "search", "start_date"]) expect(byName[name]).not.toHaveProperty("style");
    expect(byName.i18n_language).toMatchObject({ in: "query", schema: { type: "string", enum: [...LANGUAGES] } });
    expect(byName._fields).toMatchObject({ in: "query", schema: { type: "string" } });
    for (const { op } of ops()) {
      for (const p of op.parameters as Json[]) if (p.in === "path") expect(p.required).toBe(true);
      expect((op.parameters as Json[]).map(p => p.name)).toContain("i18n_language");
    }
    const get = Object.fromEntries((doc.paths["/events/{id}"].get.parameters as Json[]).map(p => [p.name, p]));
    expect(get.id).toMatchObject({ in: "path", schema: { type: "integer" }, required: true });
    expect(get.password).toMatchObject({ in: "query", required: false });
    expect(get["If-None-Match"]).toMatchObject({ in: "header" });
    const slugUpdate = doc.paths["/events/by-slug/{slug}"].post;
    expect(slugUpdate.parameters[0]).toMatchObject({ in: "path", name: "slug", required: true });
    expect(slugUpdate.requestBody.content["application/json"].schema.properties.slug.type).toBe("string");
    expect(doc.paths["/events"].post.parameters.map((p: Json) => p.name)).toContain("Idempotency-Key");
    expect(doc.paths["/events/{id}"].delete.parameters.map((p: Json) => p.name)).toContain("If-Match");
  });

  test("post: path args as parameters, the rest in a JSON or form body", () => {
    const create = doc.paths["/events"].post;
    const body = create.requestBody.content["application/x-www-form-urlencoded"].schema;
    expect(create.requestBody.content["application/json"].schema).toEqual(body);
    expect(body.type).toBe("object");
    expect(body.properties.title).toEqual({ description: expect.any(String), type: "string" });
    expect(body.properties.categories).toMatchObject({ type: "array", items: { type: "integer" } });
    expect(body.required).toEqual(["title", "start_date", "end_date"]);
    const update = doc.paths["/events/{id}"].post;
    expect(update.parameters.filter((p: Json) => p.in === "path").map((p: Json) => p.name)).toEqual(["id"]);
    expect(update.requestBody.content["application/x-www-form-urlencoded"].schema.required).toBeUndefined();
  });

  test("texts follow the language", () => {
    const fr = openApiDocument(API_ROOT, "fr") as Json;
    expect(fr.info.title).toBe(translate("doc.title", "fr"));
    expect(fr.info.title).not.toBe(doc.info.title);
    expect(fr.paths["/events"].get.responses["404"].description).toBe(translate("doc.not_found", "fr"));
    expect(fr.paths["/events"].get.responses["304"].description).toBe(translate("doc.not_modified", "fr"));
  });
});

describe("the documents agree with the params schemas", () => {
  const index = namespaceIndex(API_ROOT, { now: NOW, siteZone: "UTC" }) as Json;
  const doc = openApiDocument(API_ROOT, "en") as Json;

  test("every routed action has a params schema in the table", () => {
    const missing = ROUTES.flatMap(r => r.endpoints.map(e => e.action)).filter(action => !schemaOf(action));
    expect(missing).toEqual([]);
  });

  test.each(ROUTES.flatMap(r => r.endpoints.map(e => [e.action, r.pattern, e.methods] as const)))(
    "%s: index args and /doc parameters = describeSchema(schemaOf(action))", (action, pattern, methods) => {
      const described = describeSchema(schemaOf(action) ?? {});
      const names = described.map(d => d.name);
      // The namespace index
      const endpoint = index.routes[`${NS}${pattern}`].endpoints.find((e: Json) => e.methods.join() === methods.join());
      const args = endpoint.args;
      expect(Object.keys(args)).toEqual([...names, "i18n_language"]);
      for (const { name, doc: d, required } of described) {
        const expected = expectedIndexArg(d, required);
        if (typeof d.default === "string" && /yesterday|months/.test(d.default)) expected.default = expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
        expect(args[name]).toEqual(expected);
      }
      // The OpenAPI document (the namespace index route is not in it; /doc takes nothing)
      const verb = verbOf(methods);
      if (pattern === "" || action === "api.doc") return;
      const op = doc.paths[openApiPath(pattern)][verb as string];
      expect(op).toBeDefined();
      const params: Json[] = op.parameters.filter((p: Json) => p.in !== "header" && p.name !== "i18n_language" && p.name !== "_fields");
      const body = op.requestBody?.content["application/x-www-form-urlencoded"].schema;
      const documented = new Set([...params.map(p => p.name), ...Object.keys(body?.properties ?? {})]);
      expect([...documented].sort()).toEqual([...names].sort());
      for (const { name, doc: d, required } of described) {
        const param = params.find(p => p.name === name);
        const schemaOfArg = param ? param.schema : body.properties[name];
        expect(schemaOfArg.type).toBe(openApiType(d));
        expect(schemaOfArg.items).toEqual(d.items);
        expect(param ? param.description : schemaOfArg.description).toBe(d.description);
        // A path parameter is required whatever the schema says (it is part of the path).
        if (param) expect(param.required).toBe(param.in === "path" || required);
        else expect((body.required ?? []).includes(name)).toBe(required);
      }
    });
});

describe("docs/action-api.md", () => {
  const file = path.join(__dirname, "..", "..", ACTION_API_PATH);

  test("the checked-in page matches the params table", () => {
    const generated = actionApiMarkdown();
    if (process.env.UPDATE_ACTION_API === "1") fs.writeFileSync(file, generated);
    const checkedIn = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
    if (checkedIn !== generated) {
      const have = checkedIn.split("\n");
      const want = generated.split("\n");
      const differs = want.findIndex((text, i) => have[i] !== text);
      const line = differs === -1 ? want.length : differs;
      throw new Error(`${ACTION_API_PATH} disagrees with the params table (first at line ${line + 1}:\n`
        + `  checked in: ${have[line] ?? "<end of file>"}\n  generated:  ${want[line] ?? "<end of file>"}).\nRegenerate it: `
        + "`npm run build && node dist/scripts/action-api.js` (or `UPDATE_ACTION_API=1 npx jest test/unit/discovery.test.ts`).");
    }
  });

  test("lists every routed action with its params and who may call it", () => {
    const page = actionApiMarkdown();
    for (const route of ROUTES) {
      for (const endpoint of route.endpoints) {
        const start = page.indexOf(`## \`${endpoint.action}\``);
        expect(start).toBeGreaterThanOrEqual(0);
        const section = page.slice(start, page.indexOf("\n## ", start + 1) === -1 ? undefined : page.indexOf("\n## ", start + 1));
        expect(section).toContain("Who may call it: ");
        for (const { name } of describeSchema(schemaOf(endpoint.action) ?? {})) expect(section).toContain(`| \`${name}\` |`);
      }
    }
    expect(page).toContain("| `title` | body or query | string | yes |");
    const tagsCreate = page.slice(page.indexOf("## `taxonomy.tags.create`"));
    expect(tagsCreate).toMatch(/Who may call it: administrator, editor\./);
    const categoriesCreate = page.slice(page.indexOf("## `taxonomy.categories.create`"));
    expect(categoriesCreate).toMatch(/Who may call it: administrator, editor, author\./);
  });
});
