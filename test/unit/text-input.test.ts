/**
 * Text every store keeps (lib/text/text-input.ts): no NUL character, no unpaired surrogate, at any depth.
 */
import { carriesUnstorableText, isStorableText, unstorableParam } from "../../lib/text/text-input";

describe("isStorableText", () => {
  test.each([
    ["plain", "Jazz night", true],
    ["empty", "", true],
    ["a pair of surrogates (an emoji)", "Party 🎉", true],
    ["astral CJK", "𨺱 concert", true],
    ["control characters other than NUL", "a\u0001b\tc\u001f\u007f", true],
    ["a NUL character", "abc\u0000", false],
    ["only NUL", "\u0000", false],
    ["a lone high surrogate", "a\ud800b", false],
    ["a lone high surrogate at the end", "abc\ud83c", false],
    ["a lone low surrogate", "\udfffabc", false],
    ["two high surrogates", "\ud83c\ud83c\udf89", false],
    ["a low before a high", "\udf89\ud83c", false]
  ])("%s", (_label, text, storable) => {
    expect(isStorableText(text)).toBe(storable);
  });
});

describe("carriesUnstorableText", () => {
  test("looks through arrays and objects, keys included; other values are storable", () => {
    expect(carriesUnstorableText(["a", ["b", { c: "d" }], 1, null, true])).toBe(false);
    expect(carriesUnstorableText(["a", ["b", { c: "d\u0000" }]])).toBe(true);
    expect(carriesUnstorableText({ venue: { venue: "Hall", address: "\ud800" } })).toBe(true);
    expect(carriesUnstorableText({ "bad\u0000key": "value" })).toBe(true);
    expect(carriesUnstorableText(42)).toBe(false);
    expect(carriesUnstorableText(undefined)).toBe(false);
  });

  test("input nested deeper than it follows is refused rather than passed on unread", () => {
    let deep: unknown = "fine";
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(carriesUnstorableText(deep)).toBe(true);
    let shallow: unknown = "fine";
    for (let i = 0; i < 10; i++) shallow = { a: shallow };
    expect(carriesUnstorableText(shallow)).toBe(false);
  });
});

describe("unstorableParam", () => {
  test("names the first declared parameter that carries such text", () => {
    const params = { title: "ok", description: "bad\u0000", cost: "\ud800" };
    expect(unstorableParam(params, ["title", "description", "cost"])).toBe("description");
    expect(unstorableParam(params, ["title", "cost"])).toBe("cost");
  });

  test("undeclared parameters are not looked at; without names, every key is", () => {
    expect(unstorableParam({ title: "ok", extra: "\u0000" }, ["title"])).toBeUndefined();
    expect(unstorableParam({ title: "ok", extra: "\u0000" })).toBe("extra");
    expect(unstorableParam({ title: "ok" }, ["title", "absent"])).toBeUndefined();
  });

  test("params that are not an object name nothing", () => {
    expect(unstorableParam(undefined)).toBeUndefined();
    expect(unstorableParam(null)).toBeUndefined();
    expect(unstorableParam(["\u0000"])).toBeUndefined();
    expect(unstorableParam("\u0000")).toBeUndefined();
  });
});
