/**
 * The sending of webhooks (docs/webhooks.md#how-deliveries-are-made, C63: what a webhook says): due deliveries are claimed one
 * attempt at a time by a compare-and-set in the store; a delivery waits while an earlier one of the same
 * record to the same endpoint is pending; attempts in flight are bounded per node and per endpoint, so a
 * slow endpoint holds only its own share. Each attempt is signed as Standard Webhooks 1.0 says, and its
 * answer decides the delivery's next step and the endpoint's failing streak.
 */
import { deploymentSettings } from "../../lib/settings";
import { nowDb } from "../../lib/time/dates";
import { deliveryHeaders, openSecret } from "../../lib/webhooks/signing";
import { attemptOutcome, shouldDisable } from "../../lib/webhooks/schedule";
import { deliveryIdOfKey } from "../../lib/webhooks/payload";
import type { DeliveryDoc, EndpointDoc } from "../../lib/webhooks/present";
import { Batches } from "../../lib/webhooks/batches";
import { shareRoom } from "../../lib/webhooks/rooms";
import { OutboundRefused, outboundRequest, type Resolver } from "../../net/outbound";
import type { Settlement } from "../../store/webhooks";
import type { PayloadCache } from "./payload-cache";
import type { SitePasses } from "./webhook-ports";

/** How many of an endpoint's due deliveries a claim looks at, per attempt it may start (the others wait behind an earlier one of their record, and are parked). */
const CLAIM_SCAN_PER_ROOM = 4;
/** What an attempt's lease adds to its timeout (a dead node's attempt is made again after it). */
const ATTEMPT_LEASE_MARGIN_MS = 15_000;

export interface WebhookSenderDeps {
  passes: SitePasses;
  /** The bodies this node keeps, shared with its fan-out. */
  payloads: PayloadCache;
  /** The key endpoint secrets are sealed under (WEBHOOK_SECRET_KEY), when set. */
  sealing?: Buffer;
  /** The resolver of endpoint names (net/outbound.ts; tests give their own). */
  resolver(): Resolver | undefined;
  logger: { warn(msg: string): void; debug?(msg: string): void };
}

export class WebhookSender {
  private readonly passes: SitePasses;
  /** Attempts in flight on this node, and per site and endpoint. */
  private inFlight = 0;
  private readonly perEndpoint = new Map<string, number>();
  /** The attempts in flight themselves (a graceful stop waits for them). */
  readonly attempts = new Set<Promise<unknown>>();

  constructor(private readonly deps: WebhookSenderDeps) {
    this.passes = deps.passes;
  }

  /**
   * Claims and starts the due attempts of each endpoint (one statement each on SQL stores, the endpoints'
   * at once), within this node's bounds: the room left on the node shared out from a different endpoint
   * each pass (lib/webhooks/rooms.ts), so no endpoint is always served last.
   */
  async sendDue(site: number): Promise<void> {
    const ws = this.passes.store();
    const maxSeq = await ws.cursorSeq();
    const cfg = deploymentSettings().webhooks;
    const w = this.passes.work(site);
    // an inactive endpoint is sent nothing, not even a retry already scheduled (a retry asked for by hand
    // waits until it is active again)
    const endpoints = (await this.passes.endpointsOf(site)).filter(e => e.active);
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
    if (shares.unserved && claims.some(n => n > 0)) this.passes.wake(site, false);
  }

  inFlightOf(site: number, endpoint: number): number {
    return this.perEndpoint.get(`${site}:${endpoint}`) ?? 0;
  }

  startAttempt(site: number, endpoint: EndpointDoc, d: DeliveryDoc, lease: number): void {
    const key = `${site}:${endpoint._id}`;
    this.inFlight += 1;
    this.perEndpoint.set(key, this.inFlightOf(site, endpoint._id) + 1);
    const done = this.passes.inSite(site, () => this.attempt(site, endpoint, d, lease))
      .catch((err: Error) => this.deps.logger.warn(`Webhook delivery ${d.key} of site ${site}: ${err.message}`))
      .finally(() => {
        this.inFlight -= 1;
        const left = this.inFlightOf(site, endpoint._id) - 1;
        if (left > 0) this.perEndpoint.set(key, left);
        else this.perEndpoint.delete(key);
        this.attempts.delete(done);
        this.passes.wake(site, false);
      });
    this.attempts.add(done);
  }

  /** Records an attempt's result with the others of the site ending meanwhile (lib/webhooks/batches.ts); answers whether its lease still stood. */
  async settle(site: number, result: Settlement): Promise<boolean> {
    const w = this.passes.work(site);
    w.settlements ??= new Batches<Settlement, boolean>(async results => {
      const done = await this.passes.inSite(site, () => this.passes.store().settleAll(results, Date.now()));
      return results.map(r => done?.has(r.d._id) ?? false);
    });
    return w.settlements.add(result);
  }

  async payloadOf(site: number, seq: number): Promise<string | undefined> {
    const kept = this.deps.payloads.kept(site, seq);
    if (kept !== undefined) return kept;
    const body = (await this.passes.store().payloads([seq])).get(seq);
    if (body !== undefined) this.deps.payloads.keep(site, seq, body);
    return body;
  }

  /**
   * One attempt of a claimed delivery to its endpoint (as the pass read it), and what its answer means for
   * the delivery and for the endpoint.
   */
  async attempt(site: number, endpoint: EndpointDoc, d: DeliveryDoc, lease: number): Promise<void> {
    const ws = this.passes.store();
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
        discardBody: true, followRedirects: 0, allowPrivate: deploymentSettings().outboundAllowPrivate, resolve: this.deps.resolver()
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
    if (error) this.deps.logger.debug?.(`Webhook delivery ${id}: ${error}`);
    // a failure: the endpoint's failing streak starts, or has lasted too long
    if (endpoint.failing_since === undefined) {
      const started = await ws.updateEndpoint(endpoint._id, { $set: { failing_since: now } }, { failing_since: { $exists: false } });
      endpoint.failing_since = started?.failing_since ?? (await ws.endpoint(endpoint._id))?.failing_since;
    } else if (shouldDisable(endpoint.failing_since, now, cfg.disableAfterHours))
      await this.disable(endpoint, `No delivery succeeded for ${cfg.disableAfterHours} hours (since ${nowDb(new Date(endpoint.failing_since))} UTC).`);
  }

  /** The secrets a delivery is signed with now: the endpoint's, then the rotated-out one while its overlap lasts. */
  signingSecrets(endpoint: EndpointDoc, nowMs: number): string[] {
    const secrets = [openSecret(endpoint.secret, this.deps.sealing)];
    if (endpoint.previous_secret && (endpoint.previous_until ?? 0) > nowMs) secrets.push(openSecret(endpoint.previous_secret, this.deps.sealing));
    return secrets;
  }

  /** Makes an endpoint inactive with the reason shown on it; its pending deliveries are marked failed. */
  async disable(endpoint: EndpointDoc, reason: string): Promise<void> {
    const ws = this.passes.store();
    const done = await ws.updateEndpoint(endpoint._id, { $set: { active: false, failure_reason: reason } }, { active: true });
    if (!done) return;
    await ws.failPending(endpoint._id);
    this.passes.endpointsChanged();
  }
}
