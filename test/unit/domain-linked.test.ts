/**
 * The linked records (venues and organizers, domain/linked/) built without a broker: the
 * input checks, writer, reader and presenter on an in-memory SQLite store, their ports answered by
 * small fakes (one language, no i18n service, images by number, an events service that records what it
 * is asked). Covers create, duplicate-by-name reuse (D25: duplicate venues and organizers), update, trash (by DELETE and by
 * `status=trash`), lookups, reads by rights, lists and the link input's checks.
 */
import Validator from "fastest-validator";
import { acquireStore, IndexSpec, Store } from "../../store";
import { PostRecords } from "../../domain/posts/post-records";
import { LinkedInput } from "../../domain/linked/linked-input";
import { LinkedWriter } from "../../domain/linked/linked-writer";
import { LinkedReader } from "../../domain/linked/linked-reader";
import { LinkedPresenter } from "../../domain/linked/linked-presenter";
import type { EventsPort, ImagePort, LanguagePort, RequestPort, WriteAction } from "../../domain/linked/linked-ports";
import { ApiError } from "../../lib/errors";
import type { Who } from "../../lib/access/capabilities";
import { linkedSchemas } from "../../lib/linked/params";
import { ORGANIZER, VENUE } from "../../lib/linked/kinds";
import type { LinkedKindSpec } from "../../lib/linked/spec";
import type { LinkedDoc } from "../../lib/linked/record";
import { readSettings, useSettings } from "../../lib/settings";
import type { Json } from "../helpers/json";

/** The indexes the services' stores have (mixins/post.mixin.ts and mixins/linked-post.mixin.ts). */
const INDEXES: IndexSpec[] = [
  { field: "status" }, { field: "slug" }, { field: "modified_utc" },
  { field: "slug", unique: true, unlessStatus: ["draft", "pending", "auto-draft", "trash"] },
  { field: "name_key" }, { field: "date" }, { field: "lang" }, { field: "translations", array: true }
];

/** A request as the fakes see it: its caller. */
interface Call { who: Who }
const admin: Call = { who: { id: 1, role: "administrator" } };
const author: Call = { who: { id: 7, role: "author" } };
const anonymous: Call = { who: null };

let nextSite = 7300;
const validator = new Validator({ useNewCustomCheckerFunction: true });

/** The four parts of one kind, on a fresh site of the store, with what their ports were asked. */
function build(store: Store, spec: LinkedKindSpec) {
  const site = nextSite++;
  const records = new PostRecords<LinkedDoc>({ kind: spec.kind, collection: () => store.collection(spec.plural, INDEXES, site), registry: () => store.registry(site), now: () => new Date() });
  const announced: Array<[WriteAction, number]> = [];
  const unlinked: number[] = [];
  const request: RequestPort<Call> = { caller: c => c.who, siteUrl: () => "http://localhost:3000", claimOf: () => undefined };
  const images: ImagePort<Call> = {
    check: async (_c, value) => { if (typeof value !== "number") throw ApiError.invalidParam("image", "param.image"); },
    resolve: async (_c, value) => Number(value),
    byId: async () => new Map()
  };
  // one language: every value is the original, no i18n service
  const language: LanguagePort<Call> = {
    localize: async () => new Map(),
    localized: async (_c, docs) => docs,
    applyLanguage: record => record,
    splitWrite: async (_c, doc, fields) => ({ inline: doc ? { ...fields } : { ...fields, lang: "en", translations: ["en"] } }),
    nameQuery: async (_c, _name, condition) => condition,
    searchQuery: async (_c, terms, original) => original(terms)
  };
  const events: EventsPort<Call> = {
    unlink: async (_c, id) => { unlinked.push(id); },
    linkedIds: async () => null
  };
  const checkCreate = validator.compile(linkedSchemas(spec).create as Json);
  const input = new LinkedInput<Call>({ spec, collection: () => records.store, images, checkCreateParams: data => checkCreate(data) });
  const presenter = new LinkedPresenter<Call>({ spec, request, language, images, now: () => new Date() });
  const writer = new LinkedWriter<Call>({
    spec, records, input, request, language, images, events,
    feed: { announce: async (action, doc) => { announced.push([action, doc._id]); } },
    newId: async () => (await records.allocateIds(1))[0],
    exclusive: (_name, fn) => fn(),
    logger: { error: () => undefined }
  });
  const reader = new LinkedReader<Call>({
    spec, records, request, language, events, presenter,
    passwordAccess: (_c, record) => !record.post_password
  });
  return { records, input, writer, reader, presenter, announced, unlinked };
}

const codeOf = (p: Promise<unknown>) => p.then(() => "none", (err: ApiError) => `${err.code} ${err.type}`);

describe("the linked records without a broker", () => {
  let store: Store;

  beforeAll(async () => {
    useSettings(readSettings({ DATA_DIR: ":memory:" }));
    store = await acquireStore({ dataDir: ":memory:", connectTimeoutMs: 1000 });
    for (const plural of ["venues", "organizers"]) await store.ensureIndexes(plural, INDEXES);
  });

  test("create: the stored record (slug from the name, the caller as author, published), its feed entry, announced once; presented as the API returns it", async () => {
    const { writer, records, presenter, announced } = build(store, VENUE);
    const hall = await writer.create(admin, { venue: "Town Hall", city: "Sofia" });
    expect(hall).toMatchObject({ name: "Town Hall", city: "Sofia", slug: "town-hall", status: "publish", author: 1, lang: "en" });
    expect(await records.findBySlug("town-hall")).toMatchObject({ _id: hall._id });
    expect(announced).toEqual([["created", hall._id]]);
    const shown = await presenter.one(admin, hall, { reveal: () => true });
    expect(shown).toMatchObject({ id: hall._id, venue: "Town Hall", city: "Sofia", slug: "town-hall", status: "publish" });
    // a second record of another name: its own slug and id
    const other = await writer.create(admin, { venue: "Opera", city: "Sofia" });
    expect(other._id).toBeGreaterThan(hall._id);
    expect(other.slug).toBe("opera");
  });

  test("create checks the input, then the caller: a bad image is 400 on `image`, an anonymous caller 401", async () => {
    const { writer } = build(store, ORGANIZER);
    expect(await codeOf(writer.create(admin, { organizer: "Ann", image: "not an image" }))).toBe("400 rest_invalid_param");
    expect(await codeOf(writer.create(anonymous, { organizer: "Ann" }))).toBe("401 rest_forbidden");
  });

  test("D25: a create of the same name (case-insensitive) answers the existing record, its other fields written onto it; another description, or a trashed record, makes a new one", async () => {
    const { writer, announced } = build(store, ORGANIZER);
    const ann = await writer.create(admin, { organizer: "Ann Lee", description: "Singer", phone: "1" });
    const again = await writer.create(admin, { organizer: "ann lee", phone: "2" });
    expect(again._id).toBe(ann._id);
    expect(again).toMatchObject({ name: "Ann Lee", phone: "2" });
    expect(announced).toEqual([["created", ann._id], ["updated", ann._id]]);
    const sameDescription = await writer.createOrReuse(admin, { organizer: "ANN LEE", description: "singer" });
    expect(sameDescription._id).toBe(ann._id);
    const otherDescription = await writer.create(admin, { organizer: "Ann Lee", description: "Painter" });
    expect(otherDescription._id).not.toBe(ann._id);
    expect(otherDescription.slug).toBe("ann-lee-2");
    await writer.remove(admin, await writer.inOrderOf(ann, async current => current));
    const afterTrash = await writer.create(admin, { organizer: "Ann Lee", description: "Singer" });
    expect([ann._id, otherDescription._id]).not.toContain(afterTrash._id);
  });

  test("D25: a caller who may not edit the record found gets it unchanged", async () => {
    const { writer } = build(store, VENUE);
    const hall = await writer.create(admin, { venue: "Hall", city: "Sofia" });
    const reused = await writer.create(author, { venue: "Hall", city: "Plovdiv" });
    expect(reused._id).toBe(hall._id);
    expect(reused.city).toBe("Sofia");
  });

  test("update: absent fields unchanged (D3: updates are partial), the record announced; a draft's slug left as it is and made unique when published (C13: a due future post counts as published)", async () => {
    const { writer, records, announced } = build(store, VENUE);
    const hall = await writer.create(admin, { venue: "Hall", city: "Sofia", zip: "1000" });
    const updated = await writer.inOrderOf(hall, current => writer.update(admin, current, { city: "Varna" }));
    expect(updated).toMatchObject({ _id: hall._id, city: "Varna", zip: "1000", slug: "hall" });
    expect(announced.at(-1)).toEqual(["updated", hall._id]);
    const draft = await writer.create(admin, { venue: "Hall 2", status: "draft" });
    const named = await writer.update(admin, draft, { venue: "Hall" });
    expect(named.slug).toBe("hall-2");
    const renamedDraft = await writer.create(admin, { venue: "Hall Again", status: "draft" });
    await records.store.updateOne({ _id: renamedDraft._id }, { $set: { slug: "hall" } });
    const published = await writer.update(admin, (await records.findById(renamedDraft._id))!, { status: "publish" });
    expect(published.slug).toBe("hall-3");
    expect(await codeOf(writer.update(anonymous, hall, { city: "X" }))).toBe("401 rest_forbidden");
  });

  test("trash: DELETE and `status=trash` both unlink the record from events first, suffix its slug and remember the status; leaving trash restores the slug; a second DELETE is 410", async () => {
    const { writer, unlinked, announced } = build(store, ORGANIZER);
    const bob = await writer.create(admin, { organizer: "Bob" });
    const trashed = await writer.remove(admin, bob);
    expect(trashed).toMatchObject({ status: "trash", prior_status: "publish", slug: "bob__trashed" });
    expect(unlinked).toEqual([bob._id]);
    expect(announced.at(-1)).toEqual(["deleted", bob._id]);
    expect(await codeOf(writer.remove(admin, trashed))).toBe("410 organizer-is-in-trash");
    const restored = await writer.update(admin, trashed, { status: "publish" });
    expect(restored).toMatchObject({ status: "publish", slug: "bob" });
    expect(restored.prior_status).toBeUndefined();
    const byUpdate = await writer.update(admin, restored, { status: "trash" });
    expect(byUpdate).toMatchObject({ status: "trash", prior_status: "publish", slug: "bob__trashed" });
    expect(unlinked).toEqual([bob._id, bob._id]);
    expect(announced.at(-1)).toEqual(["deleted", bob._id]);
    expect(await codeOf(writer.remove(author, restored))).toBe("403 rest_forbidden");
  });

  test("reads: by id and slug (400 on an unknown one), a draft not readable by an anonymous caller (403), lists by status and search", async () => {
    const { writer, reader } = build(store, VENUE);
    const hall = await writer.create(admin, { venue: "Concert Hall", city: "Sofia" });
    const draft = await writer.create(admin, { venue: "Hidden Place", status: "draft" });
    expect((await reader.byId(hall._id))._id).toBe(hall._id);
    expect((await reader.bySlug("concert-hall"))._id).toBe(hall._id);
    expect(await codeOf(reader.byId(999_999))).toBe("400 rest_invalid_param");
    expect(await codeOf(reader.bySlug("nothing-here"))).toBe("400 rest_invalid_param");
    expect(await codeOf(reader.read(anonymous, draft, {}))).toBe("403 venue-not-accessible");
    expect(await reader.read(admin, draft, {})).toMatchObject({ id: draft._id, status: "draft" });
    const publicList = await reader.list(anonymous, {});
    expect(publicList.items.map(i => i.id)).toEqual([hall._id]);
    expect(publicList.total).toBe(1);
    const all = await reader.list(admin, { status: ["publish", "draft"] });
    expect(all.items.map(i => i.id).sort()).toEqual([hall._id, draft._id].sort());
    expect((await reader.list(admin, { search: "concert" })).items.map(i => i.id)).toEqual([hall._id]);
    expect(await codeOf(reader.list(anonymous, { status: ["draft"] }))).toBe("400 rest_invalid_param");
    const embedded = await reader.embedded(anonymous, [hall._id, draft._id], false, {});
    expect([...embedded.keys()]).toEqual([hall._id]);
  });

  test("an event's link input: ids of this kind, data as POST takes it; a wrong id or unusable data fails by the validation or linking rule", async () => {
    const { writer, input } = build(store, VENUE);
    const hall = await writer.create(admin, { venue: "Hall" });
    expect(await input.linkEntries(admin, [hall._id, { venue: "New" }], true)).toEqual([{ id: hall._id }, { data: { venue: "New" } }]);
    expect(await codeOf(input.linkEntries(admin, [hall._id + 1000], true))).toBe("400 invalid-linked-post-id");
    expect(await codeOf(input.linkEntries(admin, [hall._id + 1000], false))).toBe("400 rest_invalid_param");
    expect(await codeOf(input.linkEntries(admin, [{ city: "no name" }], true))).toBe("400 could-not-create-venue");
  });
});
