/**
 * The geolocation service through HTTP (the events list's `geoloc*` filters) and the bus, with a fake
 * venues service (test/helpers/fake-venues.ts) that announces its writes like the real one.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { startService, Running } from "../helpers/harness";
import { createFakeVenues, FakeVenues } from "../helpers/fake-venues";
import GeolocationService from "../../services/geolocation.service";
import { distanceKm } from "../../lib/geo/distance";
import type { Json } from "../helpers/json";

const PARIS = { geo_lat: 48.8566, geo_lng: 2.3522 };
const LONDON = { geo_lat: 51.5074, geo_lng: -0.1278 };
const VERSAILLES = { geo_lat: 48.8049, geo_lng: 2.1204 };

const expectInvalid = (res: { status: number; body: Json }, param: string) => {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe("rest_invalid_param");
  expect(Object.keys(res.body.data.params)).toContain(param);
};

async function createEvent(svc: Running, title: string, hour: number, venue?: number): Promise<number> {
  const res = await svc.request("POST", "/events", {
    as: "admin",
    body: { title, start_date: `tomorrow ${hour}:00`, end_date: `tomorrow ${hour}:30`, status: "publish", ...(venue ? { venue } : {}) }
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

const titles = (res: { body: Json }) => (res.body.events as Json[]).map(e => e.title);

async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > end) return v;
    await new Promise(r => setTimeout(r, 50));
  }
}

describe("geolocation: radius filters, distance, geocoding, following venue changes", () => {
  let svc: Running;
  let venues: FakeVenues;
  const ids: Record<string, number> = {};
  /** Everything announced so far is applied (the service works through one queue). */
  const settle = () => svc.broker.call("geolocation.resync", {});

  beforeAll(async () => {
    svc = await startService({ SERVICES: "api,events,geolocation,i18n,taxonomy" });
    venues = await createFakeVenues(svc.broker);
    ids.paris = (await venues.create({ venue: "Paris Hall", city: "Paris", country: "France", ...PARIS })).id;
    ids.london = (await venues.create({ venue: "London Hall", city: "London", country: "United Kingdom", ...LONDON })).id;
    ids.versailles = (await venues.create({ venue: "Versailles Hall", ...VERSAILLES })).id;
    // no coordinates: the geocoder finds them from city and country only
    ids.lyon = (await venues.create({ venue: "Lyon Hall", city: "Lyon", country: "France" })).id;
    ids.draft = (await venues.create({ venue: "Draft Hall", status: "draft", ...PARIS })).id;
    ids.nowhere = (await venues.create({ venue: "Nowhere Hall", city: "Xyzzyville", country: "France" })).id;
    await settle();
    // start order differs from every distance order
    await createEvent(svc, "Lyon event", 8, ids.lyon);
    await createEvent(svc, "Versailles event", 9, ids.versailles);
    await createEvent(svc, "London event", 10, ids.london);
    await createEvent(svc, "Paris event", 11, ids.paris);
    await createEvent(svc, "Draft venue event", 12, ids.draft);
    await createEvent(svc, "Nowhere event", 13, ids.nowhere);
    await createEvent(svc, "No venue event", 14);
  });
  afterAll(async () => {
    await svc.stop();
  });

  test("a venue with only city and country is geocoded and the coordinates are written back to it", async () => {
    const lyon = venues.table.get(ids.lyon)!;
    expect(lyon.geo_lat).toBeDefined();
    expect(distanceKm({ lat: lyon.geo_lat!, lng: lyon.geo_lng! }, { lat: 45.764, lng: 4.8357 })).toBeLessThan(5);
    expect(venues.writes.map(w => w.id)).toContain(ids.lyon);
    // nothing found: nothing written, no coordinates
    expect(venues.table.get(ids.nowhere)!.geo_lat).toBeUndefined();
    expect(venues.writes.map(w => w.id)).not.toContain(ids.nowhere);
    // explicit coordinates are never overwritten
    expect(venues.writes.map(w => w.id)).not.toContain(ids.paris);
  });

  test("geolocation.locate: the offline geocoder on the bus", async () => {
    const paris: Json = await svc.broker.call("geolocation.locate", { city: "Paris", country: "France" });
    expect(distanceKm(paris, { lat: 48.8566, lng: 2.3522 })).toBeLessThan(5);
    expect(await svc.broker.call("geolocation.locate", { city: "Paris", state: "TX", country: "US" })).toEqual({ lat: expect.closeTo(33.66, 1), lng: expect.closeTo(-95.56, 1) });
    expect(await svc.broker.call("geolocation.locate", { country: "France" })).toBeNull();
  });

  test("radius in km: Paris–London is about 344 km", async () => {
    const near = await svc.get("/events?geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=50&geoloc_unit=km");
    expect(near.status).toBe(200);
    expect(titles(near)).toEqual(["Versailles event", "Paris event"]);
    const byTitle = Object.fromEntries((near.body.events as Json[]).map(e => [e.title, e.distance]));
    expect(byTitle["Paris event"]).toBe(0);
    expect(byTitle["Versailles event"]).toBeCloseTo(18.3, 0);

    const short = await svc.get("/events?geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=340&geoloc_unit=km");
    expect(titles(short)).not.toContain("London event");
    const long = await svc.get("/events?geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=350&geoloc_unit=km");
    const london = (long.body.events as Json[]).find(e => e.title === "London event");
    expect(london.distance).toBeGreaterThan(340);
    expect(london.distance).toBeLessThan(348);
    expect(london.distance).toBe(Math.round(london.distance * 100) / 100);
    expect(titles(long)).not.toContain("Draft venue event"); // only published venues
    expect(titles(long)).not.toContain("Lyon event"); // 392 km
  });

  test("radius in miles, the default unit; the radius is inclusive", async () => {
    const res = await svc.get("/events?geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=214");
    const london = (res.body.events as Json[]).find(e => e.title === "London event");
    expect(london.distance).toBeCloseTo(213.5, 0);
    expect(titles(await svc.get("/events?geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=213&geoloc_unit=mi"))).not.toContain("London event");
    // a radius equal to the exact distance keeps the venue
    const exact: Json[] = await svc.broker.call("geolocation.near", { lat: 48.8566, lng: 2.3522, radius: distanceKm({ lat: 48.8566, lng: 2.3522 }, { lat: 51.5074, lng: -0.1278 }), unit: "km" });
    expect(exact.map(n => n.id)).toContain(ids.london);
    // default radius: 25 miles
    expect(titles(await svc.get("/events?geoloc_lat=51.5&geoloc_lng=-0.12"))).toEqual(["London event"]);
  });

  test("orderby=distance sorts nearest first; each event carries distance", async () => {
    const res = await svc.get("/events?geoloc_lat=51.5074&geoloc_lng=-0.1278&geoloc_radius=1000&geoloc_unit=km&orderby=distance");
    expect(res.status).toBe(200);
    expect(titles(res)).toEqual(["London event", "Versailles event", "Paris event", "Lyon event"]);
    const d = (res.body.events as Json[]).map(e => e.distance);
    expect(d).toEqual([...d].sort((a, b) => a - b));
    expect(d[0]).toBe(0);
    expect(res.body.total).toBe(4);
    const paged = await svc.get("/events?geoloc_lat=51.5074&geoloc_lng=-0.1278&geoloc_radius=1000&geoloc_unit=km&orderby=distance&per_page=2&page=2");
    expect(titles(paged)).toEqual(["Paris event", "Lyon event"]);
  });

  test("geolocation.near answers ids and distances of published venues, nearest first", async () => {
    const near: Json[] = await svc.broker.call("geolocation.near", { lat: 48.8566, lng: 2.3522, radius: 500, unit: "km" });
    expect(near.map(n => n.id)).toEqual([ids.paris, ids.versailles, ids.london, ids.lyon]);
    expect(near[2].distance).toBeCloseTo(343.56, 1);
  });

  test("geoloc=true / false: venues with / without coordinates (events without a venue have none)", async () => {
    expect((await svc.get("/events?geoloc=true")).body.events.map((e: Json) => e.title).sort()).toEqual(["London event", "Lyon event", "Paris event", "Versailles event"]);
    expect(titles(await svc.get("/events?geoloc=false")).sort()).toEqual(["Draft venue event", "No venue event", "Nowhere event"]);
    const located: number[] = await svc.broker.call("geolocation.venuesWithCoordinates", {});
    expect(located).toEqual([ids.paris, ids.london, ids.versailles, ids.lyon].sort((a, b) => a - b));
    // geoloc=false with a radius combines by AND: nothing can be both
    expect(titles(await svc.get("/events?geoloc=false&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=50&geoloc_unit=km"))).toEqual([]);
    expect(titles(await svc.get("/events?geoloc=true&geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=50&geoloc_unit=km"))).toEqual(["Versailles event", "Paris event"]);
  });

  test("the 400s of C11 (venues hold their coordinates)", async () => {
    expectInvalid(await svc.get("/events?geoloc_lat=48.8"), "geoloc_lng");
    expectInvalid(await svc.get("/events?geoloc_lng=2.3"), "geoloc_lat");
    expectInvalid(await svc.get("/events?geoloc_lat=91&geoloc_lng=2"), "geoloc_lat");
    expectInvalid(await svc.get("/events?geoloc_lat=48&geoloc_lng=-180.5"), "geoloc_lng");
    expectInvalid(await svc.get("/events?geoloc_lat=abc&geoloc_lng=2"), "geoloc_lat");
    expectInvalid(await svc.get("/events?geoloc_lat=48&geoloc_lng=2&geoloc_unit=yd"), "geoloc_unit");
    expectInvalid(await svc.get("/events?geoloc_lat=48&geoloc_lng=2&geoloc_radius=0"), "geoloc_radius");
    expectInvalid(await svc.get("/events?geoloc_lat=48&geoloc_lng=2&geoloc_radius=-3"), "geoloc_radius");
    expectInvalid(await svc.get("/events?orderby=distance"), "orderby");
    expectInvalid(await svc.get("/events?geoloc=maybe"), "geoloc");
  });

  test("venue changes on the bus: moved, trashed, unpublished, readdressed", async () => {
    const probe = (lat: number, lng: number, km: number) =>
      svc.broker.call("geolocation.near", { lat, lng, radius: km, unit: "km" }) as Promise<Array<{ id: number }>>;
    // moved: Versailles venue to Lille
    await venues.update(ids.versailles, { geo_lat: 50.6292, geo_lng: 3.0573 });
    await settle();
    expect((await probe(50.6292, 3.0573, 5)).map(n => n.id)).toEqual([ids.versailles]);
    expect((await probe(48.8566, 2.3522, 50)).map(n => n.id)).toEqual([ids.paris]);
    // readdressed geocoded venue: Lyon Hall moves to Marseille, geocoded again and written back
    await venues.update(ids.lyon, { city: "Marseille" });
    await settle();
    const marseille = venues.table.get(ids.lyon)!;
    expect(distanceKm({ lat: marseille.geo_lat!, lng: marseille.geo_lng! }, { lat: 43.2965, lng: 5.3698 })).toBeLessThan(10);
    expect((await probe(43.2965, 5.3698, 20)).map(n => n.id)).toEqual([ids.lyon]);
    // explicit coordinates on a geocoded venue win, and stay when the address changes
    await venues.update(ids.lyon, { geo_lat: 43.3, geo_lng: 5.4 });
    await venues.update(ids.lyon, { city: "Nice" });
    await settle();
    expect(venues.table.get(ids.lyon)).toMatchObject({ geo_lat: 43.3, geo_lng: 5.4 });
    // unpublished, then trashed: out of every result
    await venues.update(ids.london, { status: "draft" });
    await settle();
    expect((await probe(51.5074, -0.1278, 10)).map(n => n.id)).toEqual([]);
    await venues.update(ids.london, { status: "publish" });
    await settle();
    expect((await probe(51.5074, -0.1278, 10)).map(n => n.id)).toEqual([ids.london]);
    await venues.trash(ids.london);
    await settle();
    expect((await probe(51.5074, -0.1278, 10)).map(n => n.id)).toEqual([]);
    expect(await svc.broker.call("geolocation.venuesWithCoordinates", {})).not.toContain(ids.london);
  });

  test("events alone are enough: a change is applied without anyone asking", async () => {
    const v = await venues.create({ venue: "Brussels Hall", city: "Brussels", country: "Belgium" });
    const near = await until(
      () => svc.broker.call("geolocation.near", { lat: 50.85, lng: 4.35, radius: 10, unit: "km" }) as Promise<Array<{ id: number }>>,
      list => list.some(n => n.id === v.id)
    );
    expect(near.map(n => n.id)).toContain(v.id);
  });
});

describe("geolocation absent, then started and stopped in the same process", () => {
  let svc: Running;
  let venues: FakeVenues;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "geo-"));
    svc = await startService({ SERVICES: "api,events,i18n,taxonomy", DATA_DIR: dataDir });
    venues = await createFakeVenues(svc.broker);
  });
  afterAll(async () => {
    await svc.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test("without the service: parameter errors first, then 400 geoloc-not-available; other routes work", async () => {
    const paris = await venues.create({ venue: "Paris Hall", ...PARIS });
    await createEvent(svc, "Paris event", 10, paris.id);
    for (const q of ["geoloc=true", "geoloc=false", "geoloc_lat=48.8&geoloc_lng=2.3", "geoloc_lat=48.8&geoloc_lng=2.3&orderby=distance", "geoloc_radius=5", "geoloc_unit=km"]) {
      const res = await svc.get(`/events?${q}`);
      expect([q, res.status, res.body.code]).toEqual([q, 400, "geoloc-not-available"]);
    }
    expectInvalid(await svc.get("/events?geoloc_lat=48.8"), "geoloc_lng");
    expectInvalid(await svc.get("/events?geoloc_lat=100&geoloc_lng=2"), "geoloc_lat");
    expectInvalid(await svc.get("/events?geoloc_lat=48&geoloc_lng=2&geoloc_unit=furlong"), "geoloc_unit");
    expectInvalid(await svc.get("/events?orderby=distance"), "orderby");
    const all = await svc.get("/events");
    expect(all.status).toBe(200);
    expect(titles(all)).toEqual(["Paris event"]);
  });

  test("started later: catches up with venues created while it was absent; stopped: back to 400; started again: catches up from where it stopped", async () => {
    const london = await venues.create({ venue: "London Hall", ...LONDON });
    await createEvent(svc, "London event", 11, london.id);
    const lyon = await venues.create({ venue: "Lyon Hall", city: "Lyon", country: "France" });
    await createEvent(svc, "Lyon event", 12, lyon.id);

    let geo = svc.broker.createService(GeolocationService);
    await svc.broker.waitForServices(["geolocation"]);
    const res = await svc.get("/events?geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=1000&geoloc_unit=km&orderby=distance");
    expect(res.status).toBe(200);
    expect(titles(res)).toEqual(["Paris event", "London event", "Lyon event"]);
    expect(venues.table.get(lyon.id)!.geo_lat).toBeDefined();

    await svc.broker.destroyService(geo);
    expect((await svc.get("/events?geoloc=true")).body.code).toBe("geoloc-not-available");

    // changes while it is away: nobody listens to these announcements
    await venues.trash(london.id);
    const brussels = await venues.create({ venue: "Brussels Hall", city: "Brussels", country: "Belgium" });
    await createEvent(svc, "Brussels event", 13, brussels.id);
    const feedCalls = venues.feedCalls.length;

    geo = svc.broker.createService(GeolocationService);
    await svc.broker.waitForServices(["geolocation"]);
    const again = await svc.get("/events?geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=1000&geoloc_unit=km&orderby=distance");
    expect(titles(again)).toEqual(["Paris event", "Brussels event", "Lyon event"]);
    // the catch-up read from its saved position, not everything
    const restartCalls = venues.feedCalls.slice(feedCalls).filter(c => !c.ids);
    expect(restartCalls.length).toBeGreaterThan(0);
    expect(restartCalls[0].since).toEqual(expect.any(String));
    await svc.broker.destroyService(geo);
  });
});

describe("geolocation with this project's venues service", () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startService({ SERVICES: "api,events,venues,organizers,geolocation,i18n,taxonomy" });
  });
  afterAll(async () => {
    await svc.stop();
  });

  test("a venue created with geo_lat/geo_lng over HTTP is found by radius; trashed, it is not", async () => {
    const venue = await svc.request("POST", "/venues", { as: "admin", body: { venue: "Geo Paris Hall", status: "publish", ...PARIS } });
    expect(venue.status).toBe(201);
    const other = await svc.request("POST", "/venues", { as: "admin", body: { venue: "Geo London Hall", status: "publish", ...LONDON } });
    expect(other.status).toBe(201);
    await createEvent(svc, "Paris event", 10, venue.body.id);
    await createEvent(svc, "London event", 11, other.body.id);
    const query = "/events?geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=400&geoloc_unit=km&orderby=distance";
    const res = await until(() => svc.get(query), r => r.status === 200 && r.body.events.length === 2);
    expect(titles(res)).toEqual(["Paris event", "London event"]);
    expect(res.body.events[1].distance).toBeCloseTo(343.56, 1);

    expect((await svc.request("DELETE", `/venues/${other.body.id}`, { as: "admin" })).status).toBe(200);
    const after = await until(() => svc.get(query), r => r.status === 200 && r.body.events.length === 1);
    expect(titles(after)).toEqual(["Paris event"]);
  });
});
