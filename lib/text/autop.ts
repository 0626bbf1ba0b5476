// Small paragraph formatter for descriptions and excerpts on output (docs/records.md#description-and-excerpt, D24: text rendering).

// A block that starts with one of these tags is kept unchanged.
const BLOCK_START_RE = /^<(?:p|div|h[1-6]|ul|ol|li|table|blockquote|pre|figure|hr)(?=[\s/>]|$)/i;

// Wraps text blocks in <p>…</p> (single newlines → "<br />\n"); HTML blocks pass through; blocks joined by "\n".
export function autop(text: string | null | undefined): string {
  const normalised = String(text ?? "").replace(/\r\n?/g, "\n").trim();
  if (normalised === "") return "";
  return normalised
    .split(/\n[ \t]*\n\s*/)
    .map((block) => block.trim())
    .filter((block) => block !== "")
    .map((block) => (BLOCK_START_RE.test(block) ? block : `<p>${block.replace(/\n/g, "<br />\n")}</p>`))
    .join("\n");
}
