/**
 * Integer ids from atomic counters kept in the store itself, and which record type owns each post id.
 * Events, venues, organizers and images draw from the `posts` sequence (one id space, as WordPress
 * posts: D2); categories and tags from `terms`.
 *
 * Embedded store: one NeDB datastore per DATA_DIR and process (NeDB serialises its operations, so an
 * increment is atomic; C23 keeps every user of a sequence in one process). MongoDB: findOneAndUpdate
 * with $inc on a `counters` collection, atomic across any number of processes.
 */
import * as path from "path";
import Datastore from "@seald-io/nedb";

export type Sequence = "posts" | "terms";

export interface IdRegistry {
  allocate(seq: Sequence, type: string): Promise<number>;
  typeOf(id: number): Promise<string | undefined>;
}

const embedded = new Map<string, Promise<IdRegistry>>();

async function openEmbedded(dataDir: string): Promise<IdRegistry> {
  const db = dataDir === ":memory:"
    ? new Datastore({ inMemoryOnly: true })
    : new Datastore({ filename: path.join(dataDir, "ids.db"), corruptAlertThreshold: 0 });
  await db.loadDatabaseAsync();
  return {
    async allocate(seq, type) {
      const res: any = await db.updateAsync({ _id: `seq:${seq}` }, { $inc: { seq: 1 } }, { upsert: true, returnUpdatedDocs: true });
      const id = res.affectedDocuments.seq as number;
      if (seq === "posts") await db.insertAsync({ _id: `id:${id}`, type });
      return id;
    },
    async typeOf(id) {
      const doc: any = await db.findOneAsync({ _id: `id:${id}` });
      return doc?.type;
    }
  };
}

/** The embedded registry of a DATA_DIR (one per process). */
export function embeddedRegistry(dataDir: string): Promise<IdRegistry> {
  let reg = embedded.get(dataDir);
  if (!reg) {
    reg = openEmbedded(dataDir);
    embedded.set(dataDir, reg);
  }
  return reg;
}

/** Forget embedded registries (tests that restart services on the same DATA_DIR). */
export function resetEmbeddedRegistries(): void {
  embedded.clear();
}

/** The registry inside a MongoDB database (driver 3.x Db object). */
export function mongoRegistry(db: any): IdRegistry {
  const counters = db.collection("counters");
  const ids = db.collection("post_ids");
  return {
    async allocate(seq, type) {
      const res = await counters.findOneAndUpdate({ _id: seq }, { $inc: { seq: 1 } }, { upsert: true, returnOriginal: false, returnDocument: "after" });
      const id = res.value.seq as number;
      if (seq === "posts") await ids.insertOne({ _id: id, type });
      return id;
    },
    async typeOf(id) {
      const doc = await ids.findOne({ _id: id });
      return doc?.type;
    }
  };
}
