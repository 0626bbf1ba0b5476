/**
 * The `geoloc*` list filters while no geolocation service runs (docs/lists.md#geolocation-filters, D8, C11: venues hold their coordinates): parameter errors
 * first, then 400 geoloc-not-available, never silently ignored.
 */
import { startService, Running } from "../helpers/harness";
import { expectError, expectInvalid } from "../helpers/events";

describe("events: geolocation filters without the geolocation service", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({ SERVICES: "api,events,venues,organizers,taxonomy,i18n" }); });
  afterAll(async () => { await svc.stop(); });
  const list = (query: string) => svc.get(`/events?${query}`);

  test.each([
    "geoloc=1", "geoloc=false", "geoloc_lat=45&geoloc_lng=9", "geoloc_lat=45&geoloc_lng=9&geoloc_radius=10&geoloc_unit=km",
    "geoloc_lat=45&geoloc_lng=9&orderby=distance", "geoloc_radius=5", "geoloc_unit=mi", "geoloc=0&geoloc_lat=1&geoloc_lng=2"
  ])("%s → 400 geoloc-not-available", async query => {
    expectError(await list(query), 400, "geoloc-not-available");
  });

  test("parameter errors come first (C11: venues hold their coordinates)", async () => {
    expectInvalid(await list("geoloc_lat=45"), "geoloc_lng");
    expectInvalid(await list("geoloc_lng=9"), "geoloc_lat");
    expectInvalid(await list("geoloc_lat=95&geoloc_lng=9"), "geoloc_lat");
    expectInvalid(await list("geoloc_lat=abc&geoloc_lng=9"), "geoloc_lat");
    expectInvalid(await list("geoloc_lat=45&geoloc_lng=9&geoloc_unit=parsec"), "geoloc_unit");
    expectInvalid(await list("geoloc_lat=45&geoloc_lng=9&geoloc_radius=0"), "geoloc_radius");
    expectInvalid(await list("orderby=distance"), "orderby");
    expectInvalid(await list("geoloc=perhaps"), "geoloc");
  });

  test("lists without geoloc* work as usual", async () => {
    expect((await list("orderby=start_date")).status).toBe(200);
    expect((await list("")).status).toBe(200);
  });
});
