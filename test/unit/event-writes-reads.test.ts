/**
 * The events domain put together as the events service puts it together in created(), without a broker:
 * the writer of one event (domain/events/event-writer.ts), the write checks
 * (domain/events/write-checks.ts), the writes (domain/events/event-commands.ts), the series planner
 * (domain/events/series-planner.ts) writing through that writer, the reader (domain/events/event-reader.ts)
 * with its list queries (domain/events/event-list-filters.ts) and embeds (domain/events/event-embeds.ts),
 * on an in-memory SQLite store. The ports to the other services (domain/events/event-ports.ts) are plain
 * functions that record what they were asked.
 */
import { acquireStore, IndexSpec, Store } from "../../store";
import { PostRecords } from "../../domain/posts/post-records";
import { SeriesPlanner } from "../../domain/events/series-planner";
import { EventEmbedder } from "../../domain/events/event-embeds";
import { TermCountNotices } from "../../domain/events/term-count-notices";
import { EventTargets } from "../../domain/events/event-targets";
import { EventListQueries } from "../../domain/events/event-list-filters";
import { EventReader, type EmbedRequest } from "../../domain/events/event-reader";
import { EventRecordWriter } from "../../domain/events/event-writer";
import { EventWriteChecks } from "../../domain/events/write-checks";
import { EventCommands } from "../../domain/events/event-commands";
import type { EventCall, EventFeed, NeighbourServices, PostServices } from "../../domain/events/event-ports";
import type { SeriesDoc } from "../../lib/events/series";
import type { ChangeInput } from "../../lib/changes/feed";
import type { Caller } from "../../lib/access/callers";
import { ApiError } from "../../lib/errors";
import { canAccessPassword, listStatuses } from "../../lib/access/capabilities";
import { dayAt } from "../helpers/events";

const INDEXES: IndexSpec[] = [
  { field: "status" }, { field: "slug" }, { field: "modified_utc" },
  { field: "slug", unique: true, unlessStatus: ["draft", "pending", "auto-draft", "trash"] },
  { field: "start_date", then: ["date"] },
  ...["categories", "tags", "venues", "organizers"].map(field => ({ field, array: true })),
  { field: "series_id", sparse: true }, { field: "series_horizon", sparse: true }, { field: "series_key", unique: true, sparse: true },
  { field: "series_overrides", array: true }
];

let nextSite = 7300;

/** A call as the domain reads one: params, the caller in meta. */
const callOf = (params: Record<string, unknown> = {}, caller?: Caller | null): EventCall => ({ params, meta: { caller }, locals: {} });
const ADMIN: Caller = { id: 1, role: "administrator" };

/** What a call to the domain throws (an ApiError), or undefined. */
async function thrown(fn: () => Promise<unknown>): Promise<ApiError | undefined> {
  try {
    await fn();
  } catch (err) {
    return err as ApiError;
  }
  return undefined;
}

describe("the events domain assembled without a broker", () => {
  let store: Store;
  let records: PostRecords<SeriesDoc>;
  let reader: EventReader<EventCall>;
  let checks: EventWriteChecks<EventCall>;
  let commands: EventCommands<EventCall>;
  let series: SeriesPlanner<EventCall>;
  /** What the ports were asked, in order. */
  const asked: string[] = [];
  const told: ChangeInput[] = [];
  const emitted: string[] = [];
  let cleans = 0;

  beforeAll(async () => {
    store = await acquireStore({ dataDir: ":memory:", connectTimeoutMs: 1000 });
    await store.ensureIndexes("events", INDEXES);
  });

  let site = 0;

  beforeEach(() => {
    site = nextSite++;
    asked.length = 0;
    told.length = 0;
    emitted.length = 0;
    cleans = 0;
    records = new PostRecords<SeriesDoc>({ kind: "event", collection: () => store.collection("events", INDEXES, site), registry: () => store.registry(site), now: () => new Date() });
    const services: NeighbourServices<EventCall> = {
      termFilter: async (_call, taxonomy, values) => { asked.push(`termFilter ${taxonomy}`); return (values as string[]).map(Number); },
      termsForEvent: async (_call, input) => {
        asked.push(`termsForEvent ${Object.keys(input).join(" ")}`);
        return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, (v as number[]).map(Number)]));
      },
      // a data object makes record 77
      link: async (_call, kind, value) => { asked.push(`link ${kind}`); return [value && typeof value === "object" ? 77 : Number(value)]; },
      validateLinks: async (_call, kind, value) => {
        asked.push(`validateLinks ${kind}`);
        if (Number(value) < 0) throw ApiError.invalidParam(kind === "venues" ? "venue" : "organizer");
      },
      requireGeolocation: () => { throw new ApiError("geoloc-not-available", 400); },
      venuesNear: async () => new Map(),
      venuesWithCoordinates: async () => []
    };
    const posts: PostServices<EventCall> = {
      pagedFind: async (query, sort, page) => {
        const docs = await records.store.find(query, { sort, skip: page.skip, limit: page.perPage });
        return { docs, total: await records.store.count(query) };
      },
      listEnvelope: (_call, plural, _order, _sent, _page, total) => ({ plural, total }),
      listStatusFilter: (call, requested) => {
        const res = listStatuses(call.meta.caller, requested);
        if (!res.ok) throw ApiError.invalidParam("status", "param.status");
        return res.statuses;
      },
      passwordAccess: (call, record, params) => !record.post_password || canAccessPassword(call.meta.caller, record, params),
      siteOf: () => "https://calendar.example.org",
      nsOf: () => "https://calendar.example.org/wp-json/calendar/events/v1",
      checkImage: async () => { throw ApiError.invalidParam("image", "param.image"); },
      resolveImage: async () => { throw ApiError.invalidParam("image", "param.image"); },
      localize: async () => new Map(),
      applyLanguage: record => ({ ...record, i18n_language: "en" }),
      splitWrite: async (_call, doc, fields) => ({ inline: doc ? fields : { ...fields, lang: "en", translations: ["en"] } }),
      searchQuery: async (_call, terms, original) => original(terms)
    };
    const feed: EventFeed = {
      recordChanges: async changes => { told.push(...changes); },
      announce: async (action, doc, recorded) => {
        if (!recorded) told.push({ type: "event", id: doc._id, action, modified_utc: String(doc.modified_utc), snapshot: null });
        emitted.push(`calendar.event.${action}`);
      },
      emit: event => { emitted.push(event); },
      eventsLinking: async (field, ids) => (await records.store.find({ [field]: { $in: ids } }))
        .map(d => ({ type: "event", id: d._id, action: "updated", modified_utc: String(d.modified_utc), snapshot: null }))
    };
    const counts = new TermCountNotices({ cleanCaches: async () => { cleans++; }, emit: feed.emit, now: () => new Date() });
    const embedder = new EventEmbedder<EmbedRequest<EventCall>>({
      venues: async (_req, ids) => { asked.push("embed venues"); return Object.fromEntries(ids.map(id => [id, { id, venue: `Hall ${id}` }])); },
      organizers: async (_req, ids) => Object.fromEntries(ids.map(id => [id, { id }])),
      terms: async (_req, ids) => { asked.push("embed terms"); return Object.fromEntries(ids.map(id => [id, { id, name: `Term ${id}`, taxonomy: "tribe_events_cat" }])); },
      images: async () => new Map()
    });
    const targets = new EventTargets(records);
    const queries = new EventListQueries<EventCall>({ targets, services, posts, now: () => new Date() });
    reader = new EventReader<EventCall>({ records, queries, embedder, posts });
    const writer = new EventRecordWriter<EventCall>({ records, nextId: () => store.registry(site).allocate("posts", "event"), services, posts, counts, feed });
    series = new SeriesPlanner<EventCall>({ records, writer, feed, counts, languageOf: () => "en", logger: { warn: () => undefined } });
    checks = new EventWriteChecks<EventCall>({ targets, services, posts, series });
    commands = new EventCommands<EventCall>({ records, targets, writer, series, counts, feed });
  });

  /** As the create action runs: what runs before writes, the checks, the create. */
  const create = async (p: Record<string, unknown>, call = callOf(p)) => {
    await commands.beforeWrite();
    await checks.check(call, p);
    return commands.create(call, p);
  };
  // within the lists' default window
  const jazz = { title: "Jazz Night", start_date: dayAt(5, "20:00:00"), end_date: dayAt(5, "23:00:00"), categories: [3], venue: 10 };

  test("create: the write's links resolved by the services, a unique slug, its feed entry stored with it, the term counts' notices, the answer with its embeds", async () => {
    const doc = await create(jazz);
    expect(doc).toMatchObject({ title: "Jazz Night", slug: "jazz-night", status: "publish", categories: [3], venues: [10], lang: "en" });
    // the venue named by id was found by the checks: the write links it without asking `link` again
    expect(asked).toEqual(["validateLinks venues", "termsForEvent categories"]);
    const second = await create(jazz);
    expect(second.slug).toBe("jazz-night-2");
    // each create stored its feed entry in its own transaction (the change feed's collection)
    const entries = await store.collection("changes", [], site).find({}, { sort: { _id: 1 } });
    expect(entries.map(e => [e.type, e.id, e.action])).toEqual([["event", doc._id, "created"], ["event", second._id, "created"]]);
    expect(emitted.filter(e => e === "calendar.event.created")).toHaveLength(2);
    // a published event carrying category 3: its count moved, the kept answers cleaned and the term told
    expect(emitted).toContain("calendar.category.updated");
    expect(cleans).toBe(2);
    asked.length = 0;
    const answer = await reader.read(callOf({}, null), (await records.findById(doc._id))!);
    expect(answer).toMatchObject({ id: doc._id, title: "Jazz Night", slug: "jazz-night", i18n_language: "en" });
    expect((answer.venue as { venue: string }).venue).toBe("Hall 10");
    expect(asked).toEqual(["embed venues", "embed terms"]);
  });

  test("create: a venue given as data is made by `link` after the checks; ids the checks did not find for this value are linked by it too", async () => {
    const inline = { ...jazz, venue: { venue: "New Hall" }, organizer: "5, 5" };
    const doc = await create(inline);
    expect(doc).toMatchObject({ venues: [77], organizers: [5] });
    expect(asked).toEqual(["validateLinks venues", "validateLinks organizers", "termsForEvent categories", "link venues"]);
    // the same input without its checks (another write of the call's): `link` answers it
    asked.length = 0;
    const unchecked = { ...jazz, title: "Unchecked", venue: 12 };
    await commands.create(callOf(unchecked), unchecked);
    expect(asked).toEqual(["termsForEvent categories", "link venues"]);
  });

  test("create: the checks name every refused parameter in one 400 before the caller's rights; an anonymous caller may not create", async () => {
    const bad = { title: "Bad", start_date: "2030-05-01 20:00:00", end_date: "2030-05-01 23:00:00", image: "nope", venue: -1, recurrence: ["RRULE:FREQ=SOMETIMES"] };
    const refused = await thrown(() => create(bad, callOf(bad, null)));
    expect(refused?.type).toBe("rest_invalid_param");
    expect(Object.keys(refused?.data?.params as object).sort()).toEqual(["image", "recurrence", "venue"]);
    const forbidden = await thrown(() => create(jazz, callOf(jazz, null)));
    expect(forbidden).toMatchObject({ code: 401 });
    expect(await records.store.count({})).toBe(0);
  });

  test("update: the target found and checked, the fields written, the slug kept, the feed told; an unknown id is a 404 and another type's a 400", async () => {
    const doc = await create(jazz);
    emitted.length = 0;
    const p = { id: doc._id, title: "Jazz Night, moved", start_date: "2030-05-02 20:00:00", end_date: "2030-05-02 23:00:00" };
    await checks.check(callOf(p), p);
    const updated = await commands.update(callOf(p), doc._id, p);
    expect(updated).toMatchObject({ _id: doc._id, title: "Jazz Night, moved", slug: "jazz-night", start_date: "2030-05-02 20:00:00", categories: [3] });
    expect(emitted).toEqual(["calendar.event.updated"]);
    expect(await thrown(() => commands.update(callOf({ id: 9999 }), 9999, { id: 9999 }))).toMatchObject({ type: "rest-event-not-found", code: 404 });
    const [otherId] = await store.registry(site).allocatePosts("venue", 1);
    expect(await thrown(() => commands.update(callOf({ id: otherId }), otherId, { id: otherId }))).toMatchObject({ type: "rest-invalid-event-id", code: 400 });
    const bySlug = await commands.updateBySlug(callOf({ slug: "jazz-night" }), "jazz-night", { excerpt: "by its slug" });
    expect(bySlug).toMatchObject({ _id: doc._id, excerpt: "by its slug" });
  });

  test("trash: the slug suffixed, the prior status kept, the counts and the bus told; a second delete is 410; updating to `trash` needs delete rights", async () => {
    const doc = await create(jazz);
    emitted.length = 0;
    const trashed = await commands.remove(callOf(), doc._id);
    expect(trashed).toMatchObject({ status: "trash", prior_status: "publish", slug: "jazz-night__trashed" });
    expect(emitted).toEqual(expect.arrayContaining(["calendar.category.updated", "calendar.event.deleted"]));
    expect(await thrown(() => commands.remove(callOf(), doc._id))).toMatchObject({ type: "event-is-in-trash", code: 410 });
    const inTrash = (await records.findById(doc._id))!;
    expect(await thrown(() => reader.read(callOf(), inTrash))).toMatchObject({ type: "event-no-longer-available", code: 403 });
    const other = await create({ ...jazz, title: "Other" });
    const contributor: Caller = { id: 1, role: "contributor" };
    expect(await thrown(() => commands.update(callOf({}, contributor), other._id, { status: "trash" }))).toMatchObject({ code: 403 });
    expect(await thrown(() => commands.removeBySlug(callOf(), "no-such-event"))).toMatchObject({ type: "rest_invalid_param" });
  });

  test("a series through the whole domain: the rule starts it through the writer, a `this` delete trashes one occurrence, the reader pages the occurrences", async () => {
    const weekly = { title: "Weekly", start_date: dayAt(3), end_date: dayAt(3, "11:00:00"), recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"] };
    const head = await create(weekly);
    const members = async () => (await records.store.find({ series_id: head._id }, { sort: { start_date: 1 } }));
    expect((await members()).map(m => m.start_date)).toEqual([3, 10, 17, 24].map(d => dayAt(d)));
    const [, second] = await members();
    const trashed = await commands.remove(callOf({ scope: "this" }), second._id);
    expect(trashed.status).toBe("trash");
    expect((await members()).map(m => m.status)).toEqual(["publish", "trash", "publish", "publish"]);
    const page = await reader.occurrencesPage(callOf({}, ADMIN), head);
    expect((page.events as Array<{ id: number }>).map(e => e.id)).toEqual((await members()).filter(m => m.status !== "trash").map(m => m._id));
    const plain = await create(jazz);
    expect(await thrown(() => reader.occurrencesPage(callOf(), plain))).toMatchObject({ type: "rest_event_not_recurring", code: 404 });
  });

  test("reads never write: a due `future` event reads as published in the list; the next write publishes it in the store", async () => {
    const due = await create({ ...jazz, title: "Due", date: "2999-01-01 00:00:00" });
    expect(due.status).toBe("future");
    await records.store.updateOne({ _id: due._id }, { $set: { date_utc: "2020-01-01 00:00:00", date: "2020-01-01 00:00:00" } });
    const page = await reader.listPage(callOf({ start_date: "2000-01-01" }, null));
    expect(page.events as Array<{ id: number; status: string }>).toEqual([expect.objectContaining({ id: due._id, status: "publish" })]);
    expect((await records.findById(due._id))?.status).toBe("future");
    // (at most once a second per site: the create's own run was this second)
    await new Promise(resolve => setTimeout(resolve, 1100));
    await commands.beforeWrite();
    expect((await records.findById(due._id))?.status).toBe("publish");
    expect(told.some(c => c.id === due._id && c.action === "updated")).toBe(true);
  });

  test("list filters: terms through the taxonomy port, unknown linked ids refused, the geolocation filters refused without the service", async () => {
    const a = await create(jazz);
    await create({ ...jazz, title: "Elsewhere", categories: [4], venue: 11 });
    const byTerm = await reader.listPage(callOf({ categories: ["3"], start_date: "2000-01-01" }));
    expect((byTerm.events as Array<{ id: number }>).map(e => e.id)).toEqual([a._id]);
    expect(asked).toContain("termFilter category");
    expect(await thrown(() => reader.listPage(callOf({ venue: [a._id] })))).toMatchObject({ type: "rest_invalid_param" });
    expect(await thrown(() => reader.listPage(callOf({ geoloc: true })))).toMatchObject({ type: "geoloc-not-available", code: 400 });
  });

  test("links: an event's linked ids to whoever may read it; a linked record removed from every event carrying it, each told", async () => {
    const a = await create(jazz);
    const b = await create({ ...jazz, title: "Two" });
    expect(await reader.links(callOf({}, null), a._id)).toEqual({ categories: [3], tags: [], venues: [10], organizers: [] });
    expect(await reader.linkedPostIds(callOf(), { kind: "venue" })).toEqual([10]);
    told.length = 0;
    expect(await commands.unlinkFrom("venues", 10)).toBe(2);
    expect(told.map(c => c.id).sort()).toEqual([a._id, b._id].sort());
    expect((await records.findById(a._id))?.venues).toEqual([]);
  });
});
