/**
 * Which log of cleans a process's cacher has (lib/cache/clean-mark.ts): the in-process cacher is its own,
 * a shared Redis cacher's is kept in that Redis (lib/cache/redis-clean-log.ts), no cacher has none.
 */
import { cacheKind, type Settings } from "../settings";
import type { CleanLog } from "./clean-mark";
import { BoundedMemoryCacher } from "./bounded-cacher";
import { acquireCleanLog } from "./redis-clean-log";

/** The log of `cacher`'s cleans, and how to let it go when the service that opened it stops. */
export function openCleanLog(cacher: unknown, s: Pick<Settings, "cacher" | "namespace">): { log: CleanLog | undefined; record(patterns: readonly string[]): Promise<void>; release(): void } {
  if (cacher && cacheKind(s) === "redis") {
    const held = acquireCleanLog(s.cacher!, `CL-${s.namespace || "calendar"}:`);
    return { log: held.log, record: patterns => held.log.record(patterns), release: () => held.release() };
  }
  // the in-process cacher records its own cleans
  return { log: cacher instanceof BoundedMemoryCacher ? cacher : undefined, record: async () => undefined, release: () => undefined };
}
