/**
 * The fan-out of webhooks (docs/webhooks.md#how-deliveries-are-made, C63: what a webhook says): the change feed is the outbox
 * (each write stores its entry in its own transaction, C42: one transaction per write). Per site, one node at a time (a lease in the
 * store) reads the entries after the fan-out cursor, stops at a young gap as `/changes` does, renders each
 * changed record once (its owner's `renderDocs` or `changeRecords`) and adds one delivery per matching
 * endpoint (unique per endpoint and change), then moves the cursor on.
 */
import { settings } from "../../lib/settings";
import { nowDb } from "../../lib/time/dates";
import { contiguousPrefix, GAP_GRACE_MS, ownerOf, changeKey, type ChangeDoc } from "../../lib/changes/feed";
import { deliveredType, matchesEvent } from "../../lib/webhooks/events";
import { deliveryKey, payloadOf, recordRestUrl } from "../../lib/webhooks/payload";
import type { DeliveryDoc, EndpointDoc } from "../../lib/webhooks/present";
import { currentSiteId } from "../../lib/sites/scope";
import type { PayloadCache } from "./payload-cache";
import type { RecordRenderer, SitePasses } from "./webhook-ports";

/** Feed entries read per fan-out step. */
const FAN_OUT_BATCH = 200;
/** How long a fan-out lease lasts without being renewed (a dead node's is taken over after it). */
const FAN_OUT_LEASE_MS = 30_000;

export interface WebhookFanOutDeps {
  passes: SitePasses;
  /** This node's name as the holder of a lease. */
  owner: string;
  /** The bodies this node keeps, shared with its sending. */
  payloads: PayloadCache;
  renderer: RecordRenderer;
}

export class WebhookFanOut {
  private readonly passes: SitePasses;

  constructor(private readonly deps: WebhookFanOutDeps) {
    this.passes = deps.passes;
  }

  /**
   * One fan-out step: adds the deliveries of the changes after the cursor (at most FAN_OUT_BATCH of them)
   * while this node holds the site's fan-out lease (taken for the step, handed back at its end; a node that
   * dies lets it expire). A step with nothing new after the cursor takes no lease and writes nothing.
   * Answers whether more changes wait beyond the step's.
   */
  async fanOut(site: number): Promise<boolean> {
    const ws = this.passes.store();
    const cursor = await ws.cursor();
    if (!cursor || !(await ws.feedAfter(cursor.seq, 1)).length) return false;
    const claimed = await ws.claimCursor(this.deps.owner, Date.now(), Date.now() + FAN_OUT_LEASE_MS);
    if (claimed === undefined) return false;
    const seq: number = claimed;
    // PostgreSQL numbers entries by their writing transaction: read only below the oldest one still running
    // (store/sql/feed.ts), whose gaps are final; the other stores number in commit order, a gap being a write
    // still committing
    try {
      const horizon = await ws.feedHorizon();
      const batch = await ws.feedAfter(seq, FAN_OUT_BATCH, horizon);
      // blocked: entries stand beyond what may be read yet (a young gap, or a transaction still running)
      const { entries, blocked } = horizon === undefined ? contiguousPrefix(seq, batch, Date.now(), GAP_GRACE_MS)
        : { entries: batch, blocked: batch.length < FAN_OUT_BATCH && (await ws.feedAfter(batch.at(-1)?._id ?? seq, 1)).length > 0 };
      if (!entries.length) {
        // a young gap: look again soon (a write still committing, or a number never used)
        if (blocked) this.passes.retryLater(site, 200);
        return false;
      }
      const endpoints = (await this.passes.endpointsOf(site)).filter(e => e.active);
      await this.addDeliveries(site, entries, endpoints);
      if (!(await ws.advanceCursor(this.deps.owner, entries[entries.length - 1]._id, Date.now(), Date.now() + FAN_OUT_LEASE_MS))) return false;
      if (blocked) {
        this.passes.retryLater(site, 200);
        return false;
      }
      return batch.length === FAN_OUT_BATCH;
    } finally {
      await ws.releaseCursor(this.deps.owner).catch(() => undefined);
    }
  }

  /** The deliveries of some entries: payload once per change, one delivery per matching endpoint. */
  async addDeliveries(site: number, entries: ChangeDoc[], endpoints: EndpointDoc[]): Promise<void> {
    const ws = this.passes.store();
    const now = nowDb();
    const work: Array<{ entry: ChangeDoc; eventType: string; targets: EndpointDoc[] }> = [];
    for (const entry of entries) {
      const eventType = deliveredType(entry, now);
      if (!eventType) continue;
      const targets = endpoints.filter(e => entry._id > e.after_seq && matchesEvent(e.events, eventType));
      if (targets.length) work.push({ entry, eventType, targets });
    }
    if (!work.length) return;
    const records = await this.render(work.filter(w => !w.eventType.endsWith(".deleted")).map(w => w.entry));
    const s = settings();
    const at = Date.now();
    const payloads: Array<{ seq: number; body: string; at: number }> = [];
    const inserts: Array<Omit<DeliveryDoc, "_id">> = [];
    for (const { entry, eventType, targets } of work) {
      const record = records.get(entry._id);
      const body = JSON.stringify(payloadOf({ eventType, atMs: entry.at, sequence: entry._id, id: entry.id, restUrl: recordRestUrl(s.baseUrl, s.restPrefix, entry.type, entry.id), record }));
      payloads.push({ seq: entry._id, body, at });
      this.deps.payloads.keep(site, entry._id, body);
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
  }

  /**
   * The record of each change as it stood right after that change (C63: what a webhook says), as the site's administrator
   * reads it (context=edit: the trusted reader, who sees every field), in the site's default language, by
   * feed sequence: rendered by the owning service from the document the change's feed entry kept (written
   * in the write's transaction), so neither the fan-out's delay nor later changes alter it. An entry
   * without one (written before entries kept it, or a term's count moved by a database trigger) is
   * rendered from the record as it is now. One call per owning service and kind.
   */
  async render(entries: ChangeDoc[]): Promise<Map<number, Record<string, unknown>>> {
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
        const records = await this.deps.renderer.renderDocs(owner, list.map(e => e.doc!), meta);
        list.forEach((e, i) => records?.[i] && out.set(e._id, records[i]));
      }),
      ...[...live].map(async ([owner, list]) => {
        const records = await this.deps.renderer.changeRecords(owner, [...new Set(list.map(e => e.id))], meta);
        for (const e of list) if (records?.[String(e.id)]) out.set(e._id, records[String(e.id)]);
      })
    ]);
    return out;
  }
}
