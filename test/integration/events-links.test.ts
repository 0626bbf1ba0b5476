/**
 * Events with venues, organizers, categories and tags, through HTTP (docs/records.md#embedded-terms,
 * #embedded-venues-and-organizers, #json-ld, #categories-and-tags-on-events, #venue-and-organizer-input,
 * #updating-an-event, #term-counts, #deleting-venues-and-organizers; docs/lists.md#event-filters; D6: shapes of `venue` and `organizer` on events; C1: embedded records follow visibility; C2: several venues). These checks depend on the
 * venues, organizers and taxonomy services (`venues|organizers.validateLinks|link|embed`,
 * `taxonomy.resolveForEvent|resolveFilter|embed|adjustCounts`).
 */
import { startService, Running } from "../helpers/harness";
import { createEvent, expectError, expectInvalid, ids, token } from "../helpers/events";
import type { Json } from "../helpers/json";

describe("events: venues, organizers, categories and tags", () => {
  let svc: Running;
  let NS: string;
  beforeAll(async () => { svc = await startService(); NS = `http://localhost:${svc.port}/wp-json/calendar/events/v1`; });
  afterAll(async () => { await svc.stop(); });

  const post = async (path: string, body: Record<string, unknown>, as: Json = "admin") => {
    const res = await svc.request("POST", path, { as, body });
    if (res.status !== 201) throw new Error(`POST ${path} failed ${res.status}: ${res.text}`);
    return res.body;
  };
  const update = (id: number, body: Record<string, unknown>, as: Json = "admin") => svc.request("PATCH", `/events/${id}`, { as, body });

  describe("categories and tags (docs/records.md#categories-and-tags-on-events, #embedded-terms)", () => {
    test("ids, names and slugs, arrays or comma lists; unknown names create terms; unknown ids are skipped; duplicates collapse", async () => {
      const music = await post("/categories", { name: "Music" });
      const jazz = await post("/categories", { name: "Jazz", parent: music.id });
      const ev = await createEvent(svc, { title: "Terms", categories: [music.id, "jazz", "Brand New Cat", 999999, "Music", ""], tags: "outdoor, Free Entry ,outdoor" });
      expect(ev.categories.map((t: Json) => t.name)).toEqual(["Brand New Cat", "Jazz", "Music"]);
      expect(ev.tags.map((t: Json) => t.name)).toEqual(["Free Entry", "outdoor"]);
      const cat = ev.categories.find((t: Json) => t.id === jazz.id);
      expect(Object.keys(cat)).toEqual(["name", "slug", "term_group", "term_taxonomy_id", "taxonomy", "description", "parent", "count", "filter", "id", "urls", "i18n_language", "translations"]);
      expect(cat).toEqual({
        name: "Jazz", slug: "jazz", term_group: 0, term_taxonomy_id: jazz.id, taxonomy: "tribe_events_cat", description: "", parent: music.id, count: 1, filter: "raw", id: jazz.id,
        urls: { self: `${NS}/categories/${jazz.id}`, collection: `${NS}/categories`, up: `${NS}/categories/${music.id}` },
        i18n_language: "en", translations: ["en"]
      });
      const tag = ev.tags[0];
      expect(tag.taxonomy).toBe("post_tag");
      expect(tag.urls).toEqual({ self: `${NS}/tags/${tag.id}`, collection: `${NS}/tags` });
      const made = await svc.get(`/categories?search=Brand%20New&hide_empty=false`);
      expect(made.body.categories.map((t: Json) => t.name)).toEqual(["Brand New Cat"]);
    });

    test("a contributor creates terms implicitly; counts follow published events only (docs/records.md#term-counts)", async () => {
      const name = token("Count");
      const draft = await createEvent(svc, { title: "Counted draft", categories: name, tags: [name] }, "contributor");
      const catId = draft.categories[0].id;
      const count = async () => (await svc.get(`/categories/${catId}`)).body.count;
      expect(await count()).toBe(0);
      const pub = await createEvent(svc, { title: "Counted", categories: [catId] });
      expect(await count()).toBe(1);
      await update(draft.id, { status: "publish" });
      expect(await count()).toBe(2);
      await svc.request("DELETE", `/events/${pub.id}`, { as: "admin" });
      expect(await count()).toBe(1);
      await update(draft.id, { categories: [] });
      expect(await count()).toBe(0);
    });

    test("update: given (even \"\" or []) replaces the set, absent leaves it", async () => {
      const ev = await createEvent(svc, { title: "Term update", categories: "Alpha Cat", tags: "alpha-tag" });
      expect((await update(ev.id, { title: "Term update 2" })).body.categories.map((t: Json) => t.name)).toEqual(["Alpha Cat"]);
      const replaced = await update(ev.id, { categories: "Beta Cat" });
      expect(replaced.body.categories.map((t: Json) => t.name)).toEqual(["Beta Cat"]);
      expect(replaced.body.tags.map((t: Json) => t.name)).toEqual(["alpha-tag"]);
      const cleared = await update(ev.id, { categories: "", tags: [] });
      expect([cleared.body.categories, cleared.body.tags]).toEqual([[], []]);
    });

    test("list filters: ids or slugs, any of them, descendants included, categories AND tags; unknown values 400", async () => {
      const tok = token("tf");
      const parent = await post("/categories", { name: `${tok} parent` });
      const child = await post("/categories", { name: `${tok} child`, parent: parent.id });
      const inChild = (await createEvent(svc, { title: tok, categories: [child.id], tags: `${tok}-tag` })).id;
      const inParent = (await createEvent(svc, { title: tok, categories: [parent.id] })).id;
      const other = (await createEvent(svc, { title: tok, tags: `${tok}-tag` })).id;
      const got = async (q: string) => ids(await svc.get(`/events?search=${tok}&${q}`)).sort();
      expect(await got(`categories=${parent.id}`)).toEqual([inChild, inParent].sort());
      expect(await got(`categories=${child.slug}`)).toEqual([inChild]);
      expect(await got(`categories[]=${child.id}&categories[]=${parent.slug}`)).toEqual([inChild, inParent].sort());
      expect(await got(`tags=${tok}-tag`)).toEqual([inChild, other].sort());
      expect(await got(`tags=${tok}-tag&categories=${parent.id}`)).toEqual([inChild]);
      expectInvalid(await svc.get("/events?categories=no-such-category"), "categories");
      expectInvalid(await svc.get("/events?tags=999999"), "tags");
      const links = await svc.get(`/events?search=${tok}&categories=${parent.id}&tags=${tok}-tag`);
      expect(links.body.rest_url).toBe(`${NS}/events/?page=1&per_page=10&search=${tok}&categories=${parent.id}&tags=${tok}-tag`);
    });
  });

  describe("venue (docs/records.md#venue-and-organizer-input, #embedded-venues-and-organizers, D6: shapes of venue and organizer on events; C1: embedded records follow visibility; C2: several venues)", () => {
    test("by id, {id}, a one-element array, or inline data (created like POST /venues, duplicates reused)", async () => {
      const v = await post("/venues", { venue: "Blue Room", address: "Via Roma 1", city: "Rome", country: "Italy", zip: "00100" });
      for (const venue of [v.id, String(v.id), { id: v.id }, [v.id]]) {
        const ev = await createEvent(svc, { title: "At venue", venue });
        expect(ev.venue).toEqual(expect.objectContaining({ id: v.id, venue: "Blue Room", city: "Rome" }));
        expect(ev.venue).not.toHaveProperty("json_ld");
      }
      const inline = await createEvent(svc, { title: "Inline venue", venue: { venue: "Green Hall", city: "Turin" } });
      expect(inline.venue).toEqual(expect.objectContaining({ venue: "Green Hall", city: "Turin" }));
      const again = await createEvent(svc, { title: "Inline again", venue: { venue: "Green Hall" } });
      expect(again.venue.id).toBe(inline.venue.id);
      const byContributor = await createEvent(svc, { title: "Contrib venue", venue: { venue: "Contrib Hall" } }, "contributor");
      expect(byContributor.venue.venue).toBe("Contrib Hall");
    });

    test("validation: unknown ids, other kinds and inline data without a name are 400 naming venue (before permission)", async () => {
      const org = await post("/organizers", { organizer: "Not A Venue" });
      for (const venue of [999999, String(org.id), { id: org.id }, { city: "Nowhere" }, "abc"]) {
        expectInvalid(await svc.request("POST", "/events", { as: "admin", body: { title: "x", start_date: "tomorrow", end_date: "tomorrow", venue } }), "venue");
      }
      expectInvalid(await svc.request("POST", "/events", { body: { title: "x", start_date: "tomorrow", end_date: "tomorrow", venue: 999999 } }), "venue");
      for (const venue of [0, "", []]) expect((await createEvent(svc, { title: "Empty venue", venue })).venue).toEqual([]);
    });

    test("update: empty removes, a new one replaces, absent leaves it", async () => {
      const a = await post("/venues", { venue: "Hall A" });
      const b = await post("/venues", { venue: "Hall B" });
      const ev = await createEvent(svc, { title: "Venue update", venue: a.id });
      expect((await update(ev.id, { title: "Venue update 2" })).body.venue.id).toBe(a.id);
      expect((await update(ev.id, { venue: b.id })).body.venue.id).toBe(b.id);
      expect((await update(ev.id, { venue: 0 })).body.venue).toEqual([]);
    });

    test("C2: several venues give an array of venue objects", async () => {
      const a = await post("/venues", { venue: "Multi A" });
      const b = await post("/venues", { venue: "Multi B" });
      const ev = await createEvent(svc, { title: "Two venues", venue: [a.id, b.id] });
      expect(ev.venue.map((v: Json) => v.id)).toEqual([a.id, b.id]);
    });

    test("single GET: the embedded venue carries json_ld and the event's json_ld has the location", async () => {
      const v = await post("/venues", { venue: "LD Room", address: "Main St 1", city: "Springfield", country: "US", zip: "12345", phone: "555", website: "http://ld.example.org" });
      const ev = await createEvent(svc, { title: "LD venue", venue: v.id });
      const res = await svc.get(`/events/${ev.id}`);
      expect(res.body.venue.json_ld).toEqual(expect.objectContaining({ "@type": "Place", name: "LD Room" }));
      expect(res.body.venue.json_ld).not.toHaveProperty("@context");
      expect(res.body.json_ld.location).toEqual(res.body.venue.json_ld);
      expect((await svc.get(`/events?include=${ev.id}`)).body.events[0].venue).not.toHaveProperty("json_ld");
    });

    test("C1: a venue the caller may not read is left out", async () => {
      const hidden = await post("/venues", { venue: "Draft Venue", status: "draft" });
      const ev = await createEvent(svc, { title: "Hidden venue", venue: hidden.id });
      expect((await svc.get(`/events/${ev.id}`)).body.venue).toEqual([]);
      expect((await svc.get(`/events/${ev.id}`, "admin")).body.venue.id).toBe(hidden.id);
    });

    test("list filter venue: events at any of those venues; unknown or non-venue ids 400", async () => {
      const tok = token("vf");
      const a = await post("/venues", { venue: `${tok} A` });
      const b = await post("/venues", { venue: `${tok} B` });
      const atA = (await createEvent(svc, { title: tok, venue: a.id })).id;
      const atB = (await createEvent(svc, { title: tok, venue: b.id })).id;
      await createEvent(svc, { title: tok });
      expect(ids(await svc.get(`/events?search=${tok}&venue=${a.id}`))).toEqual([atA]);
      expect(ids(await svc.get(`/events?search=${tok}&venue=${a.id},${b.id}`)).sort()).toEqual([atA, atB].sort());
      expectInvalid(await svc.get(`/events?venue=${atA}`), "venue");
    });

    test("trashing a venue unlinks it from its events (docs/records.md#deleting-venues-and-organizers)", async () => {
      const v = await post("/venues", { venue: "Doomed Venue" });
      const ev = await createEvent(svc, { title: "Loses venue", venue: v.id });
      expect((await svc.request("DELETE", `/venues/${v.id}`, { as: "admin" })).status).toBe(200);
      expect((await svc.get(`/events/${ev.id}`)).body.venue).toEqual([]);
    });

    test("a password-protected event shows no venue or organizer to callers without access", async () => {
      const v = await post("/venues", { venue: "Secret Venue" });
      const o = await post("/organizers", { organizer: "Secret Org" });
      const tok = token("pwl");
      const ev = await createEvent(svc, { title: tok, venue: v.id, organizer: o.id, categories: "Secret Cat", post_password: "pw" });
      const anon = (await svc.get(`/events?search=${tok}`)).body.events[0];
      expect([anon.venue, anon.organizer, anon.categories]).toEqual([[], [], []]);
      const seen = (await svc.get(`/events?search=${tok}&password=pw`)).body.events[0];
      expect([seen.venue.id, seen.organizer[0].id, seen.categories[0].name]).toEqual([v.id, o.id, "Secret Cat"]);
      expect(ev.venue.id).toBe(v.id);
    });
  });

  describe("organizer (docs/records.md#venue-and-organizer-input, #embedded-venues-and-organizers, D6: shapes of venue and organizer on events)", () => {
    test("id, CSV of ids, {id}, inline data, or an array mixing them, in order; always an array", async () => {
      const a = await post("/organizers", { organizer: "Org A", email: "a@example.org" });
      const b = await post("/organizers", { organizer: "Org B" });
      const csv = await createEvent(svc, { title: "CSV orgs", organizer: `${b.id},${a.id}` });
      expect(csv.organizer.map((o: Json) => o.id)).toEqual([b.id, a.id]);
      const one = await createEvent(svc, { title: "One org", organizer: a.id });
      expect(one.organizer.map((o: Json) => o.id)).toEqual([a.id]);
      const mixed = await createEvent(svc, { title: "Mixed orgs", organizer: [{ id: a.id }, { organizer: "Org Inline" }, b.id] });
      expect(mixed.organizer.map((o: Json) => o.organizer)).toEqual(["Org A", "Org Inline", "Org B"]);
      const single = await createEvent(svc, { title: "Object org", organizer: { organizer: "Org Inline" } });
      expect(single.organizer[0].id).toBe(mixed.organizer[1].id);
      expect((await createEvent(svc, { title: "No org" })).organizer).toEqual([]);
    });

    test("validation and update: bad references 400; empty removes all; a new list replaces", async () => {
      const v = await post("/venues", { venue: "Not An Org" });
      for (const organizer of [999999, `${v.id}`, { id: v.id }, [{ email: "x@example.org" }]]) {
        expectInvalid(await svc.request("POST", "/events", { as: "admin", body: { title: "x", start_date: "tomorrow", end_date: "tomorrow", organizer } }), "organizer");
      }
      const a = await post("/organizers", { organizer: "Org Upd A" });
      const b = await post("/organizers", { organizer: "Org Upd B" });
      const ev = await createEvent(svc, { title: "Org update", organizer: [a.id, b.id] });
      expect((await update(ev.id, { title: "x" })).body.organizer).toHaveLength(2);
      expect((await update(ev.id, { organizer: [b.id] })).body.organizer.map((o: Json) => o.id)).toEqual([b.id]);
      expect((await update(ev.id, { organizer: [] })).body.organizer).toEqual([]);
    });

    test("single GET: embedded organizers carry json_ld; the event's json_ld names the first", async () => {
      const o = await post("/organizers", { organizer: "LD Org", email: "ld@example.org" });
      const ev = await createEvent(svc, { title: "LD org", organizer: o.id });
      const res = await svc.get(`/events/${ev.id}`);
      expect(res.body.organizer[0].json_ld).toEqual(expect.objectContaining({ "@type": "Person", name: "LD Org" }));
      expect(res.body.json_ld.organizer).toEqual(res.body.organizer[0].json_ld);
    });

    test("list filter organizer: events with any of them; unknown ids 400", async () => {
      const tok = token("of");
      const o = await post("/organizers", { organizer: `${tok} org` });
      const withOrg = (await createEvent(svc, { title: tok, organizer: o.id })).id;
      await createEvent(svc, { title: tok });
      expect(ids(await svc.get(`/events?search=${tok}&organizer=${o.id}`))).toEqual([withOrg]);
      expectInvalid(await svc.get("/events?organizer=999999"), "organizer");
      expectError(await svc.get(`/events/${o.id}`), 400, "rest-invalid-event-id");
    });
  });
});
