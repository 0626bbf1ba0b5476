/**
 * WordPress search terms (docs/lists.md#event-filters): split on spaces, commas and `+`, quoted phrases kept whole,
 * a leading `-` excludes; more than 9 terms → the whole string is one phrase. Plus the regex escaping
 * every search query needs.
 */
export interface SearchTerm {
  text: string;
  exclude: boolean;
}

export function searchTerms(input: string): SearchTerm[] {
  const raw = input.trim();
  const parts = raw.match(/"[^"]*"|[^\s,+]+/g) ?? [];
  const terms = parts
    .map(p => (p.startsWith('"') ? { text: p.slice(1, -1).trim(), exclude: false } : p.startsWith("-") && p.length > 1 ? { text: p.slice(1), exclude: true } : { text: p, exclude: false }))
    .filter(t => t.text !== "");
  if (terms.length > 9) return [{ text: raw, exclude: false }];
  return terms;
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Case-insensitive substring match, usable by every store. */
export function containsRegex(text: string): RegExp {
  return new RegExp(escapeRegex(text), "i");
}
