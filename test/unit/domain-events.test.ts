/**
 * The events domain's plain classes built without a broker: PostRecords
 * (domain/posts/post-records.ts) on an in-memory SQLite store, and the SeriesPlanner
 * (domain/events/series-planner.ts) with a writer of one event and a feed that records what it is told.
 * Covers create, update, trash, series planning (materialise, `this` / `all` scopes, the horizon), the
 * records' feed entries, and embedding (domain/events/event-embeds.ts: one ask per kind and page).
 */
import { acquireStore, IndexSpec, Store } from "../../store";
import { PostRecords } from "../../domain/posts/post-records";
import { SeriesPlanner } from "../../domain/events/series-planner";
import type { SeriesFeed } from "../../domain/events/event-ports";
import type { EventWriter } from "../../domain/events/event-writer";
import { EventEmbedder } from "../../domain/events/event-embeds";
import { TermCountNotices } from "../../domain/events/term-count-notices";
import type { SeriesDoc } from "../../lib/events/series";
import type { ChangeInput } from "../../lib/changes/feed";
import { wallClockToUtc } from "../../lib/time/dates";
import { sanitizeSlug } from "../../lib/text/slug";
import { dayAt } from "../helpers/events";

const INDEXES: IndexSpec[] = [
  { field: "status" }, { field: "slug" }, { field: "modified_utc" },
  { field: "slug", unique: true, unlessStatus: ["draft", "pending", "auto-draft", "trash"] },
  { field: "series_id", sparse: true }, { field: "series_horizon", sparse: true }, { field: "series_key", unique: true, sparse: true },
  { field: "series_overrides", array: true }
];

let nextSite = 7100;
/** The call a write carries (here: its language only). */
interface Call { lang: string }

/** A writer of one event as the service writes one: the fields sent, dates in UTC too, a unique slug. */
function writerOf(records: PostRecords<SeriesDoc>): EventWriter<Call> {
  return {
    async write(_call, p, current) {
      const fields: Record<string, unknown> = {};
      for (const k of ["title", "status", "start_date", "end_date"]) if (p[k] !== undefined) fields[k] = p[k];
      const zone = String(current?.timezone ?? "UTC");
      if (fields.start_date) fields.utc_start_date = wallClockToUtc(String(fields.start_date), zone);
      if (fields.end_date) fields.utc_end_date = wallClockToUtc(String(fields.end_date), zone);
      const stamp = records.modifiedAt(records.now());
      if (current) {
        const after = await records.store.updateOne({ _id: current._id }, { $set: { ...fields, ...stamp } }, { change: d => records.feedEntryOf("updated", d) });
        return after!;
      }
      const [id] = await records.allocateIds(1);
      const hold = await records.holdSlug(sanitizeSlug(String(fields.title)), id);
      try {
        const doc = {
          _id: id, author: 1, title: "", description: "", excerpt: "", status: "publish", timezone: zone, all_day: false, image: null,
          categories: [], tags: [], venues: [], organizers: [], post_parent: 0, date: "2026-01-01 00:00:00", date_utc: "2026-01-01 00:00:00",
          ...fields, ...stamp, slug: hold.slug
        };
        return await records.store.insert(doc, { change: records.feedEntryOf("created", doc) });
      } finally {
        hold.release();
      }
    }
  };
}

describe("the events domain without a broker", () => {
  let store: Store;
  let records: PostRecords<SeriesDoc>;
  let planner: SeriesPlanner<Call>;
  const told: ChangeInput[] = [];
  const emitted: string[] = [];
  const call: Call = { lang: "en" };

  beforeAll(async () => {
    store = await acquireStore({ dataDir: ":memory:", connectTimeoutMs: 1000 });
    await store.ensureIndexes("events", INDEXES);
  });

  beforeEach(() => {
    const site = nextSite++;
    records = new PostRecords<SeriesDoc>({ kind: "event", collection: () => store.collection("events", INDEXES, site), registry: () => store.registry(site), now: () => new Date() });
    const feed: SeriesFeed = {
      recordChanges: async changes => { told.push(...changes); },
      announce: async (action, doc) => { told.push({ type: "event", id: doc._id, action, modified_utc: String(doc.modified_utc), snapshot: null }); },
      emit: event => { emitted.push(event); }
    };
    const counts = new TermCountNotices({ cleanCaches: async () => undefined, emit: event => { emitted.push(event); }, now: () => new Date() });
    planner = new SeriesPlanner<Call>({ records, writer: writerOf(records), feed, counts, languageOf: c => c.lang, logger: { warn: () => undefined } });
    told.length = 0;
    emitted.length = 0;
  });

  // within the horizon (occurrences are stored through it, C55)
  const days = [3, 10, 17, 24];
  const weekly = { title: "Weekly", start_date: dayAt(3), end_date: dayAt(3, "11:00:00"), recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"] };
  const create = async (p: Record<string, unknown>) => planner.afterCreate(call, (await writerOf(records).write(call, p, undefined)), p);
  const members = async (head: SeriesDoc) => (await records.store.find({ series_id: head._id }, { sort: { start_date: 1 } }));

  test("records: create, look up by id and slug, a second record's slug made unique, trash suffixes it; each write carries its feed entry", async () => {
    const a = await writerOf(records).write(call, { title: "Same Name", start_date: "2030-01-01 10:00:00", end_date: "2030-01-01 11:00:00" }, undefined);
    const b = await writerOf(records).write(call, { title: "Same Name", start_date: "2030-01-02 10:00:00", end_date: "2030-01-02 11:00:00" }, undefined);
    expect([a.slug, b.slug]).toEqual(["same-name", "same-name-2"]);
    expect((await records.findById(a._id))?._id).toBe(a._id);
    expect((await records.findBySlug("Same%20Name"))?._id).toBe(a._id);
    expect(await records.kindOfId(a._id)).toBe("event");
    const trashed = await records.trash(a);
    expect(trashed).toMatchObject({ status: "trash", prior_status: "publish", slug: "same-name__trashed" });
    expect(records.feedEntryOf("updated", b)).toMatchObject({ type: "event", id: b._id, action: "updated" });
  });

  test("create with a rule: the series is planned (its first event and three occurrences, each told as created)", async () => {
    const head = await create(weekly);
    const all = await members(head);
    expect(all.map(m => m.start_date)).toEqual(days.map(d => dayAt(d)));
    expect(all.map(m => m.slug)).toEqual(["weekly", ...days.slice(1).map(d => `weekly-${dayAt(d).slice(0, 10)}`)]);
    expect(all.slice(1).every(m => m.post_parent === head._id)).toBe(true);
    expect(emitted.filter(e => e === "calendar.event.created")).toHaveLength(3);
    expect(await planner.horizon.extendHorizons(undefined, true)).toBe(0);
  });

  test("update: `all` renames every occurrence; `this` makes one an exception the next `all` leaves alone", async () => {
    const head = await create(weekly);
    const [, second, third] = await members(head);
    await planner.update(call, second, { title: "Only this one", scope: "this" });
    await planner.update(call, third, { title: "Renamed", scope: "all" });
    const titles = (await members(head)).map(m => m.title);
    expect(titles).toEqual(["Renamed", "Only this one", "Renamed", "Renamed"]);
    expect((await records.findById(second._id))?.series_overrides).toContain("title");
  });

  test("trash: `this` trashes one occurrence and excludes its date from the rule; planning again keeps it trashed", async () => {
    const head = await create(weekly);
    const [, second] = await members(head);
    const trashed = await planner.remove(call, second, "this");
    expect(trashed.status).toBe("trash");
    const after = await members(head);
    expect(after.map(m => m.status)).toEqual(["publish", "trash", "publish", "publish"]);
    expect((await records.findById(head._id))?.series_lines?.some(l => l.startsWith("EXDATE"))).toBe(true);
    expect(told.some(c => c.id === second._id && c.action === "deleted")).toBe(true);
    await planner.horizon.materialise((await records.findById(head._id))!, { horizon: "2999-01-01 00:00:00" });
    expect((await members(head)).map(m => m.status)).toEqual(["publish", "trash", "publish", "publish"]);
  });

  test("a rule change plans the occurrences again (surviving ids kept, the others removed and told as deleted)", async () => {
    const head = await create(weekly);
    const before = await members(head);
    expect(before).toHaveLength(4);
    await planner.update(call, head, { recurrence: ["RRULE:FREQ=WEEKLY;COUNT=2"], scope: "all" });
    const after = await members(head);
    expect(after.map(m => m._id)).toEqual(before.slice(0, 2).map(m => m._id));
    expect(told.filter(c => c.action === "deleted").map(c => c.id).sort()).toEqual(before.slice(2).map(m => m._id).sort());
  });

  test("write checks: a rule the series cannot read is a 400 on `recurrence`", async () => {
    expect(await planner.checkWrite({ recurrence: ["RRULE:FREQ=SOMETIMES"], start_date: "2030-01-07 10:00:00", end_date: "2030-01-07 11:00:00" })).toHaveProperty("recurrence");
    expect(await planner.checkWrite({ title: "no rule" })).toEqual({});
  });

  test("embedding: a page's venues, organizers, terms and images asked for once each, distinct ids, none when no event links one", async () => {
    const asked: Array<[string, string, number[]]> = [];
    const embedder = new EventEmbedder<string>({
      venues: async (req, ids) => { asked.push(["venues", req, ids]); return Object.fromEntries(ids.map(id => [id, { id, name: `V${id}` }])); },
      organizers: async (req, ids) => { asked.push(["organizers", req, ids]); return Object.fromEntries(ids.map(id => [id, { id }])); },
      terms: async (req, ids) => { asked.push(["terms", req, ids]); return Object.fromEntries(ids.map(id => [id, { id }])); },
      images: async ids => new Map(ids.map(id => [id, { url: `https://cdn.example.org/${id}.png`, id, extension: "png" }]))
    });
    const doc = (id: number, venues: number[], organizers: number[], categories: number[], tags: number[], image: number | null) =>
      ({ _id: id, venues, organizers, categories, tags, image });
    const embeds = await embedder.embedsOf("req-1", [doc(1, [10], [20, 21], [30], [31], 40), doc(2, [10, 11], [21], [30], [], null)]);
    expect(asked).toEqual([["venues", "req-1", [10, 11]], ["organizers", "req-1", [20, 21]], ["terms", "req-1", [30, 31]]]);
    expect(embeds.venues[11]).toEqual({ id: 11, name: "V11" });
    expect(embeds.images.get(40)?.url).toBe("https://cdn.example.org/40.png");
    asked.length = 0;
    const bare = await embedder.embedsOf("req-2", [doc(3, [], [], [], [], null)]);
    expect(asked).toEqual([]);
    expect(bare).toMatchObject({ venues: {}, organizers: {}, terms: {} });
  });
});
