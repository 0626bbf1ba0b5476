/**
 * The service's two cachers: which one a node runs (CACHER: the bounded in-process one by default,
 * cache/bounded-cacher.ts; a shared Redis, cache/redis-cacher.ts; or none), and the log of cleans each
 * of them is (cache/clean-mark.ts); no cacher, or another, has none.
 */
import { cacheKind, type Settings } from "../lib/settings";
import type { CleanLog } from "./clean-mark";
import { BoundedMemoryCacher } from "./bounded-cacher";
import { RedisCacher } from "./redis-cacher";

/** The cacher of a node with these settings, or null with CACHER=off. */
export function cacherFor(s: Settings): BoundedMemoryCacher | RedisCacher | null {
  const cache = cacheKind(s);
  if (cache === "off") return null;
  return cache === "redis"
    ? new RedisCacher({ url: s.cacher!, prefix: `MOL-${s.namespace || "calendar"}`, logPrefix: `CL-${s.namespace || "calendar"}:`, ttl: 60 })
    : new BoundedMemoryCacher({ ttl: 60, maxBytes: s.cacheMaxMb * 1024 * 1024, maxEntries: 200_000 });
}

export function cleanLogOf(cacher: unknown): CleanLog | undefined {
  return cacher instanceof BoundedMemoryCacher || cacher instanceof RedisCacher ? cacher : undefined;
}
