/**
 * The idempotency-key records of safe retries (C21: idempotency keys; lib/http/idempotency.ts), in the store's
 * `idempotency_keys` collection of the site. Claims are atomic on every store: an insert of the record id
 * (a primary key), and conditional updates to take over an expired record or a lapsed lease.
 */
import type { Collection } from "./collection";
import { ClaimResult, ProducedRecord, StoredAnswer } from "../lib/http/idempotency";
import { isUniqueViolation } from "./errors";

interface KeyDoc {
  _id: string;
  fingerprint: string;
  state: "running" | "done";
  lease_until: number;
  expires_at: number;
  answer?: StoredAnswer;
  /** The record the claimed create stored, marked in the create's own transaction (InsertOptions.claim). */
  produced?: ProducedRecord;
}

/** The operations the claims need. */
interface Backend {
  insert(doc: KeyDoc): Promise<boolean>;
  findOne(id: string): Promise<KeyDoc | null>;
  /** Sets fields on the record matching `query`; true when one was changed. */
  update(query: Record<string, unknown>, set: Partial<KeyDoc>): Promise<boolean>;
  replace(query: Record<string, unknown>, doc: KeyDoc): Promise<boolean>;
  remove(query: Record<string, unknown>): Promise<number>;
}

function collectionBackend(col: Collection): Backend {
  return {
    async insert(doc) {
      try {
        await col.insert(doc);
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },
    findOne: async id => ((await col.findOne({ _id: id })) as KeyDoc | null) ?? null,
    update: async (query, set) => (await col.updateOne(query, { $set: set })) !== null,
    replace: async (query, doc) => (await col.updateOne(query, doc)) !== null,
    remove: query => col.removeMany(query)
  };
}

export interface KeyStore {
  /** Claims `id` for a request with `fingerprint`, or says what holds it. */
  claim(id: string, fingerprint: string, leaseMs: number, keepMs: number): Promise<ClaimResult>;
  /** Keeps the answer of the claimed request for `keepMs`. */
  settle(id: string, fingerprint: string, answer: StoredAnswer, keepMs: number): Promise<void>;
  /** Gives the claim up (the request did not run). */
  release(id: string, fingerprint: string): Promise<void>;
  /** Drops expired records; answers how many. */
  sweep(): Promise<number>;
}

export function keyStore(backend: Backend, now: () => number = Date.now): KeyStore {
  const store: KeyStore = {
    async claim(id, fingerprint, leaseMs, keepMs) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const t = now();
        const fresh: KeyDoc = { _id: id, fingerprint, state: "running", lease_until: t + leaseMs, expires_at: t + keepMs };
        if (await backend.insert(fresh)) return { state: "claimed" };
        const held = await backend.findOne(id);
        if (!held) continue; // swept meanwhile: insert again
        if (held.expires_at <= t) {
          if (await backend.replace({ _id: id, expires_at: held.expires_at }, fresh)) return { state: "claimed" };
          continue;
        }
        if (held.fingerprint !== fingerprint) return { state: "mismatch" };
        if (held.state === "done" && held.answer) return { state: "done", ...held.answer };
        if (held.lease_until > t) return { state: "in_progress" };
        // The first request's lease lapsed after its create stored the record (its answer was never kept:
        // its node died): answered from that record, never created again.
        if (held.produced) return { state: "produced", record: held.produced };
        // The first request's lease lapsed (its node went away): this one takes over.
        if (await backend.update({ _id: id, state: "running", lease_until: held.lease_until }, { lease_until: t + leaseMs })) return { state: "claimed" };
      }
      return { state: "in_progress" };
    },
    async settle(id, fingerprint, answer, keepMs) {
      await backend.update({ _id: id, fingerprint }, { state: "done", answer, expires_at: now() + keepMs });
    },
    async release(id, fingerprint) {
      await backend.remove({ _id: id, fingerprint, state: "running" });
    },
    sweep() {
      return backend.remove({ expires_at: { $lte: now() } });
    }
  };
  return store;
}

/** The key store over the site's `idempotency_keys` collection. */
export function openKeyStore(col: Collection): KeyStore {
  return keyStore(collectionBackend(col));
}
