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
import { checkDataFile } from "./recovery";
import { groupCommit } from "../../lib/group-commit";

export type Sequence = "posts" | "terms" | "changes";

export interface ImageRecord {
  id: number;
  url: string;
  extension: string;
}

/**
 * Image records (D7) live here too: they are posts of the shared id space, used by events, venues and
 * organizers alike (C25: the registry is the one owner, reached by every post service).
 */
export interface IdRegistry {
  allocate(seq: Sequence, type: string): Promise<number>;
  typeOf(id: number): Promise<string | undefined>;
  /** The image record made for `url`, made now if there is none. */
  imageForUrl(url: string, extension: string): Promise<ImageRecord>;
  images(ids: number[]): Promise<ImageRecord[]>;
}

const embedded = new Map<string, Promise<IdRegistry>>();

/** Id requests of one sequence, batched by group commit: one counter increment and one write per batch. */
function batchedAllocate(allocateMany: (seq: Sequence, types: string[]) => Promise<number[]>): IdRegistry["allocate"] {
  const bySeq = new Map<Sequence, (type: string) => Promise<number>>();
  return (seq, type) => {
    let allocate = bySeq.get(seq);
    if (!allocate) {
      allocate = groupCommit((types: string[]) => allocateMany(seq, types));
      bySeq.set(seq, allocate);
    }
    return allocate(type);
  };
}

async function openEmbedded(dataDir: string, warn?: (msg: string) => void): Promise<IdRegistry> {
  if (dataDir !== ":memory:") checkDataFile(path.join(dataDir, "ids.db"), warn);
  const db = dataDir === ":memory:"
    ? new Datastore({ inMemoryOnly: true })
    : new Datastore({ filename: path.join(dataDir, "ids.db"), corruptAlertThreshold: 0 });
  await db.loadDatabaseAsync();
  await db.ensureIndexAsync({ fieldName: "url", sparse: true });
  const pending = new Map<string, Promise<ImageRecord>>();
  const toImage = (doc: any): ImageRecord => ({ id: Number(String(doc._id).slice(3)), url: doc.url, extension: doc.extension });
  const reg: IdRegistry = {
    allocate: batchedAllocate(async (seq, types) => {
      // one increment and one append for every id asked for in the same tick (group commit)
      const res: any = await db.updateAsync({ _id: `seq:${seq}` }, { $inc: { seq: types.length } }, { upsert: true, returnUpdatedDocs: true });
      const first = (res.affectedDocuments.seq as number) - types.length + 1;
      const ids = types.map((_, i) => first + i);
      if (seq === "posts") await db.insertAsync(ids.map((id, i) => ({ _id: `id:${id}`, type: types[i] })));
      return ids;
    }),
    async typeOf(id) {
      const doc: any = await db.findOneAsync({ _id: `id:${id}` });
      return doc?.type;
    },
    imageForUrl(url, extension) {
      // one in-flight creation per URL, so concurrent writers reuse one record
      let p = pending.get(url);
      if (!p) {
        p = (async () => {
          const found: any = await db.findOneAsync({ type: "image", url });
          if (found) return toImage(found);
          const id = await reg.allocate("posts", "image");
          await db.updateAsync({ _id: `id:${id}` }, { $set: { url, extension } }, {});
          return { id, url, extension };
        })().finally(() => pending.delete(url));
        pending.set(url, p);
      }
      return p;
    },
    async images(ids) {
      const docs: any[] = await db.findAsync({ _id: { $in: ids.map(id => `id:${id}`) }, type: "image" });
      return docs.map(toImage);
    }
  };
  return reg;
}

/** The embedded registry of a DATA_DIR (one per process). */
export function embeddedRegistry(dataDir: string, warn?: (msg: string) => void): Promise<IdRegistry> {
  let reg = embedded.get(dataDir);
  if (!reg) {
    reg = openEmbedded(dataDir, warn);
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
  const reg: IdRegistry = {
    allocate: batchedAllocate(async (seq, types) => {
      const res = await counters.findOneAndUpdate({ _id: seq }, { $inc: { seq: types.length } }, { upsert: true, returnOriginal: false, returnDocument: "after" });
      const first = (res.value.seq as number) - types.length + 1;
      const allocated = types.map((_, i) => first + i);
      if (seq === "posts") await ids.insertMany(allocated.map((id, i) => ({ _id: id, type: types[i] })));
      return allocated;
    }),
    async typeOf(id) {
      const doc = await ids.findOne({ _id: id });
      return doc?.type;
    },
    async imageForUrl(url, extension) {
      const found = await ids.findOne({ type: "image", url });
      if (found) return { id: found._id, url, extension: found.extension };
      const id = await reg.allocate("posts", "image");
      await ids.updateOne({ _id: id }, { $set: { url, extension } });
      return { id, url, extension };
    },
    async images(list) {
      const docs = await ids.find({ _id: { $in: list }, type: "image" }).toArray();
      return docs.map((d: any) => ({ id: d._id, url: d.url, extension: d.extension }));
    }
  };
  return reg;
}
