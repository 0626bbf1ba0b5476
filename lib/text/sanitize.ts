// Text, URL and flag sanitising helpers (WordPress-like), shared by events, venues, organizers and terms.

type Text = string | null | undefined;

// Removes HTML tags, comments and script/style contents (WordPress wp_strip_all_tags); a lone "<" is kept.
export function stripTags(s: Text): string {
  return String(s ?? "")
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<!--[\s\S]*?(?:-->|$)/g, "")
    .replace(/<[a-zA-Z/!?][^>]*(?:>|$)/g, "");
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: " ", "#039": "'", "#39": "'" };

/**
 * HTML as plain text, the one rule for it (iCalendar text, JSON-LD descriptions): `<br>` and the ends of
 * blocks as line breaks, tags stripped, common character references decoded, spaces before a line break and
 * runs of blank lines dropped, trimmed.
 */
export function plainText(html: unknown): string {
  if (typeof html !== "string") return "";
  return html
    .replace(/<\s*br\s*\/?>/gi, "\n")
    .replace(/<\/\s*(p|div|li|h[1-6])\s*>/gi, "\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+\d*);/gi, (whole, name: string) => {
      const key = name.toLowerCase();
      if (key in ENTITIES) return ENTITIES[key];
      if (key.startsWith("#x")) return String.fromCodePoint(parseInt(key.slice(2), 16));
      if (key.startsWith("#")) return String.fromCodePoint(parseInt(key.slice(1), 10));
      return whole;
    })
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

// Replaces every run of (ASCII) whitespace by one space.
export function collapseWhitespace(s: Text): string {
  return String(s ?? "").replace(/[ \t\n\r\f\v]+/g, " ");
}

// WordPress sanitize_text_field as used for venue/organizer text: tags stripped, whitespace collapsed, trimmed.
export function sanitizeTextField(s: Text): string {
  return collapseWhitespace(stripTags(s)).trim();
}

const ENTITY = /&(?:[a-zA-Z][a-zA-Z0-9]*|#\d+|#[xX][0-9a-fA-F]+);/;

// Encodes "&" as "&amp;" unless it already starts an HTML entity.
function encodeAmpersands(s: string): string {
  // sticky: tested where each "&" stands (a pattern of this call's own, as its position is state)
  const entity = new RegExp(ENTITY.source, "y");
  return s.replace(/&/g, (_m, offset: number) => {
    entity.lastIndex = offset;
    return entity.test(s) ? "&" : "&amp;";
  });
}

// Term name normalisation (D27: term names are sanitised): sanitized text with &, <, > as entities (no double encoding).
export function sanitizeTermName(s: Text): string {
  return encodeAmpersands(sanitizeTextField(s)).replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// Characters PHP's FILTER_SANITIZE_URL keeps; anything else makes FILTER_VALIDATE_URL fail.
const URL_CHARS_RE = /^[A-Za-z0-9$\-_.+!*'(),{}|\\^~[\]`<>#%";/?:@&=]*$/;
const HOSTNAME_RE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

interface UrlParts { scheme: string; host: string | null; path: string }

// Splits an absolute URL into scheme, host (null when there is no authority) and path; null if malformed.
function parseUrl(s: string): UrlParts | null {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s.exec(s);
  if (!m) return null;
  const scheme = m[1].toLowerCase();
  const rest = m[2];
  if (!rest.startsWith("//")) return { scheme, host: null, path: rest.split(/[?#]/)[0] };
  const a = /^\/\/([^/?#]*)([^?#]*)/.exec(rest)!;
  let authority = a[1];
  const at = authority.lastIndexOf("@");
  if (at >= 0) authority = authority.slice(at + 1);
  const hp = /^(\[[0-9a-fA-F:.]+\]|[^:]*)(?::(\d*))?$/.exec(authority);
  if (!hp) return null;
  if (hp[2] !== undefined && hp[2] !== "" && Number(hp[2]) > 65535) return null;
  return { scheme, host: hp[1] === "" ? null : hp[1], path: a[2] };
}

// PHP FILTER_VALIDATE_URL-like: absolute URL with a scheme and a host (http/https hosts must be valid names).
export function isValidUrl(s: string): boolean {
  if (typeof s !== "string" || s === "" || !URL_CHARS_RE.test(s)) return false;
  const u = parseUrl(s);
  if (!u) return false;
  if (u.host === null) return ["mailto", "news", "file"].includes(u.scheme);
  if (u.scheme === "http" || u.scheme === "https") {
    return u.host.startsWith("[") || HOSTNAME_RE.test(u.host);
  }
  return true;
}

// Removes characters not allowed in URLs: whitespace, control characters and <>"{}|\^`.
export function sanitizeUrl(s: Text): string {
  // eslint-disable-next-line no-control-regex
  return String(s ?? "").replace(/[\s\x00-\x1f\x7f<>"{}|\\^`]/g, "");
}

// HTML-escapes a URL for output (event `website`): "&" → "&amp;", existing entities kept.
export function escapeUrlForOutput(s: Text): string {
  return encodeAmpersands(String(s ?? ""));
}

// File extensions accepted for image URLs (D7: images without downloads).
export const IMAGE_EXTENSIONS: readonly string[] = [
  "jpg", "jpeg", "jpe", "gif", "png", "bmp", "tif", "tiff", "webp", "avif", "ico", "heic",
];

// Lower-cased image extension of an absolute http(s) URL whose path ends in one (D7: images without downloads), else null.
export function imageUrlExtension(url: string): string | null {
  if (!isValidUrl(url)) return null;
  const u = parseUrl(url);
  if (!u || (u.scheme !== "http" && u.scheme !== "https") || u.host === null) return null;
  const m = /\.([A-Za-z0-9]+)$/.exec(u.path);
  const ext = m ? m[1].toLowerCase() : null;
  return ext !== null && IMAGE_EXTENSIONS.includes(ext) ? ext : null;
}

// Venue `stateprovince` when not given: state for US/no country, else province, else "" (docs/records.md#creating-venues-and-organizers).
export function deriveStateProvince(state: Text, province: Text, country: Text): string {
  const st = state ?? "";
  const pr = province ?? "";
  const co = country ?? "";
  if (st !== "" && (co === "" || co === "US" || co === "United States")) return st;
  return pr;
}

const TRUTHY_STRINGS = ["1", "true", "yes", "y", "on", "enable", "enabled"];

// The plugin's tribe_is_truthy: true, a non-zero number, or 1/true/yes/y/on/enable/enabled (any case).
export function isTruthyFlag(v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v !== 0 && !Number.isNaN(v);
  if (typeof v === "string") return TRUTHY_STRINGS.includes(v.toLowerCase());
  return false;
}

// Whether a value is "empty" in PHP's sense: "", "0", 0, false, null, undefined, [].
export function isPhpEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === false || v === "" || v === "0" || v === 0
    || (Array.isArray(v) && v.length === 0);
}

// Copy of obj without the keys whose value is PHP-empty, key order kept (docs/records.md#venue-fields).
export function stripEmptyKeys<T extends Record<string, unknown>>(obj: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(obj) as (keyof T)[]) {
    if (!isPhpEmpty(obj[key])) out[key] = obj[key];
  }
  return out;
}
