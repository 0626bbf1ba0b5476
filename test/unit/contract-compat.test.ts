/**
 * The breaking-change check (docs/api-policy.md#the-breaking-change-check): the current /doc against the
 * released v1 contract, docs/contract/v1.openapi.json, on every run; and the comparison itself
 * (lib/api-policy/contract-diff.ts) failing, naming the change, on copies of the document with one breaking change
 * each, passing additions and experimental routes.
 */
import fs from "fs";
import path from "path";
import { breakingChanges } from "../../lib/api-policy/contract-diff";
import { openApiDocument } from "../../lib/discovery/openapi";
import { CONTRACT_SNAPSHOT_PATH } from "../../lib/discovery/released-contract";
import type { Json } from "../helpers/json";

const released = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", CONTRACT_SNAPSHOT_PATH), "utf8")) as Json;
const current = () => openApiDocument("http://localhost:3000/wp-json", "en") as Json;
const copy = (): Json => structuredClone(current());

test("the current /doc breaks nothing of the released v1 contract (an intended change: `npm run contract:snapshot`)", () => {
  expect(breakingChanges(released, current())).toEqual([]);
});

describe("each breaking change fails, named", () => {
  test("a response field removed (from a component every event answer refers to)", () => {
    const doc = copy();
    delete doc.components.schemas.Event.properties.title;
    const changes = breakingChanges(released, doc);
    expect(changes).toContain("GET /events/{id} 200.title: response field removed");
    expect(changes.length).toBeGreaterThan(1); // every operation answering an event
  });

  test("a path, an operation, a parameter, a status code", () => {
    const doc = copy();
    delete doc.paths["/tags/{id}"];
    delete doc.paths["/venues/{id}"].delete;
    doc.paths["/events"].get.parameters = doc.paths["/events"].get.parameters.filter((p: Json) => p.name !== "search");
    delete doc.paths["/organizers"].get.responses["304"];
    expect(breakingChanges(released, doc)).toEqual(expect.arrayContaining([
      "/tags/{id}: path removed",
      "DELETE /venues/{id}: operation removed",
      "GET /events parameter search (query): removed",
      "GET /organizers status 304: removed"
    ]));
  });

  test("an enum value removed, a type narrowed, a parameter made required, a new required parameter, a body parameter removed", () => {
    const doc = copy();
    const list = doc.paths["/events"].get.parameters;
    const orderby = list.find((p: Json) => p.name === "orderby");
    orderby.schema.enum = orderby.schema.enum.slice(1);
    const page = list.find((p: Json) => p.name === "page");
    page.required = true;
    const perPage = list.find((p: Json) => p.name === "per_page");
    perPage.schema.type = "string";
    list.push({ in: "query", name: "tenant", required: true, schema: { type: "string" } });
    delete doc.paths["/events"].post.requestBody.content["application/json"].schema.properties.excerpt;
    const changes = breakingChanges(released, doc);
    expect(changes).toEqual(expect.arrayContaining([
      `GET /events parameter orderby (query): enum value ${JSON.stringify(released.paths["/events"].get.parameters.find((p: Json) => p.name === "orderby").schema.enum[0])} removed`,
      "GET /events parameter page (query): made required",
      "GET /events parameter per_page (query): type narrowed from integer to string",
      "GET /events parameter tenant (query): new required parameter",
      "POST /events body.excerpt: body parameter removed"
    ]));
  });

  test("additions pass: a new path, a new optional parameter, a new response field, a new status", () => {
    const doc = copy();
    doc.paths["/new-things"] = { get: { responses: { "200": { description: "ok" } } } };
    doc.paths["/events"].get.parameters.push({ in: "query", name: "brand_new", required: false, schema: { type: "string" } });
    doc.components.schemas.Event.properties.brand_new_field = { type: "string" };
    doc.paths["/events"].get.responses["418"] = { description: "teapot" };
    expect(breakingChanges(released, doc)).toEqual([]);
  });

  test("experimental routes are outside the check", () => {
    const before = structuredClone(released);
    before.paths["/trial"] = { get: { "x-experimental": true, responses: { "200": { description: "ok" } } } };
    expect(breakingChanges(before, current())).toEqual([]);
    const doc = copy();
    expect(doc.paths["/deprecations"].get["x-experimental"]).toBe(true);
    delete doc.paths["/deprecations"];
    expect(breakingChanges(released, doc)).toEqual([]);
  });
});
