/**
 * The cache-clean patterns of lib/cache/staleness.ts, matched without building a regular expression per
 * pattern: their only wildcard is `**` (any run of characters), so a key matches when it begins with the
 * pattern's first piece, ends with its last, and holds the pieces between in order. Patterns with other
 * wildcards are the framework matcher's business (`fallback`).
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
