/**
 * The MongoDB store, reached through moleculer-db-adapter-mongo (construct, connect; then the connected
 * driver's client and database the adapter holds as `client` and `db`) and the driver's public API.
 *
 * A database per site: the default site's records are in MONGO_URI's database (as before sites existed),
 * site n's in `<that name>_site<n>`, with the same collections and indexes; the sites and their keys are in
 * MONGO_URI's database (store/mongo/sites.ts). Chosen over the site in every key because the services'
 * queries, orders and ranges on `_id` (the record's id, numbered from 1 in every site) then go to the
 * server as they are, every index is the service's own, and a deleted site goes with one `dropDatabase`.
 * What it costs: every collection and index is a file of the server's storage engine per site that was
 * ever written, and a site's indexes are made at its first write on each node (README "MongoDB").
 * Documents keep carrying `site` (and indexes lead with it), as they did when one database held them.
 *
 * Transactions (store/mongo/collection.ts) need a replica set: a server that is not a member is refused at
 * start-up, naming what is missing.
 */
import MongoAdapter from "moleculer-db-adapter-mongo";
import type { MongoClientLike, MongoCol, MongoDb } from "./driver";
import type { IdRegistry, ImageRecord } from "../registry";
import type { IndexSpec, Store } from "../store";
import { createIndexes, deriveStoredKeys, FEED_INDEXES, mongoCollection, type SiteScope } from "./collection";
import { FOLDED, withFolded } from "./folded";
import { FEED_COLLECTION } from "../collection";
import { mongoSites, SITES_DB_SITE } from "./sites";
import { lockTurns } from "../lock-turns";

export type { MongoDb } from "./driver";

export interface MongoStore extends Store {
  close(): Promise<void>;
}

const DEFAULT_SITE = 1;

/** The name of a site's database. */
export function siteDatabase(base: string, site: number): string {
  return site === DEFAULT_SITE ? base : `${base}_site${site}`;
}

function registry(db: MongoDb, site: number): IdRegistry {
  const counters = db.collection("counters");
  const ids = db.collection("post_types");
  /** Moves a counter on by `by`; answers its new value (the last of the ids drawn). */
  const next = async (seq: string, by = 1): Promise<number> => {
    const res = await counters.findOneAndUpdate({ _id: `${site}:${seq}` }, { $inc: { seq: by } }, { upsert: true, returnOriginal: false, returnDocument: "after" });
    return res!.value!.seq as number;
  };
  return {
    async allocate(seq, type) {
      const id = await next(seq);
      if (seq === "posts") await ids.insertOne({ _id: `${site}:${id}`, site, id, type });
      return id;
    },
    async allocatePosts(type, count) {
      if (count <= 0) return [];
      // one counter move for the whole range
      const last = await next("posts", count);
      const drawn = Array.from({ length: count }, (_, i) => last - count + 1 + i);
      await ids.insertMany(drawn.map(id => ({ _id: `${site}:${id}`, site, id, type })));
      return drawn;
    },
    async typeOf(id) {
      return (await ids.findOne({ _id: `${site}:${id}` }))?.type;
    },
    async imageForUrl(url, extension) {
      const found = await ids.findOne({ site, type: "image", url });
      if (found) return { id: found.id, url, extension: found.extension };
      const id = await next("posts");
      try {
        await ids.insertOne({ _id: `${site}:${id}`, site, id, type: "image", url, extension });
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) throw err;
        const other = (await ids.findOne({ site, type: "image", url }))!;
        return { id: other.id, url, extension: other.extension };
      }
      return { id, url, extension };
    },
    async images(list) {
      const docs: Array<ImageRecord & { _id: string }> = (await ids.find({ site, type: "image", id: { $in: list } }).toArray()) as Array<ImageRecord & { _id: string }>;
      return docs.map(d => ({ id: d.id, url: d.url, extension: d.extension }));
    }
  };
}

/** What a server must answer to serve the store: a replica set member (transactions); else the start-up error naming it. */
export async function checkReplicaSet(db: MongoDb, location: string): Promise<void> {
  // `isMaster` (every server version; `hello` from 4.4.2 on) names the replica set as `setName`
  const hello = await db.command({ isMaster: 1 });
  if (hello.setName) return;
  throw new Error(`MONGO_URI: the MongoDB at ${location} is not a replica set member (its isMaster answer has no setName). ` +
    "The store writes a record and its change-feed entry in one transaction, which MongoDB runs only on a replica set: " +
    "start mongod with --replSet rs0, initiate it once (rs.initiate()), and name it in MONGO_URI (?replicaSet=rs0); " +
    "docker-compose.yml runs such a one-node replica set.");
}

export async function openMongo(uri: string, connectTimeoutMs: number): Promise<MongoStore> {
  const adapter = new MongoAdapter(uri, { useUnifiedTopology: true, serverSelectionTimeoutMS: Math.min(connectTimeoutMs, 30000) });
  const quiet = { info() {}, warn() {}, error() {}, debug() {} };
  adapter.init({} as never, { schema: { collection: "sites" }, logger: quiet } as never);
  const location = uri.replace(/\/\/[^@]*@/, "//***@");
  const deadline = Date.now() + connectTimeoutMs;
  for (;;) {
    try {
      await adapter.connect();
      break;
    } catch (err) {
      if (Date.now() >= deadline) throw new Error(`MongoDB at ${location} could not be reached within ${connectTimeoutMs} ms: ${(err as Error).message}`);
      await new Promise(resolve => setTimeout(resolve, 500));
    }
  }
  try {
    const { client, db } = connectedParts(adapter);
    return await connectedStore(client, db.databaseName, location, () => adapter.disconnect());
  } catch (err) {
    await adapter.disconnect();
    throw err;
  }
}

/** The connected driver's client and database, which the adapter holds as `client` and `db` (not in its typings). */
function connectedParts(adapter: object): { client: MongoClientLike; db: MongoDb } {
  const client: unknown = Reflect.get(adapter, "client");
  const db: unknown = Reflect.get(adapter, "db");
  if (!isMongoClient(client) || !isMongoDb(db)) throw new Error("moleculer-db-adapter-mongo connected without a client and a database");
  return { client, db };
}

const isMongoClient = (v: unknown): v is MongoClientLike =>
  typeof v === "object" && v !== null && "db" in v && typeof v.db === "function" && "startSession" in v && typeof v.startSession === "function";

const isMongoDb = (v: unknown): v is MongoDb =>
  typeof v === "object" && v !== null && "databaseName" in v && typeof v.databaseName === "string" && "collection" in v && typeof v.collection === "function";

/** The store over a connected client, once the server is known to run transactions and the sites' indexes exist. */
export async function connectedStore(client: MongoClientLike, base: string, location: string, close: () => Promise<void>): Promise<MongoStore> {
  await checkReplicaSet(client.db(base), location);
  const store = mongoStore(client, base, location, close);
  await store.sites!.prepare();
  return store;
}

/**
 * Documents stored before their texts had folded copies (store/mongo/folded.ts) get them, a batch at a
 * time; one that a write gave copies meanwhile is left as that write left it.
 */
async function foldStoredTexts(col: MongoCol): Promise<void> {
  for (;;) {
    const batch = await col.find({ [FOLDED]: { $exists: false } }).limit(500).toArray();
    if (!batch.length) return;
    for (const doc of batch) await col.updateMany({ _id: doc._id, [FOLDED]: { $exists: false } }, { $set: { [FOLDED]: withFolded(doc)[FOLDED] } });
  }
}

/** The store over a connected client whose database `base` is the default site's (`location` for messages; `close` ends the connection). */
export function mongoStore(client: MongoClientLike, base: string, location: string, close: () => Promise<void>): MongoStore & { sites: ReturnType<typeof mongoSites> } {
  /** Indexes made in a site's database by this process: `${site}/${collection}`. */
  const prepared = new Map<string, Promise<void>>();
  const prepare = (site: number, name: string, indexes: readonly IndexSpec[] = []): Promise<void> => {
    const key = `${site}/${name}`;
    let made = prepared.get(key);
    if (!made) {
      const db = client.db(siteDatabase(base, site));
      made = (async () => {
        await createIndexes(db.collection(name), name === FEED_COLLECTION && !indexes.length ? FEED_INDEXES : indexes);
        // the collection's counter (its appends', store/mongo/collection.ts) made outside any transaction,
        // so no transaction has to create the counters collection
        await db.collection("counters").findOneAndUpdate({ _id: `${site}:${name}` }, { $inc: { seq: 0 } }, { upsert: true, returnOriginal: false, returnDocument: "after" });
      })();
      prepared.set(key, made);
      made.catch(() => prepared.delete(key));
    }
    return made;
  };
  const turns = lockTurns();
  const scope = (site: number): SiteScope => ({ client, db: client.db(siteDatabase(base, site)), site, prepared: (name, indexes) => prepare(site, name, indexes) });
  const sites = mongoSites(client, client.db(base), {
    dropSite: async site => {
      if (site === DEFAULT_SITE || site === SITES_DB_SITE) return;
      await client.db(siteDatabase(base, site)).dropDatabase();
      for (const key of [...prepared.keys()]) if (key.startsWith(`${site}/`)) prepared.delete(key);
    }
  });
  return {
    kind: "mongo",
    location,
    collection: (name: string, indexes: readonly IndexSpec[], site = DEFAULT_SITE) => mongoCollection(scope(site), name, indexes),
    async ensureIndexes(name, indexes) {
      // the default site's database, at start-up: documents written by earlier versions brought up to
      // date first (folded copies, derived keys), then the indexes (a unique one the data breaks fails here)
      const col = client.db(base).collection(name);
      await foldStoredTexts(col);
      await deriveStoredKeys(col, indexes);
      prepared.delete(`${DEFAULT_SITE}/${name}`);
      await prepare(DEFAULT_SITE, name, indexes);
    },
    registry: (site = DEFAULT_SITE) => registry(client.db(siteDatabase(base, site)), site),
    // this process's turns alone: the MongoDB store holds no lock across nodes
    withLock: (key, fn) => turns.hold(key, fn),
    sites,
    close
  };
}
