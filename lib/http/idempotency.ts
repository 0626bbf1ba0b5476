/**
 * Safe retries of creates (C21: idempotency keys): an `Idempotency-Key` on a POST to a collection. The first request with a
 * key claims it; its answer (status, body, Location) is kept 24 hours and replayed to a repeat with the same
 * key and the same request; the same key with another request is 422 `rest_idempotency_mismatch`; a repeat
 * while the first is still running is 409 `rest_idempotency_in_progress`. Keys are scoped per caller and
 * route. The records live in a collection of the `changes` service, so every gateway node sees them.
 *
 * Which answers are kept: every completed answer (2xx, 4xx, and 500, as the outcome of a create that ran),
 * except 503 (the create did not run: the key is released, a retry runs it) and 504 (the create may still be
 * running: the key stays claimed until its lease ends, then a retry runs).
 */
import { createHash } from "crypto";

export const IDEMPOTENCY_HEADER = "idempotency-key";
/** How long a completed answer is replayed. */
export const KEEP_MS = 24 * 60 * 60 * 1000;

/** A key: 1 to 255 visible ASCII characters (spaces inside allowed). */
export function isValidKey(key: unknown): key is string {
  return typeof key === "string" && key.length > 0 && key.length <= 255 && /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key);
}

/** Routed actions that create a record (POST to a collection). */
export function isCreateAction(action: string | undefined, method: string | undefined): boolean {
  return method === "POST" && typeof action === "string" && action.endsWith(".create");
}

/** How long a claim protects a running request: longer than any request may run. */
export function leaseMs(requestTimeoutMs: number): number {
  return Math.max(60_000, 3 * (requestTimeoutMs || 0));
}

/** JSON with object keys sorted at every level (the same request gives the same text). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value as Record<string, unknown>).sort()
      .filter(k => (value as Record<string, unknown>)[k] !== undefined)
      .map(k => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** The stored record's id: the key within its caller and route. */
export function keyId(scope: string, route: string, key: string): string {
  return sha256(`${scope}\n${route}\n${key}`);
}

/** What makes two requests "the same": the route, the parameters, and what shapes the answer. */
export function requestFingerprint(parts: { route: string; params: unknown; language?: string; apiRoot?: string; fields?: unknown }): string {
  return sha256(canonicalJson(parts));
}

/** A kept answer. */
export interface StoredAnswer {
  status: number;
  body: string;
  contentType?: string;
  location?: string;
  /**
   * The body was not kept (it held a secret the idempotency store must not hold as plain text: a webhook
   * endpoint's): a repeat reads it again from this action, with the record's id.
   */
  refill?: { read: string; id: number };
}

/** What a claimed create stored (its action's service reads it back): kept with the claim in the create's transaction. */
export interface ProducedRecord {
  /** The action that reads it (`events.get`, `taxonomy.tags.get`…). */
  read: string;
  id: number;
}

export type ClaimResult =
  | { state: "claimed" }
  | { state: "produced"; record: ProducedRecord }
  | { state: "mismatch" }
  | { state: "in_progress" }
  | ({ state: "done" } & StoredAnswer);

/** The action reading what a create action made (`events.create` → `events.get`). */
export function readActionOfCreate(action: string): string {
  return action.replace(/\.create$/, ".get");
}

/** The claim a create answers, as the gateway hands it to the action (`ctx.meta.idempotencyClaim`). */
export function producedBy(meta: { idempotencyClaim?: string; idempotencyRead?: string } | undefined, id: number): { collection: string; id: string; produced: { read: string; id: number } } | undefined {
  return meta?.idempotencyClaim && meta.idempotencyRead ? { collection: "idempotency_keys", id: meta.idempotencyClaim, produced: { read: meta.idempotencyRead, id } } : undefined;
}

/** What to do with the claim once the answer is known. */
export function settlement(status: number): "store" | "release" | "keep" {
  if (status === 503) return "release";
  if (status === 504) return "keep";
  return "store";
}
