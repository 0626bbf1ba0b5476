import { coordinatesOf, distance, distanceKm, fromKm, round2, toKm, withinRadius, KM_PER_MILE } from "../../lib/geo/distance";

const PARIS = { lat: 48.8566, lng: 2.3522 };
const LONDON = { lat: 51.5074, lng: -0.1278 };
const NEW_YORK = { lat: 40.7128, lng: -74.006 };
const SYDNEY = { lat: -33.8688, lng: 151.2093 };

describe("geo distance", () => {
  test("known city distances (km and mi)", () => {
    expect(distanceKm(PARIS, LONDON)).toBeCloseTo(343.5, 0);
    expect(distance(PARIS, LONDON, "mi")).toBeCloseTo(213.5, 0);
    expect(distanceKm(LONDON, NEW_YORK)).toBeGreaterThan(5560);
    expect(distanceKm(LONDON, NEW_YORK)).toBeLessThan(5580);
    expect(distanceKm(NEW_YORK, SYDNEY)).toBeGreaterThan(15980);
    expect(distanceKm(NEW_YORK, SYDNEY)).toBeLessThan(16000);
  });

  test("symmetric, zero on the same point, half the circumference at the antipode", () => {
    expect(distanceKm(PARIS, LONDON)).toBeCloseTo(distanceKm(LONDON, PARIS), 9);
    expect(distanceKm(PARIS, PARIS)).toBe(0);
    expect(distanceKm({ lat: 0, lng: 0 }, { lat: 0, lng: 180 })).toBeCloseTo(Math.PI * 6371, 6);
    expect(distanceKm({ lat: 90, lng: 0 }, { lat: -90, lng: 0 })).toBeCloseTo(Math.PI * 6371, 6);
  });

  test("across the antimeridian", () => {
    expect(distanceKm({ lat: 0, lng: 179.5 }, { lat: 0, lng: -179.5 })).toBeCloseTo(111.19, 1);
  });

  test("units and rounding", () => {
    expect(toKm(1, "mi")).toBe(KM_PER_MILE);
    expect(toKm(5, "km")).toBe(5);
    expect(fromKm(KM_PER_MILE * 25, "mi")).toBeCloseTo(25, 12);
    expect(round2(343.5567)).toBe(343.56);
    expect(round2(0.004)).toBe(0);
  });

  test("the radius is inclusive", () => {
    expect(withinRadius(10, 10)).toBe(true);
    expect(withinRadius(10 + 1e-12, 10)).toBe(true);
    expect(withinRadius(10.001, 10)).toBe(false);
  });

  test("coordinates: both, numeric, in range", () => {
    expect(coordinatesOf(48.8, 2.3)).toEqual({ lat: 48.8, lng: 2.3 });
    expect(coordinatesOf("48.8", " 2.3")).toEqual({ lat: 48.8, lng: 2.3 });
    expect(coordinatesOf(48.8, undefined)).toBeUndefined();
    expect(coordinatesOf(91, 0)).toBeUndefined();
    expect(coordinatesOf(0, -180.1)).toBeUndefined();
    expect(coordinatesOf("", "")).toBeUndefined();
    expect(coordinatesOf(null, null)).toBeUndefined();
    expect(coordinatesOf(Number.NaN, 1)).toBeUndefined();
  });
});
