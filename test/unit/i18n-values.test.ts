import { hasValue, mergeValues, pickFields, splitFields, withLanguageKeys } from "../../lib/i18n/values";

const FIELDS = ["title", "description", "excerpt"];

describe("mergeValues", () => {
  const doc = { _id: 1, title: "Concert", description: "Live music", excerpt: "", slug: "concert" };
  it("serves each translated field that has a value, the original elsewhere", () => {
    expect(mergeValues(doc, { title: "Konzert" }, FIELDS)).toEqual({ ...doc, title: "Konzert" });
  });
  it("an empty value falls back to the original", () => {
    expect(mergeValues(doc, { title: "", description: "Livemusik" }, FIELDS)).toEqual({ ...doc, description: "Livemusik" });
  });
  it("ignores fields that are not translatable and leaves the stored document alone", () => {
    const out = mergeValues(doc, { slug: "konzert", title: "Konzert" }, FIELDS);
    expect(out.slug).toBe("concert");
    expect(doc.title).toBe("Concert");
  });
  it("without values answers the document itself", () => {
    expect(mergeValues(doc, undefined, FIELDS)).toBe(doc);
  });
});

describe("splitFields", () => {
  it("sends the translatable fields to the i18n service, keeps the rest inline", () => {
    expect(splitFields({ title: "Titre", description: "", featured: true, modified: "x" }, FIELDS)).toEqual({
      inline: { featured: true, modified: "x" },
      translated: { title: "Titre", description: "" }
    });
  });
  it("drops inline fields derived from a translated one", () => {
    expect(splitFields({ name: "Salle", name_key: "salle", phone: "1" }, ["name"], { name_key: "name" })).toEqual({
      inline: { phone: "1" },
      translated: { name: "Salle" }
    });
    expect(splitFields({ name_key: "x" }, ["name"], { name_key: "name" }).inline).toEqual({ name_key: "x" });
  });
  it("leaves out null and undefined translatable values", () => {
    expect(splitFields({ title: null, excerpt: undefined }, FIELDS)).toEqual({ inline: {}, translated: {} });
  });
});

describe("pickFields / hasValue", () => {
  it("picks present translatable fields as strings", () => {
    expect(pickFields({ title: "A", description: null, excerpt: 3, other: "x" }, FIELDS)).toEqual({ title: "A", excerpt: "3" });
  });
  it("only non-empty strings are values", () => {
    expect([hasValue("a"), hasValue(""), hasValue(null), hasValue(1)]).toEqual([true, false, false, false]);
  });
});

describe("withLanguageKeys (C9: the i18n fields)", () => {
  it("appends i18n_language and translations as the last two keys, spec order", () => {
    const record = withLanguageKeys({ id: 1, title: "x", custom_fields: [] }, "fr", ["fr", "en"]);
    expect(Object.keys(record)).toEqual(["id", "title", "custom_fields", "i18n_language", "translations"]);
    expect(record.translations).toEqual(["en", "fr"]);
    expect(record.i18n_language).toBe("fr");
  });
  it("moves keys already present to the end without touching the others", () => {
    const record = withLanguageKeys({ i18n_language: "en", translations: ["en"], id: 1, name: "n" }, "de", ["de"]);
    expect(Object.keys(record)).toEqual(["id", "name", "i18n_language", "translations"]);
    expect(record).toEqual({ id: 1, name: "n", i18n_language: "de", translations: ["de"] });
  });
});
