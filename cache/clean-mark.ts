/**
 * Keeping a value computed from the store only if no write cleaned its key meanwhile
 * (docs/caching.md#a-read-that-crosses-a-write). A read that misses computes its answer from the store and
 * then keeps it. A write that commits and cleans between the read's store access and its keep would be
 * undone by the keep: the old value would be served until its time to live ran out. So a reader takes a
 * mark from the log of cleans after it missed and before it reads the store, and its value stays kept
 * only if no clean since may have covered the key.
 *
 * Each of the service's cachers is its own log, and checks and keeps as one step no clean can come
 * between:
 * - the in-process cacher (cache/bounded-cacher.ts), cleaned by this node's writes and by other
 *   nodes' clean broadcasts, checks and keeps in one turn of the event loop;
 * - the shared Redis cacher (cache/redis-cacher.ts), whose writers record their patterns in Redis
 *   before they clean, checks and keeps in one script.
 */

import { Flights } from "./single-flight";

/** How many of the latest cleans' patterns a log remembers (a mark older than them counts as cleaned). */
export const REMEMBERED_CLEANS = 256;

/** The cleans a cacher has run, and a keep that no clean since a mark covered. */
export interface CleanLog {
  /** The number of cleans so far; undefined when the log cannot be read. */
  mark(): number | undefined | Promise<number | undefined>;
  /**
   * Keeps `value` under `key` unless a clean since `mark` may have covered the key (or it cannot tell),
   * checked and kept as one step; whether it kept it.
   */
  keepIfClean(mark: number, key: string, value: unknown): Promise<boolean>;
}

/** A read's mark: undefined when there is a log and it could not be read (then nothing is kept). */
export type CleanMark = number | undefined;

/** Where values are kept (a Moleculer cacher's public methods). */
export interface KeepingCacher {
  set(key: string, value: unknown): Promise<unknown>;
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
  return log.keepIfClean(mark, key, value);
}

/** The computations in progress of each cacher's keys (one cacher per broker: per node). */
const flightsOf = new WeakMap<ReadingCacher, Flights<unknown>>();

/**
 * The value kept under `key`, or `compute()`'s, kept unless a clean covered the key while it was computed
 * (the mark is taken after the miss, before `compute` reads the store). Reads of one key that miss while
 * it is computed wait for that computation (cache/single-flight.ts).
 */
export async function keptOrComputed<T>(cacher: ReadingCacher, log: CleanLog | undefined, key: string, compute: () => Promise<T>): Promise<T> {
  let flights = flightsOf.get(cacher);
  if (!flights) flightsOf.set(cacher, (flights = new Flights()));
  const seen = flights.current(key);
  const kept = await cacher.get(key) as T | null | undefined;
  if (kept !== null && kept !== undefined) return kept;
  return flights.run(key, async () => {
    const mark = await cleanMark(log);
    const value = await compute();
    return { value, kept: await keepUnlessCleaned(cacher, log, mark, key, value) };
  }, seen) as Promise<T>;
}
