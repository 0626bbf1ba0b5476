/**
 * Keeping a value computed from the store only if no write cleaned its key meanwhile
 * (docs/caching.md#a-read-that-crosses-a-write). A read that misses computes its answer from the store and
 * then keeps it. A write that commits and cleans between the read's store access and its keep would be
 * undone by the keep: the old value would be served until its time to live ran out. So a reader takes a
 * mark from the log of cleans after it missed and before it reads the store, and its value stays kept
 * only if no clean since may have covered the key.
 *
 * - The in-process cacher (lib/cache/bounded-cacher.ts) is its own log, cleaned by this node's writes and
 *   by other nodes' clean broadcasts: the keep is checked before it is made, in the same turn.
 * - A shared Redis cacher's log is kept in Redis (lib/cache/redis-clean-log.ts), written by each writer
 *   before it cleans. A clean can land between a check and a keep there, so the value is kept first and
 *   checked after: when a clean since the mark covered it, it is dropped again. (A reader may see it in
 *   that one round trip.)
 */

/** How many of the latest cleans' patterns a log remembers (a mark older than them counts as cleaned). */
export const REMEMBERED_CLEANS = 256;

/** The cleans a cacher has run: how many, and whether those since a mark covered a key. */
export interface CleanLog {
  /** Whether the log is shared by several processes (checked after a keep) or this process's (before). */
  readonly shared: boolean;
  /** The number of cleans so far; undefined when the log cannot be read. */
  mark(): number | undefined | Promise<number | undefined>;
  /** Whether a clean since `mark` may have covered `key` (true when it cannot tell). */
  cleanedSince(mark: number, key: string): boolean | Promise<boolean>;
}

/** A read's mark: undefined when there is a log and it could not be read (then nothing is kept). */
export type CleanMark = number | undefined;

/** Where values are kept (a Moleculer cacher's public methods). */
export interface KeepingCacher {
  set(key: string, value: unknown): Promise<unknown>;
  del(key: string): Promise<unknown>;
}

/** A cacher that is also read (a miss answers null or undefined). */
export interface ReadingCacher extends KeepingCacher {
  get(key: string): Promise<unknown>;
}

export async function cleanMark(log: CleanLog | undefined): Promise<CleanMark> {
  return log ? log.mark() : 0;
}

/** Keeps `value` under `key` unless a clean since `mark` covered the key (without a log: keeps it). */
export async function keepUnlessCleaned(cacher: KeepingCacher, log: CleanLog | undefined, mark: CleanMark, key: string, value: unknown): Promise<boolean> {
  if (!log) {
    await cacher.set(key, value);
    return true;
  }
  if (mark === undefined) return false;
  if (!log.shared) {
    // checked and kept in one turn: nothing runs between them in this process
    if (log.cleanedSince(mark, key) !== false) return false;
    await cacher.set(key, value);
    return true;
  }
  await cacher.set(key, value);
  if (!(await log.cleanedSince(mark, key))) return true;
  await cacher.del(key);
  return false;
}

/**
 * The value kept under `key`, or `compute()`'s, kept unless a clean covered the key while it was computed
 * (the mark is taken after the miss, before `compute` reads the store).
 */
export async function keptOrComputed<T>(cacher: ReadingCacher, log: CleanLog | undefined, key: string, compute: () => Promise<T>): Promise<T> {
  const kept = await cacher.get(key) as T | null | undefined;
  if (kept !== null && kept !== undefined) return kept;
  const mark = await cleanMark(log);
  const value = await compute();
  await keepUnlessCleaned(cacher, log, mark, key, value);
  return value;
}
