/**
 * Venues through HTTP and the bus: the behaviour shared with organizers (linked-suite.ts) and what only
 * venues have: map flags, the derived stateprovince, coordinates (D8: geolocation), the address in json_ld, images.
 */
import { linkedSuite, useLinkedService, token, KindConfig } from "./linked-suite";
import type { Json } from "../helpers/json";

const VENUE: KindConfig = {
  kind: "venue",
  plural: "venues",
  nameField: "venue",
  otherPlural: "organizers",
  otherNameField: "organizer",
  sample: {
    address: "Via Roma 1", city: "Rome", country: "Italy", province: "RM", state: "Lazio", zip: "00100",
    phone: "+39 06 123456", website: "http://blueroom.example.org", stateprovince: "RM"
  },
  outputFields: ["address", "city", "country", "province", "state", "zip", "phone", "website", "stateprovince"],
  mapFlags: true
};

const env = useLinkedService();
linkedSuite(env, VENUE);

describe("venues: what only venues have", () => {
  const create = async (body: Record<string, unknown>, as: "admin" | "contributor" = "admin") => {
    const res = await env.svc.request("POST", "/venues", { as, body: { venue: `Venue ${token()}`, ...body } });
    return res;
  };
  const patch = (id: number, body: Record<string, unknown>) => env.svc.request("PATCH", `/venues/${id}`, { as: "admin", body });

  test("show_map / show_map_link: on by default, truthy words, JSON booleans and numbers (D30: JSON types of parameters)", async () => {
    const plain = (await create({})).body;
    expect(plain).toMatchObject({ show_map: true, show_map_link: true });
    expect(Object.keys(plain).slice(-8)).toEqual(["show_map", "show_map_link", "global_id", "global_id_lineage", "custom_fields", "meta", "i18n_language", "translations"]);
    const cases: Array<[unknown, boolean]> = [[false, false], [true, true], [0, false], [1, true], ["yes", true], ["Enabled", true],
      ["no", false], ["false", false], ["", false], ["1", true]];
    for (const [value, expected] of cases) {
      const r = (await create({ show_map: value, show_map_link: value })).body;
      expect({ value, show_map: r.show_map, show_map_link: r.show_map_link }).toEqual({ value, show_map: expected, show_map_link: expected });
    }
    const bad = await create({ show_map: { a: 1 } });
    expect(bad.status).toBe(400);
    const off = (await create({ show_map: "0", show_map_link: false })).body;
    expect((await patch(off.id, { phone: "1" })).body).toMatchObject({ show_map: false, show_map_link: false });
    expect((await patch(off.id, { show_map: "on" })).body).toMatchObject({ show_map: true, show_map_link: false });
    const form = await env.svc.request("POST", "/venues", { as: "admin", form: { venue: `Form ${token()}`, show_map: "false", zip: "0" } });
    expect(form.body).toMatchObject({ show_map: false, show_map_link: true });
    expect(form.body).not.toHaveProperty("zip");
  });

  test("a duplicate create writes its fields and turns the map flags back on", async () => {
    const name = `Map ${token()}`;
    const first = (await create({ venue: name, show_map: false, city: "Oslo" })).body;
    const again = (await create({ venue: name, zip: "0150" })).body;
    expect(again).toMatchObject({ id: first.id, city: "Oslo", zip: "0150", show_map: true, show_map_link: true });
  });

  test("stateprovince: given, else state for the US or no country, else province", async () => {
    const sp = async (body: Record<string, unknown>) => (await create(body)).body.stateprovince;
    expect(await sp({ state: "NY" })).toBe("NY");
    expect(await sp({ state: "NY", country: "US" })).toBe("NY");
    expect(await sp({ state: "NY", country: "United States", province: "X" })).toBe("NY");
    expect(await sp({ state: "Lazio", country: "Italy", province: "RM" })).toBe("RM");
    expect(await sp({ state: "Lazio", country: "Italy" })).toBeUndefined();
    expect(await sp({ province: "Ontario", country: "Canada" })).toBe("Ontario");
    expect(await sp({ state: "NY", stateprovince: "Given" })).toBe("Given");
    expect(await sp({ state: "NY", stateprovince: " " })).toBe("NY");
    const r = (await create({ state: "NY", province: "ON" })).body;
    expect(r.stateprovince).toBe("NY");
    expect((await patch(r.id, { country: "Canada" })).body.stateprovince).toBe("ON");
    expect((await patch(r.id, { phone: "1" })).body.stateprovince).toBe("ON");
  });

  test("text fields are stripped of tags and whitespace; website must be empty or a URL", async () => {
    const r = (await create({ address: "  <b>Via</b>\n  Roma   1 ", website: "" })).body;
    expect(r.address).toBe("Via Roma 1");
    expect(r).not.toHaveProperty("website");
    expect((await create({ website: "www.example.org" })).status).toBe(400);
    expect((await create({ website: "https://example.org/a?b=c&d=e" })).body.website).toBe("https://example.org/a?b=c&d=e");
  });

  test("coordinates (D8: geolocation): both or neither, ranges, shown when set, cleared with empty strings", async () => {
    const r = (await create({ city: "Rome", geo_lat: 41.9, geo_lng: "12.5" })).body;
    expect(r).toMatchObject({ geo_lat: 41.9, geo_lng: 12.5 });
    expect(Object.keys(r).slice(Object.keys(r).indexOf("slug"))).toEqual(["slug", "city", "geo_lat", "geo_lng", "show_map", "show_map_link", "global_id", "global_id_lineage", "custom_fields", "meta", "i18n_language", "translations"]);
    const json = (await env.svc.get(`/venues/${r.id}`)).body.json_ld;
    expect(json.geo).toEqual({ "@type": "GeoCoordinates", latitude: 41.9, longitude: 12.5 });
    for (const bad of [{ geo_lat: 1 }, { geo_lng: 1 }, { geo_lat: 91, geo_lng: 0 }, { geo_lat: 0, geo_lng: -181 }, { geo_lat: "x", geo_lng: 1 }, { geo_lat: "", geo_lng: 3 }]) {
      const res = await create(bad);
      expect({ bad, status: res.status, code: res.body.code }).toEqual({ bad, status: 400, code: "rest_invalid_param" });
    }
    const coords = await env.svc.broker.call("venues.coordinates", { ids: [r.id, 987654] });
    expect(coords).toEqual({ [r.id]: { geo_lat: 41.9, geo_lng: 12.5 } });
    const cleared = (await patch(r.id, { geo_lat: "", geo_lng: "" })).body;
    expect(cleared).not.toHaveProperty("geo_lat");
    expect(await env.svc.broker.call("venues.coordinates", { ids: [r.id] })).toEqual({});
    const locked = (await create({ geo_lat: 1.5, geo_lng: 2.5, post_password: "pw" })).body;
    const anon = (await env.svc.get(`/venues/${locked.id}`)).body;
    expect(anon).toMatchObject({ geo_lat: 0, geo_lng: 0 });
    expect(anon.json_ld).not.toHaveProperty("geo");
  });

  test("json_ld is a Place with the non-empty address parts", async () => {
    const r = (await create({ description: "Basement <em>club</em>.", address: "Via Roma 1", city: "Rome", province: "RM", zip: "00100", country: "Italy", phone: "+39", website: "http://b.example.org" })).body;
    const res = await env.svc.get(`/venues/${r.id}`);
    expect(res.body.json_ld).toEqual({
      "@type": "Place", name: r.venue, description: "Basement club.", url: r.url,
      address: { "@type": "PostalAddress", streetAddress: "Via Roma 1", addressLocality: "Rome", addressRegion: "RM", postalCode: "00100", addressCountry: "Italy" },
      telephone: "+39", sameAs: "http://b.example.org"
    });
    const bare = (await create({})).body;
    expect((await env.svc.get(`/venues/${bare.id}`)).body.json_ld).toEqual({ "@type": "Place", name: bare.venue, url: bare.url, telephone: "", sameAs: "" });
  });

  test("images (D7: images without downloads): URL for uploaders, existing image ids for all, empty removes", async () => {
    const url = `http://img.example.org/${token()}.JPG?x=1`;
    const r = (await create({ image: url })).body;
    expect(r.image).toEqual({ url, id: expect.any(Number), extension: "jpg" });
    const reuse = (await create({ image: url })).body;
    expect(reuse.image.id).toBe(r.image.id);
    const byId = (await create({ image: r.image.id }, "contributor")).body;
    expect(byId.image).toEqual(r.image);
    expect((await create({ image: String(r.image.id) })).body.image).toEqual(r.image);
    expect((await create({ image: url }, "contributor")).status).toBe(400);
    expect((await create({ image: r.id })).status).toBe(400);
    expect((await env.svc.get(`/venues/${r.id}`)).body.json_ld.image).toBe(url);
    expect((await patch(r.id, { phone: "1" })).body.image).toEqual(r.image);
    expect((await patch(r.id, { image: "" })).body).not.toHaveProperty("image");
  });

  test("geolocation feed: venues of any status in (modified_utc, id) order after a position, or by ids", async () => {
    const call = (action: string, params: unknown) => env.svc.broker.call(`venues.${action}`, params) as Promise<Json>;
    const a = (await create({ address: "Via Roma 1", city: "Rome", geo_lat: 1, geo_lng: 2 })).body;
    const b = (await create({ city: "Oslo", status: "draft" })).body;
    const byIds = await call("locationFeed", { ids: [b.id, 987654, a.id] });
    expect(byIds).toEqual([
      { id: b.id, status: "draft", modified_utc: b.modified_utc, address: "", city: "Oslo", state: "", province: "", stateprovince: "", zip: "", country: "" },
      { id: a.id, status: "publish", modified_utc: a.modified_utc, geo_lat: 1, geo_lng: 2, address: "Via Roma 1", city: "Rome", state: "", province: "", stateprovince: "", zip: "", country: "" }
    ]);
    const all = await call("locationFeed", {});
    const positions = all.map((e: Json) => `${e.modified_utc}#${String(e.id).padStart(8, "0")}`);
    expect(positions).toEqual([...positions].sort());
    const after = await call("locationFeed", { since: a.modified_utc, afterId: a.id, limit: 1000 });
    expect(after.map((e: Json) => e.id)).toContain(b.id);
    expect(after.map((e: Json) => e.id)).not.toContain(a.id);
    const inclusive = await call("locationFeed", { since: a.modified_utc, afterId: 0, limit: 1000 });
    expect(inclusive.map((e: Json) => e.id)).toContain(a.id);
    expect(await call("locationFeed", { limit: 2 })).toHaveLength(2);
  });

  test("setCoordinates stores or clears, only while modified_utc matches, and announces the write", async () => {
    const call = (params: unknown) => env.svc.broker.call("venues.setCoordinates", params) as Promise<boolean>;
    const r = (await create({ address: "Main St 1" })).body;
    const seen: Json[] = [];
    env.svc.broker.createService({ name: `listener-${token()}`, events: { "calendar.venue.updated"(ctx: Json) { seen.push(ctx.params); } } });
    await new Promise(resolve => setTimeout(resolve, 50));
    expect(await call({ id: r.id, geo_lat: 10, geo_lng: 20, modified_utc: "2000-01-01 00:00:00" })).toBe(false);
    expect(await call({ id: 987654, geo_lat: 10, geo_lng: 20 })).toBe(false);
    expect(await call({ id: r.id, geo_lat: 10, geo_lng: 20, modified_utc: r.modified_utc })).toBe(true);
    expect((await env.svc.get(`/venues/${r.id}`)).body).toMatchObject({ geo_lat: 10, geo_lng: 20 });
    await new Promise(resolve => setTimeout(resolve, 20));
    expect(seen.map(e => e.id)).toContain(r.id);
    expect(await call({ id: r.id, geo_lat: null, geo_lng: null })).toBe(true);
    expect((await env.svc.get(`/venues/${r.id}`)).body).not.toHaveProperty("geo_lat");
    await expect(call({ id: r.id, geo_lat: 95, geo_lng: 0 })).rejects.toThrow();
  });
});
