/**
 * The routed operations of webhooks (docs/webhooks.md#endpoints, C63: what a webhook says), administrators only: the endpoints
 * (create, list, read, update, delete, a new secret), their delivery log, a ping, a replay of past changes
 * and the retry of one delivery. A change of an endpoint wakes every webhooks node; a delivery added here is
 * sent by the site's next pass (domain/webhooks/webhook-sender.ts).
 */
import { randomUUID } from "crypto";
import { ApiError } from "../../lib/errors";
import { isAdministrator } from "../../lib/access/capabilities";
import { answerTotals } from "../../lib/http/list-totals";
import { settings, deploymentSettings, NAMESPACE_PATH } from "../../lib/settings";
import { nowDb } from "../../lib/time/dates";
import { changeKey, type ChangeDoc } from "../../lib/changes/feed";
import { ALL_EVENTS, deliveredType, matchesEvent } from "../../lib/webhooks/events";
import { newSecret, openSecret, sealSecret } from "../../lib/webhooks/signing";
import { deliveryKey, payloadOf, parseDeliveryId, pingPayload, PING_TYPE, recordRestUrl } from "../../lib/webhooks/payload";
import { presentDelivery, presentEndpoint, type DeliveryDoc, type DeliveryOut, type EndpointDoc, type EndpointOut } from "../../lib/webhooks/present";
import { DEFAULT_PER_PAGE, isoInstantMs, MAX_PER_PAGE, REPLAY_MAX } from "../../lib/webhooks/params";
import { checkOutboundUrl } from "../../lib/outbound/addresses";
import { currentSiteId } from "../../lib/sites/scope";
import type { SitePasses, WebhookCall } from "./webhook-ports";

/** The default overlap of a rotated-out secret (hours). */
const DEFAULT_OVERLAP_HOURS = 24;

export interface WebhookCreateParams { url: string; events?: string[]; description?: string; secret?: string }
export interface WebhookUpdateParams { id: number; url?: string; events?: string[]; description?: string; active?: boolean }
export interface WebhookListParams { page?: number; per_page?: number }
export interface DeliveryListParams { id: number; page?: number; per_page?: number; status?: string; type?: string; after?: string; before?: string }
export interface RotateParams { id: number; overlap_hours?: number }
export interface ReplayParams { id: number; after: string; before: string }
export interface RetryParams { id: number; delivery_id: string }

export interface WebhookEndpointsDeps {
  passes: SitePasses;
  /** The key endpoint secrets are sealed under (WEBHOOK_SECRET_KEY), when set. */
  sealing?: Buffer;
  /** The records of changes as their owners answer them, by feed sequence (domain/webhooks/webhook-fan-out.ts). */
  render(entries: ChangeDoc[]): Promise<Map<number, Record<string, unknown>>>;
}

export class WebhookEndpoints {
  private readonly passes: SitePasses;

  constructor(private readonly deps: WebhookEndpointsDeps) {
    this.passes = deps.passes;
  }

  /** Administrators only (the trusted internal caller too): 401 anonymous, 403 other roles. */
  mayManage(ctx: WebhookCall<unknown>): void {
    const who = ctx.meta.caller;
    if (!isAdministrator(who)) throw ApiError.forbidden(who === null);
  }

  /** One endpoint, as a GET of its path answers it. */
  async endpoint(ctx: WebhookCall<{ id: number }>): Promise<EndpointOut> {
    this.mayManage(ctx);
    return presentEndpoint(await this.findEndpoint(ctx.params.id));
  }

  /** The URL refused by the outbound address rules: 400 naming `url`. */
  checkUrl(url: string): void {
    const checked = checkOutboundUrl(url, deploymentSettings().outboundAllowPrivate);
    if (!checked.ok) throw ApiError.invalidParam("url", checked.reason === "invalid" || checked.reason === "scheme" ? "param.url" : "param.invalid");
  }

  /** The endpoint of a path id: 404 `rest_no_route` when the site has none of that id (as imports answer). */
  async findEndpoint(id: number): Promise<EndpointDoc> {
    const doc = await this.passes.store().endpoint(id);
    if (!doc) throw ApiError.noRoute();
    return doc;
  }

  async createEndpoint(ctx: WebhookCall<WebhookCreateParams>): Promise<EndpointOut> {
    this.mayManage(ctx);
    const p = ctx.params;
    this.checkUrl(p.url);
    const ws = this.passes.store();
    const secret = p.secret ?? newSecret();
    const end = await ws.feedEnd();
    // the site's fan-out starts at the first endpoint: earlier changes are no endpoint's (C63: what a webhook says)
    await ws.ensureCursor(end);
    const doc = await ws.createEndpoint({
      url: p.url, events: p.events ?? ALL_EVENTS, description: p.description ?? "", active: true, secret: sealSecret(secret, this.deps.sealing),
      created_utc: nowDb(), after_seq: end
    });
    this.passes.endpointsChanged();
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
  }

  /** The create's answer again (a repeat of an idempotent create): the endpoint with its secret. */
  async createdAnswer(ctx: WebhookCall<{ id: number }>): Promise<EndpointOut> {
    this.mayManage(ctx);
    const doc = await this.findEndpoint(ctx.params.id);
    return presentEndpoint(doc, openSecret(doc.secret, this.deps.sealing));
  }

  async listEndpoints(ctx: WebhookCall<WebhookListParams>): Promise<EndpointOut[]> {
    this.mayManage(ctx);
    const perPage = Math.min(ctx.params.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
    const page = ctx.params.page ?? 1;
    const { total, docs } = await this.passes.store().endpoints({ skip: (page - 1) * perPage, limit: perPage });
    answerTotals(ctx.meta, total, Math.ceil(total / perPage));
    return docs.map(d => presentEndpoint(d));
  }

  async updateEndpoint(ctx: WebhookCall<WebhookUpdateParams>): Promise<EndpointOut> {
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
    const doc = Object.keys(update).length ? await this.passes.store().updateEndpoint(p.id, update) : current;
    if (!doc) throw ApiError.noRoute();
    // made inactive: it is sent nothing more, not even a retry already scheduled (its pending deliveries
    // fail; the manual retry or a replay sends one again once it is active)
    if (p.active === false) await this.passes.store().failPending(doc._id);
    this.passes.endpointsChanged();
    return presentEndpoint(doc);
  }

  async removeEndpoint(ctx: WebhookCall<{ id: number }>): Promise<EndpointOut & { deleted: true }> {
    this.mayManage(ctx);
    const current = await this.findEndpoint(ctx.params.id);
    await this.passes.store().removeEndpoint(current._id);
    this.passes.endpointsChanged();
    return { ...presentEndpoint(current), deleted: true };
  }

  /**
   * A new secret; the old one keeps signing beside it for `overlap_hours` (default 24; 0: not at all), so
   * a receiver that still holds it verifies every delivery meanwhile (Standard Webhooks' several signatures).
   */
  async rotateSecret(ctx: WebhookCall<RotateParams>): Promise<EndpointOut> {
    this.mayManage(ctx);
    const secret = newSecret();
    const hours = ctx.params.overlap_hours ?? DEFAULT_OVERLAP_HOURS;
    // a compare-and-set on the secret read: of two rotations at once, the later one keeps the earlier's
    // secret as its old one (read again), never one that no answer gave out
    for (let round = 0; ; round++) {
      // another rotation won each round: a store that keeps refusing is away (503), never a loop
      if (round === 20) throw new ApiError("rest_service_unavailable", 503);
      const current = await this.findEndpoint(ctx.params.id);
      const update = hours > 0 ? { $set: { secret: sealSecret(secret, this.deps.sealing), previous_secret: current.secret, previous_until: Date.now() + Math.round(hours * 3_600_000) } }
        : { $set: { secret: sealSecret(secret, this.deps.sealing) }, $unset: { previous_secret: 1, previous_until: 1 } };
      const doc = await this.passes.store().updateEndpoint(ctx.params.id, update, { secret: current.secret });
      if (!doc) continue;
      this.passes.endpointsChanged();
      return presentEndpoint(doc, secret);
    }
  }

  async listDeliveries(ctx: WebhookCall<DeliveryListParams>): Promise<DeliveryOut[]> {
    this.mayManage(ctx);
    const endpoint = await this.findEndpoint(ctx.params.id);
    const perPage = Math.min(ctx.params.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
    const page = ctx.params.page ?? 1;
    const p = ctx.params;
    const filter = { status: p.status, type: p.type, afterMs: isoInstantMs(p.after), beforeMs: isoInstantMs(p.before) };
    const { total, docs } = await this.passes.store().deliveries(endpoint._id, { skip: (page - 1) * perPage, limit: perPage }, filter);
    answerTotals(ctx.meta, total, Math.ceil(total / perPage));
    return docs.map(presentDelivery);
  }

  /** A `webhook.ping` delivery to the endpoint, through the same path as every delivery (and logged). */
  async ping(ctx: WebhookCall<{ id: number }>): Promise<DeliveryOut> {
    this.mayManage(ctx);
    const endpoint = await this.findEndpoint(ctx.params.id);
    const now = Date.now();
    const tag = `p${randomUUID().replace(/-/g, "").slice(0, 20)}`;
    const doc: Omit<DeliveryDoc, "_id"> = {
      key: deliveryKey(endpoint._id, 0, tag), endpoint: endpoint._id, seq: 0, chain: `${endpoint._id}:${tag}`, type: PING_TYPE, record_id: 0,
      status: "pending", attempts: 0, base: 0, due: now, last_status_code: null, delivered_utc: null, at: now, body: JSON.stringify(pingPayload(endpoint._id, now))
    };
    await this.passes.store().addDeliveries([doc]);
    const made = await this.passes.store().delivery(endpoint._id, 0, tag);
    if (!made) throw ApiError.noRoute();
    this.passes.wake(currentSiteId(), false);
    ctx.meta.$statusCode = 202;
    return presentDelivery(made);
  }

  /**
   * Fresh deliveries (new ids, marked as replays) of the endpoint's matching changes recorded in
   * [after, before), each with the record as of its change (the document its feed entry kept).
   */
  async replay(ctx: WebhookCall<ReplayParams>): Promise<{ queued: number }> {
    this.mayManage(ctx);
    const endpoint = await this.findEndpoint(ctx.params.id);
    const from = isoInstantMs(ctx.params.after)!;
    const to = isoInstantMs(ctx.params.before)!;
    if (to <= from) throw ApiError.invalidParam("before", "param.range");
    const ws = this.passes.store();
    const horizon = await ws.feedHorizon();
    // only what the fan-out has passed: a later change gets its own delivery anyway
    const upTo = await ws.cursorSeq();
    const found = (await ws.feedBetween(endpoint.after_seq, from, to, REPLAY_MAX, horizon)).filter(e => e._id <= upTo);
    const tag = `r${randomUUID().replace(/-/g, "").slice(0, 20)}`;
    const now = nowDb();
    const work = found.map(entry => ({ entry, eventType: deliveredType(entry, now) })).filter(w => w.eventType && matchesEvent(endpoint.events, w.eventType));
    const records = await this.deps.render(work.filter(w => !w.eventType!.endsWith(".deleted")).map(w => w.entry));
    const s = settings();
    const at = Date.now();
    const docs: Array<Omit<DeliveryDoc, "_id">> = work.map(({ entry, eventType }) => ({
      key: deliveryKey(endpoint._id, entry._id, tag), endpoint: endpoint._id, seq: entry._id, chain: `${endpoint._id}:${tag}:${changeKey(entry.type, entry.id)}`, type: eventType!,
      record_id: entry.id, status: "pending", attempts: 0, base: 0, due: at, last_status_code: null, delivered_utc: null, at, replay: true,
      body: JSON.stringify(payloadOf({ eventType: eventType!, atMs: entry.at, sequence: entry._id, id: entry.id, restUrl: recordRestUrl(s.baseUrl, s.restPrefix, entry.type, entry.id), record: records.get(entry._id), replay: true }))
    }));
    await ws.addDeliveries(docs);
    this.passes.wake(currentSiteId(), false);
    ctx.meta.$statusCode = 202;
    return { queued: docs.length };
  }

  async retryDelivery(ctx: WebhookCall<RetryParams>): Promise<DeliveryOut> {
    this.mayManage(ctx);
    const endpoint = await this.findEndpoint(ctx.params.id);
    const named = parseDeliveryId(ctx.params.delivery_id);
    const found = named && named.endpoint === endpoint._id ? await this.passes.store().delivery(endpoint._id, named.sequence, named.tag) : undefined;
    // a delivery id is opaque (C63: what a webhook says): one that names no delivery of this endpoint, whatever its spelling, is unknown
    if (!found) throw ApiError.noRoute();
    const queued = await this.passes.store().requeue(found, Date.now());
    if (!queued) throw ApiError.noRoute();
    this.passes.wake(currentSiteId());
    ctx.meta.$statusCode = 202;
    return presentDelivery(queued);
  }
}
