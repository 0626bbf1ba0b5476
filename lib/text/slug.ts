// Slug helpers: WordPress sanitize_title, uniqueness suffixes, trash suffix (docs/records.md#event-slugs).
import { stripTags } from "./sanitize";

/** Letters that Unicode NFD does not decompose into base letter + combining mark. */
const SPECIAL_LETTERS: Record<string, string> = {
  ß: "ss", ẞ: "SS", æ: "ae", Æ: "AE", œ: "oe", Œ: "OE", ø: "o", Ø: "O",
  đ: "d", Đ: "D", ð: "d", Ð: "D", þ: "th", Þ: "TH", ł: "l", Ł: "L",
  ħ: "h", Ħ: "H", ı: "i", ĳ: "ij", Ĳ: "IJ", ĸ: "k", ŀ: "l", Ŀ: "L",
  ŉ: "n", ŋ: "n", Ŋ: "N", ŧ: "t", Ŧ: "T", ſ: "s", ƒ: "f", ª: "a", º: "o",
};
const SPECIAL_RE = new RegExp(`[${Object.keys(SPECIAL_LETTERS).join("")}]`, "g");

// Removes accents (é→e, ß→ss, æ→ae, ø→o …) like WordPress remove_accents.
export function removeAccents(input: string): string {
  return input
    .replace(SPECIAL_RE, (ch) => SPECIAL_LETTERS[ch] ?? ch)
    .normalize("NFD")
    .replace(/\p{M}+/gu, "");
}

/**
 * The longest slug form, as WordPress's (sanitize_title encodes at most 200 bytes; `post_name` and a term's
 * `slug` are 200 characters wide). It also keeps each slug inside what PostgreSQL's btree indexes take
 * (~2 700 bytes an entry): a longer title answered 500 there (docs/records.md#event-slugs).
 */
export const SLUG_MAX = 200;

// WordPress sanitize_title (save context): the slug form of any text, at most SLUG_MAX characters.
export function sanitizeSlug(input: string): string {
  let s = removeAccents(stripTags(String(input ?? ""))).toLowerCase();
  s = s.replace(/&(?:nbsp|ndash|mdash|#160|#8211|#8212);/g, "-"); // dash-like entities → hyphen
  s = s.replace(/&(?:[a-z][a-z0-9]*|#\d+|#x[0-9a-f]+);/g, ""); // other entities are removed
  s = s.replace(/[\u00a0\u2013\u2014]/g, "-").replace(/\u00d7/g, "x"); // nbsp/en/em dash, ×
  s = s.replace(/[\s/.]+/g, "-");
  s = s.replace(/[^a-z0-9_-]/g, "");
  s = s.replace(/-+/g, "-").replace(/^-+|-+$/g, "");
  return s.length > SLUG_MAX ? s.slice(0, SLUG_MAX).replace(/-+$/, "") : s;
}

// Words WordPress never uses as a bare post slug (they get "-2").
export const RESERVED_SLUGS: readonly string[] = ["feed", "rdf", "rss", "rss2", "atom", "embed"];

// Suffix WordPress appends to the slug of a trashed post.
export const TRASH_SUFFIX = "__trashed";

// Slug of a record moved to the trash (suffix added once).
export function trashedSlug(slug: string): string {
  return slug.endsWith(TRASH_SUFFIX) ? slug : slug + TRASH_SUFFIX;
}

// Slug of a record restored from the trash (suffix removed).
export function untrashedSlug(slug: string): string {
  return slug.endsWith(TRASH_SUFFIX) ? slug.slice(0, -TRASH_SUFFIX.length) : slug;
}
