import {
  IMAGE_EXTENSIONS, collapseWhitespace, deriveStateProvince, escapeUrlForOutput, imageUrlExtension, isPhpEmpty,
  isTruthyFlag, isValidUrl, sanitizeTermName, sanitizeTextField, sanitizeUrl, stripEmptyKeys, stripTags,
} from "../../lib/text/sanitize";

describe("stripTags", () => {
  it.each([
    ["<b>bold</b> text", "bold text"],
    ['<a href="x">link</a>', "link"],
    ["line<br/>break", "linebreak"],
    ["<script>alert(1)</script>safe", "safe"],
    ["<style>p{}</style>safe", "safe"],
    ["a <!-- comment --> b", "a  b"],
    ["1 < 2 and 3 > 2", "1 < 2 and 3 > 2"],
    ["unclosed <b tag", "unclosed "],
    ["no tags", "no tags"],
  ])("%j → %j", (input, expected) => {
    expect(stripTags(input)).toBe(expected);
  });

  it("handles null and undefined", () => {
    expect(stripTags(null)).toBe("");
    expect(stripTags(undefined)).toBe("");
  });
});

describe("collapseWhitespace / sanitizeTextField", () => {
  it("collapses runs of whitespace", () => {
    expect(collapseWhitespace(" a \t\n b  c ")).toBe(" a b c ");
  });

  it.each([
    ["  Via   Roma\n1  ", "Via Roma 1"],
    ["<b>Rome</b>", "Rome"],
    ["\t<p>Main\tStreet</p>\r\n", "Main Street"],
    ["", ""],
    ["   ", ""],
    ["100, Avenue du Temple", "100, Avenue du Temple"],
  ])("%j → %j", (input, expected) => {
    expect(sanitizeTextField(input)).toBe(expected);
  });
});

describe("sanitizeTermName (D27: term names are sanitised)", () => {
  it.each([
    ["Music", "Music"],
    ["  Club   nights  ", "Club nights"],
    ["Rock & Roll", "Rock &amp; Roll"],
    ["Rock &amp; Roll", "Rock &amp; Roll"],
    ["&copy; &#169; &#xA9;", "&copy; &#169; &#xA9;"],
    ["a < b > c", "a &lt; b &gt; c"],
    ["<b>Bold</b> name", "Bold name"],
    ["<script>x</script>", ""],
    ["\n\t", ""],
  ])("%j → %j", (input, expected) => {
    expect(sanitizeTermName(input)).toBe(expected);
  });
});

describe("isValidUrl", () => {
  it.each([
    "http://example.org",
    "https://example.org/path?x=1&y=2#frag",
    "http://localhost:3000/",
    "http://user:pass@example.org/",
    "http://192.168.0.1/",
    "http://[::1]/",
    "ftp://files.example.org/a.txt",
    "HTTP://EXAMPLE.ORG",
    "mailto:someone@example.org",
  ])("accepts %s", (url) => {
    expect(isValidUrl(url)).toBe(true);
  });

  it.each([
    "",
    "example.org",
    "www.example.org/path",
    "//example.org",
    "http://",
    "http:/example.org",
    "http://exa mple.org",
    "http://example.org/a b",
    "http://-bad.example.org",
    "http://bad_host.org",
    "http://example.org:99999/",
    "http://ex\u00e4mple.org",
    "foo bar",
    "javascript",
  ])("rejects %j", (url) => {
    expect(isValidUrl(url)).toBe(false);
  });
});

describe("sanitizeUrl", () => {
  it("removes characters not allowed in URLs", () => {
    expect(sanitizeUrl(" http://example.org/a b\t\n")).toBe("http://example.org/ab");
    expect(sanitizeUrl('http://x.org/<a>"{b}|\\^`')).toBe("http://x.org/ab");
    expect(sanitizeUrl("http://x.org/\u0000\u001f\u007f")).toBe("http://x.org/");
  });

  it("keeps allowed characters", () => {
    const url = "https://x.org/p-a_t.h~?q=1&r=%20#f!$'()*+,;=:@[]";
    expect(sanitizeUrl(url)).toBe(url);
  });
});

describe("escapeUrlForOutput", () => {
  it("escapes ampersands", () => {
    expect(escapeUrlForOutput("http://x.org/?a=1&b=2")).toBe("http://x.org/?a=1&amp;b=2");
    expect(escapeUrlForOutput("http://x.org/")).toBe("http://x.org/");
    expect(escapeUrlForOutput("")).toBe("");
  });

  it("does not double-encode entities", () => {
    expect(escapeUrlForOutput("http://x.org/?a=1&amp;b=2")).toBe("http://x.org/?a=1&amp;b=2");
  });
});

describe("imageUrlExtension (D7: images without downloads)", () => {
  it("lists the accepted extensions", () => {
    expect(IMAGE_EXTENSIONS).toEqual(["jpg", "jpeg", "jpe", "gif", "png", "bmp", "tif", "tiff", "webp", "avif", "ico", "heic"]);
  });

  it.each(IMAGE_EXTENSIONS.map((e) => [e]))("accepts .%s", (ext) => {
    expect(imageUrlExtension(`https://cdn.example.org/img/file.${ext}`)).toBe(ext);
    expect(imageUrlExtension(`http://cdn.example.org/FILE.${ext.toUpperCase()}`)).toBe(ext);
  });

  it.each<[string, string | null]>([
    ["https://cdn.example.org/jazz.jpg", "jpg"],
    ["https://cdn.example.org/a.jpg?x=1", "jpg"],
    ["https://cdn.example.org/a.PNG#top", "png"],
    ["https://cdn.example.org/image?f=a.jpg", null],
    ["https://cdn.example.org/image#a.jpg", null],
    ["https://cdn.example.org/a.jpg/", null],
    ["https://cdn.example.org/a.pdf", null],
    ["https://cdn.example.org/ajpg", null],
    ["https://cdn.example.org/", null],
    ["https://img.jpg", null],
    ["ftp://cdn.example.org/a.jpg", null],
    ["/relative/a.jpg", null],
    ["cdn.example.org/a.jpg", null],
    ["", null],
    ["foo bar", null],
    ["https://cdn.example.org/a b.jpg", null],
  ])("%j → %j", (url, expected) => {
    expect(imageUrlExtension(url)).toBe(expected);
  });
});

describe("deriveStateProvince", () => {
  it.each<[string | null | undefined, string | null | undefined, string | null | undefined, string]>([
    ["NY", "", "", "NY"],
    ["NY", "", "US", "NY"],
    ["NY", "", "United States", "NY"],
    ["NY", "Prov", "US", "NY"],
    ["NY", "RM", "Italy", "RM"],
    ["", "RM", "Italy", "RM"],
    ["", "RM", "US", "RM"],
    ["", "RM", "", "RM"],
    ["NY", "", "Italy", ""],
    ["", "", "", ""],
    [undefined, null, undefined, ""],
    ["CA", undefined, null, "CA"],
  ])("state=%j province=%j country=%j → %j", (state, province, country, expected) => {
    expect(deriveStateProvince(state, province, country)).toBe(expected);
  });
});

describe("isTruthyFlag", () => {
  it.each([true, 1, "1", "true", "TRUE", "yes", "Yes", "y", "Y", "on", "ON", "enable", "Enabled", -1, 2])(
    "%j is truthy",
    (v) => expect(isTruthyFlag(v)).toBe(true),
  );

  it.each([false, 0, "0", "false", "no", "off", "", " yes", "2", "truthy", null, undefined, NaN, [], {}, ["1"]])(
    "%j is falsy",
    (v) => expect(isTruthyFlag(v)).toBe(false),
  );
});

describe("stripEmptyKeys", () => {
  it("drops PHP-falsy values and keeps key order", () => {
    const input = {
      id: 7, venue: "Blue Room", description: "", excerpt: "", image: false, address: "Via Roma 1",
      city: null, zip: "0", phone: undefined, count: 0, list: [], obj: {}, flag: true, neg: -1, zero: "0.0",
    };
    const out = stripEmptyKeys(input);
    expect(out).toEqual({ id: 7, venue: "Blue Room", address: "Via Roma 1", obj: {}, flag: true, neg: -1, zero: "0.0" });
    expect(Object.keys(out)).toEqual(["id", "venue", "address", "obj", "flag", "neg", "zero"]);
  });

  it("does not mutate its input", () => {
    const input = { a: "", b: "x" };
    stripEmptyKeys(input);
    expect(input).toEqual({ a: "", b: "x" });
  });

  it("exposes the PHP empty test", () => {
    expect([undefined, null, false, "", "0", 0, -0, []].every(isPhpEmpty)).toBe(true);
    expect(["00", " ", "a", 1, true, {}, [0]].some(isPhpEmpty)).toBe(false);
  });
});
