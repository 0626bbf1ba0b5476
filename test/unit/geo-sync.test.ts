import { cellsOf } from "../../lib/geo/cells";
import { addressKey } from "../../lib/geo/geocoder";
import { FeedVenue, isUnchanged, locationDoc, minusSeconds, planSync, replacement, withStatus } from "../../lib/geo/sync";

const venue = (over: Partial<FeedVenue> = {}): FeedVenue => ({ id: 7, status: "publish", modified_utc: "2030-01-01 10:00:00", city: "Paris", country: "France", ...over });
const PARIS = { lat: 48.85341, lng: 2.3488 };

describe("geo sync decisions", () => {
  test("a new venue with coordinates: explicit", () => {
    expect(planSync(null, venue({ geo_lat: 1, geo_lng: 2 }))).toEqual({ kind: "explicit", coords: { lat: 1, lng: 2 } });
    expect(planSync(null, venue({ geo_lat: "1.5", geo_lng: "2" }))).toEqual({ kind: "explicit", coords: { lat: 1.5, lng: 2 } });
  });

  test("a new venue without coordinates: geocode", () => {
    const v = venue();
    expect(planSync(null, v)).toEqual({ kind: "geocode", key: addressKey(v), clearStale: false });
  });

  test("the venue carries the geocoder's result for its address: geocoded; after an address change: geocode again, clearing the stale result", () => {
    const v = venue({ geo_lat: PARIS.lat, geo_lng: PARIS.lng });
    const prev = locationDoc(v, PARIS, "geocoded", { key: addressKey(v), ...PARIS, written: true });
    expect(planSync(prev, v)).toEqual({ kind: "geocoded", coords: PARIS });
    const moved = { ...v, city: "Lyon" };
    expect(planSync(prev, moved)).toEqual({ kind: "geocode", key: addressKey(moved), clearStale: true });
  });

  test("coordinates that differ from the geocoder's result are the editors': explicit", () => {
    const v = venue();
    const prev = locationDoc(v, PARIS, "geocoded", { key: addressKey(v), ...PARIS, written: true });
    expect(planSync(prev, { ...v, geo_lat: 10, geo_lng: 20 })).toEqual({ kind: "explicit", coords: { lat: 10, lng: 20 } });
  });

  test("no coordinates on the venue although the geocoder found some: written again if they never reached it, else left cleared", () => {
    const v = venue();
    const unwritten = locationDoc(v, PARIS, "geocoded", { key: addressKey(v), ...PARIS, written: false });
    expect(planSync(unwritten, v)).toEqual({ kind: "write-again", coords: PARIS });
    expect(isUnchanged(unwritten, v)).toBe(false);
    const written = locationDoc(v, PARIS, "geocoded", { key: addressKey(v), ...PARIS, written: true });
    expect(planSync(written, { ...v, modified_utc: "2030-01-01 10:00:05" })).toEqual({ kind: "none" });
  });

  test("the geocoder found nothing for this address: it is not run again until the address changes", () => {
    const v = venue({ city: "Xyzzy" });
    const prev = locationDoc(v, undefined, undefined, { key: addressKey(v) });
    expect(planSync(prev, { ...v, modified_utc: "2030-01-02 00:00:00" })).toEqual({ kind: "none" });
    expect(planSync(prev, { ...v, city: "Paris" }).kind).toBe("geocode");
  });

  test("records: only published located venues are in the spatial index", () => {
    const pub = locationDoc(venue(), PARIS, "explicit", undefined);
    expect(pub).toMatchObject({ _id: 7, lat: PARIS.lat, lng: PARIS.lng, searchable: true, cells: cellsOf(PARIS), loc: { type: "Point", coordinates: [PARIS.lng, PARIS.lat] } });
    const draft = locationDoc(venue({ status: "draft" }), PARIS, "explicit", undefined);
    expect(draft.searchable).toBeUndefined();
    expect(draft.cells).toBeUndefined();
    expect(draft.lat).toBe(PARIS.lat);
    const trashed = withStatus(pub, "trash", "2030-01-03 00:00:00");
    expect(trashed).toMatchObject({ status: "trash", lat: PARIS.lat, fingerprint: "" });
    expect(trashed.searchable).toBeUndefined();
  });

  test("an unchanged feed entry is skipped", () => {
    const v = venue({ geo_lat: 1, geo_lng: 2 });
    const doc = locationDoc(v, { lat: 1, lng: 2 }, "explicit", undefined);
    expect(isUnchanged(doc, v)).toBe(true);
    expect(isUnchanged(doc, { ...v, modified_utc: "2030-01-01 10:00:01" })).toBe(false);
    expect(isUnchanged(doc, { ...v, status: "trash" })).toBe(false);
    expect(isUnchanged(null, v)).toBe(false);
  });

  test("replacement unsets what the new record lacks", () => {
    const doc = locationDoc(venue({ status: "draft" }), undefined, undefined, undefined);
    const upd = replacement(doc);
    expect(upd.$set).not.toHaveProperty("_id");
    expect(Object.keys(upd.$unset).sort()).toEqual(["cells", "geocode", "lat", "lng", "loc", "searchable", "source"]);
  });

  test("minusSeconds keeps the store's date format", () => {
    expect(minusSeconds("2030-01-01 00:00:30", 60)).toBe("2029-12-31 23:59:30");
    expect(minusSeconds("not a date", 60)).toBe("not a date");
  });
});
