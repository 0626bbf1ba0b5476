/**
 * What a delivery says (docs/webhooks.md, C63#payload): one body per change,
 * built once when the change is fanned out and kept, so every attempt to every endpoint sends the same
 * bytes.
 */
import { NAMESPACE_PATH } from "../settings";
import type { ChangeType } from "../changes/feed";

/** The collection segment of a record type's routes. */
const ROUTE_OF: Record<ChangeType, string> = { event: "events", venue: "venues", organizer: "organizers", category: "categories", tag: "tags" };

/** A record's `rest_url` under the site's default-language root (`{base_url}/{REST_PREFIX}`). */
export function recordRestUrl(baseUrl: string, restPrefix: string, type: ChangeType, id: number): string {
  return `${baseUrl}/${restPrefix}/${NAMESPACE_PATH}/${ROUTE_OF[type]}/${id}`;
}

export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: { id: number; sequence: number; rest_url: string; record?: Record<string, unknown>; replay?: true };
}

/**
 * The body of a change: `eventType` (`event.updated`), the change's time (ms since the epoch), its feed
 * position, and the record as an administrator reads it right after the change (left out for `deleted`);
 * `replay`: a delivery queued again by the replay route, marked so.
 */
export function payloadOf(o: { eventType: string; atMs: number; sequence: number; id: number; restUrl: string; record?: Record<string, unknown>; replay?: boolean }): WebhookPayload {
  const deleted = o.eventType.endsWith(".deleted");
  return {
    type: o.eventType,
    timestamp: new Date(o.atMs).toISOString(),
    data: { id: o.id, sequence: o.sequence, rest_url: o.restUrl, ...(!deleted && o.record ? { record: o.record } : {}), ...(o.replay ? { replay: true as const } : {}) }
  };
}

/** The type of a test delivery (`POST {ns}/webhooks/{id}/ping`). */
export const PING_TYPE = "webhook.ping";

/** A ping's body: its type, when it was asked for, and the endpoint's id. */
export function pingPayload(webhookId: number, atMs: number): { type: string; timestamp: string; data: { webhook_id: number } } {
  return { type: PING_TYPE, timestamp: new Date(atMs).toISOString(), data: { webhook_id: webhookId } };
}

/**
 * A delivery's key (unique in the store): `<endpoint>:<feed sequence>` for a change's own delivery,
 * `<endpoint>:<sequence>:<tag>` for a replay (the change's sequence, tag `r…`) or a ping (sequence 0, tag
 * `p…`), the tag fresh for each.
 */
export function deliveryKey(endpoint: number, sequence: number, tag?: string): string {
  return tag === undefined ? `${endpoint}:${sequence}` : `${endpoint}:${sequence}:${tag}`;
}

/** A delivery's id as receivers see it (`webhook-id`): the same on every attempt, opaque, one per delivery (its key). */
export function deliveryIdOfKey(key: string): string {
  return `msg_${key.replace(/:/g, "_")}`;
}

/** The endpoint, change and tag a delivery id names, or undefined when it is none. */
export function parseDeliveryId(id: unknown): { endpoint: number; sequence: number; tag?: string } | undefined {
  const m = typeof id === "string" ? /^msg_([1-9]\d{0,14})_(0|[1-9]\d{0,15})(?:_([rp][a-z0-9]{1,31}))?$/.exec(id) : null;
  if (!m) return undefined;
  const endpoint = Number(m[1]);
  const sequence = Number(m[2]);
  if (!Number.isSafeInteger(endpoint) || !Number.isSafeInteger(sequence) || (sequence === 0 && m[3] === undefined)) return undefined;
  return { endpoint, sequence, ...(m[3] !== undefined ? { tag: m[3] } : {}) };
}
