/**
 * The broker middleware that carries a request's site (docs/sites.md, C48: the platform API) across every hop:
 *
 * - an action or event handler runs as work of the site its context names in `ctx.meta.site` (absent:
 *   the default site), resolved through the store's site directory (store/site-directory.ts); a site that
 *   no longer exists answers 404 `rest_site_not_found` (an event of one is dropped);
 * - a call, emit or broadcast made while working for a site carries that site in its `meta`, so
 *   internal calls made without the caller's context (`broker.call`) stay in the site they serve.
 */
import type { Context, Middleware } from "moleculer";
import { brokerMiddleware } from "../broker/middleware";
import { ApiError } from "../lib/errors";
import { currentSite, currentSiteId, DEFAULT_SITE_ID, runInSite } from "../lib/sites/scope";
import { acquireStore, releaseStore, Store } from "../store";
import { siteDirectory } from "../store/site-directory";
import { storeConfig } from "../mixins/store.mixin";

type Handler = (ctx: Context) => Promise<unknown>;
type Opts = { meta?: Record<string, unknown>; parentCtx?: Context } | undefined;
type Emitter = (name: string, payload: unknown, opts?: Opts) => Promise<unknown>;

/** The site id a context names (a number or digits); undefined: the default site. */
function siteOf(ctx: Context): number | undefined {
  const v = (ctx.meta as { site?: unknown } | undefined)?.site;
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : undefined;
  return n !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** `opts` with the current site in its meta, unless the call names a site (or a parent naming one) already. */
function withSite(opts: Opts): Opts {
  const id = currentSiteId();
  if (id === DEFAULT_SITE_ID) return opts;
  const own = opts?.meta?.site ?? (opts?.parentCtx?.meta as { site?: unknown } | undefined)?.site;
  if (own !== undefined) return opts;
  return { ...(opts ?? {}), meta: { ...(opts?.meta ?? {}), site: id } };
}

export function SiteScopeMiddleware(): Middleware {
  let opened: Promise<Store> | undefined;
  const directory = async () => siteDirectory(await (opened ??= acquireStore(storeConfig())));

  async function enter(ctx: Context, next: Handler, isEvent: boolean): Promise<unknown> {
    const id = siteOf(ctx) ?? DEFAULT_SITE_ID;
    if (id === DEFAULT_SITE_ID) return currentSite() ? runInSite(undefined, () => next(ctx)) : next(ctx);
    // Already this site's work in this process (the gateway's front door entered it): nothing to read.
    const here = currentSite();
    if (here && here.id === id) return next(ctx);
    const site = await (await directory()).forId(id);
    if (!site) {
      if (isEvent) return undefined;
      throw new ApiError("rest_site_not_found", 404);
    }
    return runInSite(site, () => next(ctx));
  }

  return brokerMiddleware({
    name: "SiteScope",
    localAction(next: Handler) {
      return (ctx: Context) => enter(ctx, next, false);
    },
    localEvent(next: Handler) {
      return (ctx: Context) => enter(ctx, next, true);
    },
    call(next: Emitter) {
      return (name: string, params: unknown, opts?: Opts) => next(name, params, withSite(opts));
    },
    emit(next: Emitter) {
      return (name: string, payload: unknown, opts?: Opts) => next(name, payload, withSite(opts));
    },
    broadcast(next: Emitter) {
      return (name: string, payload: unknown, opts?: Opts) => next(name, payload, withSite(opts));
    },
    async stopped() {
      if (opened) {
        opened = undefined;
        await releaseStore(storeConfig());
      }
    }
  });
}
