/**
 * Kept keys are grouped by their first three `:`-separated segments (`RESP:1:E12`,
 * cache/staleness.ts), so a clean reads only the groups its pattern can reach (both cachers:
 * cache/bounded-cacher.ts, cache/redis-cacher.ts). Also here: the cache-clean patterns of
 * cache/staleness.ts, matched without building a regular expression per pattern: their only wildcard
 * is `**` (any run of characters), so a key matches when it begins with the pattern's first piece, ends
 * with its last, and holds the pieces between in order. Patterns with other wildcards are the framework
 * matcher's business (`fallback`).
 */
export function keyMatches(key: string, pattern: string, fallback: (key: string, pattern: string) => boolean): boolean {
  const pieces = pattern.split("**");
  if (pieces.some(p => p.includes("*") || p.includes("?"))) return fallback(key, pattern);
  if (pieces.length === 1) return key === pattern;
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  if (!key.startsWith(first) || key.length < first.length + last.length || !key.endsWith(last)) return false;
  let at = first.length;
  const end = key.length - last.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const found = key.indexOf(pieces[i], at);
    if (found < 0 || found + pieces[i].length > end) return false;
    at = found + pieces[i].length;
  }
  return true;
}

/** A key's group: its first three `:`-separated segments (the whole key when it has fewer). */
export function groupOf(key: string): string {
  let at = -1;
  for (let i = 0; i < 3; i++) {
    at = key.indexOf(":", at + 1);
    if (at < 0) return key;
  }
  return key.slice(0, at);
}

/** What a pattern begins with before its first wildcard. */
function fixedBeginning(pattern: string): string {
  const wild = pattern.search(/[*?]/);
  return wild < 0 ? pattern : pattern.slice(0, wild);
}

/**
 * The groups a pattern's keys can be in: the one its fixed beginning names when that holds three
 * separators, otherwise those of `known` that begin with it (or that it begins with).
 */
export function groupsReached(pattern: string, known: Iterable<string>): string[] {
  const fixed = fixedBeginning(pattern);
  const exact = groupOf(fixed);
  if (exact.length < fixed.length) return [exact];
  return [...known].filter(g => g.startsWith(fixed) || fixed.startsWith(g));
}
