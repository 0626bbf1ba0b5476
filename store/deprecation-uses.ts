/**
 * How often each deprecated thing (lib/api-policy/deprecations.ts) was used, per site (docs/api-policy.md#deprecations):
 * one document per deprecation id in the site's `deprecation_uses` collection, its `count` moved by an
 * atomic `$inc` (two gateways adding at once both count); the first use of an id inserts it, and an insert
 * that loses the race to another adds to the winner's document instead.
 */
import type { Collection } from "./collection";
import { UniqueViolation } from "./errors";

export const DEPRECATION_USES_COLLECTION = "deprecation_uses";

export interface DeprecationUse {
  count: number;
  last_used_utc: string;
}

/** Adds `uses` (id → how many) to the counts, at `nowUtc`. */
export async function addUses(col: Collection, uses: Record<string, number>, nowUtc: string): Promise<void> {
  for (const [id, n] of Object.entries(uses)) {
    if (!(n > 0)) continue;
    const update = { $inc: { count: n }, $set: { last_used_utc: nowUtc } };
    if (await col.updateOne({ _id: id }, update)) continue;
    try {
      await col.insert({ _id: id, count: n, last_used_utc: nowUtc });
    } catch (err) {
      if (!(err instanceof UniqueViolation)) throw err;
      await col.updateOne({ _id: id }, update);
    }
  }
}

/** The site's counts, by deprecation id. */
export async function readUses(col: Collection): Promise<Record<string, DeprecationUse>> {
  const out: Record<string, DeprecationUse> = {};
  for (const doc of await col.find({})) out[String(doc._id)] = { count: Number(doc.count) || 0, last_used_utc: String(doc.last_used_utc ?? "") };
  return out;
}
