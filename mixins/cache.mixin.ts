/**
 * The action cache: reads answered from the cache (per caller, language and URL root), cleaned of what a
 * write made stale on every node.
 *
 * - `cachedRead(ctx, method)` answers a read method from the cache, or runs it and keeps its answer (body
 *   and response headers) under the method, its params and what the answer depends on in meta; the key
 *   begins with the site and the record the answer is the page of (cache/staleness.ts). An answer
 *   computed while a write cleaned its key is not kept (cache/clean-mark.ts).
 * - `keptPerRecord(ctx, kind, ids, variant, compute)`: records as others embed them, one kept entry per
 *   record under that record's dependency (docs/caching.md#embedded-records), computed in one batch for
 *   those not kept.
 * - Writes clean: the store mixin calls `cleanCaches(patterns)` after every write with what that write
 *   made stale (this node at once, the others by the `cache.clean.calendar` broadcast; with CACHER=redis
 *   the cache is shared anyway).
 */
import type { Context, Service, ServiceBroker, ServiceSchema, ServiceSettingSchema } from "moleculer";
import type { CallMeta } from "../lib/http/call-meta";
import { serviceSchema } from "../broker/service-schema";
import { cacheKind, deploymentSettings } from "../lib/settings";
import { createHash } from "crypto";
import { EVERYTHING, keyPrefix, sitePatterns, type Dependency, type RecordKind } from "../cache/staleness";
import { cleanMark, keepUnlessCleaned, keptOrComputed, type CleanLog } from "../cache/clean-mark";
import { cleanLogOf } from "../cache/cachers";
import { afterCommit } from "../store/sql/shared-transaction";
import { currentSiteId } from "../lib/sites/scope";
import type { Ctx, ReadMethod } from "../broker/context";

export const CACHE_CLEAN_EVENT = "cache.clean.calendar";

/** Cleans `patterns` in this node's cacher and tells the other nodes to clean theirs (a shared Redis cache needs no second clean). */
export async function cleanEverywhere(broker: ServiceBroker, patterns: string[]): Promise<void> {
  if (!broker.cacher) return;
  await broker.cacher.clean(patterns);
  // Other nodes clean their own caches; in one process there are none.
  if (broker.transit) await broker.broadcast(CACHE_CLEAN_EVENT, { origin: broker.nodeID, patterns } satisfies CleanMessage);
}

/** What an answer depends on besides its params. */
const META_KEYS = ["#caller", "#language", "#languageParam", "#site", "#siteUrl", "#apiRoot", "#query", "#bodySlug"];

/** Read methods that answer one venue's or organizer's page, by service. */
const RECORD_PAGES: Record<string, RecordKind> = { venues: "venue", organizers: "organizer" };

/** The payload of the clean broadcast: what to clean (everything when absent), and who cleaned already. */
export interface CleanMessage {
  origin?: string;
  patterns?: string[];
}

/** A read's kept answer: its body, the response headers it set, and what it named of a text body (lib/http/call-meta.ts). */
interface KeptRead {
  body: unknown;
  headers: Record<string, string> | null;
  text?: Pick<CallMeta, "$answerModified" | "$answerTag" | "$answerIds">;
}

/** What a read answered as text names of it in meta, kept with it. */
const TEXT_META = ["$answerModified", "$answerTag", "$answerIds"] as const;

/** A record's value as computed for others to embed, and whether it may be kept (false: it depends on the clock). */
export interface Embedded<T> {
  value: T;
  keep: boolean;
}

/**
 * What an answer depends on in meta (part of a kept answer's key). Absent and null stay apart: no caller
 * (`undefined`) is a trusted internal caller, `null` an anonymous one (lib/access/callers.ts).
 */
function metaPart(meta: Record<string, unknown>): unknown[] {
  return META_KEYS.map(k => (meta[k.slice(1)] === undefined ? "(absent)" : meta[k.slice(1)]));
}

/** After a key's site and dependency (cache/staleness.ts): `label`, then a hash of what else the answer depends on. */
function keySuffix(label: string, parts: unknown[], meta: CallMeta): string {
  return `${label}:${createHash("sha1").update(JSON.stringify([...parts, ...metaPart(meta as Record<string, unknown>)])).digest("base64url")}`;
}

/** The key of a read's answer: site and dependency first, then the service and a hash of the rest (whether it was asked as text too). */
function cachedKey(service: string, method: string, params: unknown, meta: CallMeta): string {
  const kind = RECORD_PAGES[service];
  const id = Number((params as { id?: unknown } | undefined)?.id);
  const dep: Dependency = kind && method === "getLinkedPage" && Number.isInteger(id) ? { kind, id } : { kind: "site" };
  return keyPrefix("ACT", currentSiteId(), dep) + keySuffix(service, [method, params, meta.$answerText === true], meta);
}

const cacheMethods = {
  /** Answers `this[method](ctx)` from the cache when it can. */
  async cachedRead(ctx: Ctx<object>, method: string): Promise<unknown> {
    const cacher = this.broker.cacher;
    if (!cacher) return this.readMethod(method)(ctx);
    const key = cachedKey(this.fullName, method, ctx.params, ctx.meta);
    const answer = await keptOrComputed<KeptRead>(cacher, this.cleanLog, key, async () => {
      // the method's own response headers (Moleculer keeps results, not meta), kept beside its body
      const outer = ctx.meta.$responseHeaders;
      ctx.meta.$responseHeaders = undefined;
      const body = await this.readMethod(method)(ctx);
      const headers = ctx.meta.$responseHeaders ?? null;
      ctx.meta.$responseHeaders = outer;
      const text = typeof body === "string" && ctx.meta.$answerText ? Object.fromEntries(TEXT_META.map(k => [k, ctx.meta[k]])) : undefined;
      return { body, headers, ...(text ? { text } : {}) };
    });
    if (answer.headers) ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), ...answer.headers };
    if (answer.text) Object.assign(ctx.meta, answer.text);
    return answer.body;
  },
  /**
   * Records by id as other records embed them (`{ [id]: value }`), one kept entry per record under the
   * record's own dependency (`ACT:<site>:V7:…`), so a write of the record cleans its entries alone
   * (cache/staleness.ts). `variant` is what the value depends on besides the record and the meta an
   * answer depends on (caller, language, site, roots). `compute` is given the ids not kept, in one batch,
   * and answers the values of those it shows (an id the caller may not read is absent), each kept unless it
   * depends on the clock or a write cleaned its key while it was computed (cache/clean-mark.ts).
   */
  async keptPerRecord<T>(ctx: Ctx<object>, kind: RecordKind, ids: readonly number[], variant: unknown,
    compute: (ids: number[]) => Promise<Map<number, Embedded<T>>>): Promise<Record<string, T>> {
    const unique = [...new Set(ids)];
    const cacher = this.broker.cacher;
    const out: Record<string, T> = {};
    if (!cacher) {
      for (const [id, e] of await compute(unique)) out[String(id)] = e.value;
      return out;
    }
    const site = currentSiteId();
    const suffix = keySuffix(`${this.fullName}.embed`, [variant], ctx.meta);
    const keyOf = (id: number) => `${keyPrefix("ACT", site, { kind, id })}${suffix}`;
    const kept = await Promise.all(unique.map(id => cacher.get(keyOf(id)) as Promise<{ value: T } | null | undefined>));
    const missing = unique.filter((_, i) => !kept[i]);
    unique.forEach((id, i) => { if (kept[i]) out[String(id)] = kept[i]!.value; });
    if (!missing.length) return out;
    const mark = await cleanMark(this.cleanLog);
    const computed = await compute(missing);
    await Promise.all([...computed].map(([id, e]) => {
      out[String(id)] = e.value;
      return e.keep ? keepUnlessCleaned(cacher, this.cleanLog, mark, keyOf(id), { value: e.value }) : undefined;
    }));
    return out;
  },
  /**
   * After every write, before it is answered (C16: read your writes): cleans `patterns` (what the write made stale,
   * cache/staleness.ts; by default all of the current site's kept answers).
   */
  async cleanCaches(patterns: string[] = sitePatterns(currentSiteId())): Promise<void> {
    // inside a shared transaction, once it has committed: cleaned before, a read could keep the state before it
    await afterCommit(() => cleanEverywhere(this.broker, patterns));
  },
  /** The service's read method of that name, bound to it. */
  readMethod(method: string): ReadMethod {
    const fn: unknown = Reflect.get(this, method);
    return (ctx: Ctx<object>) => {
      if (typeof fn !== "function") throw new TypeError(`${this.name} has no read method ${method}`);
      return fn.call(this, ctx);
    };
  }
} satisfies ThisType<CacheSelf>;

export type CacheMethods = typeof cacheMethods;
interface CacheSelf extends Service, CacheMethods {
  /** The log of the cacher's cleans (cache/cachers.ts). */
  cleanLog: CleanLog | undefined;
}

const cacheSchema: ServiceSchema<ServiceSettingSchema, CacheMethods, object, CacheSelf> = {
  name: "cache",
  events: {
    [CACHE_CLEAN_EVENT](ctx: Context<CleanMessage | undefined>) {
      // The writing node cleaned already; a shared (Redis) cache needs no second clean.
      if (ctx.params?.origin === this.broker.nodeID || cacheKind(deploymentSettings()) === "redis") return;
      return this.broker.cacher?.clean(ctx.params?.patterns ?? EVERYTHING);
    }
  },
  methods: cacheMethods,
  created() {
    this.cleanLog = cleanLogOf(this.broker.cacher);
  }
};

export const CacheMixin = serviceSchema(cacheSchema);
