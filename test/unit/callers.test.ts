import { knownUserIds, parseApiKeys, type Caller } from "../../lib/access/callers";

const asObject = (keys: Map<string, Caller>) => Object.fromEntries(keys);

describe("parseApiKeys", () => {
  it.each<[string, string | undefined, Record<string, Caller>]>([
    ["unset", undefined, {}],
    ["empty", "", {}],
    ["only blanks and commas", " , ,", {}],
    ["key:role", "k1:editor", { k1: { id: 1, role: "editor" } }],
    ["key:role:userId", "k1:author:7", { k1: { id: 7, role: "author" } }],
    [
      "D15 example: a:administrator:2,b:editor,c:author → b gets 1, c gets 3",
      "a:administrator:2,b:editor,c:author",
      { a: { id: 2, role: "administrator" }, b: { id: 1, role: "editor" }, c: { id: 3, role: "author" } },
    ],
    [
      "explicit ids later in the list are also reserved",
      "x:subscriber,y:contributor:1,z:author",
      { x: { id: 2, role: "subscriber" }, y: { id: 1, role: "contributor" }, z: { id: 3, role: "author" } },
    ],
    [
      "ids handed out in list order, skipping every explicit id",
      "a:editor,b:editor:1,c:editor,d:editor:3,e:editor",
      {
        a: { id: 2, role: "editor" },
        b: { id: 1, role: "editor" },
        c: { id: 4, role: "editor" },
        d: { id: 3, role: "editor" },
        e: { id: 5, role: "editor" },
      },
    ],
    [
      "blanks around entries and parts are trimmed, trailing comma ignored",
      "  admin : administrator : 5 ,\tsub:subscriber , ",
      { admin: { id: 5, role: "administrator" }, sub: { id: 1, role: "subscriber" } },
    ],
    [
      "several keys may name the same user (role per key)",
      "a:editor:4,b:subscriber:4",
      { a: { id: 4, role: "editor" }, b: { id: 4, role: "subscriber" } },
    ],
  ])("%s", (_label, spec, expected) => {
    expect(asObject(parseApiKeys(spec))).toEqual(expected);
  });

  it.each<[string, string, RegExp]>([
    ["unknown role", "k:superuser", /unknown role "superuser"/],
    ["role case matters", "k:Administrator", /unknown role/],
    ["missing role", "k", /malformed entry "k"/],
    ["empty role", "k:", /unknown role ""/],
    ["too many parts", "k:editor:1:2", /malformed entry/],
    ["empty key", ":editor", /empty key/],
    ["user id 0", "k:editor:0", /malformed user id "0"/],
    ["negative user id", "k:editor:-1", /malformed user id/],
    ["non-numeric user id", "k:editor:abc", /malformed user id/],
    ["fractional user id", "k:editor:1.5", /malformed user id/],
    ["empty user id", "k:editor:", /malformed user id/],
    ["duplicate key", "k:editor,k:author", /duplicate key "k"/],
    ["bad entry among good ones", "a:editor,b:nobody,c:author", /API_KEYS: unknown role "nobody" in entry "b:nobody"/],
  ])("throws for %s", (_label, spec, message) => {
    expect(() => parseApiKeys(spec)).toThrow(message);
  });
});

describe("knownUserIds", () => {
  it("is the set of every caller id", () => {
    const ids = knownUserIds(parseApiKeys("a:administrator:2,b:editor,c:author,d:subscriber:2"));
    expect([...ids].sort()).toEqual([1, 2, 3]);
  });

  it("is empty without keys", () => {
    expect(knownUserIds(parseApiKeys(undefined)).size).toBe(0);
  });
});
