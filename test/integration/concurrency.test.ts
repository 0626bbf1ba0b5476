/**
 * Concurrent writes through HTTP end in a consistent state: parallel updates of one record lose no field,
 * parallel creates with one title or slug get unique slugs, parallel duplicate venues/organizers/terms make
 * one record, parallel deletes trash once, and term counts match the events that carry the terms.
 */
import { startService, Running } from "../helpers/harness";
import type { Json } from "../helpers/json";

const PARALLEL = 24;

describe("concurrent writes", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({ RATE_LIMIT: "", CACHER: "" }); });
  afterAll(async () => { await svc.stop(); });

  const post = (path: string, body: Record<string, unknown>) => svc.request("POST", path, { as: "admin", body });
  const patch = (path: string, body: Record<string, unknown>) => svc.request("PATCH", path, { as: "admin", body });
  const parallel = <T>(n: number, fn: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
  const event = (title: string, extra: Record<string, unknown> = {}) => ({ title, start_date: "tomorrow 10:00", end_date: "tomorrow 11:00", ...extra });

  test("parallel updates of different fields of one event: none is lost", async () => {
    const ev = (await post("/events", event("Many hands"))).body;
    const changes: Array<Record<string, unknown>> = [
      { excerpt: "the excerpt" }, { description: "the description" }, { cost: "15" }, { website: "https://hands.example.org" },
      { featured: true }, { sticky: true }, { all_day: true }, { hide_from_listings: true }, { show_map: false }, { show_map_link: false },
      { timezone: "Europe/Paris" }, { title: "Many hands, renamed" }
    ];
    const answers = await Promise.all(changes.map(c => patch(`/events/${ev.id}`, c)));
    expect(answers.map(a => a.status)).toEqual(changes.map(() => 200));
    const after = (await svc.get(`/events/${ev.id}`, "admin")).body;
    expect(after).toMatchObject({
      excerpt: "<p>the excerpt</p>", description: "<p>the description</p>", cost: "$15", website: "https://hands.example.org", featured: true,
      sticky: true, all_day: true, hide_from_listings: true, show_map: false, show_map_link: false, timezone: "Europe/Paris", title: "Many hands, renamed"
    });
  });

  test("parallel changes of the start, the end, the zone and the status of one event: all of them land", async () => {
    for (let round = 0; round < 5; round++) {
      const ev = (await post("/events", event(`Schedule ${round}`, { start_date: "2031-05-10 10:00:00", end_date: "2031-05-10 12:00:00" }))).body;
      const answers = await Promise.all([
        patch(`/events/${ev.id}`, { start_date: "2031-05-10 09:00:00" }),
        patch(`/events/${ev.id}`, { end_date: "2031-05-10 13:00:00" }),
        patch(`/events/${ev.id}`, { excerpt: "moved" }),
        patch(`/events/${ev.id}`, { status: "draft" })
      ]);
      expect(answers.map(a => a.status)).toEqual([200, 200, 200, 200]);
      const after = (await svc.get(`/events/${ev.id}`, "admin")).body;
      expect([after.start_date, after.end_date, after.excerpt, after.status]).toEqual(["2031-05-10 09:00:00", "2031-05-10 13:00:00", "<p>moved</p>", "draft"]);
    }
  });

  test("parallel updates of different fields of one venue and one organizer: none is lost", async () => {
    const venue = (await post("/venues", { venue: `Busy hall ${Date.now()}` })).body;
    const fields = { address: "1 Main St", city: "Porto", country: "Portugal", province: "Norte", zip: "4000", phone: "123", website: "https://hall.example.org", description: "Big" };
    const answers = await Promise.all(Object.entries(fields).map(([k, v]) => patch(`/venues/${venue.id}`, { [k]: v })));
    expect(answers.every(a => a.status === 200)).toBe(true);
    const after = (await svc.get(`/venues/${venue.id}`, "admin")).body;
    expect(after).toMatchObject({ ...fields, description: "<p>Big</p>" });

    const org = (await post("/organizers", { organizer: `Busy org ${Date.now()}` })).body;
    const orgFields = { phone: "555", email: "o@example.org", website: "https://org.example.org", description: "Org" };
    await Promise.all(Object.entries(orgFields).map(([k, v]) => patch(`/organizers/${org.id}`, { [k]: v })));
    expect((await svc.get(`/organizers/${org.id}`, "admin")).body).toMatchObject({ ...orgFields, description: "<p>Org</p>" });
  });

  test("parallel updates of the same field: the record ends with one of the values sent, as its last answer said", async () => {
    const ev = (await post("/events", event("Race"))).body;
    const answers = await parallel(PARALLEL, i => patch(`/events/${ev.id}`, { excerpt: `value ${i}` }));
    expect(answers.every(a => a.status === 200)).toBe(true);
    const final = (await svc.get(`/events/${ev.id}`, "admin")).body.excerpt;
    expect(answers.map(a => a.body.excerpt)).toContain(final);
    expect(final).toMatch(/^<p>value \d+<\/p>$/);
  });

  test("parallel creates with the same title or the same slug get unique slugs", async () => {
    const title = `Same title ${Date.now()}`;
    const sameTitle = await parallel(PARALLEL, () => post("/events", event(title)));
    expect(sameTitle.map(r => r.status)).toEqual(sameTitle.map(() => 201));
    const slugs = sameTitle.map(r => r.body.slug);
    expect(new Set(slugs).size).toBe(PARALLEL);
    expect(new Set(sameTitle.map(r => r.body.id)).size).toBe(PARALLEL);
    const slug = `shared-slug-${Date.now()}`;
    const sameSlug = await parallel(PARALLEL, i => post("/events", event(`Slugged ${i}`, { slug })));
    expect(new Set(sameSlug.map(r => r.body.slug)).size).toBe(PARALLEL);
    expect(sameSlug.map(r => r.body.slug)).toContain(slug);
    // what is stored agrees with what was answered, and every slug reads back its own event
    for (const r of [...sameTitle, ...sameSlug]) {
      const back = await svc.get(`/events/by-slug/${r.body.slug}`, "admin");
      expect([r.body.slug, back.body.id]).toEqual([r.body.slug, r.body.id]);
    }
  });

  test("parallel renames of different events to one slug, and parallel publishes of drafts sharing a slug, keep slugs unique", async () => {
    const evs = await parallel(10, i => post("/events", event(`Rename me ${i} ${Date.now()}`)));
    const target = `renamed-${Date.now()}`;
    const renamed = await Promise.all(evs.map(e => patch(`/events/${e.body.id}`, { slug: target })));
    expect(renamed.every(r => r.status === 200)).toBe(true);
    expect(new Set(renamed.map(r => r.body.slug)).size).toBe(10);
    // drafts may share a slug (D16 (drafts created without a slug keep an empty slug) / docs/records.md#event-slugs); publishing them together makes them unique
    const draftSlug = `draft-share-${Date.now()}`;
    const drafts = await parallel(8, i => post("/events", event(`Draft ${i}`, { status: "draft", slug: draftSlug })));
    expect(drafts.every(d => d.body.slug === draftSlug)).toBe(true);
    const published = await Promise.all(drafts.map(d => patch(`/events/${d.body.id}`, { status: "publish" })));
    expect(published.every(p => p.status === 200)).toBe(true);
    expect(new Set(published.map(p => p.body.slug)).size).toBe(8);
  });

  test("parallel creates of one venue, organizer or term name make one record (D25: duplicate venues and organizers; term_exists)", async () => {
    const name = `Twin ${Date.now()}`;
    const venues = await parallel(PARALLEL, () => post("/venues", { venue: name }));
    expect(venues.every(v => v.status === 201)).toBe(true);
    expect(new Set(venues.map(v => v.body.id)).size).toBe(1);
    expect((await svc.get(`/venues?search=${encodeURIComponent(name)}`, "admin")).body.total).toBe(1);
    const orgs = await parallel(PARALLEL, () => post("/organizers", { organizer: name }));
    expect(new Set(orgs.map(o => o.body.id)).size).toBe(1);

    for (const taxonomy of ["categories", "tags"]) {
      const terms = await parallel(PARALLEL, () => post(`/${taxonomy}`, { name }));
      const created = terms.filter(t => t.status === 201);
      expect(created).toHaveLength(1);
      for (const t of terms.filter(t => t.status !== 201)) expect([t.status, t.body.code, t.body.data.term_id]).toEqual([400, "term_exists", created[0].body.id]);
      const listed = (await svc.get(`/${taxonomy}?hide_empty=false&search=${encodeURIComponent(name)}`)).body[taxonomy];
      expect(listed).toHaveLength(1);
    }
    // inline venues named by parallel event creates collapse into one venue as well
    const inlineName = `Inline twin ${Date.now()}`;
    const evs = await parallel(12, i => post("/events", event(`With inline ${i}`, { venue: { venue: inlineName, city: "Gent" } })));
    expect(evs.every(e => e.status === 201)).toBe(true);
    expect(new Set(evs.map(e => e.body.venue.id)).size).toBe(1);
  });

  test("parallel creates of venues whose different names make one slug get unique slugs", async () => {
    const stamp = Date.now();
    const names = [`Twin Peak ${stamp}`, `Twin-Peak ${stamp}`, `Twin  Peak. ${stamp}`, `twin peak! ${stamp}`, `TWIN–PEAK ${stamp}`, `Twin/Peak ${stamp}`];
    const made = await Promise.all(names.map(venue => post("/venues", { venue })));
    expect(made.map(m => m.status)).toEqual(names.map(() => 201));
    expect(new Set(made.map(m => m.body.id)).size).toBe(names.length);
    expect(new Set(made.map(m => m.body.slug)).size).toBe(names.length);
    // and publishing drafts that share a slug makes them unique, as for events
    const drafts = await parallel(6, i => post("/organizers", { organizer: `Draft org ${stamp}${".".repeat(i)}`, status: "draft" }));
    expect(new Set(drafts.map(d => d.body.slug)).size).toBe(1);
    const published = await Promise.all(drafts.map(d => patch(`/organizers/${d.body.id}`, { status: "publish" })));
    expect(new Set(published.map(p => p.body.slug)).size).toBe(6);
  });

  test("parallel deletes of one record trash it once; the others are told it is in the trash", async () => {
    const ev = (await post("/events", event("Delete race"))).body;
    const venue = (await post("/venues", { venue: `Delete race ${Date.now()}` })).body;
    for (const [path, code] of [[`/events/${ev.id}`, "event-is-in-trash"], [`/venues/${venue.id}`, "venue-is-in-trash"]]) {
      const answers = await parallel(12, () => svc.request("DELETE", path, { as: "admin" }));
      const ok = answers.filter(a => a.status === 200);
      expect(ok).toHaveLength(1);
      for (const a of answers.filter(x => x.status !== 200)) expect([a.status, a.body.code]).toEqual([410, code]);
    }
    const trashed = (await svc.get(`/events?status=trash&search=${encodeURIComponent("Delete race")}`, "admin")).body.events;
    expect(trashed.map((e: Json) => e.slug)).toEqual([`${ev.slug}__trashed`]);
  });

  test("through the action API too (no HTTP pacing): parallel re-tags of one event keep the term counts exact", async () => {
    const b = svc.broker;
    const a: Json = await b.call("taxonomy.categories.create", { name: `Flip A ${Date.now()}` });
    const c: Json = await b.call("taxonomy.categories.create", { name: `Flip B ${Date.now()}` });
    const ev: Json = await b.call("events.create", event("Flip", { categories: [a.id] }));
    await Promise.all(Array.from({ length: PARALLEL }, (_, i) => b.call("events.update", { id: ev.id, categories: i % 2 ? [a.id] : [c.id], excerpt: `e${i}` })));
    const final: Json = await b.call("events.get", { id: ev.id });
    const inA = final.categories.some((t: Json) => t.id === a.id) ? 1 : 0;
    expect([(await b.call<Json, Json>("taxonomy.categories.get", { id: a.id })).count, (await b.call<Json, Json>("taxonomy.categories.get", { id: c.id })).count]).toEqual([inA, 1 - inA]);
    // venues: the derived stateprovince follows the state and country as they end up
    const v: Json = await b.call("venues.create", { venue: `Derived ${Date.now()}` });
    await Promise.all([b.call("venues.update", { id: v.id, state: "NY" }), b.call("venues.update", { id: v.id, country: "US" }), b.call("venues.update", { id: v.id, city: "Albany" })]);
    expect(await b.call("venues.get", { id: v.id })).toMatchObject({ state: "NY", country: "US", city: "Albany", stateprovince: "NY" });
  });

  test("term counts follow parallel creates, re-tags and deletes", async () => {
    const cat = (await post("/categories", { name: `Counted ${Date.now()}` })).body;
    const other = (await post("/categories", { name: `Other ${Date.now()}` })).body;
    const evs = await parallel(30, i => post("/events", event(`Counted event ${i}`, { categories: [cat.id] })));
    expect(evs.every(e => e.status === 201)).toBe(true);
    expect((await svc.get(`/categories/${cat.id}`)).body.count).toBe(30);
    // move ten to the other category, trash ten, draft five, all at once
    await Promise.all([
      ...evs.slice(0, 10).map(e => patch(`/events/${e.body.id}`, { categories: [other.id] })),
      ...evs.slice(10, 20).map(e => svc.request("DELETE", `/events/${e.body.id}`, { as: "admin" })),
      ...evs.slice(20, 25).map(e => patch(`/events/${e.body.id}`, { status: "draft" }))
    ]);
    expect((await svc.get(`/categories/${cat.id}`)).body.count).toBe(5);
    expect((await svc.get(`/categories/${other.id}`)).body.count).toBe(10);
    // the same event re-tagged by parallel updates: its final categories are what the count reflects
    const flip = evs[25].body.id;
    await parallel(16, i => patch(`/events/${flip}`, { categories: i % 2 ? [cat.id] : [other.id] }));
    const finalCats = (await svc.get(`/events/${flip}`, "admin")).body.categories.map((c: Json) => c.id);
    const inCat = finalCats.includes(cat.id) ? 1 : 0;
    expect((await svc.get(`/categories/${cat.id}`)).body.count).toBe(4 + inCat);
    expect((await svc.get(`/categories/${other.id}`)).body.count).toBe(10 + (1 - inCat));
  });
});
