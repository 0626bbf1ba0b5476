/**
 * The action cache: reads answered from the cache (per caller, language and URL root), cleaned of what a
 * write made stale on every node.
 *
 * - `cachedRead(ctx, method)` runs a read method through this service's `cached` action, whose answer
 *   (body and response headers: Moleculer caches results, not meta) is cached under the method, its
 *   params and what the answer depends on in meta; the key begins with the site and the record the answer
 *   is the page of (lib/cache/staleness.ts).
 * - Writes clean: the store mixin calls `cleanCaches(patterns)` after every write with what that write
 *   made stale (this node at once, the others by the `cache.clean.calendar` broadcast; with CACHER=redis
 *   the cache is shared anyway).
 */
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { CallMeta } from "../lib/meta";
import { cacheKind, deploymentSettings } from "../lib/settings";
import { createHash } from "crypto";
import { EVERYTHING, keyPrefix, sitePatterns, type Dependency, type RecordKind } from "../lib/cache/staleness";
import { currentSiteId } from "../lib/sites/scope";
import type { Ctx, ReadMethod } from "./types";

export const CACHE_CLEAN_EVENT = "cache.clean.calendar";

/** What an answer depends on besides its params. */
const META_KEYS = ["#caller", "#language", "#languageParam", "#site", "#siteUrl", "#apiRoot", "#query", "#bodySlug"];

/** Read methods that answer one venue's or organizer's page, by service. */
const RECORD_PAGES: Record<string, RecordKind> = { venues: "venue", organizers: "organizer" };

/** The payload of the clean broadcast: what to clean (everything when absent), and who cleaned already. */
export interface CleanMessage {
  origin?: string;
  patterns?: string[];
}

type CachedParams = { method: string; params: Record<string, unknown> };

/** The key of a `cached` call: site and dependency first (lib/cache/staleness.ts), then a hash of the rest. */
function cachedKey(service: string, ctx: Context<CachedParams, CallMeta>): string {
  const { method, params } = ctx.params;
  const kind = RECORD_PAGES[service];
  const id = Number(params?.id);
  const dep: Dependency = kind && method === "getLinkedPage" && Number.isInteger(id) ? { kind, id } : { kind: "site" };
  const meta = ctx.meta as Record<string, unknown>;
  const rest = JSON.stringify([method, params, ...META_KEYS.map(k => meta[k.slice(1)] ?? null)]);
  return `${keyPrefix("ACT", currentSiteId(), dep)}${service}:${createHash("sha1").update(rest).digest("base64url")}`;
}

const cacheMethods = {
  /** Answers `this[method](ctx)` from the cache when it can. */
  async cachedRead(ctx: Ctx<object>, method: string): Promise<unknown> {
    if (!this.broker.cacher) return this.readMethod(method)(ctx);
    const res: { body: unknown; headers: Record<string, string> | null } = await ctx.call(`${this.fullName}.cached`, { method, params: ctx.params });
    if (res.headers) ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), ...res.headers };
    return res.body;
  },
  /**
   * After every write, before it is answered (C16): cleans `patterns` (what the write made stale,
   * lib/cache/staleness.ts; by default all of the current site's kept answers).
   */
  async cleanCaches(patterns: string[] = sitePatterns(currentSiteId())): Promise<void> {
    if (!this.broker.cacher) return;
    await this.broker.cacher.clean(patterns);
    // Other nodes clean their own caches; in one process there are none.
    if (this.broker.transit) await this.broker.broadcast(CACHE_CLEAN_EVENT, { origin: this.broker.nodeID, patterns } satisfies CleanMessage);
  },
  /** The service's read method of that name, bound to it. */
  readMethod(method: string): ReadMethod {
    const fn = (this as unknown as Record<string, ReadMethod>)[method];
    return (ctx: Ctx<object>) => fn.call(this, ctx);
  }
} satisfies ThisType<CacheSelf>;

export type CacheMethods = typeof cacheMethods;
interface CacheSelf extends Service, CacheMethods {}

const cacheSchema: ServiceSchema<ServiceSettingSchema, CacheMethods, object, CacheSelf> = {
  name: "cache",
  actions: {
    cached: {
      visibility: "protected",
      cache: {
        keys: ["method", "params", ...META_KEYS],
        keygen(action: { name?: string }, _opts: unknown, ctx: Context) {
          return cachedKey(String(action.name ?? "").replace(/\.cached$/, ""), ctx as Context<CachedParams, CallMeta>);
        }
      },
      async handler(ctx: Context<CachedParams, CallMeta>) {
        const method = ctx.params.method;
        const inner = ctx as unknown as Ctx;
        inner.params = ctx.params.params;
        ctx.meta.$responseHeaders = undefined;
        const body = await this.readMethod(method)(inner);
        return { body, headers: ctx.meta.$responseHeaders ?? null };
      }
    }
  },
  events: {
    [CACHE_CLEAN_EVENT](ctx: Context<CleanMessage | undefined>) {
      // The writing node cleaned already; a shared (Redis) cache needs no second clean.
      if (ctx.params?.origin === this.broker.nodeID || cacheKind(deploymentSettings()) === "redis") return;
      return this.broker.cacher?.clean(ctx.params?.patterns ?? EVERYTHING);
    }
  },
  methods: cacheMethods
};

export const CacheMixin = cacheSchema as unknown as ServiceSchema;
