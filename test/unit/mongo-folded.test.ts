/**
 * The folded copies of MongoDB documents' texts (store/mongo/folded.ts): how documents, updates and
 * queries are rewritten, and the copies given at start-up to documents stored before them (on the
 * in-memory stand-in for the driver, test/helpers/mongo-stand-in.ts: no MongoDB server runs here).
 */
import { FOLDED, foldedQuery, foldedUpdate, withFolded, withoutFolded } from "../../store/mongo/folded";
import { mongoStore } from "../../store/mongo/store";
import { mongoStandIn } from "../helpers/mongo-stand-in";

describe("folded copies of a document's texts", () => {
  test("every string field, nested objects' included, folded at its path; arrays, numbers and the old copies left out", () => {
    const doc = { _id: 7, title: "Café Ölfass", n: 3, tags: ["Jazz"], lc: { title: "straße" }, empty: {}, [FOLDED]: { stale: "x" } };
    expect(withFolded(doc)).toEqual({ _id: 7, title: "Café Ölfass", n: 3, tags: ["Jazz"], lc: { title: "straße" }, empty: {}, [FOLDED]: { title: "cafe olfass", lc: { title: "strasse" } } });
    expect(withFolded({ _id: 1, n: 2 })[FOLDED]).toEqual({});
    // a string key (a translation's `event:1:fr`) and the site are not texts
    expect(withFolded({ _id: "Event:1:FR", site: 1, lang: "FR" })[FOLDED]).toEqual({ lang: "fr" });
    expect(withoutFolded(withFolded(doc))).toEqual({ _id: 7, title: "Café Ölfass", n: 3, tags: ["Jazz"], lc: { title: "straße" }, empty: {} });
    expect(withoutFolded(null)).toBeNull();
  });

  test("an update sets or unsets each copy with its field, in the same operation; a replacement gets new copies", () => {
    expect(foldedUpdate({ $set: { title: "Ère", "lc.title": "ÈRE", n: 2 }, $unset: { excerpt: "" }, $inc: { count: 1 }, $push: { tags: 4 } })).toEqual({
      $set: { title: "Ère", "lc.title": "ÈRE", n: 2, [`${FOLDED}.title`]: "ere", [`${FOLDED}.lc.title`]: "ere" },
      $unset: { excerpt: "", [`${FOLDED}.n`]: "", [`${FOLDED}.excerpt`]: "" },
      $inc: { count: 1 },
      $push: { tags: 4 }
    });
    expect(foldedUpdate({ $inc: { n: 1 } })).toEqual({ $inc: { n: 1 } });
    expect(foldedUpdate({ _id: 3, name: "Zoë" })).toEqual({ _id: 3, name: "Zoë", [FOLDED]: { name: "zoe" } });
  });

  test("a literal pattern with the i flag is asked of the copy, folded; others stay on the field", () => {
    expect(foldedQuery({ name: /Café/i })).toEqual({ [`${FOLDED}.name`]: /cafe/ });
    expect(foldedQuery({ name: /^Straße$/i })).toEqual({ [`${FOLDED}.name`]: /^strasse$/ });
    expect(foldedQuery({ name: /a\.b/i })).toEqual({ [`${FOLDED}.name`]: /a\.b/ });
    expect(foldedQuery({ name: /Café/ })).toEqual({ name: /Café/ });
    expect(foldedQuery({ name: /ca.e/i })).toEqual({ name: /ca.e/i });
    expect(foldedQuery({ slug: "café", status: { $in: ["publish"] } })).toEqual({ slug: "café", status: { $in: ["publish"] } });
  });

  test("operators of one field split between the copy and the field; nesting kept; colliding parts all required", () => {
    expect(foldedQuery({ name: { $regex: /ÉTÉ/i, $exists: true } })).toEqual({ [`${FOLDED}.name`]: { $regex: /ete/ }, name: { $exists: true } });
    expect(foldedQuery({ name: { $not: /Café/i } })).toEqual({ [`${FOLDED}.name`]: { $not: /cafe/ } });
    expect(foldedQuery({ $or: [{ title: /Jazz/i }, { $and: [{ excerpt: /Jäzz/i }, { n: 1 }] }], $not: { title: /Rock/i } })).toEqual({
      $or: [{ [`${FOLDED}.title`]: /jazz/ }, { $and: [{ [`${FOLDED}.excerpt`]: /jazz/ }, { n: 1 }] }],
      $not: { [`${FOLDED}.title`]: /rock/ }
    });
    expect(foldedQuery({ "lc.title": { $regex: /é/i }, [`${FOLDED}.lc.title`]: "x" })).toEqual({ $and: [{ [`${FOLDED}.lc.title`]: { $regex: /e/ } }, { [`${FOLDED}.lc.title`]: "x" }] });
  });
});

describe("documents stored before the copies", () => {
  test("get them when the store makes its indexes; one a write gave copies keeps them", async () => {
    const server = mongoStandIn();
    const raw = server.db("calendar").collection("venues");
    await raw.insertOne({ _id: 1, site: 1, name: "Café Müller" });
    await raw.insertOne({ _id: 2, site: 1, name: "Caffè" });
    await raw.insertOne({ _id: 3, site: 1, name: "Café noir", [FOLDED]: { name: "written since" } });
    const store = mongoStore(server, "calendar", "stand-in", async () => undefined);
    const venues = store.collection("venues", []);
    expect(await venues.find({ name: /cafe/i })).toEqual([]);
    await store.ensureIndexes("venues", []);
    expect((await venues.find({ name: /cafe/i })).map(d => d._id)).toEqual([1]);
    expect((await venues.find({ name: /caffe/i })).map(d => d._id)).toEqual([2]);
    expect((await raw.findOne({ _id: 3 }))?.[FOLDED]).toEqual({ name: "written since" });
    // read back without the copies
    expect(await venues.findOne({ _id: 1 })).toEqual({ _id: 1, name: "Café Müller" });
  });
});
