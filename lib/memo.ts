/**
 * Answers of a pure function of one text, kept for the texts it was last asked about: for the work every
 * request repeats on the same few texts (a base URL parsed per request and per record showed in the single
 * event's profile, docs/benchmarks.md "The request path"). At most `max` texts are kept; past that the
 * memory starts over, so texts that come from requests cannot make it grow.
 */
export function memoOfText<T>(fn: (text: string) => T, max = 32): (text: string) => T {
  const kept = new Map<string, T>();
  return text => {
    if (kept.has(text)) return kept.get(text) as T;
    const value = fn(text);
    if (kept.size >= max) kept.clear();
    kept.set(text, value);
    return value;
  };
}
