/**
 * A DATA_DIR written by the NeDB version is imported once into SQLite at the first start (C39: migrations and upgrades): records,
 * later lines replacing earlier ones, deletions, id counters and image records; the old files kept.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { acquireStore, releaseStore, StoreConfig } from "../../store";

const lines = (...docs: unknown[]) => docs.map(d => JSON.stringify(d)).join("\n") + "\n";

test("the NeDB files of a DATA_DIR become the SQLite database's records, once", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nedb-import-"));
  try {
    fs.writeFileSync(path.join(dir, "events.db"), lines(
      { _id: 1, title: "First", status: "publish", slug: "first", venues: [2], start_date: "2030-01-01 10:00:00" },
      { $$indexCreated: { fieldName: "slug" } },
      { _id: 3, title: "Gone", status: "draft", slug: "" },
      { _id: 1, title: "First, renamed", status: "publish", slug: "first", venues: [2], start_date: "2030-01-01 10:00:00" },
      { _id: 3, $$deleted: true }
    ));
    fs.writeFileSync(path.join(dir, "venues.db"), lines({ _id: 2, venue: "Hall", status: "publish", slug: "hall", created: { $$date: 1700000000000 } }));
    fs.writeFileSync(path.join(dir, "translations.db"), lines({ _id: "event:1:fr", type: "event", record_id: 1, lang: "fr", fields: { title: "Premier" } }));
    fs.writeFileSync(path.join(dir, "ids.db"), lines(
      { _id: "seq:posts", seq: 4 }, { _id: "seq:terms", seq: 9 },
      { _id: "id:1", type: "tribe_events" }, { _id: "id:2", type: "tribe_venue" }, { _id: "id:3", type: "tribe_events" },
      { _id: "id:4", type: "image", url: "https://example.com/a.png", extension: "png" }
    ));
    const notices: string[] = [];
    const config: StoreConfig = { dataDir: dir, connectTimeoutMs: 1000, onNotice: m => notices.push(m) };
    const store = await acquireStore(config);
    const events = store.collection("events", [{ field: "venues", array: true }]);
    expect(await events.find({}, { sort: { _id: 1 } })).toEqual([{ _id: 1, title: "First, renamed", status: "publish", slug: "first", venues: [2], start_date: "2030-01-01 10:00:00" }]);
    expect(await events.count({ venues: 2 })).toBe(1);
    expect(await store.collection("venues", []).findOne({ _id: 2 })).toMatchObject({ venue: "Hall", created: 1700000000000 });
    expect(await store.collection("translations", []).findOne({ _id: "event:1:fr" })).toMatchObject({ fields: { title: "Premier" } });
    const reg = store.registry();
    expect(await reg.typeOf(2)).toBe("tribe_venue");
    expect(await reg.images([4])).toEqual([{ id: 4, url: "https://example.com/a.png", extension: "png" }]);
    expect(await reg.allocate("posts", "tribe_events")).toBe(5);
    expect(await reg.allocate("terms", "post_tag")).toBe(10);
    expect(notices.join("\n")).toMatch(/Imported the NeDB data .*events 1/);
    await releaseStore(config);
    expect(fs.existsSync(path.join(dir, "events.db"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "events.db.imported"))).toBe(true);
    // a second start opens the database as it is: nothing imported again
    const again = await acquireStore(config);
    expect(await again.collection("events", []).count({})).toBe(1);
    expect(notices).toHaveLength(1);
    await releaseStore(config);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
