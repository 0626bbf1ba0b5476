/**
 * API keys of sites (C40: the generated administrator key; C48: the platform API): made here, stored only as their SHA-256 hash, compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "crypto";

/** A new key, as a client sends it (`Bearer <key>`). */
export function newApiKey(): string {
  return randomBytes(24).toString("base64url");
}

/** The stored form of a key. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Whether `key` hashes to `hash`, compared in constant time. */
export function keyMatches(key: string, hash: string): boolean {
  const a = Buffer.from(hashApiKey(key), "hex");
  const b = Buffer.from(hash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The smallest positive user id not in `used` (the rule of D15 (users come from the API keys) for keys that name no user). */
export function nextUserId(used: Iterable<number>): number {
  const taken = new Set(used);
  let id = 1;
  while (taken.has(id)) id++;
  return id;
}
