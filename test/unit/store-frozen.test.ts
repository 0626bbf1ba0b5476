/**
 * Reads by id without a copy (Collection.findByIds on the embedded store): the documents NeDB stores are
 * frozen as they are stored, so a reader gets them as they are and cannot change what the store keeps.
 */
import * as path from "path";
import { nedbCollection } from "../../mixins/store/collection";
import { FREEZE_STORED, observeDatastore } from "../../mixins/store/write-observer";

const Datastore = require(require.resolve("@seald-io/nedb", { paths: [path.dirname(require.resolve("moleculer-db"))] }));

describe("frozen stored documents", () => {
  let db: any;
  beforeEach(async () => {
    db = new Datastore({ inMemoryOnly: true });
    await db.insertAsync({ _id: 1, title: "One", venues: [3], nested: { a: 1 } });
    observeDatastore(db, FREEZE_STORED);
  });

  it("freezes what was there before and everything stored after, deeply", async () => {
    await db.insertAsync({ _id: 2, title: "Two", venues: [4] });
    await db.updateAsync({ _id: 1 }, { $set: { title: "Uno" } });
    for (const doc of db.getAllData()) {
      expect(Object.isFrozen(doc)).toBe(true);
      expect(Object.isFrozen(doc.venues)).toBe(true);
    }
    expect(Object.isFrozen(db.getAllData().find((d: any) => d._id === 1).nested)).toBe(true);
  });

  it("findByIds answers the stored documents, current after an update, and a change to one throws", async () => {
    // findByIds reads the id index only; the rest of the collection is not used here
    const col = nedbCollection(db);
    const [before] = await col.findByIds([1]);
    await db.updateAsync({ _id: 1 }, { $set: { title: "Uno" } });
    const [after] = await col.findByIds([1]);
    expect(before.title).toBe("One");
    expect(after.title).toBe("Uno");
    expect(() => { (after as any).title = "changed"; }).toThrow(TypeError);
    expect(() => { (after as any).venues.push(9); }).toThrow(TypeError);
    expect((await col.findByIds([1, 2, 1])).map(d => d._id)).toEqual([1]);
    expect(await col.findByIds([])).toEqual([]);
  });

  it("find still answers copies the caller may change", async () => {
    const docs = await db.findAsync({ _id: 1 });
    docs[0].title = "local";
    expect(db.getAllData()[0].title).toBe("One");
  });
});
