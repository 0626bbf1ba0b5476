/**
 * The webhooks service (optional; any number of nodes): a site's administrators' endpoints, and every
 * change of the change feed POSTed to each matching endpoint, signed as Standard Webhooks 1.0 says
 * (docs/webhooks.md, C63: what a webhook says). The service wires the webhooks domain (domain/webhooks/) and runs its passes:
 *
 * - Routes (lib/http/routes.ts): `POST|GET {ns}/webhooks`, `GET|POST|DELETE {ns}/webhooks/{id}`,
 *   `POST {ns}/webhooks/{id}/secret`, `GET {ns}/webhooks/{id}/deliveries`,
 *   `POST {ns}/webhooks/{id}/deliveries/{delivery_id}/retry`: domain/webhooks/webhook-endpoints.ts.
 * - Fan-out, the feed as the outbox: domain/webhooks/webhook-fan-out.ts.
 * - Sending, one claimed attempt at a time: domain/webhooks/webhook-sender.ts.
 * - Passes and wake-ups (here): per site on this node, one pass at a time, a fan-out step then the
 *   sending; woken by the bus events `calendar.<type>.<action>` and `webhooks.changed`, and a poll
 *   (WEBHOOK_POLL_MS). The write path never waits for any of this. The retention job (here) removes old
 *   deliveries and payloads, one node per site and period.
 *
 * Pure rules live in lib/webhooks/*, the records in store/webhooks.ts, the request in net/outbound.ts.
 */
import { randomUUID } from "crypto";
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { StoreMixin, type StoreFace } from "../mixins/store.mixin";
import type { Ctx } from "../broker/context";
import { serviceSchema } from "../broker/service-schema";
import { ApiError } from "../lib/errors";
import { deploymentSettings } from "../lib/settings";
import { sealingKey } from "../lib/webhooks/signing";
import type { EndpointDoc } from "../lib/webhooks/present";
import { WEBHOOK_PARAMS } from "../lib/webhooks/params";
import type { Resolver } from "../net/outbound";
import { ENDPOINTS, ENDPOINT_INDEXES, openWebhookStore, WebhookStore } from "../store/webhooks";
import { currentSiteId } from "../lib/sites/scope";
import { SITE_CREATED } from "../lib/sites/site-events";
import {
  WebhookEndpoints, type DeliveryListParams, type ReplayParams, type RetryParams, type RotateParams, type WebhookCreateParams,
  type WebhookListParams, type WebhookUpdateParams
} from "../domain/webhooks/webhook-endpoints";
import { WebhookFanOut } from "../domain/webhooks/webhook-fan-out";
import { WebhookSender } from "../domain/webhooks/webhook-sender";
import { PayloadCache } from "../domain/webhooks/payload-cache";
import type { RecordRenderer, SitePasses, SiteWork } from "../domain/webhooks/webhook-ports";

/** Old deliveries or payloads removed per statement by the retention job (bounded batches). */
const RETENTION_BATCH = 500;
/** How long a site's list of endpoints is used before it is read again (the bus's `webhooks.changed` empties it). */
const ENDPOINTS_TTL_MS = 5_000;
/** How long the list of sites is used before it is read again. */
const SITES_TTL_MS = 30_000;

export const WEBHOOKS_CHANGED = "webhooks.changed";

const methods = {
  // The store -------------------------------------------------------------------------------------------

  /** The current site's webhook records. */
  webhookRecords(): WebhookStore {
    if (!this.webhookStore) throw new ApiError("rest_service_unavailable", 503);
    return this.webhookStore;
  },

  /** No kept answer depends on the webhooks' records (the gateway keeps none of their routes). */
  async cleanCaches(_patterns?: string[]): Promise<void> {
    /* nothing to clean */
  },

  /** Called by the store mixin once the store is open: the other collections and their indexes. */
  async storeConnected(): Promise<void> {
    this.webhookStore = await openWebhookStore(this.storeHandle!, this.store);
  },

  // Wake-ups ------------------------------------------------------------------------------------------------

  /** Every webhooks node forgets the site's endpoints it kept and looks for work. */
  endpointsChanged(): void {
    const site = currentSiteId();
    this.work(site).endpoints = undefined;
    this.broker.broadcast(WEBHOOKS_CHANGED, { site }).catch(() => undefined);
    this.wake(site);
  },

  work(site: number): SiteWork {
    let w = this.sites.get(site);
    if (!w) {
      w = { running: false, again: false, fanOut: false, turn: 0 };
      this.sites.set(site, w);
    }
    return w;
  },

  /**
   * A pass for the site, now or right after the one running: a fan-out (when new changes may have been
   * recorded) then the sending of what is due. An attempt's end asks only for sending.
   */
  wake(site: number, fanOut = true): void {
    if (this.stopping) return;
    const w = this.work(site);
    if (fanOut) w.fanOut = true;
    if (w.running) {
      w.again = true;
      return;
    }
    w.running = true;
    w.again = false;
    setImmediate(() => {
      const fan = w.fanOut;
      w.fanOut = false;
      this.inSite(site, () => this.pass(site, fan))
        .catch((err: Error) => this.logger.warn(`Webhooks of site ${site}: ${err.message}`))
        .finally(() => {
          w.running = false;
          if (w.again && !this.stopping) this.wake(site, false);
        });
    });
  },

  /**
   * Every site (the list read again now and then, a safety net: a new site is known at once through
   * `knowSite`). A read that began before a site was made into the list never takes it out again.
   */
  async wakeAll(): Promise<void> {
    if (!this.siteList || Date.now() - this.siteList.at > SITES_TTL_MS) {
      const read = await this.siteIds();
      this.siteList = { at: Date.now(), ids: [...new Set([...read, ...this.newSites])] };
      this.newSites.clear();
    }
    for (const id of this.siteList.ids) this.wake(id);
  },

  /** A site this node is to visit from now on (made on some node, or named by a change). */
  knowSite(site: number): void {
    if (this.siteList && !this.siteList.ids.includes(site)) this.siteList.ids.push(site);
    this.newSites.add(site);
  },

  /** The site's endpoints, kept a few seconds. */
  async endpointsOf(site: number): Promise<EndpointDoc[]> {
    const w = this.work(site);
    if (!w.endpoints || Date.now() - w.endpoints.at > ENDPOINTS_TTL_MS) w.endpoints = { at: Date.now(), list: await this.webhookRecords().allEndpoints() };
    return w.endpoints.list;
  },

  // Passes ----------------------------------------------------------------------------------------------

  async pass(site: number, fanOut: boolean): Promise<void> {
    const endpoints = await this.endpointsOf(site);
    if (!endpoints.length) return;
    // one fan-out step, then the sending: a fan-out kept behind by a stream of writes never holds back the
    // deliveries already made (they went out only once it caught up); the next step follows at once
    const more = fanOut && (await this.fan.fanOut(site));
    await this.sender.sendDue(site);
    if (more) this.wake(site);
  },

  /** Hands the fan-out leases this node holds over (a graceful stop). */
  async releaseLeases(): Promise<void> {
    for (const site of this.sites.keys()) await this.inSite(site, () => this.webhookRecords().releaseCursor(this.owner)).catch(() => undefined);
  },

  /**
   * Removes the site's deliveries and payloads older than WEBHOOK_RETENTION_DAYS, in bounded batches, when
   * this node takes the site's turn (a conditional write in the store: one node per site and period).
   */
  async retain(site: number): Promise<void> {
    const cfg = deploymentSettings().webhooks;
    const records = this.webhookRecords();
    if (!(await records.claimRetention(this.owner, Date.now(), cfg.retentionJobMs))) return;
    const cutoff = Date.now() - cfg.retentionDays * 86_400_000;
    let removed = 0;
    for (;;) {
      if (this.stopping) return;
      const n = await records.removeOlder(cutoff, RETENTION_BATCH);
      removed += n;
      if (n === 0) break;
    }
    if (removed) this.logger.info(`Webhooks of site ${site}: ${removed} deliveries and payloads older than ${cfg.retentionDays} days removed`);
  },

  /** The retention job's pass over every site. */
  async retainAll(): Promise<void> {
    for (const site of await this.siteIds()) {
      if (this.stopping) return;
      await this.inSite(site, () => this.retain(site)).catch((err: Error) => this.logger.warn(`Webhooks retention of site ${site}: ${err.message}`));
    }
  },

  /** Another pass of the site in `ms` (at most one waiting per site). */
  retryLater(site: number, ms: number): void {
    if (this.later.has(site) || this.stopping) return;
    const timer = setTimeout(() => {
      this.later.delete(site);
      this.wake(site);
    }, ms);
    timer.unref?.();
    this.later.set(site, timer);
  }
} satisfies ThisType<WebhooksSelf>;

type WebhooksMethods = typeof methods;
interface WebhooksVars {
  webhookStore?: WebhookStore;
  sealing?: Buffer;
  owner: string;
  sites: Map<number, SiteWork>;
  siteList?: { at: number; ids: number[] };
  /** Sites made known since the list was last read (kept in through a read that began before them). */
  newSites: Set<number>;
  later: Map<number, NodeJS.Timeout>;
  pollTimer?: NodeJS.Timeout;
  retentionTimer?: NodeJS.Timeout;
  stopping: boolean;
  /** Tests: a resolver of their own for endpoint names (net/outbound.ts). */
  resolver?: Resolver;
  // the webhooks domain (domain/webhooks/), built in created()
  endpoints: WebhookEndpoints;
  fan: WebhookFanOut;
  sender: WebhookSender;
}
/** The service's `this`: Moleculer's service, the store mixin's face, and its own methods and variables. */
interface WebhooksSelf extends Service, StoreFace, WebhooksMethods, WebhooksVars {}

const lifecycle = {
  init(this: WebhooksSelf): void {
    this.owner = `${this.broker.nodeID}:${randomUUID()}`;
    this.sites = new Map();
    this.later = new Map();
    this.newSites = new Set();
    this.stopping = false;
    this.sealing = sealingKey(deploymentSettings().webhooks.secretKey);
    const passes: SitePasses = {
      store: () => this.webhookRecords(),
      work: site => this.work(site),
      endpointsOf: site => this.endpointsOf(site),
      wake: (site, fanOut) => this.wake(site, fanOut),
      retryLater: (site, ms) => this.retryLater(site, ms),
      endpointsChanged: () => this.endpointsChanged(),
      inSite: (site, fn) => this.inSite(site, fn)
    };
    const renderer: RecordRenderer = {
      renderDocs: (owner, docs, meta) => this.broker.call(`${owner}.renderDocs`, { docs }, { meta }),
      changeRecords: (owner, ids, meta) => this.broker.call(`${owner}.changeRecords`, { ids, anyStatus: true }, { meta })
    };
    const payloads = new PayloadCache();
    this.fan = new WebhookFanOut({ passes, owner: this.owner, payloads, renderer });
    this.sender = new WebhookSender({ passes, payloads, sealing: this.sealing, resolver: () => this.resolver, logger: this.logger });
    this.endpoints = new WebhookEndpoints({ passes, sealing: this.sealing, render: entries => this.fan.render(entries) });
  },

  poll(this: WebhooksSelf): void {
    this.wakeAll().catch((err: Error) => this.logger.warn(`Webhooks: ${err.message}`));
    this.pollTimer = setTimeout(() => lifecycle.poll.call(this), deploymentSettings().webhooks.pollMs);
    this.pollTimer.unref?.();
  },

  retention(this: WebhooksSelf): void {
    const every = deploymentSettings().webhooks.retentionJobMs;
    // each node looks as often as the period; the store hands each site's turn to one of them
    this.retentionTimer = setTimeout(() => {
      this.retainAll()
        .catch((err: Error) => this.logger.warn(`Webhooks retention: ${err.message}`))
        .finally(() => {
          if (!this.stopping) lifecycle.retention.call(this);
        });
    }, Math.min(every, 60_000));
    this.retentionTimer.unref?.();
  },

  async stop(this: WebhooksSelf): Promise<void> {
    this.stopping = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.retentionTimer);
    for (const timer of this.later.values()) clearTimeout(timer);
    // attempts in flight end (an unsettled one is taken over after its lease); passes see `stopping`
    await Promise.allSettled([...this.sender.attempts]);
    const deadline = Date.now() + 5000;
    while ([...this.sites.values()].some(w => w.running) && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20));
    await this.releaseLeases();
  }
};

const WebhooksService: ServiceSchema<ServiceSettingSchema, WebhooksMethods, WebhooksVars, WebhooksSelf> = {
  name: "webhooks",
  // PostgreSQL: a pool of its own (WEBHOOK_DATABASE_POOL_MAX), so deliveries never queue behind record writes
  mixins: [StoreMixin({ collection: ENDPOINTS, indexes: ENDPOINT_INDEXES, config: () => ({ pool: "webhooks", poolMax: deploymentSettings().webhooks.poolMax }) })],

  actions: {
    list: { params: WEBHOOK_PARAMS.list, handler(ctx: Ctx<WebhookListParams>) { return this.endpoints.listEndpoints(ctx); } },
    create: { params: WEBHOOK_PARAMS.create, handler(ctx: Ctx<WebhookCreateParams>) { return this.endpoints.createEndpoint(ctx); } },
    get: { params: WEBHOOK_PARAMS.get, handler(ctx: Ctx<{ id: number }>) { return this.endpoints.endpoint(ctx); } },
    update: { params: WEBHOOK_PARAMS.update, handler(ctx: Ctx<WebhookUpdateParams>) { return this.endpoints.updateEndpoint(ctx); } },
    remove: { params: WEBHOOK_PARAMS.remove, handler(ctx: Ctx<{ id: number }>) { return this.endpoints.removeEndpoint(ctx); } },
    rotateSecret: { params: WEBHOOK_PARAMS.rotateSecret, handler(ctx: Ctx<RotateParams>) { return this.endpoints.rotateSecret(ctx); } },
    deliveries: { params: WEBHOOK_PARAMS.deliveries, handler(ctx: Ctx<DeliveryListParams>) { return this.endpoints.listDeliveries(ctx); } },
    ping: { params: WEBHOOK_PARAMS.ping, handler(ctx: Ctx<{ id: number }>) { return this.endpoints.ping(ctx); } },
    // internal (no route): an idempotent create's answer read again by the gateway
    createdAnswer: { visibility: "public", params: WEBHOOK_PARAMS.get, handler(ctx: Ctx<{ id: number }>) { return this.endpoints.createdAnswer(ctx); } },
    replay: { params: WEBHOOK_PARAMS.replay, handler(ctx: Ctx<ReplayParams>) { return this.endpoints.replay(ctx); } },
    retry: { params: WEBHOOK_PARAMS.retry, handler(ctx: Ctx<RetryParams>) { return this.endpoints.retryDelivery(ctx); } }
  },

  events: {
    // a change was recorded: the event carries its site (middlewares/site-scope.middleware.ts), whose pass runs now
    "calendar.**"() {
      this.knowSite(currentSiteId());
      this.wake(currentSiteId());
    },
    // a site made through the platform API, on any node: known at once (not at the next read of the list)
    [SITE_CREATED](ctx: Context<{ site?: number }>) {
      const site = ctx.params?.site;
      if (typeof site === "number") this.knowSite(site);
    },
    [WEBHOOKS_CHANGED](ctx: Context<{ site?: number }>) {
      const site = ctx.params?.site;
      if (typeof site !== "number") return;
      this.work(site).endpoints = undefined;
      this.siteList = undefined;
      this.wake(site);
    }
  },

  methods,

  created() {
    lifecycle.init.call(this);
  },

  started() {
    lifecycle.poll.call(this);
    lifecycle.retention.call(this);
  },

  stopped() {
    return lifecycle.stop.call(this);
  }
};

export default serviceSchema(WebhooksService);
