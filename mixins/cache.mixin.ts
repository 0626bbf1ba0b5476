/**
 * The action cache: reads answered from the cache (per caller, language and URL root), cleaned on every
 * write on every node.
 *
 * - `cachedRead(ctx, method)` runs a read method through this service's `cached` action, whose answer
 *   (body and response headers: Moleculer caches results, not meta) is cached under the method, its
 *   params and what the answer depends on in meta.
 * - Writes clean: the store mixin calls `cleanCaches()` after every write (this node at once, the others
 *   by the `cache.clean.calendar` broadcast; with CACHER=redis the cache is shared anyway).
 */
import type { Context, ServiceSchema } from "moleculer";
import type { CallMeta } from "../lib/meta";

export const CACHE_CLEAN_EVENT = "cache.clean.calendar";

/** What an answer depends on besides its params. */
const META_KEYS = ["#caller", "#language", "#languageParam", "#site", "#apiRoot", "#query", "#bodySlug"];

export const CacheMixin: ServiceSchema = {
  name: "cache",
  actions: {
    cached: {
      visibility: "protected",
      cache: { keys: ["method", "params", ...META_KEYS] },
      async handler(this: any, ctx: Context<{ method: string; params: Record<string, unknown> }, CallMeta>) {
        const method = ctx.params.method;
        (ctx as any).params = ctx.params.params;
        ctx.meta.$responseHeaders = undefined;
        const body = await this[method](ctx);
        return { body, headers: ctx.meta.$responseHeaders ?? null };
      }
    }
  },
  events: {
    [CACHE_CLEAN_EVENT](this: any, ctx: Context<{ origin?: string } | undefined>) {
      // The writing node cleaned already; a shared (Redis) cache needs no second clean.
      if (ctx.params?.origin === this.broker.nodeID || this.broker.cacher?.constructor?.name === "RedisCacher") return;
      return this.broker.cacher?.clean();
    }
  },
  methods: {
    /** Answers `this[method](ctx)` from the cache when it can. */
    async cachedRead(this: any, ctx: Context<Record<string, unknown>, CallMeta>, method: string): Promise<unknown> {
      if (!this.broker.cacher) return this[method](ctx);
      const res: { body: unknown; headers: Record<string, string> | null } = await ctx.call(`${this.fullName}.cached`, { method, params: ctx.params });
      if (res.headers) ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), ...res.headers };
      return res.body;
    },
    /** After every write, before it is answered (C16). */
    async cleanCaches(this: any): Promise<void> {
      if (!this.broker.cacher) return;
      await this.broker.cacher.clean();
      // Other nodes clean their own caches; in one process there are none.
      if (this.broker.transit) await this.broker.broadcast(CACHE_CLEAN_EVENT, { origin: this.broker.nodeID });
    }
  }
};
