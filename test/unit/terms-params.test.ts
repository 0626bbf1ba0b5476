import Validator from "fastest-validator";
import { describeSchema, ParamsSchema } from "../../lib/http/params";
import { INTERNAL_PARAMS, TERM_PARAMS, termSchemasByAction } from "../../lib/terms/term-params";
import type { Json } from "../helpers/json";

// as the broker builds it (moleculer/src/validators/fastest.js)
const v = new Validator({ useNewCustomCheckerFunction: true });
function check(schema: ParamsSchema, params: Record<string, unknown>): { ok: true; params: Record<string, unknown> } | { ok: false; errors: Array<{ type: string; field: string }> } {
  const copy = { ...params };
  const res = v.compile(schema as Json)(copy);
  return res === true ? { ok: true, params: copy } : { ok: false, errors: res as Json };
}
const docs = (schema: ParamsSchema) => Object.fromEntries(describeSchema(schema).map(d => [d.name, { ...d.doc, required: d.required }]));

describe("documented args (docs/discovery.md#namespace-index)", () => {
  it("lists the GET args of categories in order, with types and defaults", () => {
    const d = docs(TERM_PARAMS.category.list);
    // the plugin's args, then modified_after / modified_before (sync issue, README "Beyond the reference")
    expect(Object.keys(d)).toEqual(["page", "per_page", "search", "exclude", "include", "order", "orderby", "hide_empty", "parent", "post", "event", "slug", "modified_after", "modified_before"]);
    expect(d.page).toMatchObject({ type: "integer", default: 1, required: false });
    expect(d.per_page).toMatchObject({ type: "integer", default: 10 });
    expect(d.search.type).toBe("string");
    expect(d.include).toMatchObject({ items: { type: "integer" } });
    expect(d.include).not.toHaveProperty("type");
    expect(d.exclude).toMatchObject({ items: { type: "integer" } });
    expect(d.order.type).toBe("string");
    expect(d.orderby.type).toBe("string");
    expect(d.hide_empty).toMatchObject({ type: "boolean", default: "1" });
    expect(d.parent.type).toBe("integer");
    expect(d.post.type).toBe("integer");
    expect(d.event.type).toBe("integer");
    expect(d.slug.type).toBe("string");
    for (const arg of Object.values(d)) expect(typeof (arg as Json).description).toBe("string");
  });
  it("has no parent on the tags' GET and POST args", () => {
    expect(Object.keys(docs(TERM_PARAMS.tag.list))).not.toContain("parent");
    expect(Object.keys(docs(TERM_PARAMS.tag.create))).toEqual(["name", "description", "slug"]);
    expect(Object.keys(docs(TERM_PARAMS.tag.update))).toEqual(["id", "name", "description", "slug"]);
  });
  it("documents POST and the id routes", () => {
    const create = docs(TERM_PARAMS.category.create);
    expect(Object.keys(create)).toEqual(["name", "description", "slug", "parent"]);
    expect(create.name).toMatchObject({ type: "string", required: true });
    expect(create.parent).toMatchObject({ type: "integer", required: false });
    const update = docs(TERM_PARAMS.category.update);
    expect(Object.keys(update)).toEqual(["id", "name", "description", "slug", "parent"]);
    expect(update.id).toMatchObject({ type: "integer", required: true, in: "path" });
    expect(update.name.required).toBe(false);
    expect(docs(TERM_PARAMS.tag.get)).toEqual({ id: expect.objectContaining({ type: "integer", required: true }), context: expect.objectContaining({ type: "string", required: false }) });
    expect(docs(TERM_PARAMS.tag.remove)).toEqual({ id: expect.objectContaining({ type: "integer", required: true }) });
  });
  it("names every routed action", () => {
    expect(Object.keys(termSchemasByAction("taxonomy")).sort()).toEqual([
      "taxonomy.categories.create", "taxonomy.categories.get", "taxonomy.categories.list", "taxonomy.categories.remove", "taxonomy.categories.update",
      "taxonomy.tags.create", "taxonomy.tags.get", "taxonomy.tags.list", "taxonomy.tags.remove", "taxonomy.tags.update"
    ]);
  });
});

describe("validation", () => {
  it("coerces list parameters", () => {
    const r = check(TERM_PARAMS.category.list, { page: "2", per_page: "2.0", include: "1, music", hide_empty: "no", event: "7", other: "x" });
    expect(r).toEqual({ ok: true, params: { page: 2, per_page: 2, include: ["1", "music"], hide_empty: false, event: 7 } });
  });
  it.each([
    ["page", "foo"], ["page", "-1"], ["page", "0"], ["page", "1.5"], ["per_page", "0"], ["search", ""], ["order", ""], ["orderby", ""],
    ["slug", ""], ["hide_empty", "maybe"], ["parent", ""], ["post", ""], ["post", "foo"], ["event", "foo"], ["include", ""]
  ])("refuses %s=%j", (name, value) => {
    const r = check(TERM_PARAMS.category.list, { [name]: value });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0].field).toBe(name);
  });
  it("requires a name on create and refuses empty fields", () => {
    const missing = check(TERM_PARAMS.category.create, {});
    expect(!missing.ok && missing.errors[0].type).toBe("required");
    const nul = check(TERM_PARAMS.category.create, { name: null });
    expect(!nul.ok && nul.errors[0].type).toBe("required");
    for (const [name, value] of [["name", ""], ["description", ""], ["slug", ""], ["parent", ""], ["parent", "0"], ["parent", "foo"], ["name", 5]]) {
      const r = check(TERM_PARAMS.category.create, { name: "ok", [name as string]: value });
      expect(r.ok).toBe(false);
    }
  });
  it("lets parent reach the tags' handler (to refuse it there)", () => {
    expect(check(TERM_PARAMS.tag.create, { name: "x", parent: "" })).toEqual({ ok: true, params: { name: "x", parent: "" } });
    expect(check(TERM_PARAMS.tag.update, { id: "3", parent: 1 })).toEqual({ ok: true, params: { id: 3, parent: 1 } });
  });
  it("validates the internal actions' params", () => {
    expect(v.validate({ taxonomy: "category", value: "a,b" }, INTERNAL_PARAMS.resolveForEvent as Json)).toBe(true);
    expect(v.validate({ taxonomy: "venue", value: "a" }, INTERNAL_PARAMS.resolveForEvent as Json)).not.toBe(true);
    expect(v.validate({ taxonomy: "tag", values: ["a", "2"], param: "tags" }, INTERNAL_PARAMS.resolveFilter as Json)).toBe(true);
    expect(v.validate({ ids: [1, 2] }, INTERNAL_PARAMS.embed as Json)).toBe(true);
    const numbers = { taxonomy: "category", values: [12, "rock"], param: "categories" };
    expect(v.validate(numbers, INTERNAL_PARAMS.resolveFilter as Json)).toBe(true);
    expect(numbers.values).toEqual(["12", "rock"]);
    expect(v.validate({ ids: [1.5] }, INTERNAL_PARAMS.embed as Json)).not.toBe(true);
  });
});
