import { defaultLanguageOf, LANGUAGES, needsValues, orderLanguages, originalLanguage, resolveLanguage, translationsOf } from "../../lib/i18n/languages";

describe("orderLanguages", () => {
  it("keeps the spec's order bg, zh-hans, en, fr, de, ja, pt-br, es", () => {
    expect(orderLanguages(["es", "en", "pt-br", "bg", "ja", "fr", "zh-hans", "de"])).toEqual(["bg", "zh-hans", "en", "fr", "de", "ja", "pt-br", "es"]);
    expect(LANGUAGES).toEqual(["bg", "zh-hans", "en", "fr", "de", "ja", "pt-br", "es"]);
  });
  it("drops duplicates and unknown values", () => {
    expect(orderLanguages(["fr", "xx", "fr", "EN", "en"])).toEqual(["en", "fr"]);
    expect(orderLanguages([])).toEqual([]);
  });
});

describe("the language of a request", () => {
  it("is the one asked for when it is one of the eight", () => {
    expect(resolveLanguage("pt-br", "en")).toBe("pt-br");
  });
  it("is the default otherwise, and en when the default setting is not a language", () => {
    expect(resolveLanguage(undefined, "fr")).toBe("fr");
    expect(resolveLanguage("xx", "de")).toBe("de");
    expect(resolveLanguage(undefined, "klingon")).toBe("en");
    expect(defaultLanguageOf(undefined)).toBe("en");
  });
});

describe("a record's languages", () => {
  it("the original is `lang`, the default for records written before languages were kept", () => {
    expect(originalLanguage({ lang: "ja" }, "en")).toBe("ja");
    expect(originalLanguage({}, "fr")).toBe("fr");
  });
  it("translations always include the original, in the spec's order", () => {
    expect(translationsOf({ lang: "fr" }, "en")).toEqual(["fr"]);
    expect(translationsOf({ lang: "fr", translations: ["es", "fr", "bg"] }, "en")).toEqual(["bg", "fr", "es"]);
    expect(translationsOf({}, "en")).toEqual(["en"]);
  });
  it("values are needed only for a language the record has besides its original", () => {
    expect(needsValues({ lang: "en", translations: ["en", "fr"] }, "fr", "en")).toBe(true);
    expect(needsValues({ lang: "en", translations: ["en", "fr"] }, "en", "en")).toBe(false);
    expect(needsValues({ lang: "en", translations: ["en", "fr"] }, "de", "en")).toBe(false);
    expect(needsValues({ lang: "fr", translations: ["fr"] }, "fr", "en")).toBe(false);
    expect(needsValues({}, "fr", "en")).toBe(false);
  });
});
