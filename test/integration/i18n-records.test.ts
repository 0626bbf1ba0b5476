/**
 * The i18n issue's acceptance: an event, a venue, an organizer, a category and a tag written in English,
 * then updated in French through the path prefix and in Japanese through `i18n_language`; each language
 * reads back its own values, a fourth language falls back to the original, and lists never break.
 */
import { startService, Running } from "../helpers/harness";
import type { Json } from "../helpers/json";

let svc: Running;
beforeAll(async () => { svc = await startService(); });
afterAll(async () => { await svc.stop(); });

const FR = (path: string) => `/fr/wp-json/calendar/events/v1${path}`;
const day = new Date(Date.now() + 5 * 86400_000).toISOString().slice(0, 10);

interface Kind {
  route: string;
  field: string;
  create: Record<string, unknown>;
  values: { en: string; fr: string; ja: string };
  list: string;
}

const KINDS: Kind[] = [
  { route: "/events", field: "title", list: "events", values: { en: "Harbour festival", fr: "Fête du port", ja: "港まつり" },
    create: { start_date: `${day} 18:00`, end_date: `${day} 23:00` } },
  { route: "/venues", field: "venue", list: "venues", values: { en: "Old Harbour", fr: "Vieux port", ja: "旧港" }, create: { city: "Marseille" } },
  { route: "/organizers", field: "organizer", list: "organizers", values: { en: "Harbour Society", fr: "Société du port", ja: "港湾協会" }, create: {} },
  { route: "/categories", field: "name", list: "categories", values: { en: "Festivals", fr: "Festivals d'été", ja: "祭り" }, create: {} },
  { route: "/tags", field: "name", list: "tags", values: { en: "waterfront", fr: "bord de mer", ja: "水辺" }, create: {} }
];

describe.each(KINDS)("$list in four languages", kind => {
  let id: number;

  test("written in en, updated in fr (path prefix) and ja (parameter), each reads back its own", async () => {
    const created = await svc.request("POST", kind.route, { as: "admin", body: { [kind.field]: kind.values.en, ...kind.create } });
    expect(created.status).toBe(201);
    id = created.body.id;
    const fr = await svc.request("POST", FR(`${kind.route}/${id}`), { as: "admin", body: { [kind.field]: kind.values.fr } });
    expect(fr.status).toBe(200);
    expect(fr.body[kind.field]).toBe(kind.values.fr);
    const ja = await svc.request("POST", `${kind.route}/${id}?i18n_language=ja`, { as: "admin", body: { [kind.field]: kind.values.ja } });
    expect(ja.status).toBe(200);
    expect(ja.body).toMatchObject({ [kind.field]: kind.values.ja, id, i18n_language: "ja", translations: ["en", "fr", "ja"] });

    const read = async (path: string) => (await svc.get(path)).body;
    expect((await read(`${kind.route}/${id}`))[kind.field]).toBe(kind.values.en);
    expect((await read(FR(`${kind.route}/${id}`)))[kind.field]).toBe(kind.values.fr);
    expect((await read(`${kind.route}/${id}?i18n_language=fr`))[kind.field]).toBe(kind.values.fr);
    expect((await read(`${kind.route}/${id}?i18n_language=ja`))[kind.field]).toBe(kind.values.ja);
    // the parameter wins over the path prefix
    expect((await read(`${FR(`${kind.route}/${id}`)}?i18n_language=ja`))[kind.field]).toBe(kind.values.ja);
    // a fourth language falls back to the original, and says which language was asked
    const de = await read(`${kind.route}/${id}?i18n_language=de`);
    expect(de).toMatchObject({ [kind.field]: kind.values.en, i18n_language: "de", translations: ["en", "fr", "ja"], id });
  });

  test("lists in every language include the record, translated or not", async () => {
    for (const lang of ["en", "fr", "ja", "de", "bg", "zh-hans", "pt-br", "es"]) {
      const res = await svc.get(`${kind.route}?per_page=50&hide_empty=false&i18n_language=${lang}`);
      expect(res.status).toBe(200);
      const mine = res.body[kind.list].find((r: Json) => r.id === id);
      expect(mine).toBeDefined();
      expect(mine.i18n_language).toBe(lang);
    }
  });
});

test("search finds the French title only in French", async () => {
  const fr = await svc.get(`${FR("/events")}?search=${encodeURIComponent("Fête du port")}`);
  expect(fr.body.events.map((e: Json) => e.title)).toEqual(["Fête du port"]);
  const en = await svc.get(`/events?search=${encodeURIComponent("Fête du port")}`);
  expect(en.body.events).toEqual([]);
  const ja = await svc.get(`/events?search=${encodeURIComponent("Fête")}&i18n_language=ja`);
  expect(ja.body.events).toEqual([]);
});

test("an event embeds its venue, organizer and terms in its own language", async () => {
  const venues = (await svc.get("/venues")).body.venues;
  const organizers = (await svc.get("/organizers")).body.organizers;
  const cats = (await svc.get("/categories?hide_empty=false")).body.categories;
  const created = await svc.request("POST", "/events", { as: "admin", body: {
    title: "Regatta", start_date: `${day} 10:00`, end_date: `${day} 12:00`, venue: venues[0].id, organizer: [organizers[0].id], categories: [cats[0].id]
  } });
  expect(created.status).toBe(201);
  const inJa = (await svc.get(`/events/${created.body.id}?i18n_language=ja`)).body;
  expect(inJa.venue).toMatchObject({ venue: "旧港", i18n_language: "ja" });
  expect(inJa.organizer[0]).toMatchObject({ organizer: "港湾協会", i18n_language: "ja" });
  expect(inJa.categories[0]).toMatchObject({ name: "祭り", i18n_language: "ja" });
  const inFr = (await svc.get(FR(`/events/${created.body.id}`))).body;
  expect(inFr.venue.venue).toBe("Vieux port");
  expect(inFr.title).toBe("Regatta");
});
