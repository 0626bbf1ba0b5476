/**
 * The webhooks service (optional; any number of nodes): a site's administrators' endpoints, and every
 * change of the change feed POSTed to each matching endpoint, signed as Standard Webhooks 1.0 says
 * (docs/webhooks.md, C63).
 *
 * - Routes (lib/routes.ts): `POST|GET {ns}/webhooks`, `GET|POST|DELETE {ns}/webhooks/{id}`,
 *   `POST {ns}/webhooks/{id}/secret`, `GET {ns}/webhooks/{id}/deliveries`,
 *   `POST {ns}/webhooks/{id}/deliveries/{delivery_id}/retry`. Administrators only.
 * - Fan-out: the feed is the outbox (each write stores its entry in its own transaction, C42). Per site,
 *   one node at a time (a lease in the store) reads the entries after the fan-out cursor, stops at a young
 *   gap as `/changes` does, renders each changed record once (the owner's `changeRecords`) and adds one
 *   delivery per matching endpoint (unique per endpoint and change), then moves the cursor on.
 * - Sending: due deliveries are claimed one attempt at a time by a compare-and-set in the store; a
 *   delivery waits while an earlier one of the same record to the same endpoint is pending; attempts in
 *   flight are bounded per node and per endpoint, so a slow endpoint holds only its own share.
 * - Wake-ups: the bus events `calendar.<type>.<action>` and `webhooks.changed`, and a poll
 *   (WEBHOOK_POLL_MS). The write path never waits for any of this.
 *
 * Pure rules live in lib/webhooks/*, the records in store/webhooks.ts, the request in net/outbound.ts.
 */
import { randomUUID } from "crypto";
import type { Context, Service, ServiceSchema } from "moleculer";
import { StoreMixin, type StoreFace } from "../mixins/store.mixin";
import { feedHorizon } from "../store/sql/feed";
import type { Ctx } from "../broker/context";
import { ApiError } from "../lib/errors";
import { settings, deploymentSettings, NAMESPACE_PATH } from "../lib/settings";
import { nowDb } from "../lib/dates";
import { contiguousPrefix, GAP_GRACE_MS, ownerOf, changeKey, type ChangeDoc } from "../lib/changes/feed";
import { ALL_EVENTS, deliveredType, matchesEvent } from "../lib/webhooks/events";
import { deliveryHeaders, newSecret, openSecret, sealingKey, sealSecret } from "../lib/webhooks/signing";
import { attemptOutcome, shouldDisable } from "../lib/webhooks/schedule";
import { deliveryIdOfKey, deliveryKey, payloadOf, parseDeliveryId, pingPayload, PING_TYPE, recordRestUrl } from "../lib/webhooks/payload";
import { presentDelivery, presentEndpoint, type DeliveryDoc, type DeliveryOut, type EndpointDoc, type EndpointOut } from "../lib/webhooks/present";
import { DEFAULT_PER_PAGE, isoInstantMs, MAX_PER_PAGE, REPLAY_MAX, WEBHOOK_PARAMS } from "../lib/webhooks/params";
import { checkOutboundUrl } from "../lib/outbound/addresses";
import { OutboundRefused, outboundRequest, type Resolver } from "../net/outbound";
import {
  CURSORS, CURSOR_INDEXES, DELIVERIES, DELIVERY_INDEXES, ENDPOINTS, ENDPOINT_INDEXES, PAYLOADS, PAYLOAD_INDEXES, WebhookStore, type Settlement
} from "../store/webhooks";
import { SqlDeliveries } from "../store/sql/webhook-deliveries";
import { Batches } from "../lib/webhooks/batches";
import { shareRoom } from "../lib/webhooks/rooms";
import { siteCollection } from "../store/site-collection";
import { FEED_COLLECTION } from "../store/collection";
import type { Store } from "../store";
import { currentSiteId } from "../lib/sites/scope";
import { SITE_CREATED } from "../lib/sites/site-events";

/** Feed entries read per fan-out step. */
const FAN_OUT_BATCH = 200;
/** How many of an endpoint's due deliveries a claim looks at, per attempt it may start (the others wait behind an earlier one of their record, and are parked). */
const CLAIM_SCAN_PER_ROOM = 4;
/** How long a fan-out lease lasts without being renewed (a dead node's is taken over after it). */
const FAN_OUT_LEASE_MS = 30_000;
/** What an attempt's lease adds to its timeout (a dead node's attempt is made again after it). */
const ATTEMPT_LEASE_MARGIN_MS = 15_000;
/** Old deliveries or payloads removed per statement by the retention job (bounded batches). */
const RETENTION_BATCH = 500;
/** The default overlap of a rotated-out secret (hours). */
const DEFAULT_OVERLAP_HOURS = 24;
/** Kept payload bodies per node (immutable once written). */
const PAYLOAD_CACHE = 2000;
/** How long a site's list of endpoints is used before it is read again (the bus's `webhooks.changed` empties it). */
const ENDPOINTS_TTL_MS = 5_000;
/** How long the list of sites is used before it is read again. */
const SITES_TTL_MS = 30_000;

export const WEBHOOKS_CHANGED = "webhooks.changed";

export interface WebhookCreateParams { url: string; events?: string[]; description?: string; secret?: string }
export interface WebhookUpdateParams { id: number; url?: string; events?: string[]; description?: string; active?: boolean }
export interface WebhookListParams { page?: number; per_page?: number }
export interface DeliveryListParams { id: number; page?: number; per_page?: number; status?: string; type?: string; after?: string; before?: string }
export interface RotateParams { id: number; overlap_hours?: number }
export interface ReplayParams { id: number; after: string; before: string }
export interface RetryParams { id: number; delivery_id: string }

/** Per site, on this node: whether a pass runs, and whether another was asked for meanwhile. */
interface SiteWork {
  running: boolean;
  again: boolean;
  /** Whether the next pass fans out too (new changes may be in the feed), or only sends. */
  fanOut: boolean;
  endpoints?: { at: number; list: EndpointDoc[] };
  /** Which endpoint the next pass shares the node's room out from. */
  turn: number;
  /** The attempts' results being recorded, in batches. */
  settlements?: Batches<Settlement, boolean>;
}

const methods = {
  // Routed operations -----------------------------------------------------------------------------------

  /** Administrators only (the trusted internal caller too): 401 anonymous, 403 other roles. */
  mayManage(ctx: Ctx<object>): void {
    const who = ctx.meta.caller;
    if (who === undefined) return;
    if (who === null || who.role !== "administrator") throw ApiError.forbidden(who === null);
  },

  /** The URL refused by the outbound address rules: 400 naming `url`. */
  checkUrl(url: string): void {
    const checked = checkOutboundUrl(url, deploymentSettings().outboundAllowPrivate);
    if (!checked.ok) throw ApiError.invalidParam("url", checked.reason === "invalid" || checked.reason === "scheme" ? "param.url" : "param.invalid");
  },

  /** The endpoint of a path id: 404 `rest_no_route` when the site has none of that id (as imports answer). */
  async findEndpoint(id: number): Promise<EndpointDoc> {
    const doc = await this.ws().endpoint(id);
    if (!doc) throw ApiError.noRoute();
    return doc;
  },

  async createEndpoint(ctx: Ctx<WebhookCreateParams>): Promise<EndpointOut> {
    this.mayManage(ctx);
    const p = ctx.params;
    this.checkUrl(p.url);
    const ws = this.ws();
    const secret = p.secret ?? newSecret();
    const end = await ws.feedEnd();
    // the site's fan-out starts at the first endpoint: earlier changes are no endpoint's (C63)
    await ws.ensureCursor(end);
    const doc = await ws.createEndpoint({
      url: p.url, events: p.events ?? ALL_EVENTS, description: p.description ?? "", active: true, secret: sealSecret(secret, this.sealing),
      created_utc: nowDb(), after_seq: end
    });
    this.endpointsChanged();
    const s = settings();
    const location = `${ctx.meta.apiRoot ?? `${s.baseUrl}/${s.restPrefix}`}/${NAMESPACE_PATH}/webhooks/${doc._id}`;
    ctx.meta.$statusCode = 201;
    ctx.meta.$location = location;
    ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), Location: location };
    // sent with an Idempotency-Key: the gateway keeps the answer without its body (which holds the secret),
    // and a repeat reads it again through `createdAnswer` (the secret stays only in the endpoint, sealed
    // under WEBHOOK_SECRET_KEY when set)
    if (ctx.meta.idempotencyClaim) ctx.meta.$answerRefill = { read: "webhooks.createdAnswer", id: doc._id };
    return presentEndpoint(doc, secret);
  },

  /** The create's answer again (a repeat of an idempotent create): the endpoint with its secret. */
  async createdAnswer(ctx: Ctx<{ id: number }>): Promise<EndpointOut> {
    this.mayManage(ctx);
    const doc = await this.findEndpoint(ctx.params.id);
    return presentEndpoint(doc, openSecret(doc.secret, this.sealing));
  },

  async listEndpoints(ctx: Ctx<WebhookListParams>): Promise<EndpointOut[]> {
    this.mayManage(ctx);
    const perPage = Math.min(ctx.params.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
    const page = ctx.params.page ?? 1;
    const { total, docs } = await this.ws().endpoints({ skip: (page - 1) * perPage, limit: perPage });
    this.pagingHeaders(ctx, total, perPage);
    return docs.map(d => presentEndpoint(d));
  },

  async updateEndpoint(ctx: Ctx<WebhookUpdateParams>): Promise<EndpointOut> {
    this.mayManage(ctx);
    const p = ctx.params;
    const current = await this.findEndpoint(p.id);
    if (p.url !== undefined) this.checkUrl(p.url);
    const set: Record<string, unknown> = {};
    const unset: Record<string, 1> = {};
    if (p.url !== undefined) set.url = p.url;
    if (p.events !== undefined) set.events = p.events;
    if (p.description !== undefined) set.description = p.description;
    if (p.active !== undefined) {
      set.active = p.active;
      // made active again by hand: a fresh start (its reason and its failing streak go)
      if (p.active && !current.active) Object.assign(unset, { failure_reason: 1, failing_since: 1 });
    }
    const update = { ...(Object.keys(set).length ? { $set: set } : {}), ...(Object.keys(unset).length ? { $unset: unset } : {}) };
    const doc = Object.keys(update).length ? await this.ws().updateEndpoint(p.id, update) : current;
    if (!doc) throw ApiError.noRoute();
    // made inactive: it is sent nothing more, not even a retry already scheduled (its pending deliveries
    // fail; the manual retry or a replay sends one again once it is active)
    if (p.active === false) await this.ws().failPending(doc._id);
    this.endpointsChanged();
    return presentEndpoint(doc);
  },

  async removeEndpoint(ctx: Ctx<{ id: number }>): Promise<EndpointOut & { deleted: true }> {
    this.mayManage(ctx);
    const current = await this.findEndpoint(ctx.params.id);
    await this.ws().removeEndpoint(current._id);
    this.endpointsChanged();
    return { ...presentEndpoint(current), deleted: true };
  },

  /**
   * A new secret; the old one keeps signing beside it for `overlap_hours` (default 24; 0: not at all), so
   * a receiver that still holds it verifies every delivery meanwhile (Standard Webhooks' several signatures).
   */
  async rotateSecret(ctx: Ctx<RotateParams>): Promise<EndpointOut> {
    this.mayManage(ctx);
    const secret = newSecret();
    const hours = ctx.params.overlap_hours ?? DEFAULT_OVERLAP_HOURS;
    // a compare-and-set on the secret read: of two rotations at once, the later one keeps the earlier's
    // secret as its old one (read again), never one that no answer gave out
    for (let round = 0; ; round++) {
      // another rotation won each round: a store that keeps refusing is away (503), never a loop
      if (round === 20) throw new ApiError("rest_service_unavailable", 503);
      const current = await this.findEndpoint(ctx.params.id);
      const update = hours > 0 ? { $set: { secret: sealSecret(secret, this.sealing), previous_secret: current.secret, previous_until: Date.now() + Math.round(hours * 3_600_000) } }
        : { $set: { secret: sealSecret(secret, this.sealing) }, $unset: { previous_secret: 1, previous_until: 1 } };
      const doc = await this.ws().updateEndpoint(ctx.params.id, update, { secret: current.secret });
      if (!doc) continue;
      this.endpointsChanged();
      return presentEndpoint(doc, secret);
    }
  },

  async listDeliveries(ctx: Ctx<DeliveryListParams>): Promise<DeliveryOut[]> {
    this.mayManage(ctx);
    const endpoint = await this.findEndpoint(ctx.params.id);
    const perPage = Math.min(ctx.params.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
    const page = ctx.params.page ?? 1;
    const p = ctx.params;
    const filter = { status: p.status, type: p.type, afterMs: isoInstantMs(p.after), beforeMs: isoInstantMs(p.before) };
    const { total, docs } = await this.ws().deliveries(endpoint._id, { skip: (page - 1) * perPage, limit: perPage }, filter);
    this.pagingHeaders(ctx, total, perPage);
    return docs.map(presentDelivery);
  },

  /** A `webhook.ping` delivery to the endpoint, through the same path as every delivery (and logged). */
  async ping(ctx: Ctx<{ id: number }>): Promise<DeliveryOut> {
    this.mayManage(ctx);
    const endpoint = await this.findEndpoint(ctx.params.id);
    const now = Date.now();
    const tag = `p${randomUUID().replace(/-/g, "").slice(0, 20)}`;
    const doc: Omit<DeliveryDoc, "_id"> = {
      key: deliveryKey(endpoint._id, 0, tag), endpoint: endpoint._id, seq: 0, chain: `${endpoint._id}:${tag}`, type: PING_TYPE, record_id: 0,
      status: "pending", attempts: 0, base: 0, due: now, last_status_code: null, delivered_utc: null, at: now, body: JSON.stringify(pingPayload(endpoint._id, now))
    };
    await this.ws().addDeliveries([doc]);
    const made = await this.ws().delivery(endpoint._id, 0, tag);
    if (!made) throw ApiError.noRoute();
    this.wake(currentSiteId(), false);
    ctx.meta.$statusCode = 202;
    return presentDelivery(made);
  },

  /**
   * Fresh deliveries (new ids, marked as replays) of the endpoint's matching changes recorded in
   * [after, before), each with the record as of its change (the document its feed entry kept).
   */
  async replay(ctx: Ctx<ReplayParams>): Promise<{ queued: number }> {
    this.mayManage(ctx);
    const endpoint = await this.findEndpoint(ctx.params.id);
    const from = isoInstantMs(ctx.params.after)!;
    const to = isoInstantMs(ctx.params.before)!;
    if (to <= from) throw ApiError.invalidParam("before", "param.range");
    const ws = this.ws();
    const sql = this.storeHandle?.sql;
    const horizon = sql?.dialect === "postgres" ? await feedHorizon(sql) : undefined;
    // only what the fan-out has passed: a later change gets its own delivery anyway
    const upTo = await ws.cursorSeq();
    const found = (await ws.feedBetween(endpoint.after_seq, from, to, REPLAY_MAX, horizon)).filter(e => e._id <= upTo);
    const tag = `r${randomUUID().replace(/-/g, "").slice(0, 20)}`;
    const now = nowDb();
    const work = found.map(entry => ({ entry, eventType: deliveredType(entry, now) })).filter(w => w.eventType && matchesEvent(endpoint.events, w.eventType));
    const records = await this.renderEntries(work.filter(w => !w.eventType!.endsWith(".deleted")).map(w => w.entry));
    const s = settings();
    const at = Date.now();
    const docs: Array<Omit<DeliveryDoc, "_id">> = work.map(({ entry, eventType }) => ({
      key: deliveryKey(endpoint._id, entry._id, tag), endpoint: endpoint._id, seq: entry._id, chain: `${endpoint._id}:${tag}:${changeKey(entry.type, entry.id)}`, type: eventType!,
      record_id: entry.id, status: "pending", attempts: 0, base: 0, due: at, last_status_code: null, delivered_utc: null, at, replay: true,
      body: JSON.stringify(payloadOf({ eventType: eventType!, atMs: entry.at, sequence: entry._id, id: entry.id, restUrl: recordRestUrl(s.baseUrl, s.restPrefix, entry.type, entry.id), record: records.get(entry._id), replay: true }))
    }));
    await ws.addDeliveries(docs);
    this.wake(currentSiteId(), false);
    ctx.meta.$statusCode = 202;
    return { queued: docs.length };
  },

  async retryDelivery(ctx: Ctx<RetryParams>): Promise<DeliveryOut> {
    this.mayManage(ctx);
    const endpoint = await this.findEndpoint(ctx.params.id);
    const named = parseDeliveryId(ctx.params.delivery_id);
    const found = named && named.endpoint === endpoint._id ? await this.ws().delivery(endpoint._id, named.sequence, named.tag) : undefined;
    // a delivery id is opaque (C63): one that names no delivery of this endpoint, whatever its spelling, is unknown
    if (!found) throw ApiError.noRoute();
    const queued = await this.ws().requeue(found, Date.now());
    if (!queued) throw ApiError.noRoute();
    this.wake(currentSiteId());
    ctx.meta.$statusCode = 202;
    return presentDelivery(queued);
  },

  pagingHeaders(ctx: Ctx<object>, total: number, perPage: number): void {
    ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), "X-WP-Total": String(total), "X-WP-TotalPages": String(Math.ceil(total / perPage)) };
  },

  // The store -------------------------------------------------------------------------------------------

  /** The current site's webhook records. */
  ws(): WebhookStore {
    if (!this.webhookStore) throw new ApiError("rest_service_unavailable", 503);
    return this.webhookStore;
  },

  /** No kept answer depends on the webhooks' records (the gateway keeps none of their routes). */
  async cleanCaches(_patterns?: string[]): Promise<void> {
    /* nothing to clean */
  },

  /** Called by the store mixin once the store is open: the other collections and their indexes. */
  async storeConnected(): Promise<void> {
    const store = this.storeHandle!;
    for (const [name, indexes] of [[DELIVERIES, DELIVERY_INDEXES], [PAYLOADS, PAYLOAD_INDEXES], [CURSORS, CURSOR_INDEXES]] as const) await store.ensureIndexes(name, indexes);
    this.webhookStore = new WebhookStore({
      endpoints: this.store,
      deliveries: siteCollection(store, DELIVERIES, DELIVERY_INDEXES),
      payloads: siteCollection(store, PAYLOADS, PAYLOAD_INDEXES),
      cursor: siteCollection(store, CURSORS, CURSOR_INDEXES),
      feed: siteCollection(store, FEED_COLLECTION, []),
      sql: store.sql ? new SqlDeliveries(store.sql, currentSiteId) : undefined
    });
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
    if (!w.endpoints || Date.now() - w.endpoints.at > ENDPOINTS_TTL_MS) w.endpoints = { at: Date.now(), list: await this.ws().allEndpoints() };
    return w.endpoints.list;
  },

  // Passes ----------------------------------------------------------------------------------------------

  async pass(site: number, fanOut: boolean): Promise<void> {
    const endpoints = await this.endpointsOf(site);
    if (!endpoints.length) return;
    // one fan-out step, then the sending: a fan-out kept behind by a stream of writes never holds back the
    // deliveries already made (they went out only once it caught up); the next step follows at once
    const more = fanOut && (await this.fanOut(site));
    await this.sendDue(site);
    if (more) this.wake(site);
  },

  /**
   * One fan-out step: adds the deliveries of the changes after the cursor (at most FAN_OUT_BATCH of them)
   * while this node holds the site's fan-out lease (taken for the step, handed back at its end; a node that
   * dies lets it expire). A step with nothing new after the cursor takes no lease and writes nothing.
   * Answers whether more changes wait beyond the step's.
   */
  async fanOut(site: number): Promise<boolean> {
    const ws = this.ws();
    const cursor = await ws.cursor();
    if (!cursor || !(await ws.feedAfter(cursor.seq, 1)).length) return false;
    const claimed = await ws.claimCursor(this.owner, Date.now(), Date.now() + FAN_OUT_LEASE_MS);
    if (claimed === undefined) return false;
    const seq: number = claimed;
    // PostgreSQL numbers entries by their writing transaction: read only below the oldest one still running
    // (store/sql/feed.ts), whose gaps are final; the other stores number in commit order, a gap being a write
    // still committing
    const sql = this.storeHandle?.sql;
    try {
      const horizon = sql?.dialect === "postgres" ? await feedHorizon(sql) : undefined;
      const batch = await ws.feedAfter(seq, FAN_OUT_BATCH, horizon);
      // blocked: entries stand beyond what may be read yet (a young gap, or a transaction still running)
      const { entries, blocked } = horizon === undefined ? contiguousPrefix(seq, batch, Date.now(), GAP_GRACE_MS)
        : { entries: batch, blocked: batch.length < FAN_OUT_BATCH && (await ws.feedAfter(batch.at(-1)?._id ?? seq, 1)).length > 0 };
      if (!entries.length) {
        // a young gap: look again soon (a write still committing, or a number never used)
        if (blocked) this.retryLater(site, 200);
        return false;
      }
      const endpoints = (await this.endpointsOf(site)).filter(e => e.active);
      await this.fanOutEntries(site, entries, endpoints);
      if (!(await ws.advanceCursor(this.owner, entries[entries.length - 1]._id, Date.now(), Date.now() + FAN_OUT_LEASE_MS))) return false;
      if (blocked) {
        this.retryLater(site, 200);
        return false;
      }
      return batch.length === FAN_OUT_BATCH;
    } finally {
      await ws.releaseCursor(this.owner).catch(() => undefined);
    }
  },

  /** Hands the fan-out leases this node holds over (a graceful stop). */
  async releaseLeases(): Promise<void> {
    for (const site of this.sites.keys()) await this.inSite(site, () => this.ws().releaseCursor(this.owner)).catch(() => undefined);
  },

  /** The deliveries of some entries: payload once per change, one delivery per matching endpoint. */
  async fanOutEntries(site: number, entries: ChangeDoc[], endpoints: EndpointDoc[]): Promise<void> {
    const ws = this.ws();
    const now = nowDb();
    const work: Array<{ entry: ChangeDoc; eventType: string; targets: EndpointDoc[] }> = [];
    for (const entry of entries) {
      const eventType = deliveredType(entry, now);
      if (!eventType) continue;
      const targets = endpoints.filter(e => entry._id > e.after_seq && matchesEvent(e.events, eventType));
      if (targets.length) work.push({ entry, eventType, targets });
    }
    if (!work.length) return;
    const records = await this.renderEntries(work.filter(w => !w.eventType.endsWith(".deleted")).map(w => w.entry));
    const s = settings();
    const at = Date.now();
    const payloads: Array<{ seq: number; body: string; at: number }> = [];
    const inserts: Array<Omit<DeliveryDoc, "_id">> = [];
    for (const { entry, eventType, targets } of work) {
      const record = records.get(entry._id);
      const body = JSON.stringify(payloadOf({ eventType, atMs: entry.at, sequence: entry._id, id: entry.id, restUrl: recordRestUrl(s.baseUrl, s.restPrefix, entry.type, entry.id), record }));
      payloads.push({ seq: entry._id, body, at });
      this.keepPayload(site, entry._id, body);
      for (const target of targets) {
        inserts.push({
          key: deliveryKey(target._id, entry._id), endpoint: target._id, seq: entry._id, chain: `${target._id}:${changeKey(entry.type, entry.id)}`, type: eventType,
          record_id: entry.id, status: "pending", attempts: 0, base: 0, due: at, last_status_code: null, delivered_utc: null, at
        });
      }
    }
    // one statement each on SQL stores (store/sql/webhook-deliveries.ts): the payloads before the deliveries that send them
    await ws.putPayloads(payloads);
    await ws.addDeliveries(inserts);
  },

  /**
   * The record of each change as it stood right after that change (C63), as the site's administrator
   * reads it (context=edit: the trusted reader, who sees every field), in the site's default language, by
   * feed sequence: rendered by the owning service from the document the change's feed entry kept (written
   * in the write's transaction), so neither the fan-out's delay nor later changes alter it. An entry
   * without one (written before entries kept it, or a term's count moved by a database trigger) is
   * rendered from the record as it is now. One call per owning service and kind.
   */
  async renderEntries(entries: ChangeDoc[]): Promise<Map<number, Record<string, unknown>>> {
    const kept = new Map<string, ChangeDoc[]>();
    const live = new Map<string, ChangeDoc[]>();
    for (const e of entries) {
      const into = e.doc ? kept : live;
      const owner = ownerOf(e.type);
      if (!into.has(owner)) into.set(owner, []);
      into.get(owner)!.push(e);
    }
    const s = settings();
    const meta = { site: currentSiteId(), language: s.defaultLanguage, siteUrl: s.baseUrl, apiRoot: `${s.baseUrl}/${s.restPrefix}` };
    const out = new Map<number, Record<string, unknown>>();
    await Promise.all([
      ...[...kept].map(async ([owner, list]) => {
        const records = await this.broker.call<Array<Record<string, unknown>>, { docs: Array<Record<string, unknown>> }>(`${owner}.renderDocs`, { docs: list.map(e => e.doc!) }, { meta });
        list.forEach((e, i) => records?.[i] && out.set(e._id, records[i]));
      }),
      ...[...live].map(async ([owner, list]) => {
        const records = await this.broker.call<Record<string, Record<string, unknown>>, { ids: number[]; anyStatus: boolean }>(`${owner}.changeRecords`, { ids: [...new Set(list.map(e => e.id))], anyStatus: true }, { meta });
        for (const e of list) if (records?.[String(e.id)]) out.set(e._id, records[String(e.id)]);
      })
    ]);
    return out;
  },

  /**
   * Claims and starts the due attempts of each endpoint (one statement each on SQL stores, the endpoints'
   * at once), within this node's bounds: the room left on the node shared out from a different endpoint
   * each pass (lib/webhooks/rooms.ts), so no endpoint is always served last.
   */
  async sendDue(site: number): Promise<void> {
    const ws = this.ws();
    const maxSeq = await ws.cursorSeq();
    const cfg = deploymentSettings().webhooks;
    const w = this.work(site);
    // an inactive endpoint is sent nothing, not even a retry already scheduled (a retry asked for by hand
    // waits until it is active again)
    const endpoints = (await this.endpointsOf(site)).filter(e => e.active);
    w.turn = (w.turn + 1) % Math.max(endpoints.length, 1);
    const shares = shareRoom(endpoints.map(e => cfg.endpointConcurrency - this.inFlightOf(site, e._id)), cfg.concurrency - this.inFlight, w.turn);
    const now = Date.now();
    const lease = now + cfg.timeoutMs + ATTEMPT_LEASE_MARGIN_MS;
    const claims = await Promise.all(endpoints.map(async (endpoint, i) => {
      const room = shares.rooms[i];
      if (room <= 0) return 0;
      // per record and endpoint, feed order: one waiting behind an earlier pending delivery is parked until
      // that one ends (its end releases it at once); a release lost to a crash is made good by this time
      const claimed = await ws.claimDue({ endpoint: endpoint._id, nowMs: now, maxSeq, limit: room, scan: room * CLAIM_SCAN_PER_ROOM, leaseUntil: lease, parkUntil: lease });
      for (const d of claimed) this.startAttempt(site, endpoint, d, lease);
      return claimed.length;
    }));
    // endpoints left without a share this time: another pass at once while this one found work
    if (shares.unserved && claims.some(n => n > 0)) this.wake(site, false);
  },

  inFlightOf(site: number, endpoint: number): number {
    return this.perEndpoint.get(`${site}:${endpoint}`) ?? 0;
  },

  startAttempt(site: number, endpoint: EndpointDoc, d: DeliveryDoc, lease: number): void {
    const key = `${site}:${endpoint._id}`;
    this.inFlight += 1;
    this.perEndpoint.set(key, this.inFlightOf(site, endpoint._id) + 1);
    const done = this.inSite(site, () => this.attempt(site, endpoint, d, lease))
      .catch((err: Error) => this.logger.warn(`Webhook delivery ${d.key} of site ${site}: ${err.message}`))
      .finally(() => {
        this.inFlight -= 1;
        const left = this.inFlightOf(site, endpoint._id) - 1;
        if (left > 0) this.perEndpoint.set(key, left);
        else this.perEndpoint.delete(key);
        this.attempts.delete(done);
        this.wake(site, false);
      });
    this.attempts.add(done);
  },

  /** Records an attempt's result with the others of the site ending meanwhile (lib/webhooks/batches.ts); answers whether its lease still stood. */
  async settle(site: number, result: Settlement): Promise<boolean> {
    const w = this.work(site);
    w.settlements ??= new Batches<Settlement, boolean>(async results => {
      const done = await this.inSite(site, () => this.ws().settleAll(results, Date.now()));
      return results.map(r => done?.has(r.d._id) ?? false);
    });
    return w.settlements.add(result);
  },

  keepPayload(site: number, seq: number, body: string): void {
    if (this.payloadCache.size >= PAYLOAD_CACHE) this.payloadCache.delete(this.payloadCache.keys().next().value as string);
    this.payloadCache.set(`${site}:${seq}`, body);
  },

  async payloadOf(site: number, seq: number): Promise<string | undefined> {
    const kept = this.payloadCache.get(`${site}:${seq}`);
    if (kept !== undefined) return kept;
    const body = (await this.ws().payloads([seq])).get(seq);
    if (body !== undefined) this.keepPayload(site, seq, body);
    return body;
  },

  /**
   * One attempt of a claimed delivery to its endpoint (as the pass read it), and what its answer means for
   * the delivery and for the endpoint.
   */
  async attempt(site: number, endpoint: EndpointDoc, d: DeliveryDoc, lease: number): Promise<void> {
    const ws = this.ws();
    const cfg = deploymentSettings().webhooks;
    const body = d.body ?? (await this.payloadOf(site, d.seq));
    if (body === undefined) {
      await this.settle(site, { d, lease, update: { $set: { status: "failed" }, $unset: { due: 1 } } });
      return;
    }
    const id = deliveryIdOfKey(d.key);
    const timestamp = Math.floor(Date.now() / 1000);
    let status: number | undefined;
    let retryAfter: string | string[] | undefined;
    let error: string | undefined;
    let refused = false;
    try {
      const res = await outboundRequest(endpoint.url, {
        method: "POST", headers: deliveryHeaders(this.signingSecrets(endpoint, Date.now()), id, timestamp, body), body, timeoutMs: cfg.timeoutMs,
        // any 2xx within the deadline delivers: the answer's body is not ours to judge, and is not read
        discardBody: true, followRedirects: 0, allowPrivate: deploymentSettings().outboundAllowPrivate, resolve: this.resolver
      });
      status = res.status;
      retryAfter = res.headers["retry-after"];
    } catch (err) {
      error = (err as Error).message;
      // refused only once its name resolved: no retry can change that (the address rules are the deployment's)
      refused = err instanceof OutboundRefused;
    }
    const now = Date.now();
    const outcome = attemptOutcome({ status, retryAfter, retries: d.attempts - d.base - 1, schedule: cfg.retrySchedule, nowMs: now, refused });
    const code = status ?? null;
    if (outcome.kind === "delivered") {
      await this.settle(site, { d, lease, update: { $set: { status: "delivered", last_status_code: code, delivered_utc: nowDb(new Date(now)) }, $unset: { due: 1 } } });
      // the failing streak ends (a conditional write: only when one was recorded, by any node; the endpoint
      // as read by the pass says whether to look, and is read again within ENDPOINTS_TTL_MS)
      if (endpoint.failing_since !== undefined) {
        await ws.endFailingStreak(endpoint._id);
        delete endpoint.failing_since;
      }
      return;
    }
    if (outcome.kind === "retry") await this.settle(site, { d, lease, update: { $set: { due: now + outcome.retryInMs, last_status_code: code } } });
    else await this.settle(site, { d, lease, update: { $set: { status: "failed", last_status_code: code }, $unset: { due: 1 } } });
    if (outcome.kind === "gone") {
      await this.disable(endpoint, `The endpoint answered 410 Gone (${nowDb(new Date(now))} UTC).`);
      return;
    }
    if (error) this.logger.debug?.(`Webhook delivery ${id}: ${error}`);
    // a failure: the endpoint's failing streak starts, or has lasted too long
    if (endpoint.failing_since === undefined) {
      const started = await ws.updateEndpoint(endpoint._id, { $set: { failing_since: now } }, { failing_since: { $exists: false } });
      endpoint.failing_since = started?.failing_since ?? (await ws.endpoint(endpoint._id))?.failing_since;
    } else if (shouldDisable(endpoint.failing_since, now, cfg.disableAfterHours))
      await this.disable(endpoint, `No delivery succeeded for ${cfg.disableAfterHours} hours (since ${nowDb(new Date(endpoint.failing_since))} UTC).`);
  },

  /** The secrets a delivery is signed with now: the endpoint's, then the rotated-out one while its overlap lasts. */
  signingSecrets(endpoint: EndpointDoc, nowMs: number): string[] {
    const secrets = [openSecret(endpoint.secret, this.sealing)];
    if (endpoint.previous_secret && (endpoint.previous_until ?? 0) > nowMs) secrets.push(openSecret(endpoint.previous_secret, this.sealing));
    return secrets;
  },

  /**
   * Removes the site's deliveries and payloads older than WEBHOOK_RETENTION_DAYS, in bounded batches, when
   * this node takes the site's turn (a conditional write in the store: one node per site and period).
   */
  async retain(site: number): Promise<void> {
    const cfg = deploymentSettings().webhooks;
    const ws = this.ws();
    if (!(await ws.claimRetention(this.owner, Date.now(), cfg.retentionJobMs))) return;
    const cutoff = Date.now() - cfg.retentionDays * 86_400_000;
    let removed = 0;
    for (;;) {
      if (this.stopping) return;
      const n = await ws.removeOlder(cutoff, RETENTION_BATCH);
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

  /** Makes an endpoint inactive with the reason shown on it; its pending deliveries are marked failed. */
  async disable(endpoint: EndpointDoc, reason: string): Promise<void> {
    const ws = this.ws();
    const done = await ws.updateEndpoint(endpoint._id, { $set: { active: false, failure_reason: reason } }, { active: true });
    if (!done) return;
    await ws.failPending(endpoint._id);
    this.endpointsChanged();
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
  storeHandle?: Store;
  webhookStore?: WebhookStore;
  sealing?: Buffer;
  owner: string;
  sites: Map<number, SiteWork>;
  siteList?: { at: number; ids: number[] };
  /** Sites made known since the list was last read (kept in through a read that began before them). */
  newSites: Set<number>;
  inFlight: number;
  perEndpoint: Map<string, number>;
  attempts: Set<Promise<unknown>>;
  payloadCache: Map<string, string>;
  later: Map<number, NodeJS.Timeout>;
  pollTimer?: NodeJS.Timeout;
  retentionTimer?: NodeJS.Timeout;
  stopping: boolean;
  /** Tests: a resolver of their own for endpoint names (net/outbound.ts). */
  resolver?: Resolver;
}
interface WebhooksSelf extends Service, StoreFace, WebhooksMethods, WebhooksVars {}

/**
 * The service as Moleculer sees it: its `this` is the service with the mixin's members, this file's
 * methods and variables (WebhooksSelf, a subtype of Service). Each handler takes it through `self`, so the
 * schema is a plain ServiceSchema and every member is checked where it is used.
 */
const self = (svc: Service): WebhooksSelf => svc as WebhooksSelf;

const lifecycle = {
  init(this: WebhooksSelf): void {
    this.owner = `${this.broker.nodeID}:${randomUUID()}`;
    this.sites = new Map();
    this.inFlight = 0;
    this.perEndpoint = new Map();
    this.attempts = new Set();
    this.payloadCache = new Map();
    this.later = new Map();
    this.newSites = new Set();
    this.stopping = false;
    this.sealing = sealingKey(deploymentSettings().webhooks.secretKey);
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
    await Promise.allSettled([...this.attempts]);
    const deadline = Date.now() + 5000;
    while ([...this.sites.values()].some(w => w.running) && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20));
    await this.releaseLeases();
  }
};

const WebhooksService: ServiceSchema = {
  name: "webhooks",
  // PostgreSQL: a pool of its own (WEBHOOK_DATABASE_POOL_MAX), so deliveries never queue behind record writes
  mixins: [StoreMixin({ collection: ENDPOINTS, indexes: ENDPOINT_INDEXES, config: () => ({ pool: "webhooks", poolMax: deploymentSettings().webhooks.poolMax }) })],

  actions: {
    list: { params: WEBHOOK_PARAMS.list, handler(ctx: Ctx<WebhookListParams>) { return self(this).listEndpoints(ctx); } },
    create: { params: WEBHOOK_PARAMS.create, handler(ctx: Ctx<WebhookCreateParams>) { return self(this).createEndpoint(ctx); } },
    get: {
      params: WEBHOOK_PARAMS.get,
      async handler(ctx: Ctx<{ id: number }>) {
        self(this).mayManage(ctx);
        return presentEndpoint(await self(this).findEndpoint(ctx.params.id));
      }
    },
    update: { params: WEBHOOK_PARAMS.update, handler(ctx: Ctx<WebhookUpdateParams>) { return self(this).updateEndpoint(ctx); } },
    remove: { params: WEBHOOK_PARAMS.remove, handler(ctx: Ctx<{ id: number }>) { return self(this).removeEndpoint(ctx); } },
    rotateSecret: { params: WEBHOOK_PARAMS.rotateSecret, handler(ctx: Ctx<RotateParams>) { return self(this).rotateSecret(ctx); } },
    deliveries: { params: WEBHOOK_PARAMS.deliveries, handler(ctx: Ctx<DeliveryListParams>) { return self(this).listDeliveries(ctx); } },
    ping: { params: WEBHOOK_PARAMS.ping, handler(ctx: Ctx<{ id: number }>) { return self(this).ping(ctx); } },
    // internal (no route): an idempotent create's answer read again by the gateway
    createdAnswer: { visibility: "public", params: WEBHOOK_PARAMS.get, handler(ctx: Ctx<{ id: number }>) { return self(this).createdAnswer(ctx); } },
    replay: { params: WEBHOOK_PARAMS.replay, handler(ctx: Ctx<ReplayParams>) { return self(this).replay(ctx); } },
    retry: { params: WEBHOOK_PARAMS.retry, handler(ctx: Ctx<RetryParams>) { return self(this).retryDelivery(ctx); } }
  },

  events: {
    // a change was recorded: the event carries its site (middlewares/site-scope.middleware.ts), whose pass runs now
    "calendar.**"() {
      const svc = self(this);
      svc.knowSite(currentSiteId());
      svc.wake(currentSiteId());
    },
    // a site made through the platform API, on any node: known at once (not at the next read of the list)
    [SITE_CREATED](ctx: Context<{ site?: number }>) {
      const site = ctx.params?.site;
      if (typeof site === "number") self(this).knowSite(site);
    },
    [WEBHOOKS_CHANGED](ctx: Context<{ site?: number }>) {
      const site = ctx.params?.site;
      if (typeof site !== "number") return;
      const svc = self(this);
      svc.work(site).endpoints = undefined;
      svc.siteList = undefined;
      svc.wake(site);
    }
  },

  methods,

  created() {
    lifecycle.init.call(self(this));
  },

  started() {
    lifecycle.poll.call(self(this));
    lifecycle.retention.call(self(this));
  },

  stopped() {
    return lifecycle.stop.call(self(this));
  }
};

export default WebhooksService;
