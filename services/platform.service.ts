/**
 * The platform service: sites and their API keys (docs/sites.md, C48 to C50: the platform API, hosts, deleting a site), behind the gateway's
 * `{base_url}/platform/v1` route (PLATFORM_KEY). Sites live in the store's `sites` and `api_keys` tables
 * (store/sites.ts); every change moves the sites version, which each gateway checks before it uses what it
 * knows of a host, so a change through any node holds on every node at its next request.
 *
 * A deleted site's host answers 404 as soon as the delete is answered; its records are then removed in
 * the background, in chunks (resumed by any node that starts while some are left), and its host can be
 * used again once they are gone.
 */
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { SITE_CREATED } from "../lib/sites/site-events";
import { serviceSchema } from "../broker/service-schema";
import { ApiError } from "../lib/errors";
import { deploymentSettings } from "../lib/settings";
import { hostOfUrl } from "../lib/sites/host";
import { hashApiKey, newApiKey } from "../lib/sites/keys";
import { keyFields, SiteFields, siteFields, SiteInput } from "../lib/sites/site-input";
import { DEFAULT_SITE_ID } from "../lib/sites/scope";
import { defaultSiteAnswer, pageOf, SiteAnswer, siteAnswer } from "../lib/platform/present";
import { platformDocument } from "../lib/platform/openapi";
import { acquireStore, releaseStore, Store } from "../store";
import { isUniqueViolation } from "../store/errors";
import type { SiteRow, SiteStore } from "../store/sites";
import { storeConfig } from "../mixins/store.mixin";
import { CACHE_CLEAN_EVENT } from "../mixins/cache.mixin";
import { answerTotals } from "../lib/http/list-totals";
import type { Ctx } from "../broker/context";

/** Records removed per statement while a deleted site is emptied. */
export const PURGE_CHUNK = 500;

type IdParams = { id?: unknown; key_id?: unknown };

interface PlatformVars {
  storeOpen?: Store;
  purging: Map<number, Promise<void>>;
  stopping: boolean;
}

/** The service's `this`: Moleculer's service, its own methods and variables. */
interface Self extends Service, PlatformMethods, PlatformVars {}

/** A path id: a positive integer, else 404 (no such site or key). */
function pathId(v: unknown): number {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new ApiError("rest_site_not_found", 404);
  return n;
}

const tick = () => new Promise(resolve => setImmediate(resolve));

const methods = {
  sites(): SiteStore {
    const sites = this.storeOpen?.sites;
    // every store holds sites (SQL: store/sites.ts, MongoDB: store/mongo/sites.ts); none until it is open
    if (!sites) throw new ApiError("rest_service_unavailable", 503);
    return sites;
  },

  async siteOr404(id: unknown): Promise<SiteRow> {
    const row = await this.sites().byId(pathId(id));
    if (!row || row.deleting) throw new ApiError("rest_site_not_found", 404);
    return row;
  },

  /** Removes a deleted site's records, chunk by chunk, then its row (one run per site in this process). */
  purge(id: number): Promise<void> {
    let run = this.purging.get(id);
    if (!run) {
      run = (async () => {
        try {
          while (!this.stopping && !(await this.sites().purgeChunk(id, PURGE_CHUNK))) await tick();
        } catch (err) {
          this.logger.warn(`Removing the records of deleted site ${id} stopped: ${(err as Error).message} (resumed at the next start)`);
        } finally {
          this.purging.delete(id);
        }
      })();
      this.purging.set(id, run);
    }
    return run;
  },

  async changed(): Promise<void> {
    await this.broker.cacher?.clean();
    if (this.broker.transit) await this.broker.broadcast(CACHE_CLEAN_EVENT, {});
  }
} satisfies ThisType<Self>;
type PlatformMethods = typeof methods;

const PlatformService: ServiceSchema<ServiceSettingSchema, PlatformMethods, PlatformVars, Self> = {
  name: "platform",

  actions: {
    doc: {
      handler(): Record<string, unknown> {
        return platformDocument(deploymentSettings().baseUrl);
      }
    },

    list: {
      async handler(ctx: Ctx<{ page?: unknown; per_page?: unknown }>) {
        const paging = pageOf(ctx.params);
        if ("bad" in paging) throw ApiError.invalidParam(paging.bad);
        // The default site is the first entry of the first page (id 1).
        const offset = (paging.page - 1) * paging.perPage;
        const { rows, total } = await this.sites().list(Math.max(0, offset - 1), offset === 0 ? paging.perPage - 1 : paging.perPage);
        const sites: SiteAnswer[] = [...(offset === 0 ? [defaultSiteAnswer(deploymentSettings())] : []), ...rows.map(siteAnswer)];
        const all = total + 1;
        const pages = Math.max(1, Math.ceil(all / paging.perPage));
        answerTotals(ctx.meta, all, pages);
        return { sites, total: all, total_pages: pages };
      }
    },

    get: {
      async handler(ctx: Ctx<IdParams>): Promise<SiteAnswer> {
        if (pathId(ctx.params.id) === DEFAULT_SITE_ID) return defaultSiteAnswer(deploymentSettings());
        return siteAnswer(await this.siteOr404(ctx.params.id));
      }
    },

    /**
     * How often the site's clients used each deprecated route, parameter or field (docs/api-policy.md#deprecations):
     * `{<deprecation id>: {count, last_used_utc}}`, counted by the gateways in the site's store.
     */
    deprecations: {
      async handler(ctx: Ctx<IdParams>) {
        const id = pathId(ctx.params.id);
        if (id !== DEFAULT_SITE_ID) await this.siteOr404(ctx.params.id);
        return ctx.call("api.deprecationUses", {}, { meta: { site: id } });
      }
    },

    create: {
      async handler(ctx: Ctx<SiteInput>) {
        const fields = siteFields(ctx.params);
        if (fields.host === hostOfUrl(deploymentSettings().baseUrl)) throw new ApiError("rest_site_exists", 409);
        const apiKey = newApiKey();
        try {
          const { site } = await this.sites().create(fields, hashApiKey(apiKey));
          // every node's per-site work (the webhooks' passes) knows the site at once
          this.broker.broadcast(SITE_CREATED, { site: site.id }).catch(() => undefined);
          ctx.meta.$statusCode = 201;
          // a created resource names its address (RFC 9110 §15.3.2)
          ctx.meta.$location = `${deploymentSettings().baseUrl}/platform/v1/sites/${site.id}`;
          return { ...siteAnswer(site), api_key: apiKey };
        } catch (err) {
          if (isUniqueViolation(err)) throw new ApiError("rest_site_exists", 409);
          throw err;
        }
      }
    },

    update: {
      async handler(ctx: Ctx<SiteInput & IdParams>): Promise<SiteAnswer> {
        if (pathId(ctx.params.id) === DEFAULT_SITE_ID) throw new ApiError("rest_site_default", 409);
        const current = await this.siteOr404(ctx.params.id);
        const { id: _id, ...input } = ctx.params;
        const fields: SiteFields = siteFields(input, current);
        if (fields.host === hostOfUrl(deploymentSettings().baseUrl)) throw new ApiError("rest_site_exists", 409);
        try {
          const updated = await this.sites().update(current.id, fields);
          if (!updated) throw new ApiError("rest_site_not_found", 404);
          // Kept answers carry the site's links, dates and geolocation answers: none may outlive the change.
          await this.changed();
          return siteAnswer(updated);
        } catch (err) {
          if (isUniqueViolation(err)) throw new ApiError("rest_site_exists", 409);
          throw err;
        }
      }
    },

    remove: {
      async handler(ctx: Ctx<IdParams>) {
        const id = pathId(ctx.params.id);
        if (id === DEFAULT_SITE_ID) throw new ApiError("rest_site_default", 409);
        await this.siteOr404(id);
        // From here on its host answers 404 on every gateway (C50: deleting a site); its records go in the background.
        if (!(await this.sites().markDeleting(id))) throw new ApiError("rest_site_not_found", 404);
        void this.purge(id);
        return { id, deleted: true };
      }
    },

    createKey: {
      async handler(ctx: Ctx<IdParams & { role?: unknown; user_id?: unknown }>) {
        if (pathId(ctx.params.id) === DEFAULT_SITE_ID) throw new ApiError("rest_site_default", 409);
        const site = await this.siteOr404(ctx.params.id);
        const { role, userId } = keyFields(ctx.params);
        const key = newApiKey();
        const row = await this.sites().addKey(site.id, hashApiKey(key), role, userId);
        ctx.meta.$statusCode = 201;
        return { id: row.id, key, role: row.role, user_id: row.user_id };
      }
    },

    removeKey: {
      async handler(ctx: Ctx<IdParams>) {
        if (pathId(ctx.params.id) === DEFAULT_SITE_ID) throw new ApiError("rest_site_default", 409);
        const site = await this.siteOr404(ctx.params.id);
        const keyId = pathId(ctx.params.key_id);
        if (!(await this.sites().removeKey(site.id, keyId))) throw new ApiError("rest_site_not_found", 404);
        return { id: keyId, deleted: true };
      }
    }
  },

  methods,

  created() {
    this.purging = new Map();
    this.stopping = false;
  },

  async started() {
    this.storeOpen = await acquireStore(storeConfig());
    // Sites whose deletion a stopped node left unfinished.
    for (const id of (await this.storeOpen.sites?.deletingIds()) ?? []) void this.purge(id);
  },

  async stopped() {
    this.stopping = true;
    await Promise.all([...this.purging.values()]);
    if (this.storeOpen) {
      this.storeOpen = undefined;
      await releaseStore(storeConfig());
    }
  }
};

/** Typed with its own `this` above; services/index.ts takes the plain schema type. */
export default serviceSchema(PlatformService);
