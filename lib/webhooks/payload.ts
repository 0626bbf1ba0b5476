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
  data: { id: number; sequence: number; rest_url: string; record?: Record<string, unknown> };
}

/**
 * The body of a change: `eventType` (`event.updated`), the change's time (ms since the epoch), its feed
 * position, and the record as an administrator reads it right after the change (left out for `deleted`).
 */
export function payloadOf(o: { eventType: string; atMs: number; sequence: number; id: number; restUrl: string; record?: Record<string, unknown> }): WebhookPayload {
  const deleted = o.eventType.endsWith(".deleted");
  return {
    type: o.eventType,
    timestamp: new Date(o.atMs).toISOString(),
    data: { id: o.id, sequence: o.sequence, rest_url: o.restUrl, ...(!deleted && o.record ? { record: o.record } : {}) }
  };
}

/** A delivery's id as receivers see it (`webhook-id`): the same on every attempt, opaque, one per endpoint and change. */
export function deliveryId(endpoint: number, sequence: number): string {
  return `msg_${endpoint}_${sequence}`;
}

/** The endpoint and change a delivery id names, or undefined when it is none. */
export function parseDeliveryId(id: unknown): { endpoint: number; sequence: number } | undefined {
  const m = typeof id === "string" ? /^msg_([1-9]\d{0,14})_([1-9]\d{0,15})$/.exec(id) : null;
  if (!m) return undefined;
  const endpoint = Number(m[1]);
  const sequence = Number(m[2]);
  return Number.isSafeInteger(endpoint) && Number.isSafeInteger(sequence) ? { endpoint, sequence } : undefined;
}
