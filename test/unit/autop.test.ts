import { autop } from "../../lib/text/autop";

describe("autop", () => {
  it("wraps plain text in a paragraph", () => {
    expect(autop("An event content")).toBe("<p>An event content</p>");
  });

  it("returns empty string for empty input", () => {
    expect(autop("")).toBe("");
    expect(autop("   \n\n  ")).toBe("");
    expect(autop(null)).toBe("");
    expect(autop(undefined)).toBe("");
  });

  it("trims the text", () => {
    expect(autop("  hello  \n")).toBe("<p>hello</p>");
  });

  it("splits blocks on two or more newlines and joins with \\n", () => {
    expect(autop("First\n\nSecond\n\n\n\nThird")).toBe("<p>First</p>\n<p>Second</p>\n<p>Third</p>");
  });

  it("turns single newlines into <br />", () => {
    expect(autop("Line one\nLine two")).toBe("<p>Line one<br />\nLine two</p>");
  });

  it("normalises CRLF and CR", () => {
    expect(autop("a\r\nb\r\n\r\nc\rd")).toBe("<p>a<br />\nb</p>\n<p>c<br />\nd</p>");
  });

  it("keeps blocks starting with a block-level tag", () => {
    const tags = ["p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "table", "blockquote", "pre", "figure"];
    for (const tag of tags) {
      const block = `<${tag} class="x">Body\nmore</${tag}>`;
      expect(autop(block)).toBe(block);
    }
    expect(autop("<hr />")).toBe("<hr />");
    expect(autop("<hr>")).toBe("<hr>");
    expect(autop("<P>Upper</P>")).toBe("<P>Upper</P>");
  });

  it("wraps inline-tag blocks and lookalike tags", () => {
    expect(autop("<strong>Bold</strong> text")).toBe("<p><strong>Bold</strong> text</p>");
    expect(autop("<param>x")).toBe("<p><param>x</p>");
    expect(autop("<span>a</span>")).toBe("<p><span>a</span></p>");
  });

  it("mixes block and text paragraphs", () => {
    expect(autop("Intro\n\n<ul>\n<li>a</li>\n</ul>\n\nOutro")).toBe("<p>Intro</p>\n<ul>\n<li>a</li>\n</ul>\n<p>Outro</p>");
  });
});
