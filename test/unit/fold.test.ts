/**
 * The one folding of text (lib/text/fold.ts, C37: search semantics): what a search compares on every store.
 */
import { FOLDED_LETTERS, foldText, markRanges } from "../../lib/text/fold";

describe("foldText", () => {
  test.each([
    ["Café", "cafe"],
    ["ÉCOLE", "ecole"],
    ["e\u0301te\u0301", "ete"],
    ["Straße", "strasse"],
    ["STRASSE", "strasse"],
    ["ẞ", "ss"],
    ["ﬁnance ﬂow", "finance flow"],
    ["ＡＢＣ１２３", "abc123"],
    ["ΣΊΣΥΦΟΣ", "σισυφοσ"],
    ["σίσυφος", "σισυφοσ"],
    ["イベント", "イヘント"],
    ["ｲﾍﾞﾝﾄ", "イヘント"],
    ["İstanbul", "istanbul"],
    ["Øresund Æble Œuvre Þór Łódź Đà", "oresund aeble oeuvre thor lodz da"],
    // Hangul syllables decompose into their letters (as both stores' NFKD does); a term decomposes alike
    ["東京 한국어", `東京 ${"한국어".normalize("NFD")}`],
    ["🎉 party", "🎉 party"],
    ["", ""]
  ])("%j → %j", (input, folded) => {
    expect(foldText(input)).toBe(folded);
  });

  test("is idempotent", () => {
    for (const s of ["Straße ΣΊΣΥΦΟΣ", "ｲﾍﾞﾝﾄ ﬁ", "Øre Łódź", "𝕏𝔂𝔃 ½"]) expect(foldText(foldText(s))).toBe(foldText(s));
  });

  test("the folded letters are lower-case and fold to what needs no more folding", () => {
    for (const [from, to] of Object.entries(FOLDED_LETTERS)) {
      expect(from.toLowerCase()).toBe(from);
      expect(foldText(to)).toBe(to);
    }
  });
});

describe("markRanges", () => {
  test("ascending, apart, and exactly the code points of \\p{M}", () => {
    const ranges = markRanges();
    for (let i = 1; i < ranges.length; i++) expect(ranges[i][0]).toBeGreaterThan(ranges[i - 1][1] + 1);
    const inRanges = (cp: number) => ranges.some(([a, b]) => cp >= a && cp <= b);
    for (const cp of [0x300, 0x36f, 0x3099, 0x309a, 0x93f, 0x5b4, 0x1d167, 0xe0100]) expect(inRanges(cp)).toBe(true);
    for (const cp of [0x41, 0xe9, 0x3b1, 0x30a2, 0x1f389]) expect(inRanges(cp)).toBe(false);
  });
});

describe("ASCII texts fold by lower-casing alone (lib/text/fold.ts fast path)", () => {
  /** The folding without the fast path, step by step. */
  const fullFold = (text: string) => text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().replace(/[ßæœþøđðłħıĸŋŧƒς]/g, c => FOLDED_LETTERS[c]);

  test("every ASCII character, alone and in words, folds as the full folding folds it", () => {
    const all = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));
    for (const c of all) expect(foldText(c)).toBe(fullFold(c));
    const words = ["Benchmark Event 4821 with MUSIC", "Jazz & Blues: LIVE!", all.join(""), ""];
    for (const w of words) expect(foldText(w)).toBe(fullFold(w));
  });

  test("a text with one character past ASCII takes the full folding", () => {
    expect(foldText("Café NIGHT")).toBe("cafe night");
    expect(foldText("STRASSE Straße")).toBe("strasse strasse");
    expect(foldText("ＡBC")).toBe("abc");
  });
});
