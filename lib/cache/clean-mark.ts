/**
 * Keeping a value computed from the store only if no write cleaned its key meanwhile
 * (docs/caching.md#a-read-that-crosses-a-write). A read that misses computes its answer from the store and
 * then keeps it. A write that commits and cleans between the read's store access and its keep would be
 * undone by the keep: the old value would be served until its time to live ran out. So a reader takes a
 * mark before it reads the store, and keeps what it computed only if no clean since may have covered the
 * key it keeps it under.
 *
 * A cacher that counts its cleans and remembers their patterns (the in-process BoundedMemoryCacher,
 * cleaned by this node's writes and by other nodes' clean broadcasts) gives a mark. A shared Redis cacher
 * is cleaned by the writing node alone and remembers nothing; no mark is given, and every value is kept.
 */

/** A cacher that counts the cleans it has run and can tell whether those since a mark covered a key. */
export interface CountsCleans {
  cleans(): number;
  cleanedSince(mark: number, key: string): boolean;
}

/** The cacher's clean count before a read of the store; undefined when it keeps none. */
export type CleanMark = number | undefined;

function counting(cacher: unknown): cacher is CountsCleans {
  const c = cacher as Partial<CountsCleans> | null | undefined;
  return !!c && typeof c.cleans === "function" && typeof c.cleanedSince === "function";
}

export function cleanMark(cacher: unknown): CleanMark {
  return counting(cacher) ? cacher.cleans() : undefined;
}

/** Whether a value read after `mark` may be kept under `key`: no clean since covered it (or none can tell). */
export function mayKeep(cacher: unknown, mark: CleanMark, key: string): boolean {
  return mark === undefined || !counting(cacher) || !cacher.cleanedSince(mark, key);
}
