/** The i18n collection's queries, run on the embedded store (NeDB) as the service runs them. */
import { memoryCollection, TestCollection } from "../helpers/memory-store";
import { holdsValues, nameFilter, newTranslationDoc, searchFilter, translationId, writeUpdate } from "../../lib/i18n/store-query";
import { toMongoQuery } from "../../store/mongo/collection";
import { searchTerms } from "../../lib/text/search";
import type { Query } from "../../lib/documents/store-query";
import type { Json } from "../helpers/json";

const ids = async (db: TestCollection, query: Record<string, unknown>): Promise<number[]> =>
  ((await db.findAsync(query)) as Json[]).map(d => d.record_id).sort((a: number, b: number) => a - b);

describe("translation documents", () => {
  let db: TestCollection;
  beforeEach(async () => {
    db = await memoryCollection("translations");
    await db.insertAsync([
      // French title only: the description falls back to the English original
      newTranslationDoc("event", 1, "fr", { title: "Concert de jazz" }, { title: "Jazz concert", description: "A night of swing", excerpt: "" }),
      newTranslationDoc("event", 2, "fr", { title: "Réunion", description: "Ordre du jour" }, { title: "Meeting", description: "Agenda", excerpt: "" }),
      newTranslationDoc("event", 3, "de", { title: "Jazzkonzert" }, { title: "Jazz concert" }),
      newTranslationDoc("venue", 4, "fr", { address: "100, Avenue du Temple", city: "Paris" }, { name: "Temple hall", address: "100 Temple Avenue", city: "Paris" })
    ] as Json[]);
  });

  it("ids are <type>:<id>:<lang>", () => {
    expect(translationId("event", 12, "pt-br")).toBe("event:12:pt-br");
    expect(newTranslationDoc("event", 12, "fr", { title: "T", description: "" })).toEqual({
      _id: "event:12:fr", type: "event", record_id: 12, lang: "fr", fields: { title: "T" }, lc: { title: "t" }, fb: {}
    });
  });

  it("any-field: every term in some field of the language, case-insensitively", async () => {
    const q = (s: string) => ({ $and: [{ type: "event", lang: "fr" }, searchFilter(searchTerms(s), ["title", "description", "excerpt"], "any-field")] });
    expect(await ids(db, q("JAZZ"))).toEqual([1]);
    expect(await ids(db, q("jazz ordre"))).toEqual([]);
    expect(await ids(db, q("réunion jour"))).toEqual([2]);
  });

  it("a field without a value in the language matches through the original (fallback)", async () => {
    const q = (s: string) => ({ $and: [{ type: "event", lang: "fr" }, searchFilter(searchTerms(s), ["title", "description", "excerpt"], "any-field")] });
    expect(await ids(db, q("swing"))).toEqual([1]);
    // the original of a field that HAS a value in the language does not match
    expect(await ids(db, q("meeting"))).toEqual([]);
    expect(await ids(db, q("agenda"))).toEqual([]);
  });

  it("an excluded term must not occur", async () => {
    const q = (s: string) => ({ $and: [{ type: "event", lang: "fr" }, searchFilter(searchTerms(s), ["title", "description", "excerpt"], "any-field")] });
    expect(await ids(db, q("-swing"))).toEqual([2]);
    expect(await ids(db, q("-jazz -réunion"))).toEqual([]);
  });

  it("one-field: one single field holds every fragment", async () => {
    const q = (terms: string[]) => ({ $and: [{ type: "venue", lang: "fr" }, searchFilter(terms.map(text => ({ text, exclude: false })), ["name", "address", "city"], "one-field")] });
    expect(await ids(db, q(["temple", "avenue"]))).toEqual([4]);
    expect(await ids(db, q(["temple", "paris"]))).toEqual([]);
    // name has no French value: its original is searched
    expect(await ids(db, q(["hall", "temple"]))).toEqual([4]);
  });

  it("no terms: no condition", () => {
    expect(searchFilter([], ["title"], "any-field")).toEqual({});
  });

  it("names compare case-insensitively in the language, with fallback", async () => {
    expect(await ids(db, { $and: [{ type: "event", lang: "fr" }, nameFilter("title", "  RÉUNION ")] })).toEqual([2]);
    expect(await ids(db, { $and: [{ type: "event", lang: "fr" }, nameFilter("title", "meeting")] })).toEqual([]);
    expect(await ids(db, { $and: [{ type: "venue", lang: "fr" }, nameFilter("name", "temple HALL")] })).toEqual([4]);
    expect(await ids(db, { $and: [{ type: "event" }, nameFilter("title", "jazzkonzert")] })).toEqual([3]);
  });

  it("writes set and clear a language's values field by field", async () => {
    await db.updateAsync({ _id: "event:1:fr" }, writeUpdate({ description: "Une nuit de swing", title: "" }), {});
    const doc: Json = await db.findOneAsync({ _id: "event:1:fr" });
    expect(doc.fields).toEqual({ description: "Une nuit de swing" });
    expect(doc.lc).toEqual({ description: "une nuit de swing" });
    expect(holdsValues(doc)).toBe(true);
    // the title now falls back to the original
    expect(await ids(db, { $and: [{ type: "event", lang: "fr" }, nameFilter("title", "jazz concert")] })).toEqual([1]);
    await db.updateAsync({ _id: "event:1:fr" }, writeUpdate({ description: null }), {});
    expect(holdsValues(await db.findOneAsync({ _id: "event:1:fr" }) as Json)).toBe(false);
  });

  it("originals refresh the fallback copies only", async () => {
    await db.updateAsync({ type: "event", record_id: 1 }, writeUpdate({}, { description: "Blues all night" }), { multi: true });
    const doc: Json = await db.findOneAsync({ _id: "event:1:fr" });
    expect(doc.fields).toEqual({ title: "Concert de jazz" });
    expect(doc.fb.description).toBe("blues all night");
  });

  it("never sends MongoDB an empty $set or $unset", () => {
    expect(writeUpdate({ title: "" })).toEqual({ $unset: { "fields.title": true, "lc.title": true } });
    expect(writeUpdate({ title: "A" })).toEqual({ $set: { "fields.title": "A", "lc.title": "a" } });
    expect(writeUpdate({})).toEqual({});
  });

  it("excluded terms become $nor on MongoDB", () => {
    const q = toMongoQuery(searchFilter([{ text: "x", exclude: true }], ["title"], "any-field"));
    expect((q.$and as Query[])[0].$nor).toHaveLength(1);
    expect(JSON.stringify(q)).not.toContain("$not");
  });
});

describe("record-side language queries on the embedded store", () => {
  it("array membership and 'more than one language' read as the mixin expects", async () => {
    const db = await memoryCollection("events", [{ field: "translations", array: true }]);
    await db.insertAsync([
      { _id: 1, lang: "en", translations: ["en"] },
      { _id: 2, lang: "en", translations: ["en", "fr"] },
      { _id: 3, lang: "fr", translations: ["fr"] },
      { _id: 4 }
    ] as Json[]);
    const idsOf = async (q: Record<string, unknown>) => ((await db.findAsync(q)) as Json[]).map(d => d._id).sort();
    expect(await idsOf({ translations: "fr", lang: { $ne: "fr" } })).toEqual([2]);
    // $ne on an array reads "no element equals" (MongoDB's meaning), the same as the mixin's $not
    expect(await idsOf({ translations: { $ne: "fr" } })).toEqual([1, 4]);
    expect(await idsOf({ $not: { translations: "fr" } })).toEqual([1, 4]);
    expect(toMongoQuery({ $and: [{ $not: { translations: "fr" } }] })).toEqual({ $and: [{ $nor: [{ translations: "fr" }] }] });
    expect(await idsOf({ "translations.1": { $exists: true } })).toEqual([2]);
  });
});
