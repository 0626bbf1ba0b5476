/**
 * Which log of cleans a process's cacher has (cache/clean-mark.ts): both of the service's cachers are
 * their own (cache/bounded-cacher.ts in memory, cache/redis-cacher.ts in a shared Redis); no
 * cacher, or another, has none.
 */
import type { CleanLog } from "./clean-mark";
import { BoundedMemoryCacher } from "./bounded-cacher";
import { RedisCacher } from "./redis-cacher";

export function cleanLogOf(cacher: unknown): CleanLog | undefined {
  return cacher instanceof BoundedMemoryCacher || cacher instanceof RedisCacher ? cacher : undefined;
}
