/**
 * Endpoints and deliveries as the routes answer them (docs/webhooks.md, C63: what a webhook says), from their stored
 * documents (store/webhooks.ts).
 */
import { toDb } from "../time/dates";
import { deliveryIdOfKey } from "./payload";

/** An endpoint as stored. */
export interface EndpointDoc {
  _id: number;
  url: string;
  events: string[];
  description: string;
  active: boolean;
  /** The secret, sealed (lib/webhooks/signing.ts). */
  secret: string;
  created_utc: string;
  /** Changes numbered above this are delivered to it (the feed's end when it was made, C63: what a webhook says). */
  after_seq: number;
  /** Why the service made it inactive (410, failing too long); cleared when it is made active again. */
  failure_reason?: string;
  /** When its first failure since its last success happened (ms since the epoch). */
  failing_since?: number;
  /** The secret it had before its last rotation (sealed), still signing with the new one until `previous_until` (ms). */
  previous_secret?: string;
  previous_until?: number;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** A delivery as stored: one per endpoint and change (`key` unique). */
export interface DeliveryDoc {
  _id: number;
  key: string;
  endpoint: number;
  /** The change's position in the site's feed (its payload's key). */
  seq: number;
  /** `<endpoint>:<record key>`: the deliveries of one record to one endpoint, sent in feed order. */
  chain: string;
  type: string;
  record_id: number;
  status: DeliveryStatus;
  attempts: number;
  /** Attempts made before the delivery was last queued again by hand. */
  base: number;
  /** While pending: when it may be claimed (ms; a claimed attempt's lease end). Absent otherwise. */
  due?: number;
  last_status_code: number | null;
  delivered_utc: string | null;
  /** When it was made (ms since the epoch): removed WEBHOOK_RETENTION_DAYS later. */
  at?: number;
  /** A replay's or a ping's own body (a change's own delivery sends its change's payload, by `seq`). */
  body?: string;
  /** Queued by the replay route. */
  replay?: true;
}

export interface EndpointOut {
  id: number;
  url: string;
  events: string[];
  description: string;
  active: boolean;
  secret?: string;
  created_utc: string;
  failure_reason?: string;
}

export function presentEndpoint(doc: EndpointDoc, secret?: string): EndpointOut {
  return {
    id: doc._id,
    url: doc.url,
    events: doc.events,
    description: doc.description,
    active: doc.active,
    ...(secret !== undefined ? { secret } : {}),
    created_utc: doc.created_utc,
    ...(!doc.active && doc.failure_reason ? { failure_reason: doc.failure_reason } : {})
  };
}

export interface DeliveryOut {
  id: string;
  type: string;
  record_id: number;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  next_attempt_utc: string | null;
  delivered_utc: string | null;
  /** Present (true) on a delivery the replay route queued. */
  replay?: true;
}

export function presentDelivery(doc: DeliveryDoc): DeliveryOut {
  return {
    id: deliveryIdOfKey(doc.key),
    type: doc.type,
    record_id: doc.record_id,
    status: doc.status,
    attempts: doc.attempts,
    last_status_code: doc.last_status_code,
    next_attempt_utc: doc.status === "pending" && typeof doc.due === "number" ? toDb(new Date(doc.due)) : null,
    delivered_utc: doc.delivered_utc,
    ...(doc.replay ? { replay: true as const } : {})
  };
}
