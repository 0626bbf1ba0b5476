/** The newest change entry per record, kept beside the embedded store (lib/changes/latest.ts). */
import * as path from "path";
import { LatestByKey } from "../../lib/changes/latest";
import { observeDatastore } from "../../mixins/store/write-observer";

const Datastore = require(require.resolve("@seald-io/nedb", { paths: [path.dirname(require.resolve("moleculer-db"))] }));

describe("newest change entry per record", () => {
  it("follows the store: the highest id of each key, null for a record without entries", async () => {
    const db = new Datastore({ inMemoryOnly: true });
    await db.insertAsync([{ _id: 1, key: "event:5", after: { v: 1 } }, { _id: 2, key: "term:3", after: { v: 2 } }]);
    const latest = new LatestByKey();
    observeDatastore(db, latest as any);
    expect(latest.get("event:5")).toMatchObject({ _id: 1, after: { v: 1 } });
    await db.insertAsync([{ _id: 4, key: "term:3", after: { v: 4 } }, { _id: 3, key: "term:3", after: { v: 3 } }]);
    expect(latest.get("term:3")).toMatchObject({ _id: 4 });
    expect(latest.get("venue:9")).toBeNull();
    // the store agrees
    const [newest] = await db.findAsync({ key: "term:3" }).sort({ _id: -1 }).limit(1);
    expect(latest.get("term:3")).toEqual(newest);
  });

  it("a removed newest entry sends the lookup back to the store", async () => {
    const db = new Datastore({ inMemoryOnly: true });
    const latest = new LatestByKey();
    observeDatastore(db, latest as any);
    await db.insertAsync([{ _id: 1, key: "event:5" }, { _id: 2, key: "event:5" }]);
    await db.removeAsync({ _id: 1 }, {});
    expect(latest.get("event:5")).toMatchObject({ _id: 2 });
    await db.removeAsync({ _id: 2 }, {});
    expect(latest.get("event:5")).toBeUndefined();
    latest.reset(db.getAllData());
    expect(latest.get("event:5")).toBeNull();
  });
});
