/**
 * Standard Webhooks 1.0 signing (docs/webhooks.md#signatures): secrets are `whsec_` + base64 of random
 * bytes; the signature of a delivery is `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed by
 * the secret's decoded bytes. Secrets are kept encrypted (AES-256-GCM) when a key is configured
 * (WEBHOOK_SECRET_KEY), so a copy of the database alone does not let anyone sign.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "crypto";

export const SECRET_PREFIX = "whsec_";
export const SECRET_MIN_BYTES = 24;
export const SECRET_MAX_BYTES = 64;
/** Bytes of a generated secret. */
export const SECRET_BYTES = 32;

/** A new secret. */
export function newSecret(bytes = SECRET_BYTES): string {
  return SECRET_PREFIX + randomBytes(bytes).toString("base64");
}

/** The key bytes of a secret, or undefined when it is not `whsec_` + base64 of 24–64 bytes. */
export function secretKey(secret: unknown): Buffer | undefined {
  if (typeof secret !== "string" || !secret.startsWith(SECRET_PREFIX)) return undefined;
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return undefined;
  const key = Buffer.from(b64, "base64");
  return key.length >= SECRET_MIN_BYTES && key.length <= SECRET_MAX_BYTES ? key : undefined;
}

/** The `webhook-signature` header's value for one attempt. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = secretKey(secret);
  if (!key) throw new Error("not a webhook secret");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/**
 * The headers of one attempt (Unix seconds `timestamp`). With several secrets (a rotation's overlap: the
 * new one first, then the old), one signature each, space-separated, as Standard Webhooks allows: a
 * receiver holding either secret verifies the delivery.
 */
export function deliveryHeaders(secrets: string | readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
  const list = typeof secrets === "string" ? [secrets] : secrets;
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": list.map(secret => signature(secret, id, timestamp, body)).join(" ")
  };
}

/** The most hours a rotated-out secret may keep signing (`overlap_hours`). */
export const MAX_OVERLAP_HOURS = 720;

const SEALED = "enc1:";
const PLAIN = "plain:";

/** The 32-byte key WEBHOOK_SECRET_KEY names (any text, hashed), or undefined when unset. */
export function sealingKey(setting: string | undefined): Buffer | undefined {
  return setting ? createHash("sha256").update(setting, "utf8").digest() : undefined;
}

/** A secret as it is stored: encrypted under `key` when there is one. */
export function sealSecret(secret: string, key: Buffer | undefined): string {
  if (!key) return PLAIN + secret;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return SEALED + Buffer.concat([iv, cipher.getAuthTag(), data]).toString("base64");
}

/** A stored secret read back; throws when it was sealed under another key (or none is configured now). */
export function openSecret(stored: string, key: Buffer | undefined): string {
  if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
  if (!stored.startsWith(SEALED)) throw new Error("not a stored webhook secret");
  if (!key) throw new Error("webhook secrets are encrypted but WEBHOOK_SECRET_KEY is not set");
  const raw = Buffer.from(stored.slice(SEALED.length), "base64");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}
