import { lazy, memoByKey, memoOfObject, memoOfText } from "../../lib/memo";
import { toDb } from "../../lib/time/dates";
import { globalId } from "../../lib/posts/permalink";
import { hostOfUrl } from "../../lib/sites/host";

describe("memoOfText (lib/memo.ts)", () => {
  test("asks the function once per text, answers undefined as kept too, and forgets everything past `max` texts", () => {
    const asked: string[] = [];
    const f = memoOfText(t => {
      asked.push(t);
      return t === "none" ? undefined : t.length;
    }, 3);
    expect([f("ab"), f("ab"), f("none"), f("none"), f("abc")]).toEqual([2, 2, undefined, undefined, 3]);
    expect(asked).toEqual(["ab", "none", "abc"]);
    // a fourth text: the memory starts over, then keeps the new one
    expect([f("abcd"), f("abcd"), f("ab")]).toEqual([4, 4, 2]);
    expect(asked).toEqual(["ab", "none", "abc", "abcd", "ab"]);
  });
});

describe("the texts kept per base URL answer as before", () => {
  test("globalId: host and path of the base URL, no scheme, no port; the text itself when it is no URL", () => {
    expect(globalId("https://Cal.Example.org:8443/sub/", 7)).toBe("cal.example.org/sub?id=7");
    expect(globalId("https://Cal.Example.org:8443/sub/", 8)).toBe("cal.example.org/sub?id=8");
    expect(globalId("http://localhost:3000", 1)).toBe("localhost?id=1");
    expect(globalId("not a url", 2)).toBe("not a url?id=2");
  });
  test("hostOfUrl: asked twice, the same answer", () => {
    expect([hostOfUrl("https://A.example:8080/x"), hostOfUrl("https://A.example:8080/x")]).toEqual(["a.example:8080", "a.example:8080"]);
    expect([hostOfUrl("nope"), hostOfUrl("nope")]).toEqual([undefined, undefined]);
  });
});

describe("memoByKey, memoOfObject and lazy (lib/memo.ts)", () => {
  test("memoByKey asks once per key, never keeps a throw, and forgets everything past `max` keys", () => {
    const asked: number[] = [];
    const f = memoByKey((a: number, b: number) => `${a}+${b}`, (a: number, b: number) => {
      asked.push(a);
      if (a < 0) throw new Error("negative");
      return a + b;
    }, 2);
    expect([f(1, 2), f(1, 2), f(2, 2)]).toEqual([3, 3, 4]);
    expect(() => f(-1, 0)).toThrow("negative");
    expect(() => f(-1, 0)).toThrow("negative");
    expect(asked).toEqual([1, 2, -1, -1]);
    expect([f(5, 5), f(1, 2)]).toEqual([10, 3]);
    expect(asked).toEqual([1, 2, -1, -1, 5, 1]);
  });

  test("memoOfObject answers once per object; lazy builds once, on first use", () => {
    let built = 0;
    const sizeOf = memoOfObject((s: ReadonlySet<string>) => { built++; return s.size; });
    const one = new Set(["a"]);
    expect([sizeOf(one), sizeOf(one), sizeOf(new Set(["a", "b"]))]).toEqual([1, 1, 2]);
    expect(built).toBe(2);
    let made = 0;
    const table = lazy(() => { made++; return new Map([["k", 1]]); });
    expect(made).toBe(0);
    expect([table().get("k"), table().get("k")]).toEqual([1, 1]);
    expect(made).toBe(1);
  });

  test("toDb keeps the last second's string: the next second gets its own", () => {
    expect(toDb(new Date("2031-05-01T10:00:00.100Z"))).toBe("2031-05-01 10:00:00");
    expect(toDb(new Date("2031-05-01T10:00:00.900Z"))).toBe("2031-05-01 10:00:00");
    expect(toDb(new Date("2031-05-01T10:00:01.000Z"))).toBe("2031-05-01 10:00:01");
    expect(toDb(new Date("2031-05-01T10:00:00.500Z"))).toBe("2031-05-01 10:00:00");
  });
});
