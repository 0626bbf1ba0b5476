/**
 * `_fields` response shaping through HTTP (WordPress's field selection, C22: caching headers and shaping) on every route: a single
 * record keeps the selected keys; a list keeps its envelope and selects the keys of each listed record;
 * dotted paths select inside nested objects and arrays of objects (`venue.city`, `categories.name`).
 */
import { startService, Running } from "../helpers/harness";
import { dayAt, expectError, token } from "../helpers/events";
import { feedPage } from "../helpers/sync-client";
import type { Json } from "../helpers/json";

let svc: Running;
let venue: Json;
let event: Json;
let category: Json;
const word = token("fields");

beforeAll(async () => {
  svc = await startService();
  const create = async (path: string, body: Record<string, unknown>) => (await svc.request("POST", path, { as: "admin", body })).body;
  venue = await create("/venues", { venue: `${word} Hall`, city: "Lisbon", country: "Portugal" });
  category = await create("/categories", { name: `${word} Jazz` });
  event = await create("/events", { title: `${word} night`, start_date: dayAt(9, "21:00:00"), end_date: dayAt(9, "23:00:00"), venue: venue.id, categories: [category.id] });
});
afterAll(async () => {
  await svc.stop();
});

describe("a single record", () => {
  test("keeps exactly the selected keys, in the record's order", async () => {
    const res = await svc.get(`/events/${event.id}?_fields=title,id,start_date`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: event.id, title: `${word} night`, start_date: event.start_date });
    expect(Object.keys(res.body)).toEqual(["id", "title", "start_date"]);
  });

  test("dotted paths select inside objects and arrays of objects; a key named whole keeps all of it", async () => {
    const res = await svc.get(`/events/${event.id}?_fields=id,venue.city,venue.venue,categories.name`);
    expect(res.body).toEqual({ id: event.id, categories: [{ name: `${word} Jazz` }], venue: { venue: `${word} Hall`, city: "Lisbon" } });
    const whole = await svc.get(`/events/${event.id}?_fields=venue.city,venue`);
    expect(whole.body.venue).toEqual((await svc.get(`/events/${event.id}`)).body.venue);
  });

  test("array form, spaces, unknown keys; an empty value selects nothing away", async () => {
    expect((await svc.get(`/events/${event.id}?_fields[]=id&_fields[]=slug`)).body).toEqual({ id: event.id, slug: event.slug });
    expect((await svc.get(`/events/${event.id}?_fields=${encodeURIComponent(" id , nothing_here ")}`)).body).toEqual({ id: event.id });
    expect((await svc.get(`/events/${event.id}?_fields=`)).body).toEqual((await svc.get(`/events/${event.id}`)).body);
  });

  test("venues, organizers, terms, by slug, the namespace index", async () => {
    expect((await svc.get(`/venues/${venue.id}?_fields=id,city`)).body).toEqual({ id: venue.id, city: "Lisbon" });
    expect((await svc.get(`/venues/by-slug/${venue.slug}?_fields=slug`)).body).toEqual({ slug: venue.slug });
    expect((await svc.get(`/categories/${category.id}?_fields=name,urls.self`)).body).toEqual({ name: `${word} Jazz`, urls: { self: category.urls.self } });
    expect((await svc.get(`${svc.ns}?_fields=namespace`)).body).toEqual({ namespace: "calendar/events/v1" });
  });

  test("writes answer shaped too; errors never are", async () => {
    const created = await svc.request("POST", "/tags?_fields=id,name", { as: "admin", body: { name: `${word} Tag` } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), name: `${word} Tag` });
    const updated = await svc.request("POST", `/events/${event.id}?_fields=title`, { as: "admin", body: { excerpt: "Shaped" } });
    expect(updated.body).toEqual({ title: `${word} night` });
    expectError(await svc.get("/events/99999?_fields=id"), 404, "rest-event-not-found");
  });
});

describe("a list", () => {
  test("keeps the envelope and the headers; shapes each listed record", async () => {
    const plain = await svc.get(`/events?search=${word}`);
    const res = await svc.get(`/events?search=${word}&_fields=id,venue.city`);
    expect(Object.keys(res.body)).toEqual(Object.keys(plain.body));
    expect(res.body.rest_url).toBe(plain.body.rest_url);
    expect(res.body.total).toBe(1);
    expect(res.body.events).toEqual([{ id: event.id, venue: { city: "Lisbon" } }]);
    expect(res.headers.get("x-wp-total")).toBe("1");
  });

  test("venues and terms lists", async () => {
    const venues = await svc.get(`/venues?search=${encodeURIComponent(word)}&_fields=city`);
    expect(venues.body.venues).toEqual([{ city: "Lisbon" }]);
    expect(venues.body).toHaveProperty("total", 1);
    const cats = await svc.get(`/categories?search=${word}&hide_empty=false&_fields=id,count`);
    expect(cats.body.categories).toEqual([{ id: category.id, count: 1 }]);
    expect(cats.body).toEqual(expect.objectContaining({ rest_url: expect.any(String), total: 1, total_pages: 1 }));
  });

  test("the change feed: each change's record is shaped, the change keeps its own keys", async () => {
    const res = await feedPage(svc, { per_page: 500, _fields: "id,title" }, "admin");
    const change = res.body.changes.find(c => c.type === "event" && c.id === event.id)!;
    expect(Object.keys(change)).toEqual(["type", "id", "action", "modified_utc", "record"]);
    expect(change.record).toEqual({ id: event.id, title: `${word} night` });
    expect(res.body).toEqual(expect.objectContaining({ next_token: expect.any(String), has_more: false }));
  });
});
