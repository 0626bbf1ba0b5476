/**
 * The idempotency-key records of safe retries (C21, lib/http/idempotency.ts): one small collection beside
 * a service's own, on the embedded store (`DATA_DIR/idempotency.db`, in memory for `:memory:`) or in the
 * service's MongoDB database (`idempotency_keys`). Claims are atomic on both: an insert of the record id
 * (unique `_id`), and conditional updates to take over an expired record or a lapsed lease.
 */
import * as path from "path";
import Datastore from "@seald-io/nedb";
import { ClaimResult, StoredAnswer } from "../../lib/http/idempotency";

interface KeyDoc {
  _id: string;
  fingerprint: string;
  state: "running" | "done";
  lease_until: number;
  expires_at: number;
  answer?: StoredAnswer;
}

/** The operations both backends offer. */
interface Backend {
  insert(doc: KeyDoc): Promise<boolean>;
  findOne(id: string): Promise<KeyDoc | null>;
  /** Sets fields on the record matching `query`; true when one was changed. */
  update(query: Record<string, unknown>, set: Partial<KeyDoc>): Promise<boolean>;
  replace(query: Record<string, unknown>, doc: KeyDoc): Promise<boolean>;
  remove(query: Record<string, unknown>): Promise<number>;
}

function nedbBackend(db: Datastore): Backend {
  return {
    async insert(doc) {
      try {
        await db.insertAsync(doc);
        return true;
      } catch (err) {
        if ((err as { errorType?: string }).errorType === "uniqueViolated") return false;
        throw err;
      }
    },
    findOne: async id => ((await db.findOneAsync({ _id: id })) as unknown as KeyDoc | null) ?? null,
    async update(query, set) {
      const res = await db.updateAsync(query, { $set: set }, {});
      return res.numAffected === 1;
    },
    async replace(query, doc) {
      const res = await db.updateAsync(query, doc, {});
      return res.numAffected === 1;
    },
    remove: query => db.removeAsync(query, { multi: true })
  };
}

function mongoBackend(col: any): Backend {
  return {
    async insert(doc) {
      try {
        await col.insertOne(doc);
        return true;
      } catch (err) {
        if ((err as { code?: number }).code === 11000) return false;
        throw err;
      }
    },
    findOne: id => col.findOne({ _id: id }),
    async update(query, set) {
      const res = await col.updateOne(query, { $set: set });
      return (res.modifiedCount ?? res.result?.nModified ?? 0) === 1;
    },
    async replace(query, doc) {
      const res = await col.replaceOne(query, doc);
      return (res.modifiedCount ?? res.result?.nModified ?? 0) === 1;
    },
    async remove(query) {
      const res = await col.deleteMany(query);
      return res.deletedCount ?? 0;
    }
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

/** The key store of a service: beside its MongoDB collection (`db` given) or in DATA_DIR. */
export async function openKeyStore(opts: { mongoDb?: any; dataDir: string }): Promise<KeyStore> {
  if (opts.mongoDb) return keyStore(mongoBackend(opts.mongoDb.collection("idempotency_keys")));
  const db = opts.dataDir === ":memory:"
    ? new Datastore({ inMemoryOnly: true })
    : new Datastore({ filename: path.join(opts.dataDir, "idempotency.db"), corruptAlertThreshold: 0 });
  await db.loadDatabaseAsync();
  return keyStore(nedbBackend(db));
}
