import { memoOfText } from "../../lib/memo";
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
