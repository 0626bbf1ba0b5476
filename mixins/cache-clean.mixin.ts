/**
 * Cached reads stay right after writes: every write cleans this node's cache at once and broadcasts
 * `cache.clean.calendar`, on which every node cleans its own (with CACHER=redis the cache is shared, so
 * the first clean already serves every gateway). Services that cache read actions mix this in.
 */
import type { ServiceSchema } from "moleculer";

export const CACHE_CLEAN_EVENT = "cache.clean.calendar";

export const CacheCleanMixin: ServiceSchema = {
  name: "cache-clean",
  events: {
    [CACHE_CLEAN_EVENT](this: any) {
      return this.broker.cacher?.clean();
    }
  },
  methods: {
    /** Called after every write, before it is answered (C16). */
    async cleanCaches(this: any): Promise<void> {
      await this.broker.cacher?.clean();
      await this.broker.broadcast(CACHE_CLEAN_EVENT);
    }
  }
};

/**
 * Cache keys of a read action: every param of its schema, plus what the answer depends on in meta
 * (caller, language, URL roots, the query string carried in list links).
 */
export function cacheKeys(schema: Record<string, unknown>, extraMeta: string[] = []): string[] {
  const params = Object.keys(schema).filter(k => !k.startsWith("$$"));
  return [...params, "#caller", "#language", "#languageParam", "#site", "#apiRoot", ...extraMeta];
}
