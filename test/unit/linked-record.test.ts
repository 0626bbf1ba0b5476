import { LinkedDoc, matchesDuplicate, NAME_KEY_MAX, nameKey, nameKeyCondition, namedBy, presentRecord, storedNameKey, writeChanges, PresentOptions } from "../../lib/linked/record";
import { ORGANIZER, VENUE } from "../../lib/linked/kinds";

const stored = (extra: Partial<LinkedDoc> = {}): LinkedDoc => ({
  _id: 7, author: 1, status: "publish", date: "2025-05-01 09:00:00", date_utc: "2025-05-01 09:00:00",
  modified: "2025-05-03 12:00:00", modified_utc: "2025-05-03 12:00:00", slug: "blue-room", name: "Blue Room", name_key: "blue room",
  description: "Basement club.", image: 0, address: "Via Roma 1", city: "Rome", country: "Italy", province: "RM", state: "",
  zip: "00100", phone: "+39 06 123456", website: "http://blueroom.example.org", stateprovince: "RM", ...extra
});

const opts = (extra: Partial<PresentOptions> = {}): PresentOptions => ({
  site: "http://localhost:3000", baseUrl: "http://localhost:3000", status: "publish", image: false, jsonLd: false, reveal: true, ...extra
});

describe("name keys (docs/records.md#duplicates)", () => {
  const long = `${"Grand Hall ".repeat(30)}A`;
  const key = nameKey(long);

  test("a key is stored whole up to NAME_KEY_MAX characters, else its first ones, never half a pair", () => {
    expect(storedNameKey("jazz hall")).toBe("jazz hall");
    expect(storedNameKey(key)).toBe(key.slice(0, NAME_KEY_MAX));
    const emoji = "🎉".repeat(NAME_KEY_MAX + 5);
    expect(storedNameKey(emoji)).toBe("🎉".repeat(NAME_KEY_MAX));
    expect(storedNameKey("🎉".repeat(NAME_KEY_MAX))).toBe("🎉".repeat(NAME_KEY_MAX));
  });

  test("a long name is looked up by its stored key and by the whole key an older version stored", () => {
    expect(nameKeyCondition("jazz hall")).toBe("jazz hall");
    expect(nameKeyCondition(key)).toEqual({ $in: [key.slice(0, NAME_KEY_MAX), key] });
  });

  test("records found by a long name's stored key are that name's only when one of their names has its whole key", () => {
    expect(namedBy(key, [`${"Grand Hall ".repeat(30)}B`])).toBe(false);
    expect(namedBy(key, [`${"GRAND HALL ".repeat(30)}a `])).toBe(true);
    expect(namedBy(key, [undefined, long])).toBe(true);
    // a short key found the record by its whole key (in any language): nothing to tell apart
    expect(namedBy("jazz hall", ["Salle de jazz"])).toBe(true);
  });

  test("writeChanges stores the bounded key", () => {
    expect(writeChanges(VENUE, { venue: long }, undefined, "create").set.name_key).toBe(key.slice(0, NAME_KEY_MAX));
  });
});

describe("writeChanges", () => {
  test("create: every field, sanitised; name trimmed; stateprovince derived; map flags on", () => {
    const { set, unset } = writeChanges(VENUE, { venue: "  Blue Room ", address: " <b>Via</b>  Roma\n1 ", state: "NY" }, undefined, "create");
    expect(unset).toEqual([]);
    expect(set).toEqual({
      name: "Blue Room", name_key: "blue room", description: "", address: "Via Roma 1", city: "", country: "", province: "",
      state: "NY", zip: "", phone: "", stateprovince: "NY", website: "", show_map: true, show_map_link: true
    });
  });

  test("create: map flags read with tribe_is_truthy, coordinates as numbers, password kept", () => {
    const { set } = writeChanges(VENUE, { venue: "X", show_map: "no", show_map_link: 1, geo_lat: "1.5", geo_lng: -2, post_password: "pw" }, undefined, "create");
    expect(set).toMatchObject({ show_map: false, show_map_link: true, geo_lat: 1.5, geo_lng: -2, post_password: "pw" });
  });

  test("update (D3: updates are partial): only given fields; empty description unchanged; empty strings clear; password and coordinates removable", () => {
    const current = stored({ state: "NY", province: "ON", country: "", stateprovince: "NY", geo_lat: 1, geo_lng: 2 });
    expect(writeChanges(VENUE, { description: "", phone: "" }, current, "update")).toEqual({ set: { phone: "" }, unset: [] });
    expect(writeChanges(VENUE, { description: "New" }, current, "update").set).toEqual({ description: "New" });
    expect(writeChanges(VENUE, { country: "Canada" }, current, "update").set).toEqual({ country: "Canada", stateprovince: "ON" });
    expect(writeChanges(VENUE, { geo_lat: "", geo_lng: "", post_password: "" }, current, "update").unset).toEqual(["post_password", "geo_lat", "geo_lng"]);
    expect(writeChanges(VENUE, { show_map: false }, current, "update").set).toEqual({ show_map: false });
  });

  test("duplicate (D25: duplicate venues and organizers): provided fields but not name, description or password; map flags back on", () => {
    const { set } = writeChanges(VENUE, { venue: "blue room", description: "d", post_password: "x", city: "Oslo" }, stored(), "duplicate");
    expect(set).toEqual({ city: "Oslo", show_map: true, show_map_link: true });
    expect(writeChanges(ORGANIZER, { organizer: "x", email: "e" }, undefined, "duplicate").set).toEqual({ email: "e" });
  });
});

test("nameKey and matchesDuplicate: case-insensitive; the description only when one is given", () => {
  expect(nameKey("  A Venue ")).toBe("a venue");
  expect(matchesDuplicate({ description: "A venue description" }, undefined)).toBe(true);
  expect(matchesDuplicate({ description: "A venue description" }, "")).toBe(true);
  expect(matchesDuplicate({ description: "A venue description" }, "a VENUE description")).toBe(true);
  expect(matchesDuplicate({ description: "A venue description" }, "other")).toBe(false);
});

describe("presentRecord (docs/records.md#venue-fields, #organizer-fields)", () => {
  test("the reference example: key order, empty keys dropped, map flags, global id", () => {
    const r = presentRecord(VENUE, stored(), opts());
    expect(r).toEqual({
      id: 7, author: "1", status: "publish", date: "2025-05-01 09:00:00", date_utc: "2025-05-01 09:00:00",
      modified: "2025-05-03 12:00:00", modified_utc: "2025-05-03 12:00:00", url: "http://localhost:3000/venue/blue-room/",
      venue: "Blue Room", description: "<p>Basement club.</p>", slug: "blue-room", address: "Via Roma 1", city: "Rome", country: "Italy",
      province: "RM", zip: "00100", phone: "+39 06 123456", website: "http://blueroom.example.org", stateprovince: "RM",
      show_map: true, show_map_link: true, global_id: "localhost?id=7", global_id_lineage: ["localhost?id=7"]
    });
    expect(Object.keys(r)).toEqual(["id", "author", "status", "date", "date_utc", "modified", "modified_utc", "url", "venue", "description",
      "slug", "address", "city", "country", "province", "zip", "phone", "website", "stateprovince", "show_map", "show_map_link", "global_id", "global_id_lineage"]);
  });

  test("zip '0' and other PHP-empty values disappear; stored flags are shown; never-stored flags are on", () => {
    const r = presentRecord(VENUE, stored({ zip: "0", city: "", show_map: false }), opts());
    expect(r).not.toHaveProperty("zip");
    expect(r).not.toHaveProperty("city");
    expect(r).toMatchObject({ show_map: false, show_map_link: true });
  });

  test("image object, coordinates after the address fields, json_ld only when asked", () => {
    const image = { url: "http://i.example.org/a.jpg", id: 3, extension: "jpg" };
    const r = presentRecord(VENUE, stored({ geo_lat: 41.9, geo_lng: 12.5, image: 3 }), opts({ image, jsonLd: true }));
    expect(r.image).toEqual(image);
    const keys = Object.keys(r);
    expect(keys.slice(keys.indexOf("stateprovince"), keys.indexOf("show_map"))).toEqual(["stateprovince", "geo_lat", "geo_lng", "json_ld"]);
    expect(r.json_ld).toMatchObject({ "@type": "Place", image: image.url, geo: { latitude: 41.9, longitude: 12.5 } });
    expect(presentRecord(VENUE, stored(), opts())).not.toHaveProperty("json_ld");
  });

  test("non-public statuses use the query permalink (C7: which records get a query-string permalink); trashed ones keep the slug form", () => {
    expect(presentRecord(VENUE, stored(), opts({ status: "draft" })).url).toBe("http://localhost:3000/?post_type=tribe_venue&p=7");
    expect(presentRecord(ORGANIZER, stored({ slug: "x__trashed" }), opts({ status: "trash" })).url).toBe("http://localhost:3000/organizer/x__trashed/");
  });

  test("blanking for callers without password access: present keys blanked, json_ld without protected data", () => {
    const doc = stored({ geo_lat: 41.9, geo_lng: 12.5, image: 3, post_password: "pw" });
    const r = presentRecord(VENUE, doc, opts({ reveal: false, jsonLd: true, image: { url: "http://i/a.jpg", id: 3, extension: "jpg" } }));
    expect(r).toMatchObject({ venue: "Blue Room", description: "", image: false, address: "", city: "", country: "", province: "",
      zip: "", phone: "", website: "", stateprovince: "", geo_lat: 0, geo_lng: 0, show_map: true });
    expect(r).not.toHaveProperty("state");
    expect(r).not.toHaveProperty("post_password");
    expect(r.json_ld).toEqual({ "@type": "Place", name: "Blue Room", url: "http://localhost:3000/venue/blue-room/", telephone: "", sameAs: "" });
  });

  test("organizers: phone, website, email; no map flags; blanking of their fields", () => {
    const doc = stored({ phone: "1", website: "http://j.org", email: "a@b.org" });
    const r = presentRecord(ORGANIZER, doc, opts());
    expect(Object.keys(r)).toEqual(["id", "author", "status", "date", "date_utc", "modified", "modified_utc", "url", "organizer", "description",
      "slug", "phone", "website", "email", "global_id", "global_id_lineage"]);
    expect(presentRecord(ORGANIZER, doc, opts({ reveal: false }))).toMatchObject({ phone: "", website: "", email: "", description: "" });
  });
});
