/**
 * Sites and their API keys on MongoDB (the SiteStore of store/sites.ts; docs/sites.md), in MONGO_URI's
 * database: `sites` (`_id` the site id, a unique index on `host`), `api_keys` (a unique index on `hash`),
 * their numbers and the sites version in `counters` under site 0. Every change of a site or of its keys
 * moves the version in the same transaction, and, as on PostgreSQL, answers only once the lease on the
 * versions before it has run out (store/sites.ts). A deleted site's records go with its database.
 */
import type { MongoClientLike, MongoDb, MongoSession } from "./driver";
import { inTransaction, writing } from "./collection";
import { GENERATED_KEY_ID, REMOTE_SITES_LEASE_MS, type KeyRow, type SiteRow, type SiteStore } from "../sites";
import { DEFAULT_SITE_ID } from "../../lib/sites/scope";
import { isUniqueViolation } from "../errors";
import { nextUserId } from "../../lib/sites/keys";
import type { SiteFields } from "../../lib/sites/site-input";
import type { Doc } from "../collection";

/** The pseudo-site whose counters number the sites and version them. */
export const SITES_DB_SITE = 0;

const pause = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

export interface MongoSiteStore extends SiteStore {
  /** Makes the unique indexes of hosts and key hashes (at start-up). */
  prepare(): Promise<void>;
}

export function mongoSites(client: MongoClientLike, db: MongoDb, hooks: { dropSite(site: number): Promise<void> }): MongoSiteStore {
  const sites = db.collection("sites");
  const keys = db.collection("api_keys");
  const counters = db.collection("counters");
  const leaseMs = REMOTE_SITES_LEASE_MS;
  const row = (d: Doc): SiteRow => ({
    id: Number(d._id), host: String(d.host), name: String(d.name), base_url: String(d.base_url), timezone: String(d.timezone),
    geolocation: d.geolocation === true, ...(d.deleting ? { deleting: true } : {})
  });
  const keyRow = (d: Doc): KeyRow => ({ site: Number(d.site), id: Number(d.id), hash: String(d.hash), role: String(d.role), user_id: Number(d.user_id) });
  const next = async (session: MongoSession, name: string): Promise<number> => {
    const res = await counters.findOneAndUpdate({ _id: name }, { $inc: { seq: 1 } }, { upsert: true, returnOriginal: false, returnDocument: "after", session });
    return Number(res!.value!.seq);
  };
  const bump = (session: MongoSession) => next(session, `${SITES_DB_SITE}:sites`);
  /** Runs a change in one transaction and answers once every lease on the versions before it has run out. */
  const change = async <T>(work: (session: MongoSession) => Promise<T>): Promise<T> => {
    const result = await inTransaction(client, work);
    await pause(leaseMs);
    return result;
  };
  const live = { deleting: { $exists: false } };
  const userIdsIn = async (site: number, session?: MongoSession) =>
    [...new Set((await keys.find({ site }, { session }).project({ user_id: 1 }).toArray()).map(d => Number(d.user_id)))].sort((a, b) => a - b);
  const fieldsOf = (f: SiteFields) => ({ host: f.host, name: f.name, base_url: f.base_url, timezone: f.timezone, geolocation: f.geolocation });

  return {
    leaseMs,
    async prepare() {
      await sites.createIndex({ host: 1 }, { unique: true });
      await keys.createIndex({ hash: 1 }, { unique: true });
      await keys.createIndex({ site: 1 }, {});
      // the counters collection made outside any transaction (the changes below move it in theirs)
      await counters.findOneAndUpdate({ _id: `${SITES_DB_SITE}:sites` }, { $inc: { seq: 0 } }, { upsert: true, returnOriginal: false, returnDocument: "after" });
    },
    async version() {
      return Number((await counters.findOne({ _id: `${SITES_DB_SITE}:sites` }))?.seq ?? 0);
    },
    byHost: async host => {
      const d = await sites.findOne({ host });
      return d ? row(d) : undefined;
    },
    byId: async id => {
      const d = await sites.findOne({ _id: id });
      return d ? row(d) : undefined;
    },
    any: async () => (await sites.findOne({})) !== null,
    async list(offset, limit) {
      const docs = await sites.find(live).sort({ _id: 1 }).skip(Math.floor(offset)).limit(Math.floor(limit)).toArray();
      return { rows: docs.map(row), total: await sites.countDocuments(live) };
    },
    liveIds: async () => (await sites.find(live).sort({ _id: 1 }).toArray()).map(d => Number(d._id)),
    deletingIds: async () => (await sites.find({ deleting: true }).sort({ _id: 1 }).toArray()).map(d => Number(d._id)),
    create(fields, keyHash) {
      return change(async session => {
        // Site ids are never reused; the default site is 1, so the n-th site made is n + 1.
        const id = 1 + (await next(session, `${SITES_DB_SITE}:site_ids`));
        await sites.insertOne({ _id: id, ...fieldsOf(fields) }, { session });
        const keyId = await next(session, `${id}:api_keys`);
        await keys.insertOne({ _id: `${id}:${keyId}`, site: id, id: keyId, hash: keyHash, role: "administrator", user_id: 1 }, { session });
        await bump(session);
        return { site: { id, ...fields }, keyId };
      });
    },
    update(id, fields) {
      return change(async session => {
        const found = await sites.findOne({ _id: id }, { session });
        if (!found || found.deleting) return undefined;
        await sites.updateOne({ _id: id }, { $set: fieldsOf(fields) }, { session });
        await bump(session);
        return { id, ...fields };
      });
    },
    markDeleting(id) {
      return change(async session => {
        const found = await sites.findOne({ _id: id }, { session });
        if (!found || found.deleting) return false;
        await sites.updateOne({ _id: id }, { $set: { deleting: true } }, { session });
        // Its keys go at once: nothing may call the site any more.
        await keys.deleteMany({ site: id }, { session });
        await bump(session);
        return true;
      });
    },
    async purgeChunk(id) {
      const found = await sites.findOne({ _id: id });
      if (!found) return true;
      if (!found.deleting) throw new Error(`site ${id} is not being deleted`);
      // every record of the site is in its database: dropped at once (a drop is not chunked)
      await hooks.dropSite(id);
      await writing(() => inTransaction(client, async session => {
        await counters.deleteMany({ _id: `${id}:api_keys` }, { session });
        await sites.deleteMany({ _id: id }, { session });
        await bump(session);
      }));
      return true;
    },
    addKey(site, hash, role, userId) {
      return change(async session => {
        const user = userId ?? nextUserId(await userIdsIn(site, session));
        const keyId = await next(session, `${site}:api_keys`);
        await keys.insertOne({ _id: `${site}:${keyId}`, site, id: keyId, hash, role, user_id: user }, { session });
        await bump(session);
        return { site, id: keyId, hash, role, user_id: user };
      });
    },
    async keepGeneratedKey(hash) {
      // one document of a fixed `_id` (as addKey names keys): the first node's insert wins, the others' are refused
      const _id = `${DEFAULT_SITE_ID}:${GENERATED_KEY_ID}`;
      let made = true;
      try {
        await writing(() => keys.insertOne({ _id, site: DEFAULT_SITE_ID, id: GENERATED_KEY_ID, hash, role: "administrator", user_id: 1 }));
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        made = false;
      }
      const doc = await keys.findOne({ _id });
      return { made, row: doc ? keyRow(doc) : undefined };
    },
    removeKey(site, keyId) {
      return change(async session => {
        const res = await keys.deleteMany({ site, id: keyId }, { session });
        if (res.deletedCount) await bump(session);
        return (res.deletedCount ?? 0) > 0;
      });
    },
    async keyByHash(hash) {
      const d = await keys.findOne({ hash });
      return d ? keyRow(d) : undefined;
    },
    userIds: site => userIdsIn(site)
  };
}
