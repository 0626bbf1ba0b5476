import {
  baseSlug, filterToken, findCreateConflict, givenSlug, loopSafeParent, nameKey, normaliseTermName, slugClashOutcome,
  TERM_NAME_MAX, termNameTooLong, termTokens, uniqueIds, uniqueTermSlug
} from "../../lib/terms/term-rules";

describe("term name length (docs/records.md#creating-terms)", () => {
  it("counts characters, not UTF-16 units: TERM_NAME_MAX of them fit, one more does not", () => {
    expect(TERM_NAME_MAX).toBe(200);
    expect(termNameTooLong("a".repeat(200))).toBe(false);
    expect(termNameTooLong("a".repeat(201))).toBe(true);
    expect(termNameTooLong("🎉".repeat(200))).toBe(false);
    expect(termNameTooLong("🎉".repeat(201))).toBe(true);
  });
});

describe("names and slugs", () => {
  it.each([
    ["  Rock   &  Roll ", "Rock &amp; Roll"],
    ["<b>Bold</b> <i>move</i>", "Bold move"],
    ["a < b > c", "a &lt; b &gt; c"],
    ["Tom &amp; Jerry", "Tom &amp; Jerry"],
    ["<p></p>", ""],
    ["   ", ""]
  ])("normaliseTermName(%j) = %j (D27: term names are sanitised)", (input, expected) => {
    expect(normaliseTermName(input)).toBe(expected);
  });

  it("compares names case-insensitively", () => {
    expect(nameKey("MuSiC")).toBe(nameKey("music"));
  });

  it("normalises a given slug and treats an empty result as not given", () => {
    expect(givenSlug("Jazz Night")).toBe("jazz-night");
    expect(givenSlug("!!!")).toBeUndefined();
    expect(givenSlug(undefined)).toBeUndefined();
    expect(baseSlug(undefined, "Rock &amp; Roll")).toBe("rock-roll");
    expect(baseSlug("given", "Name")).toBe("given");
    expect(baseSlug(undefined, "!!!")).toBe("");
  });
});

describe("findCreateConflict (docs/records.md#term-duplicates-and-slugs)", () => {
  const sibling = { _id: 12, slug: "rock", parent: 5 };
  const base = { hierarchical: true, parent: 5, slug: "rock", slugProvided: false, nameMatch: sibling, slugHolder: undefined };

  it("is none without a same-named term", () => {
    expect(findCreateConflict({ ...base, nameMatch: undefined })).toBeUndefined();
  });
  it("reports the same-named sibling when no slug is given", () => {
    expect(findCreateConflict(base)).toBe(sibling);
  });
  it("reports it when the given slug is its slug", () => {
    expect(findCreateConflict({ ...base, slugProvided: true, slug: "rock" })).toBe(sibling);
  });
  it("lets a same-named term with a new free slug through", () => {
    expect(findCreateConflict({ ...base, slugProvided: true, slug: "rock-2" })).toBeUndefined();
  });
  it("reports the sibling holding the given slug (categories)", () => {
    const holder = { _id: 13, slug: "hard", parent: 5 };
    expect(findCreateConflict({ ...base, slugProvided: true, slug: "hard", slugHolder: holder })).toBe(holder);
  });
  it("makes the slug unique when its holder is not a sibling (categories)", () => {
    const holder = { _id: 13, slug: "hard", parent: 9 };
    expect(findCreateConflict({ ...base, slugProvided: true, slug: "hard", slugHolder: holder })).toBeUndefined();
  });
  it("reports the same-named tag when the given slug is used anywhere", () => {
    const tag = { _id: 3, slug: "outdoor", parent: 0 };
    const holder = { _id: 4, slug: "other", parent: 0 };
    expect(findCreateConflict({ hierarchical: false, parent: 0, slug: "other", slugProvided: true, nameMatch: tag, slugHolder: holder })).toBe(tag);
    expect(findCreateConflict({ hierarchical: false, parent: 0, slug: "free", slugProvided: true, nameMatch: tag, slugHolder: undefined })).toBeUndefined();
  });
});

describe("uniqueTermSlug (wp_unique_term_slug)", () => {
  const takenOf = (taken: string[]) => async (s: string) => taken.includes(s);

  it("keeps a free slug", async () => {
    expect(await uniqueTermSlug("jazz", ["music"], takenOf([]))).toBe("jazz");
  });
  it("tries {slug}-{parent-slug} first for a child", async () => {
    expect(await uniqueTermSlug("jazz", ["music"], takenOf(["jazz"]))).toBe("jazz-music");
  });
  it("walks up the ancestors", async () => {
    expect(await uniqueTermSlug("jazz", ["live", "music"], takenOf(["jazz", "jazz-live"]))).toBe("jazz-live-music");
  });
  it("numbers the last candidate when every ancestor suffix is taken", async () => {
    expect(await uniqueTermSlug("jazz", ["music"], takenOf(["jazz", "jazz-music", "jazz-music-2"]))).toBe("jazz-music-3");
  });
  it("numbers top-level terms and tags directly", async () => {
    expect(await uniqueTermSlug("jazz", [], takenOf(["jazz", "jazz-2"]))).toBe("jazz-3");
  });
});

describe("loop protection and update rules", () => {
  it("turns a parent equal to the term or one of its descendants into 0 (C12: cyclic term parents)", () => {
    expect(loopSafeParent(5, 5, [])).toBe(0);
    // 7 is a child of 5: its ancestors are [5]
    expect(loopSafeParent(5, 7, [5])).toBe(0);
    expect(loopSafeParent(5, 9, [8, 1])).toBe(9);
  });
  it("refuses a taken slug unless the slug was empty or the parent changes", () => {
    expect(slugClashOutcome({ slugWasEmpty: false, parentChanged: false })).toBe("duplicate_term_slug");
    expect(slugClashOutcome({ slugWasEmpty: false, parentChanged: true })).toBe("make-unique");
    expect(slugClashOutcome({ slugWasEmpty: true, parentChanged: false })).toBe("make-unique");
  });
});

describe("termTokens (docs/records.md#categories-and-tags-on-events input)", () => {
  it("reads comma strings with blanks around commas", () => {
    expect(termTokens(" 12 , rock ,, Jazz Night ")).toEqual([{ id: 12 }, { text: "rock" }, { text: "Jazz Night" }]);
  });
  it("reads arrays of ids and names", () => {
    expect(termTokens([3, "4", "Blues", " ", null, { id: 1 }])).toEqual([{ id: 3 }, { id: 4 }, { text: "Blues" }]);
  });
  it("drops numeric values that cannot be ids", () => {
    expect(termTokens(["1.5", "-3", 0, "1e2"])).toEqual([{ id: 100 }]);
  });
  it("gives nothing for empty input", () => {
    expect(termTokens("")).toEqual([]);
    expect(termTokens([])).toEqual([]);
    expect(termTokens(null)).toEqual([]);
    expect(termTokens(undefined)).toEqual([]);
  });
  it("reads a lone number", () => {
    expect(termTokens(7)).toEqual([{ id: 7 }]);
  });
  it("keeps first-seen order when collapsing", () => {
    expect(uniqueIds([3, 1, 3, 2, 1])).toEqual([3, 1, 2]);
  });
  it("splits filter items into ids and slugs", () => {
    expect(filterToken("12")).toEqual({ id: 12 });
    expect(filterToken("rock")).toEqual({ text: "rock" });
    expect(filterToken("12a")).toEqual({ text: "12a" });
  });
});
