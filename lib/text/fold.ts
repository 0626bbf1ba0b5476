/**
 * The folded form texts are compared in (C37: search semantics; docs/lists.md#search: case- and accent-insensitive, as
 * WordPress on MySQL's unicode collation): compatibility decomposition (ligatures, full-width and other
 * presentation forms: "ﬁ" → "fi", "Ａ" → "a"), combining marks dropped (accents, Japanese voicing marks),
 * lower case, then the letters no decomposition splits folded to their base ("ß" → "ss", "ø" → "o", the
 * final "ς" → "σ"). SQLite calls this function; PostgreSQL's `fold()` is built from the same tables
 * (store/sql/fold-function.ts), so a term and the texts it is compared with fold alike on every store.
 */

/** Lower-case letters folded after lower-casing: NFKD leaves them whole (one letter may become two). */
export const FOLDED_LETTERS: Readonly<Record<string, string>> = {
  ß: "ss", æ: "ae", œ: "oe", þ: "th", ø: "o", đ: "d", ð: "d", ł: "l", ħ: "h", ı: "i", ĸ: "k", ŋ: "n", ŧ: "t", ƒ: "f", ς: "σ"
};

const MARKS = /\p{M}+/gu;
const LETTERS = new RegExp(`[${Object.keys(FOLDED_LETTERS).join("")}]`, "g");

/**
 * A character past printable ASCII and the usual white space: a text without any folds by lower-casing
 * alone (it holds no decomposition, mark or folded letter).
 */
const BEYOND_ASCII = /[^\t\n\r -~]/;

export function foldText(text: string): string {
  // most texts are plain ASCII; SQLite folds each text a search walks and each text a write indexes
  if (!BEYOND_ASCII.test(text)) return text.toLowerCase();
  return text.normalize("NFKD").replace(MARKS, "").toLowerCase().replace(LETTERS, c => FOLDED_LETTERS[c]);
}

/** The code points of combining marks (`\p{M}`), as inclusive ranges in ascending order. */
export function markRanges(): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const mark = /^\p{M}$/u;
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    if (!mark.test(String.fromCodePoint(cp))) continue;
    const last = ranges[ranges.length - 1];
    if (last && last[1] === cp - 1) last[1] = cp;
    else ranges.push([cp, cp]);
  }
  return ranges;
}
