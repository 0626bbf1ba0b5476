/**
 * The folded search text (lib/events/search-text.ts): `/lit/i` (as lib/search.ts builds it) matches a value
 * exactly when the folded value contains the folded literal — on random text full of letters whose case
 * mappings are irregular; and the literals a search condition needs, from the conditions the services build.
 */
import { caseFold, literalOf, requiredText, searchTextOf } from "../../lib/events/search-text";
import { containsRegex, searchTerms } from "../../lib/search";
import { eventSearchCondition } from "../../lib/events/event-query";

const TRICKY = ["a", "A", "s", "S", "ſ", "ß", "ẞ", "k", "K", "\u212a", "σ", "ς", "Σ", "ı", "I", "İ", "i", "µ", "μ", "Μ", "é", "É", "ǅ", "ǆ", "Ǆ", "ﬁ", "ŉ", "ΐ", "\ud83c", "\udf89", "ω", "Ω", "\u2126", "x", " ", "-", ".", "*"];

function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => (s = (s * 1664525 + 1013904223) >>> 0) % n;
}

describe("caseFold", () => {
  it("a case-insensitive literal pattern matches exactly when the folded text contains the folded literal", () => {
    const r = rng(3);
    const text = (len: number) => Array.from({ length: len }, () => (r(4) === 0 ? String.fromCharCode(r(0x3000)) : TRICKY[r(TRICKY.length)])).join("");
    let matched = 0;
    for (let i = 0; i < 20000; i++) {
      const value = text(1 + r(12));
      const literal = r(2) === 0 ? value.slice(r(value.length), r(value.length) + 1 + r(3)) || "a" : text(1 + r(3));
      const byRegex = containsRegex(literal).test(value);
      if (byRegex) matched++;
      expect([value, literal, caseFold(value).includes(caseFold(literal))]).toEqual([value, literal, byRegex]);
    }
    expect(matched).toBeGreaterThan(5000);
  });

  it("keeps the length of the text (one unit for one unit)", () => {
    for (const s of ["straße", "ǅemal", "ﬁne", "İstanbul", "naïve ΣΊΣΥΦΟΣ"]) expect(caseFold(s).length).toBe(s.length);
  });
});

describe("literalOf", () => {
  it("reads back the text of a literal pattern, and nothing else", () => {
    for (const t of ["jazz", "a.b*c", "(x)|[y]", "1/2 \\ 3", "$5^", "{a}", "Café ☕"]) expect(literalOf(containsRegex(t))).toBe(t);
    for (const re of [/a.b/i, /^jazz/i, /jazz/g, /a\d/i, /line\nbreak/i, /(?:)/i]) expect(literalOf(re)).toBeUndefined();
  });
});

describe("requiredText", () => {
  it("every term a search needs, none it excludes", () => {
    const q = eventSearchCondition(searchTerms("jazz \"night club\" -rock"), "all");
    expect(requiredText(q).sort()).toEqual(["JAZZ", "NIGHT CLUB"]);
    // with restricted access, the protected fields sit inside an $and: the term is still needed somewhere
    expect(requiredText(eventSearchCondition(searchTerms("jazz"), { password: "x" }))).toEqual(["JAZZ"]);
  });

  it("nothing when a branch can match without the text (translated records, other fields)", () => {
    const original = eventSearchCondition(searchTerms("jazz"), "all");
    const i18n = { $or: [{ $and: [{ lang: "fr" }, original] }, { $and: [{ translations: "fr" }, { _id: { $in: [1, 2] } }] }, { $and: [{ $not: { translations: "fr" } }, original] }] };
    expect(requiredText(i18n)).toEqual([]);
    expect(requiredText({ $or: [{ title: containsRegex("jazz") }, { venue: containsRegex("jazz") }] })).toEqual([]);
    expect(requiredText({ $or: [{ title: containsRegex("jazz") }, { excerpt: { $regex: containsRegex("JAZZ") } }] })).toEqual(["JAZZ"]);
    expect(requiredText({ title: /^jazz/i })).toEqual([]);
  });
});

describe("searchTextOf", () => {
  it("folds the title, excerpt and description (strings and string arrays) into one copy", () => {
    expect(searchTextOf({ title: "Jazz", excerpt: ["Late", 3], description: null, venue: "Club" })).toBe("JAZZ\u0000LATE");
  });
});
