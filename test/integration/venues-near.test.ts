/**
 * Venue near-search (C11: venues hold their coordinates): `GET /venues` with `geoloc_lat`/`geoloc_lng`/`geoloc_radius`/`geoloc_unit` and
 * `orderby=distance` lists the venues within the (inclusive) radius with their `distance` in the asked unit
 * (two decimals); parameter errors are 400 `rest_invalid_param` before 400 `geoloc-not-available`, which
 * is the answer while no geolocation service runs. The real venues and geolocation services, over HTTP.
 */
import { startService, Running } from "../helpers/harness";
import { expectError, expectInvalid } from "../helpers/events";
import { distanceKm } from "../../lib/geo/distance";
import type { Json } from "../helpers/json";

const PARIS = { geo_lat: 48.8566, geo_lng: 2.3522 };
const VERSAILLES = { geo_lat: 48.8049, geo_lng: 2.1204 };
const LONDON = { geo_lat: 51.5074, geo_lng: -0.1278 };
const LYON = { geo_lat: 45.764, geo_lng: 4.8357 };
const BERLIN = { geo_lat: 52.52, geo_lng: 13.405 };
const AT_PARIS = "geoloc_lat=48.8566&geoloc_lng=2.3522";

/** Great-circle distance in km on a 6371 km sphere, written here from the haversine formula. */
function haversineKm(a: { geo_lat: number; geo_lng: number }, b: { geo_lat: number; geo_lng: number }): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const h = Math.sin(rad(b.geo_lat - a.geo_lat) / 2) ** 2
    + Math.cos(rad(a.geo_lat)) * Math.cos(rad(b.geo_lat)) * Math.sin(rad(b.geo_lng - a.geo_lng) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

const names = (res: { body: Json }) => (res.body.venues as Json[]).map(v => v.venue);
const distances = (res: { body: Json }) => Object.fromEntries((res.body.venues as Json[]).map(v => [v.venue, v.distance]));

describe("venue near-search with the geolocation service", () => {
  let svc: Running;
  const ids: Record<string, number> = {};

  async function venue(body: Record<string, unknown>): Promise<number> {
    const res = await svc.request("POST", "/venues", { as: "admin", body });
    if (res.status !== 201) throw new Error(`venue: ${res.status} ${res.text}`);
    return res.body.id;
  }

  beforeAll(async () => {
    svc = await startService();
    // created in an order that no distance order follows (the default order is newest first)
    ids.versailles = await venue({ venue: "Versailles Hall", ...VERSAILLES });
    ids.berlin = await venue({ venue: "Berlin Hall", ...BERLIN });
    ids.paris = await venue({ venue: "Paris Hall", city: "Paris", country: "France", ...PARIS });
    ids.lyon = await venue({ venue: "Lyon Hall", ...LYON });
    ids.london = await venue({ venue: "London Hall", ...LONDON });
    ids.draft = await venue({ venue: "Draft Hall", status: "draft", ...PARIS });
    ids.nowhere = await venue({ venue: "Nowhere Hall", city: "Xyzzyville" });
    await svc.broker.call("geolocation.resync", {});
  });
  afterAll(async () => {
    await svc.stop();
  });

  test("filters by an inclusive radius and adds distance in the unit, two decimals", async () => {
    const res = await svc.get(`/venues?${AT_PARIS}&geoloc_radius=350&geoloc_unit=km`);
    expect(res.status).toBe(200);
    expect(names(res).sort()).toEqual(["London Hall", "Paris Hall", "Versailles Hall"]);
    expect(res.body.total).toBe(3);
    const d = distances(res);
    expect(d["Paris Hall"]).toBe(0);
    for (const [name, where] of [["Versailles Hall", VERSAILLES], ["London Hall", LONDON]] as const) {
      expect(typeof d[name]).toBe("number");
      expect(Math.abs(d[name] - haversineKm(PARIS, where))).toBeLessThanOrEqual(0.005 + 1e-9);
      expect(d[name]).toBe(Math.round(d[name] * 100) / 100);
    }
    // the default order stays the list's own: newest first
    expect(names(res)).toEqual(["London Hall", "Paris Hall", "Versailles Hall"]);
    // outside the radius, or without coordinates, or not published: not listed
    const wide = await svc.get(`/venues?${AT_PARIS}&geoloc_radius=2000&geoloc_unit=km&per_page=50`);
    expect(names(wide).sort()).toEqual(["Berlin Hall", "London Hall", "Lyon Hall", "Paris Hall", "Versailles Hall"]);
  });

  test("miles by default, radius 25 by default; km and mi give the same places", async () => {
    const byDefault = await svc.get(`/venues?${AT_PARIS}`);
    expect(names(byDefault).sort()).toEqual(["Paris Hall", "Versailles Hall"]);
    const miles = distances(byDefault)["Versailles Hall"];
    expect(Math.abs(miles - haversineKm(PARIS, VERSAILLES) / 1.609344)).toBeLessThanOrEqual(0.005 + 1e-9);
    const inMiles = distances(await svc.get(`/venues?${AT_PARIS}&geoloc_radius=600&geoloc_unit=mi&per_page=50`));
    const inKm = distances(await svc.get(`/venues?${AT_PARIS}&geoloc_radius=${600 * 1.609344}&geoloc_unit=km&per_page=50`));
    expect(Object.keys(inMiles).sort()).toEqual(Object.keys(inKm).sort());
    for (const name of Object.keys(inKm)) expect(Math.abs(inMiles[name] * 1.609344 - inKm[name])).toBeLessThan(0.02);
  });

  test("a venue exactly on the circle is inside", async () => {
    const exact = distanceKm({ lat: PARIS.geo_lat, lng: PARIS.geo_lng }, { lat: LONDON.geo_lat, lng: LONDON.geo_lng });
    expect(names(await svc.get(`/venues?${AT_PARIS}&geoloc_radius=${exact}&geoloc_unit=km`))).toContain("London Hall");
    expect(names(await svc.get(`/venues?${AT_PARIS}&geoloc_radius=${exact - 0.01}&geoloc_unit=km`))).not.toContain("London Hall");
  });

  test("orderby=distance: nearest first, paged, the parameters kept in the paging links", async () => {
    const query = `${AT_PARIS}&geoloc_radius=1000&geoloc_unit=km&orderby=distance`;
    const all = await svc.get(`/venues?${query}`);
    expect(names(all)).toEqual(["Paris Hall", "Versailles Hall", "London Hall", "Lyon Hall", "Berlin Hall"]);
    const d = (all.body.venues as Json[]).map(v => v.distance);
    expect([...d].sort((a, b) => a - b)).toEqual(d);
    const page2 = await svc.get(`/venues?${query}&per_page=2&page=2`);
    expect(names(page2)).toEqual(["London Hall", "Lyon Hall"]);
    expect(page2.body.total).toBe(5);
    expect(page2.body.total_pages).toBe(3);
    for (const link of [page2.body.previous_rest_url, page2.body.next_rest_url]) {
      expect(link).toContain("geoloc_lat=48.8566");
      expect(link).toContain("geoloc_lng=2.3522");
      expect(link).toContain("orderby=distance");
    }
    expect(page2.headers.get("link")).toContain("geoloc_radius=1000");
    const far = await svc.get(`/venues?${query}&per_page=2&page=9`);
    expect(far.status).toBe(404);
  });

  test("distance sits before the language keys, which stay last (C9: the i18n fields); a list without geoloc has none", async () => {
    const res = await svc.get(`/venues?${AT_PARIS}&geoloc_radius=1&geoloc_unit=km`);
    expect(names(res)).toEqual(["Paris Hall"]);
    expect(Object.keys(res.body.venues[0]).slice(-3)).toEqual(["distance", "i18n_language", "translations"]);
    for (const v of (await svc.get("/venues?per_page=50")).body.venues) expect(v).not.toHaveProperty("distance");
  });

  test("combines with the other filters by AND", async () => {
    expect(names(await svc.get(`/venues?${AT_PARIS}&geoloc_radius=1000&geoloc_unit=km&search=Lyon`))).toEqual(["Lyon Hall"]);
    const event = await svc.request("POST", "/events", { as: "admin", body: { title: "Near venue event", start_date: "tomorrow 10:00", end_date: "tomorrow 11:00", venue: ids.berlin } });
    expect(event.status).toBe(201);
    expect(names(await svc.get(`/venues?${AT_PARIS}&geoloc_radius=2000&geoloc_unit=km&only_with_upcoming=1`))).toEqual(["Berlin Hall"]);
    expect(names(await svc.get(`/venues?${AT_PARIS}&geoloc_radius=100&geoloc_unit=km&only_with_upcoming=1`))).toEqual([]);
    // the events list's radius search is the same rule: the same distance, placed the same way
    const events = await svc.get(`/events?${AT_PARIS}&geoloc_radius=2000&geoloc_unit=km`);
    const berlin = (await svc.get(`/venues?${AT_PARIS}&geoloc_radius=2000&geoloc_unit=km&search=Berlin`)).body.venues[0];
    expect(events.body.events.map((e: Json) => e.distance)).toEqual([berlin.distance]);
    expect(Object.keys(events.body.events[0]).slice(-3)).toEqual(["distance", "i18n_language", "translations"]);
  });

  test("follows venue writes: moved coordinates move the venue in and out of the radius", async () => {
    const moved = await svc.request("POST", `/venues/${ids.lyon}`, { as: "admin", body: { geo_lat: VERSAILLES.geo_lat, geo_lng: VERSAILLES.geo_lng + 0.01 } });
    expect(moved.status).toBe(200);
    await svc.broker.call("geolocation.resync", {});
    expect(names(await svc.get(`/venues?${AT_PARIS}&geoloc_radius=50&geoloc_unit=km`)).sort()).toEqual(["Lyon Hall", "Paris Hall", "Versailles Hall"]);
    await svc.request("POST", `/venues/${ids.lyon}`, { as: "admin", body: LYON });
    await svc.broker.call("geolocation.resync", {});
    expect(names(await svc.get(`/venues?${AT_PARIS}&geoloc_radius=50&geoloc_unit=km`)).sort()).toEqual(["Paris Hall", "Versailles Hall"]);
  });

  test("parameter errors: 400 rest_invalid_param naming the parameter", async () => {
    const cases: Array<[string, string]> = [
      ["geoloc_lat=abc&geoloc_lng=2", "geoloc_lat"],
      ["geoloc_lat=95&geoloc_lng=2", "geoloc_lat"],
      ["geoloc_lat=48&geoloc_lng=-181", "geoloc_lng"],
      [`${AT_PARIS}&geoloc_unit=parsec`, "geoloc_unit"],
      [`${AT_PARIS}&geoloc_radius=0`, "geoloc_radius"],
      [`${AT_PARIS}&geoloc_radius=-5`, "geoloc_radius"],
      [`${AT_PARIS}&geoloc_radius=far`, "geoloc_radius"],
      ["geoloc_lat=48.8566", "geoloc_lng"],
      ["geoloc_lng=2.3522", "geoloc_lat"],
      ["orderby=distance", "orderby"],
      [`${AT_PARIS}&orderby=nearest`, "orderby"]
    ];
    for (const [query, param] of cases) expectInvalid(await svc.get(`/venues?${query}`), param);
  });

  test("organizers have no near-search: the parameters change nothing there", async () => {
    const plain = await svc.get("/organizers");
    const asked = await svc.get(`/organizers?${AT_PARIS}&geoloc_radius=1`);
    expect(asked.status).toBe(200);
    expect(asked.body.total).toBe(plain.body.total);
  });
});

describe("venue near-search without the geolocation service", () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startService({ SERVICES: "api,events,venues,organizers,taxonomy,i18n" });
    const res = await svc.request("POST", "/venues", { as: "admin", body: { venue: "Paris Hall", ...PARIS } });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await svc.stop();
  });

  test.each([
    AT_PARIS, `${AT_PARIS}&geoloc_radius=10&geoloc_unit=km`, `${AT_PARIS}&orderby=distance`, "geoloc_radius=5", "geoloc_unit=mi"
  ])("%s → 400 geoloc-not-available", async query => {
    expectError(await svc.get(`/venues?${query}`), 400, "geoloc-not-available");
  });

  test("parameter errors come first (C11: venues hold their coordinates); lists without geoloc work", async () => {
    expectInvalid(await svc.get("/venues?geoloc_lat=abc&geoloc_lng=2"), "geoloc_lat");
    expectInvalid(await svc.get("/venues?geoloc_lat=-91&geoloc_lng=2"), "geoloc_lat");
    expectInvalid(await svc.get(`/venues?${AT_PARIS}&geoloc_unit=parsec`), "geoloc_unit");
    expectInvalid(await svc.get(`/venues?${AT_PARIS}&geoloc_radius=0`), "geoloc_radius");
    expectInvalid(await svc.get("/venues?geoloc_lat=48.8566"), "geoloc_lng");
    expectInvalid(await svc.get("/venues?orderby=distance"), "orderby");
    const all = await svc.get("/venues");
    expect(all.status).toBe(200);
    expect(names(all)).toEqual(["Paris Hall"]);
    expect((await svc.get("/venues?orderby=date")).status).toBe(200);
  });
});
