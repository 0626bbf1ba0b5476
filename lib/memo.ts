/**
 * Memory for pure functions: answers kept so that work repeated on the same input is done once. What is
 * kept never changes an answer, only when it is computed, so lib/ stays pure logic with these in it
 * (test/unit/house.test.ts holds lib/ to no other module state).
 */

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

/**
 * `memoOfText` for a function of several arguments, kept by the key `keyOf` gives them (two calls with one
 * key must have one answer). At most `max` keys are kept; past that the memory starts over.
 */
export function memoByKey<A extends unknown[], K, T>(keyOf: (...args: A) => K, fn: (...args: A) => T, max = 32): (...args: A) => T {
  const kept = new Map<K, T>();
  return (...args) => {
    const key = keyOf(...args);
    if (kept.has(key)) return kept.get(key) as T;
    const value = fn(...args);
    if (kept.size >= max) kept.clear();
    kept.set(key, value);
    return value;
  };
}

/** A pure function of one object, its answer kept for as long as that object lives. */
export function memoOfObject<O extends object, T>(fn: (o: O) => T): (o: O) => T {
  const kept = new WeakMap<O, T>();
  return o => {
    if (kept.has(o)) return kept.get(o) as T;
    const value = fn(o);
    kept.set(o, value);
    return value;
  };
}

/** A value built on first use and kept (a table a module derives from its own constants). */
export function lazy<T>(build: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: build() }).value;
}
