import {
  SLUG_MAX, TRASH_SUFFIX, removeAccents, sanitizeSlug, trashedSlug, untrashedSlug,
} from "../../lib/text/slug";

describe("removeAccents", () => {
  it.each([
    ["é", "e"], ["Ünïcödé", "Unicode"], ["ß", "ss"], ["æ", "ae"], ["Æ", "AE"], ["ø", "o"], ["Ø", "O"],
    ["œ", "oe"], ["ł", "l"], ["đ", "d"], ["þ", "th"], ["ñ", "n"], ["Ç", "C"], ["Å", "A"],
  ])("%s → %s", (input, expected) => {
    expect(removeAccents(input)).toBe(expected);
  });
});

describe("sanitizeSlug", () => {
  it.each([
    ["Jazz night", "jazz-night"],
    ["Hello World!", "hello-world"],
    ["  Café   Müller  ", "cafe-muller"],
    ["Straße", "strasse"],
    ["Smørrebrød & æbleskiver", "smorrebrod-aebleskiver"],
    ["<b>Bold</b> title", "bold-title"],
    ["a/b/c", "a-b-c"],
    ["tabs\tand\nnewlines", "tabs-and-newlines"],
    ["--a---b--", "a-b"],
    ["under_score kept", "under_score-kept"],
    ["UPPER lower 123", "upper-lower-123"],
    ["Version 2.0", "version-2-0"],
    ["Rock &amp; Roll", "rock-roll"],
    ["Rock & Roll; live", "rock-roll-live"],
    ["2020 – 2021", "2020-2021"],
    ["日本語 event", "event"],
    ["!!!", ""],
    ["", ""],
    ["already-a-slug", "already-a-slug"],
    ["event__trashed", "event__trashed"],
  ])("%j → %j", (input, expected) => {
    expect(sanitizeSlug(input)).toBe(expected);
  });

  it("is at most SLUG_MAX (200) characters, never ending in a hyphen", () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    const slug = sanitizeSlug(words);
    expect(slug.length).toBeLessThanOrEqual(SLUG_MAX);
    expect(slug.length).toBeGreaterThan(SLUG_MAX - 8);
    expect(slug).toMatch(/^word0-word1-word2-.*[^-]$/);
    expect(sanitizeSlug("x".repeat(5000))).toBe("x".repeat(SLUG_MAX));
    // cut where a hyphen falls: the hyphen goes
    expect(sanitizeSlug(`${"a".repeat(SLUG_MAX - 1)} b`)).toBe("a".repeat(SLUG_MAX - 1));
    expect(sanitizeSlug("y".repeat(SLUG_MAX))).toBe("y".repeat(SLUG_MAX));
  });

  it("is idempotent", () => {
    for (const s of ["Jazz night", "Café Müller", "a / b", "x.y.z", "long title ".repeat(40)]) {
      expect(sanitizeSlug(sanitizeSlug(s))).toBe(sanitizeSlug(s));
    }
  });
});


describe("trash suffix", () => {
  it("adds and removes __trashed", () => {
    expect(TRASH_SUFFIX).toBe("__trashed");
    expect(trashedSlug("jazz-night")).toBe("jazz-night__trashed");
    expect(trashedSlug("jazz-night__trashed")).toBe("jazz-night__trashed");
    expect(untrashedSlug("jazz-night__trashed")).toBe("jazz-night");
    expect(untrashedSlug("jazz-night")).toBe("jazz-night");
  });
});
