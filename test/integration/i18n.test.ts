/**
 * Every record in eight languages (the i18n issue): the real events service over HTTP, and the
 * translatable mixin end to end on small record services of each shape (test/helpers/translatable-fakes.ts)
 * created on the same broker, next to the real i18n service.
 */
import type { ServiceBroker } from "moleculer";
import { startService, Running } from "../helpers/harness";
import { fakeEvents, fakeTerms, fakeVenues } from "../helpers/translatable-fakes";
import EventsService from "../../services/events.service";
import VenuesService from "../../services/venues.service";
import TaxonomyService from "../../services/taxonomy.service";
import type { Json } from "../helpers/json";

/** Whether a service schema (or one of its mixins) carries the translatable mixin (the integration applied). */
const translatable = (schema: Json): boolean =>
  !!schema && (schema.name === "translatable" || (schema.mixins ?? []).some((m: Json) => translatable(m)));
const EVENTS_INTEGRATED = translatable(EventsService);
const VENUES_INTEGRATED = translatable(VenuesService);
const TAXONOMY_INTEGRATED = translatable(TaxonomyService);

const LAST_KEYS = ["i18n_language", "translations"];
const lastTwo = (record: Record<string, unknown>) => Object.keys(record).slice(-2);

let svc: Running;
let broker: ServiceBroker;

beforeAll(async () => {
  svc = await startService();
  broker = svc.broker;
  broker.createService(fakeEvents());
  broker.createService(fakeVenues());
  broker.createService(fakeTerms());
  await broker.waitForServices(["fakeevents", "fakevenues", "faketerms", "i18n"]);
});
afterAll(async () => {
  await svc.stop();
});

/** Counts the i18n actions records services call (through ctx.call, which goes through broker.call). */
function countI18nCalls(): { calls: Record<string, number>; stop(): void } {
  const calls: Record<string, number> = {};
  const original = broker.call.bind(broker);
  const spy = jest.spyOn(broker, "call").mockImplementation(((name: string, ...rest: unknown[]) => {
    if (typeof name === "string" && name.startsWith("i18n.")) calls[name] = (calls[name] ?? 0) + 1;
    return (original as Json)(name, ...rest);
  }) as Json);
  return { calls, stop: () => spy.mockRestore() };
}

/** Executions of the i18n store's find (cache misses of i18n.values, searches, name lookups). */
function countI18nFinds(): { count(): number; stop(): void } {
  const store = (broker.getLocalService("i18n") as Json).store;
  const spy = jest.spyOn(store, "find");
  return { count: () => spy.mock.calls.length, stop: () => spy.mockRestore() };
}

const inLanguage = (language?: string) => ({ meta: language ? { language } : {} });

// ---------------------------------------------------------------------------------------------------------
// Events over HTTP
// ---------------------------------------------------------------------------------------------------------

describe("events over HTTP", () => {
  /** A week ahead: inside the list's default window. */
  const day = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
  const event = (title: string) => ({ title, status: "publish", description: `${title} description`, start_date: `${day} 09:00`, end_date: `${day} 10:00` });

  test("every record ends with i18n_language and translations, in the default language", async () => {
    const created = await svc.request("POST", "/events", { as: "admin", body: event("Jazz night") });
    expect(created.status).toBe(201);
    expect(lastTwo(created.body)).toEqual(LAST_KEYS);
    expect(created.body).toMatchObject({ i18n_language: "en", translations: ["en"], title: "Jazz night" });
    const list = await svc.get("/events?search=jazz");
    expect(list.status).toBe(200);
    expect(list.body.events.map((e: Json) => e.id)).toContain(created.body.id);
    for (const e of list.body.events) expect(lastTwo(e)).toEqual(LAST_KEYS);
  });

  test("a create in a language makes it the original; other languages fall back to it", async () => {
    const created = await svc.request("POST", "/fr/wp-json/calendar/events/v1/events", { as: "admin", body: event("Nuit du jazz") });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ i18n_language: "fr", translations: ["fr"] });
    const de = await svc.get(`/events/${created.body.id}?i18n_language=de`);
    expect(de.status).toBe(200);
    expect(de.body).toMatchObject({ title: "Nuit du jazz", i18n_language: "de", translations: ["fr"] });
    expect(lastTwo(de.body)).toEqual(LAST_KEYS);
    // i18n_language wins over the path language
    const es = await svc.get(`/fr/wp-json/calendar/events/v1/events/${created.body.id}?i18n_language=es`);
    expect(es.body.i18n_language).toBe("es");
  });

  test("a response in the default language for records with no translations asks the i18n service nothing", async () => {
    const spy = countI18nCalls();
    try {
      await svc.get("/events");
      await svc.get("/events?search=jazz");
      expect(spy.calls).toEqual({});
    } finally {
      spy.stop();
    }
  });

  test("values of another language are served field by field, one i18n call per page", async () => {
    const created = await svc.request("POST", "/events", { as: "admin", body: event("Blues evening") });
    const id = created.body.id;
    if (EVENTS_INTEGRATED) {
      const put = await svc.request("POST", `/events/${id}`, { as: "admin", body: { title: "Bluesabend", i18n_language: "de" } });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ title: "Bluesabend", description: expect.stringContaining("Blues evening description"), i18n_language: "de", translations: ["en", "de"] });
    } else {
      // what the integration's splitWrite does, done by hand: `translations` on the record, values to i18n
      // (whose write cleans the cached reads)
      await (broker.getLocalService("events") as Json).store.updateOne({ _id: id }, { $set: { translations: ["en", "de"] } });
      await broker.call("i18n.write", { type: "event", id, language: "de", fields: { title: "Bluesabend" }, originals: { title: "Blues evening", description: "", excerpt: "" } });
    }
    const de = await svc.get(`/events/${id}?i18n_language=de`);
    expect(de.body).toMatchObject({ title: "Bluesabend", i18n_language: "de", translations: ["en", "de"] });
    expect(de.body.description).toContain("Blues evening description");
    const en = await svc.get(`/events/${id}`);
    expect(en.body).toMatchObject({ title: "Blues evening", i18n_language: "en", translations: ["en", "de"] });
    const fr = await svc.get(`/fr/wp-json/calendar/events/v1/events/${id}`);
    expect(fr.body).toMatchObject({ title: "Blues evening", i18n_language: "fr" });
    expect(fr.body.slug).toBe(en.body.slug);

    const spy = countI18nCalls();
    try {
      const list = await svc.get("/events?i18n_language=de&per_page=50");
      expect(list.body.events.find((e: Json) => e.id === id).title).toBe("Bluesabend");
      expect(spy.calls["i18n.values"]).toBe(1);
    } finally {
      spy.stop();
    }
  });

  (EVENTS_INTEGRATED ? test : test.skip)("writes and search in a language (runs once the events integration is applied)", async () => {
    const created = await svc.request("POST", "/events", { as: "admin", body: { ...event("Harbour festival"), description: "Boats and fireworks" } });
    const id = created.body.id;
    const put = await svc.request("POST", `/events/${id}?i18n_language=ja`, { as: "admin", body: { title: "港まつり", featured: true } });
    expect(put.body).toMatchObject({ title: "港まつり", featured: true, translations: ["en", "ja"], i18n_language: "ja" });
    const en = await svc.get(`/events/${id}`);
    expect(en.body).toMatchObject({ title: "Harbour festival", featured: true });
    const ja = await svc.get(`/events?search=${encodeURIComponent("港まつり")}&i18n_language=ja`);
    expect(ja.body.events.map((e: Json) => e.id)).toEqual([id]);
    expect((await svc.get(`/events?search=harbour&i18n_language=ja`)).body.events?.map((e: Json) => e.id) ?? []).not.toContain(id);
    expect((await svc.get(`/events?search=harbour`)).body.events.map((e: Json) => e.id)).toContain(id);
    // the description has no Japanese value: searched through the original
    expect((await svc.get(`/events?search=fireworks&i18n_language=ja`)).body.events.map((e: Json) => e.id)).toEqual([id]);
    expect((await svc.get(`/events?search=${encodeURIComponent("港まつり")}`)).body.events).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Venues and terms over HTTP (run once their integration is applied)
// ---------------------------------------------------------------------------------------------------------

describe("venues and terms over HTTP", () => {
  const day = new Date(Date.now() + 9 * 86400_000).toISOString().slice(0, 10);

  (VENUES_INTEGRATED ? test : test.skip)("venues: values per language, embedded in the event's language, search and duplicates", async () => {
    const created = await svc.request("POST", "/venues", { as: "admin", body: { venue: "Grand Hall", address: "1 Main Street", city: "Springfield", status: "publish" } });
    expect(created.status).toBe(201);
    expect(lastTwo(created.body)).toEqual(LAST_KEYS);
    const id = created.body.id;
    const fr = await svc.request("POST", `/venues/${id}`, { as: "admin", body: { venue: "Grande salle", i18n_language: "fr" } });
    expect(fr.status).toBe(200);
    expect(fr.body).toMatchObject({ venue: "Grande salle", city: "Springfield", i18n_language: "fr", translations: ["en", "fr"] });
    expect((await svc.get(`/venues/${id}`)).body).toMatchObject({ venue: "Grand Hall", i18n_language: "en", translations: ["en", "fr"] });

    const ev = await svc.request("POST", "/events", { as: "admin", body: { title: "Gala", status: "publish", venue: id, start_date: `${day} 19:00`, end_date: `${day} 22:00` } });
    const inFr = await svc.get(`/fr/wp-json/calendar/events/v1/events/${ev.body.id}`);
    expect(inFr.body.venue).toMatchObject({ id, venue: "Grande salle", i18n_language: "fr", translations: ["en", "fr"] });
    expect(lastTwo(inFr.body.venue)).toEqual(LAST_KEYS);

    expect((await svc.get("/venues?search=grande&i18n_language=fr")).body.venues.map((v: Json) => v.id)).toEqual([id]);
    expect((await svc.get("/venues?search=grande")).body.venues ?? []).toEqual([]);
    expect((await svc.get("/venues?search=springfield&i18n_language=fr")).body.venues.map((v: Json) => v.id)).toEqual([id]);

    const again = await svc.request("POST", "/venues?i18n_language=fr", { as: "admin", body: { venue: "grande salle" } });
    expect(again.body.id).toBe(id);
  });

  (TAXONOMY_INTEGRATED ? test : test.skip)("terms: values per language, names in any language, search, permanent delete", async () => {
    const created = await svc.request("POST", "/categories", { as: "admin", body: { name: "Theatre", description: "Plays" } });
    expect(created.status).toBe(201);
    expect(lastTwo(created.body)).toEqual(LAST_KEYS);
    const id = created.body.id;
    const de = await svc.request("POST", `/categories/${id}?i18n_language=de`, { as: "admin", body: { name: "Theater" } });
    expect(de.body).toMatchObject({ id, name: "Theater", description: "Plays", slug: "theatre", i18n_language: "de", translations: ["en", "de"] });
    expect((await svc.get(`/categories/${id}`)).body).toMatchObject({ name: "Theatre", translations: ["en", "de"] });
    const ids = async (path: string) => ((await svc.get(path)).body.categories ?? []).map((t: Json) => t.id);
    expect(await ids("/categories?search=theater&hide_empty=0&i18n_language=de")).toEqual([id]);
    expect(await ids("/categories?search=theater&hide_empty=0")).toEqual([]);
    expect(await ids("/categories?search=theatre&hide_empty=0&i18n_language=de")).toEqual([id]); // the slug
    // a name in any language names the term
    const ev = await svc.request("POST", "/events", { as: "admin", body: { title: "Hamlet", status: "publish", categories: ["Theater"], start_date: `${day} 19:00`, end_date: `${day} 22:00` } });
    expect(ev.body.categories.map((c: Json) => c.id)).toEqual([id]);
    const inDe = await svc.get(`/events/${ev.body.id}?i18n_language=de`);
    expect(inDe.body.categories[0]).toMatchObject({ name: "Theater", i18n_language: "de" });
    // duplicate names compare in the request's language
    expect((await svc.request("POST", "/categories?i18n_language=de", { as: "admin", body: { name: "theater" } })).body.code).toBe("term_exists");
    expect((await svc.request("DELETE", `/categories/${id}?force=true`, { as: "admin" })).status).toBe(200);
    expect(await broker.call("i18n.values", { type: "term", ids: [id], language: "de" })).toEqual({});
  });
});

// ---------------------------------------------------------------------------------------------------------
// The mixin end to end: an events-like service
// ---------------------------------------------------------------------------------------------------------

describe("translatable mixin: events shape", () => {
  let id: number;
  let market: number;

  test("create in the default language: lang, translations, last keys, no i18n call", async () => {
    const spy = countI18nCalls();
    try {
      const rec: Json = await broker.call("fakeevents.create", { title: "Summer concert", description: "Open air music", excerpt: "Brass band" });
      id = rec.id;
      // (the fake answers every translatable field of events, the status reason among them)
      expect(rec).toEqual({ id, title: "Summer concert", description: "Open air music", excerpt: "Brass band", event_status_reason: "", slug: "summer-concert", i18n_language: "en", translations: ["en"] });
      expect(lastTwo(rec)).toEqual(LAST_KEYS);
      const raw = await (broker.getLocalService("fakeevents") as Json).store.findOne({ _id: id });
      expect(raw).toMatchObject({ lang: "en", translations: ["en"] });
      await broker.call("fakeevents.get", { id });
      await broker.call("fakeevents.list", { search: "concert" });
      expect(spy.calls).toEqual({});
    } finally {
      spy.stop();
    }
  });

  test("a write in another language sets only that language's values and keeps id and slug", async () => {
    const rec: Json = await broker.call("fakeevents.update", { id, title: "Concert d'été", featured: true }, inLanguage("fr"));
    expect(rec).toMatchObject({ id, title: "Concert d'été", description: "Open air music", slug: "summer-concert", i18n_language: "fr", translations: ["en", "fr"] });
    const raw = await (broker.getLocalService("fakeevents") as Json).store.findOne({ _id: id });
    expect(raw).toMatchObject({ title: "Summer concert", lang: "en", translations: ["en", "fr"], featured: true });
    expect((await broker.call("fakeevents.get", { id }, inLanguage("en"))) as Json).toMatchObject({ title: "Summer concert", i18n_language: "en", translations: ["en", "fr"] });
    expect((await broker.call("fakeevents.get", { id }, inLanguage("de"))) as Json).toMatchObject({ title: "Summer concert", i18n_language: "de" });
    expect((await broker.call("fakeevents.get", { id }, inLanguage("fr"))) as Json).toMatchObject({ title: "Concert d'été", description: "Open air music" });
  });

  test("languages come back in the spec's order whatever the order of writes", async () => {
    await broker.call("fakeevents.update", { id, title: "Concierto de verano" }, inLanguage("es"));
    const rec: Json = await broker.call("fakeevents.update", { id, description: "Музика на открито" }, inLanguage("bg"));
    expect(rec.translations).toEqual(["bg", "en", "fr", "es"]);
    expect(rec.title).toBe("Summer concert");
    expect(rec.description).toBe("Музика на открито");
  });

  test("a write in the original language changes the originals only", async () => {
    const rec: Json = await broker.call("fakeevents.update", { id, description: "Open air music and dance" }, inLanguage("en"));
    expect(rec).toMatchObject({ description: "Open air music and dance", translations: ["bg", "en", "fr", "es"] });
    expect((await broker.call("fakeevents.get", { id }, inLanguage("fr"))) as Json).toMatchObject({ title: "Concert d'été", description: "Open air music and dance" });
  });

  test("clearing a language's values falls back; a language left empty leaves translations", async () => {
    let rec: Json = await broker.call("fakeevents.update", { id, description: "" }, inLanguage("bg"));
    expect(rec.translations).toEqual(["en", "fr", "es"]);
    expect(rec.description).toBe("Open air music and dance");
    rec = await broker.call("fakeevents.get", { id }, inLanguage("bg"));
    expect(rec).toMatchObject({ i18n_language: "bg", translations: ["en", "fr", "es"], description: "Open air music and dance" });
  });

  test("a create in another language makes it the record's original", async () => {
    const rec: Json = await broker.call("fakeevents.create", { title: "Marché de Noël", description: "Vin chaud" }, inLanguage("fr"));
    market = rec.id;
    expect(rec).toMatchObject({ i18n_language: "fr", translations: ["fr"] });
    expect((await broker.call("fakeevents.get", { id: rec.id }, inLanguage("en"))) as Json).toMatchObject({ title: "Marché de Noël", i18n_language: "en", translations: ["fr"] });
    const en: Json = await broker.call("fakeevents.update", { id: rec.id, title: "Christmas market" }, inLanguage("en"));
    expect(en).toMatchObject({ title: "Christmas market", description: "Vin chaud", translations: ["en", "fr"] });
    expect((await broker.call("fakeevents.get", { id: rec.id }, inLanguage("fr"))) as Json).toMatchObject({ title: "Marché de Noël" });
  });

  test("search matches the text of the asked language, with fallback to the original", async () => {
    const ids = async (search: string, language: string, extra: Record<string, unknown> = {}) =>
      ((await broker.call("fakeevents.list", { search, all: true, ...extra }, inLanguage(language))) as Json[]).map(r => r.id);
    expect(await ids("concert", "en")).toEqual([id]);
    expect(await ids("concert", "fr")).toEqual([id]); // "Concert d'été"
    expect(await ids("summer", "fr")).toEqual([]); // the French title replaced it
    expect(await ids("dance", "fr")).toEqual([id]); // no French description: the original
    expect(await ids("verano", "es")).toEqual([id]);
    expect(await ids("verano", "en")).toEqual([]);
    expect(await ids("summer", "de")).toEqual([id]); // no German values at all
    expect(await ids("concert -dance", "fr")).toEqual([]);
    expect(await ids("noël", "fr")).toEqual([market]);
    expect(await ids("christmas", "fr")).toEqual([]);
    expect(await ids("christmas", "en")).toEqual([market]);
    // no Japanese values: the original language's (French) text
    expect(await ids("christmas", "ja")).toEqual([]);
    expect(await ids("noël", "ja")).toEqual([market]);
  });

  test("D34: a protected record matches through its title only, in every language", async () => {
    const rec: Json = await broker.call("fakeevents.create", { title: "Secret gig", description: "hidden stage", post_password: "pw" });
    await broker.call("fakeevents.update", { id: rec.id, title: "Concert secret", description: "scène cachée" }, inLanguage("fr"));
    const ids = async (search: string, language: string, extra: Record<string, unknown> = {}) =>
      ((await broker.call("fakeevents.list", { search, ...extra }, inLanguage(language))) as Json[]).map(r => r.id);
    expect(await ids("cachée", "fr")).toEqual([]);
    expect(await ids("cachée", "fr", { password: "pw" })).toEqual([rec.id]);
    expect(await ids("secret", "fr")).toEqual([rec.id]);
    expect(await ids("hidden", "en")).toEqual([]);
  });

  test("one i18n.values call per page, cached per language, cleaned by a write", async () => {
    const spy = countI18nCalls();
    const finds = countI18nFinds();
    try {
      await broker.call("fakeevents.list", {}, inLanguage("fr"));
      expect(spy.calls["i18n.values"]).toBe(1);
      const first = finds.count();
      await broker.call("fakeevents.list", {}, inLanguage("fr"));
      expect(finds.count()).toBe(first); // served from the cache
      await broker.call("fakeevents.list", {}, inLanguage("es"));
      expect(finds.count()).toBe(first + 1); // another language, another entry
      await broker.call("fakeevents.update", { id, title: "Concert estival" }, inLanguage("fr"));
      const after: Json[] = await broker.call("fakeevents.list", {}, inLanguage("fr"));
      expect(after.find(r => r.id === id).title).toBe("Concert estival");
    } finally {
      spy.stop();
      finds.stop();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// Venues shape: one-field search, duplicates by name in the request's language
// ---------------------------------------------------------------------------------------------------------

describe("translatable mixin: venues shape", () => {
  let hall: number;

  test("a translated name does not touch the inline name key", async () => {
    const rec: Json = await broker.call("fakevenues.create", { name: "Concert Hall", address: "100 Temple Avenue", city: "London", phone: "555-0100" });
    hall = rec.id;
    const fr: Json = await broker.call("fakevenues.update", { id: hall, name: "Salle de concert", address: "100, Avenue du Temple" }, inLanguage("fr"));
    expect(fr).toMatchObject({ name: "Salle de concert", city: "London", translations: ["en", "fr"], i18n_language: "fr" });
    expect(await broker.call("fakevenues.raw", { id: hall })).toMatchObject({ name: "Concert Hall", name_key: "concert hall", address: "100 Temple Avenue" });
  });

  test("duplicate checks compare names in the request's language", async () => {
    expect(await broker.call("fakevenues.create", { name: "salle de concert" }, inLanguage("fr"))).toMatchObject({ duplicate: true, id: hall });
    expect(await broker.call("fakevenues.create", { name: "concert hall" }, inLanguage("en"))).toMatchObject({ duplicate: true, id: hall });
    expect(await broker.call("fakevenues.create", { name: "Concert Hall" }, inLanguage("de"))).toMatchObject({ duplicate: true, id: hall }); // fallback
    const other: Json = await broker.call("fakevenues.create", { name: "Concert Hall" }, inLanguage("fr"));
    expect(other.duplicate).toBeUndefined();
    expect(other.id).not.toBe(hall);
    expect(other.translations).toEqual(["fr"]);
  });

  test("one single field holds every fragment, in the asked language; shared fields match in every language", async () => {
    const ids = async (search: string, language: string) => ((await broker.call("fakevenues.list", { search }, inLanguage(language))) as Json[]).map(r => r.id);
    expect(await ids("temple avenue", "fr")).toEqual([hall]);
    expect(await ids("temple avenue", "en")).toEqual([hall]);
    expect(await ids("temple london", "fr")).toEqual([]); // two fields
    expect(await ids("london", "fr")).toEqual([hall]); // no French city: the original
    expect(await ids("555-0100", "fr")).toEqual([hall]); // phone is not translated
    expect(await ids("salle", "en")).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Terms shape: names in any language, name-or-slug search, permanent delete
// ---------------------------------------------------------------------------------------------------------

describe("translatable mixin: terms shape", () => {
  let music: number;

  test("names used as filters resolve in any language; slugs are one across languages", async () => {
    const rec: Json = await broker.call("faketerms.create", { name: "Music" });
    music = rec.id;
    await broker.call("faketerms.update", { id: music, name: "Musique" }, inLanguage("fr"));
    await broker.call("faketerms.update", { id: music, name: "Музика" }, inLanguage("bg"));
    expect(await broker.call("faketerms.resolve", { value: "musique" }, inLanguage("en"))).toEqual([music]);
    expect(await broker.call("faketerms.resolve", { value: "МУЗИКА" }, inLanguage("ja"))).toEqual([music]);
    expect(await broker.call("faketerms.resolve", { value: "music" }, inLanguage("fr"))).toEqual([music]);
    expect(await broker.call("faketerms.resolve", { value: "musik" })).toEqual([]);
  });

  test("search: name in the asked language, or the slug", async () => {
    const ids = async (search: string, language: string) => ((await broker.call("faketerms.list", { search }, inLanguage(language))) as Json[]).map(r => r.id);
    expect(await ids("musiq", "fr")).toEqual([music]);
    expect(await ids("musiq", "en")).toEqual([]);
    expect(await ids("music", "fr")).toEqual([music]); // through the slug
    expect(await ids("муз", "bg")).toEqual([music]);
  });

  test("a record deleted permanently takes its languages with it", async () => {
    await broker.call("faketerms.remove", { id: music });
    expect(await broker.call("i18n.values", { type: "term", ids: [music], language: "fr" })).toEqual({});
    expect(await broker.call("i18n.findByName", { type: "term", name: "musique" })).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Without the i18n service (last: it is stopped here)
// ---------------------------------------------------------------------------------------------------------

describe("without the i18n service", () => {
  test("reads and searches fall back to the original values; writes in another language fail", async () => {
    const rec: Json = await broker.call("fakeevents.create", { title: "Autumn fair" });
    await broker.call("fakeevents.update", { id: rec.id, title: "Foire d'automne" }, inLanguage("fr"));
    await broker.destroyService(broker.getLocalService("i18n")!);
    expect((await broker.call("fakeevents.get", { id: rec.id }, inLanguage("fr"))) as Json).toMatchObject({ title: "Autumn fair", i18n_language: "fr", translations: ["en", "fr"] });
    const found = ((await broker.call("fakeevents.list", { search: "autumn", all: true }, inLanguage("fr"))) as Json[]).map(r => r.id);
    expect(found).toEqual([rec.id]);
    await expect(broker.call("fakeevents.update", { id: rec.id, title: "Herbstmarkt" }, inLanguage("de"))).rejects.toThrow();
    expect((await svc.get("/events?i18n_language=de")).status).toBe(200);
  });
});
