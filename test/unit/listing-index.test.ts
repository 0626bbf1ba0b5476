/**
 * The events listing index answers what the store query answers: random events in the embedded store's
 * own NeDB (the version moleculer-db bundles), followed through the write observer, then random list
 * filters compared page by page and total by total with `buildEventQuery` + `eventSort` run by NeDB.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ListingIndex } from "../../lib/events/listing-index";
import { buildEventQuery, eventSort, EventListFilters } from "../../lib/events/event-query";
import { observeDatastore } from "../../mixins/store/write-observer";

// The NeDB the store runs on (moleculer-db's own copy), not the newer one at the top of node_modules.
const Datastore = require(require.resolve("@seald-io/nedb", { paths: [path.dirname(require.resolve("moleculer-db"))] }));

/** A small deterministic generator, so a failure repeats. */
function rng(seed: number) {
  let s = seed >>> 0;
  const next = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    some: (n: number, max: number) => [...new Set(Array.from({ length: Math.floor(next() * (max + 1)) }, () => 1 + Math.floor(next() * n)))]
  };
}

const STATUSES = ["publish", "future", "draft", "pending", "private", "trash"];
const day = (d: number, h = 0) => {
  const t = new Date(Date.UTC(2030, 0, 1) + d * 86400000 + h * 3600000);
  return t.toISOString().slice(0, 19).replace("T", " ");
};

function randomEvent(r: ReturnType<typeof rng>, id: number) {
  // a few events share a start, so the publication date and the id decide their order
  const shared = r.next() < 0.1;
  const startDay = shared ? 10 : r.int(60);
  return {
    _id: id,
    start_date: shared ? day(10, 10) : day(startDay, r.int(24)),
    end_date: day(startDay + r.int(3), 23),
    date: day(-r.int(5), r.int(2)),
    status: r.pick(STATUSES),
    hide_from_listings: r.next() < 0.1,
    featured: r.next() < 0.3,
    ...(r.next() < 0.5 ? { ticketed: r.next() < 0.5 } : {}),
    ...(r.next() < 0.2 ? { post_parent: 1 + r.int(5) } : {}),
    modified_utc: day(-r.int(10), r.int(24)),
    title: r.pick(["Jazz night", "Rock concert", "Night concert", "Salsa"]),
    description: r.pick(["", "<p>A jazz evening</p>", "An open air concert"]),
    ...(r.next() < 0.2 ? { post_password: r.pick(["", "secret"]) } : {}),
    categories: r.some(6, 2),
    tags: r.some(6, 2),
    venues: r.some(8, 1),
    organizers: r.some(8, 2)
  };
}

function randomFilters(r: ReturnType<typeof rng>): EventListFilters {
  const f: EventListFilters = { statuses: r.some(6, 3).map(i => STATUSES[i - 1]), bounds: {}, searchAccess: "all" };
  if (!f.statuses.length) f.statuses = ["publish"];
  const maybe = (p: number) => r.next() < p;
  if (maybe(0.6)) f.bounds.start_date = day(r.int(50), r.pick([0, 10, 23]));
  if (maybe(0.4)) f.bounds.end_date = day(10 + r.int(50), r.pick([0, 10, 23]));
  if (maybe(0.15)) f.bounds.starts_after = day(r.int(50), 10);
  if (maybe(0.15)) f.bounds.starts_before = day(10 + r.int(50), 10);
  if (maybe(0.15)) f.bounds.ends_after = day(r.int(50), 23);
  if (maybe(0.15)) f.bounds.ends_before = day(10 + r.int(50), 23);
  if (maybe(0.1)) f.include = r.some(120, 20);
  if (maybe(0.2)) f.categoryIds = r.some(6, 2);
  if (maybe(0.15)) f.tagIds = r.some(6, 2);
  if (maybe(0.15)) f.venueIds = r.some(8, 2);
  if (maybe(0.15)) f.organizerIds = r.some(8, 2);
  if (maybe(0.2)) f.featured = maybe(0.5);
  if (maybe(0.1)) f.postParent = 1 + r.int(5);
  if (maybe(0.15)) f.ticketed = maybe(0.5);
  if (maybe(0.1)) f.geoVenues = maybe(0.5) ? { in: r.some(8, 3) } : { notIn: r.some(8, 3) };
  if (maybe(0.15)) {
    f.search = r.pick(["jazz", "-jazz", "\"night concert\"", "concert night", "evening"]);
    f.searchAccess = r.pick<EventListFilters["searchAccess"]>(["all", {}, { password: "secret" }]);
  }
  if (maybe(0.1)) f.modified = maybe(0.5) ? { after: day(-5) } : { before: day(-3), ...(maybe(0.5) ? { after: day(-8) } : {}) };
  return f;
}

async function storePage(db: any, f: EventListFilters, skip: number, limit: number) {
  const query = buildEventQuery(f);
  const [total, docs] = await Promise.all([
    db.countAsync(query),
    db.findAsync(query).sort(eventSort(!!f.include)).skip(skip).limit(limit)
  ]);
  return { total, ids: docs.map((d: any) => d._id) };
}

async function compareMany(db: any, index: ListingIndex, r: ReturnType<typeof rng>, rounds: number): Promise<number> {
  let nonEmpty = 0;
  for (let i = 0; i < rounds; i++) {
    const f = randomFilters(r);
    const skip = r.pick([0, 0, 3, 10]);
    const limit = r.pick([1, 5, 10, 50]);
    const expected = await storePage(db, f, skip, limit);
    const got = index.page(f, skip, limit);
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      throw new Error(`filters ${JSON.stringify(f)} skip ${skip} limit ${limit}: index ${JSON.stringify(got)}, store ${JSON.stringify(expected)}`);
    }
    if (expected.total > 0) nonEmpty++;
  }
  return nonEmpty;
}

/** `linkedUpcoming` against the store query of `events.linkedPostIds` (upcoming), for both fields and a few dates and statuses. */
async function compareLinked(db: any, index: ListingIndex): Promise<void> {
  for (const field of ["venues", "organizers"] as const) {
    for (const [from, statuses] of [[day(30), undefined], [day(45), ["publish", "private"]], [day(58), ["publish"]], [day(0), ["draft"]]] as const) {
      const and: object[] = [{ [field]: { $exists: true } }, { start_date: { $gte: from } }, { hide_from_listings: { $ne: true } }];
      if (statuses) and.push({ status: { $in: statuses } });
      const expected = [...new Set((await db.findAsync({ $and: and })).flatMap((d: any) => d[field]))].sort();
      expect(index.linkedUpcoming(field, from, statuses).sort()).toEqual(expected);
    }
  }
}

describe("events listing index", () => {
  let db: any;
  let index: ListingIndex;
  let dir: string;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "listing-"));
    db = new Datastore({ filename: path.join(dir, "events.db") });
    await db.loadDatabaseAsync();
    for (const field of ["start_date", "end_date", "status", "categories", "venues"]) await db.ensureIndexAsync({ fieldName: field });
    index = new ListingIndex();
    observeDatastore(db, { reset: docs => index.load(docs as any), saved: doc => index.upsert(doc as any), removed: doc => index.remove(doc._id) });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("answers every filter combination as the store query does (pages and totals)", async () => {
    const r = rng(7);
    await db.insertAsync(Array.from({ length: 300 }, (_, i) => randomEvent(r, i + 1)));
    expect(index.size).toBe(300);
    // most combinations select something: the comparison is not between two empty answers
    expect(await compareMany(db, index, r, 400)).toBeGreaterThan(150);
  });

  it("checks every end bound in full while some event ends before it starts", async () => {
    const r = rng(9);
    await db.insertAsync(Array.from({ length: 200 }, (_, i) => randomEvent(r, i + 1)));
    await db.insertAsync({ ...randomEvent(r, 500), start_date: day(20, 10), end_date: day(2, 10), status: "publish" });
    expect(await compareMany(db, index, r, 200)).toBeGreaterThan(50);
    await db.removeAsync({ _id: 500 }, {});
    expect(await compareMany(db, index, r, 100)).toBeGreaterThan(20);
  });

  it("follows inserts, updates (one and many), removals and a reload of the data file", async () => {
    const r = rng(11);
    for (let i = 0; i < 120; i++) await db.insertAsync(randomEvent(r, i + 1));
    for (let i = 0; i < 150; i++) {
      const id = 1 + r.int(120);
      const change = r.pick([
        { $set: { status: r.pick(STATUSES) } },
        { $set: { start_date: day(r.int(60), 12), modified_utc: day(0, r.int(24)) } },
        { $set: { hide_from_listings: r.next() < 0.5 } },
        { $set: { featured: r.next() < 0.5 } },
        { $push: { categories: 1 + r.int(6) } }
      ]);
      await db.updateAsync({ _id: id }, change);
    }
    await db.updateAsync({ venues: 3 }, { $pull: { venues: 3 } }, { multi: true });
    await db.removeAsync({ status: "trash", featured: true }, { multi: true });
    expect(await compareMany(db, index, r, 200)).toBeGreaterThan(50);
    await compareLinked(db, index);
    // a reload rebuilds from the file, as on a restart
    await db.loadDatabaseAsync();
    expect(index.size).toBe((await db.findAsync({})).length);
    expect(await compareMany(db, index, r, 100)).toBeGreaterThan(20);
  });

  it("hears nothing of a write the store refuses", async () => {
    await db.ensureIndexAsync({ fieldName: "slug", unique: true });
    await db.insertAsync({ ...randomEvent(rng(1), 1), slug: "a" });
    await expect(db.insertAsync({ ...randomEvent(rng(2), 2), slug: "a" })).rejects.toThrow();
    expect(index.size).toBe(1);
    await db.insertAsync({ ...randomEvent(rng(3), 3), slug: "b" });
    await expect(db.updateAsync({ _id: 3 }, { $set: { slug: "a", status: "draft" } })).rejects.toThrow();
    const f: EventListFilters = { statuses: STATUSES, bounds: {}, searchAccess: "all" };
    expect(index.page(f, 0, 10)).toEqual(await storePage(db, f, 0, 10));
  });

  it("searches the text as stored now, with or without folded copies kept", async () => {
    const r = rng(13);
    await db.insertAsync(Array.from({ length: 150 }, (_, i) => randomEvent(r, i + 1)));
    const searches = ["jazz", "-jazz", "\"night concert\"", "concert night", "evening", "JAZZ nIgHt"];
    const compareSearches = async (idx: ListingIndex) => {
      for (const search of searches) {
        const f: EventListFilters = { statuses: STATUSES, bounds: {}, searchAccess: r.pick<EventListFilters["searchAccess"]>(["all", {}]), search };
        expect([search, idx.page(f, 0, 200)]).toEqual([search, await storePage(db, f, 0, 200)]);
      }
    };
    await compareSearches(index); // folded copies made now
    for (let id = 1; id <= 150; id += 3) await db.updateAsync({ _id: id }, { $set: { title: r.pick(["Late jazz", "Salsa", "Ñight concert", "night CONCERT"]) } });
    await compareSearches(index); // an update replaces the copy
    const unkept = new ListingIndex(0);
    unkept.load(await db.findAsync({}));
    await compareSearches(unkept);
  });

  it("leaves a condition it does not know to the store", async () => {
    expect(index.page({ statuses: ["publish"], bounds: {}, searchQuery: { $where: "true" }, searchAccess: "all" }, 0, 10)).toBeUndefined();
  });

  it("lists the venues and organizers of upcoming listed events, as the store query does", async () => {
    const r = rng(5);
    await db.insertAsync(Array.from({ length: 200 }, (_, i) => randomEvent(r, i + 1)));
    await compareLinked(db, index);
    expect(index.linkedUpcoming("venues", day(100))).toEqual([]);
    // an event moved to the past or hidden no longer counts for its venue
    const [only] = await db.findAsync({ venues: 5 });
    await db.updateAsync({ venues: 5 }, { $set: { start_date: day(-30) } }, { multi: true });
    expect(index.linkedUpcoming("venues", day(0))).not.toContain(5);
    await db.updateAsync({ _id: only._id }, { $set: { start_date: day(59) } });
    expect(index.linkedUpcoming("venues", day(0))).toContain(5);
    await db.updateAsync({ _id: only._id }, { $set: { hide_from_listings: true } });
    expect(index.linkedUpcoming("venues", day(0))).not.toContain(5);
    await compareLinked(db, index);
  });
});
