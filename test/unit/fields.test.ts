/**
 * Custom fields' pure rules (lib/fields/): a definition's checks, a write's `meta` merged and refused, the
 * stored form and tokens, `meta` and `custom_fields` as answered (The Events Calendar Pro's display texts,
 * labels per language with fallback), JSON-LD PropertyValues, list filters, and a site's /doc.
 */
import { checkDefinitionUpdate, checkNewDefinition, FieldDef, labelIn } from "../../lib/fields/definition";
import { additionalProperties, customFieldsOf, mergeMeta, metaOf, storedFields, tokensOf } from "../../lib/fields/values";
import { readFieldFilters } from "../../lib/fields/filter";
import { withSiteFields } from "../../lib/fields/openapi";
import { openApiDocument } from "../../lib/discovery/openapi";

const def = (id: number, key: string, type: FieldDef["type"], extra: Partial<FieldDef> = {}): FieldDef => ({
  _id: id, key, object_type: "event", type, label: key, options: [], required: false, filterable: true, ident: `event:${key}`, slot: id, ...extra
});
const DEFS: FieldDef[] = [
  def(1, "stage", "text", { label: { en: "Stage", fr: "Scène" } }),
  def(2, "age", "number"),
  def(3, "free", "boolean", { label: "Free <entry>" }),
  def(4, "site", "url"),
  def(5, "audience", "choice", { options: [{ value: "kids", label: { en: "Children", fr: "Enfants" } }, { value: "all", label: "Everyone" }] }),
  def(6, "access", "multi_choice", { options: [{ value: "ramp", label: "Ramp" }, { value: "loop", label: "Hearing loop" }] }),
  def(7, "notes", "textarea", { required: true, filterable: false })
];

describe("definitions", () => {
  test("a new one: its stored fields, or each refusal named", () => {
    expect(checkNewDefinition({ key: "age", object_type: "event", type: "number", label: "Age", required: "1" }).def)
      .toEqual({ key: "age", object_type: "event", type: "number", label: "Age", options: [], required: true, filterable: false, ident: "event:age" });
    expect(Object.keys(checkNewDefinition({ key: "Age", object_type: "post", type: "date", label: "", filterable: "x" }).bad)).toEqual(["key", "object_type", "type", "label", "filterable"]);
    expect(checkNewDefinition({ key: "c", object_type: "venue", type: "choice", label: { fr: "C", en: "C" }, options: [{ value: 1 }, { value: "b", label: { de: "B" } }] }).def?.options)
      .toEqual([{ value: "1", label: "1" }, { value: "b", label: { de: "B" } }]);
  });
  test("an update: key, object type and type fixed; the rest set", () => {
    const current = def(5, "audience", "choice", { options: [{ value: "kids", label: "Kids" }] });
    expect(checkDefinitionUpdate(current, { key: "audience", type: "choice", label: "Who", filterable: false })).toEqual({ set: { label: "Who", filterable: false }, bad: {} });
    expect(Object.keys(checkDefinitionUpdate(current, { key: "other", object_type: "venue", type: "text" }).bad)).toEqual(["key", "object_type", "type"]);
  });
  test("labels: the asked language, the default, English, the first", () => {
    expect(labelIn({ fr: "Scène", de: "Bühne" }, "fr", "en")).toBe("Scène");
    expect(labelIn({ fr: "Scène", de: "Bühne" }, "ja", "de")).toBe("Bühne");
    expect(labelIn({ en: "Stage", de: "Bühne" }, "ja", "fr")).toBe("Stage");
    expect(labelIn({ de: "Bühne" }, "ja", "fr")).toBe("Bühne");
  });
});

describe("values", () => {
  const input = { stage: "Main", age: "12.5", free: "no", site: "https://x.example/?a=1&b=2", audience: "kids", access: "loop,ramp", notes: "n" };
  test("a create: typed, choices in the options' order; refusals name meta with the key", () => {
    const { values } = mergeMeta(DEFS, input, undefined);
    expect(metaOf(DEFS, values)).toEqual({ stage: "Main", age: 12.5, free: false, site: "https://x.example/?a=1&b=2", audience: "kids", access: ["ramp", "loop"], notes: "n" });
    for (const [meta, key] of [[{ ...input, age: "x" }, "meta.age"], [{ ...input, nope: 1 }, "meta.nope"], [{ ...input, audience: "teens" }, "meta.audience"],
      [{ ...input, notes: undefined }, "meta.notes"], [{ ...input, site: "ftp://x.example/" }, "meta.site"], [{ ...input, free: "perhaps" }, "meta.free"]] as Array<[Record<string, unknown>, string]>) {
      expect(mergeMeta(DEFS, meta, undefined).bad.meta?.vars?.param).toBe(key);
    }
    expect(mergeMeta(DEFS, [1], undefined).bad.meta?.key).toBe("param.type");
  });
  test("an update: partial, null removes, a required field may stay absent but not be removed", () => {
    const { values } = mergeMeta(DEFS, input, undefined);
    expect(metaOf(DEFS, mergeMeta(DEFS, { age: null, stage: "Side" }, values).values)).toEqual({ ...metaOf(DEFS, values), stage: "Side", age: undefined });
    expect(mergeMeta(DEFS, { age: 1 }, {}).bad).toEqual({});
    expect(mergeMeta(DEFS, { notes: null }, values).bad.meta?.vars?.param).toBe("meta.notes");
  });
  test("stored form, tokens, answers", () => {
    const { values } = mergeMeta(DEFS, input, undefined);
    expect(storedFields(DEFS, values!).custom_text).toBe("Main\nhttps://x.example/?a=1&b=2\nn");
    expect(tokensOf(DEFS, values!)).toEqual(["1", "1=Main", "2", "2=12.5", "3", "3=0", "4", "4=https://x.example/?a=1&b=2", "5", "5=kids", "6", "6=ramp", "6=loop", "7", "7=n"]);
    expect(customFieldsOf(DEFS, values, "fr", "en")).toEqual({
      Scène: "Main", age: "12.5", "Free &lt;entry&gt;": "No", site: '<a href="https://x.example/?a=1&amp;b=2" target="_self">https://x.example/?a=1&b=2</a>',
      audience: "Enfants", access: "Ramp, Hearing loop", notes: "n"
    });
    expect(customFieldsOf(DEFS, {}, "en", "en")).toEqual([]);
    expect(additionalProperties(DEFS, values, "en", "en").slice(0, 3)).toEqual([
      { "@type": "PropertyValue", name: "Stage", value: "Main" }, { "@type": "PropertyValue", name: "age", value: 12.5 }, { "@type": "PropertyValue", name: "Free <entry>", value: false }
    ]);
    // a value of a field no longer defined answers nothing
    expect(metaOf(DEFS.slice(1), { "1": "Main" })).toEqual({});
  });
});

describe("filters", () => {
  test("tokens of the asked values; refusals", () => {
    expect(readFieldFilters(DEFS, { audience: "kids,all", age: "7.0", free: "true" }).filters).toEqual([
      { key: "audience", tokens: ["5=kids", "5=all"] }, { key: "age", tokens: ["2=7"] }, { key: "free", tokens: ["3=1"] }
    ]);
    for (const param of [{ notes: "n" }, { nope: "x" }, { age: "x" }, { audience: "teens" }, { audience: "" }, "stage"]) {
      expect(readFieldFilters(DEFS, param).reason).toBeDefined();
    }
  });
});

test("a site's /doc types each field under its record's meta", () => {
  const doc = withSiteFields(openApiDocument("http://x.example/wp-json", "en"), DEFS, "en", "en") as { components: { schemas: Record<string, { properties: Record<string, { properties: Record<string, unknown> }> }> } };
  const meta = doc.components.schemas.Event.properties.meta.properties;
  expect(Object.keys(meta)).toEqual(DEFS.map(d => d.key));
  expect(meta.age).toEqual(expect.objectContaining({ type: "number" }));
  expect(meta.access).toEqual(expect.objectContaining({ type: "array", items: { type: "string", enum: ["ramp", "loop"] } }));
  expect(doc.components.schemas.Venue.properties.meta.properties).toEqual({});
});
