import fc from "fast-check";
import { boundingBox, cellsOf, coveringCells, inBox, LEVELS, MAX_QUERY_CELLS } from "../../lib/geo/cells";
import { distanceKm, EARTH_RADIUS_KM, LatLng } from "../../lib/geo/distance";

const RAD = Math.PI / 180;

/** The point at `km` from `from` in direction `bearing` (degrees). */
function destination(from: LatLng, bearing: number, km: number): LatLng {
  const d = km / EARTH_RADIUS_KM;
  const φ1 = from.lat * RAD;
  const θ = bearing * RAD;
  const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(θ));
  const λ2 = from.lng * RAD + Math.atan2(Math.sin(θ) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
  let lng = λ2 / RAD;
  lng = ((((lng + 180) % 360) + 360) % 360) - 180;
  return { lat: φ2 / RAD, lng };
}

const lat = fc.double({ min: -89.9, max: 89.9, noNaN: true });
const lng = fc.double({ min: -180, max: 180, noNaN: true });
const radius = fc.oneof(fc.double({ min: 0.01, max: 100, noNaN: true }), fc.double({ min: 100, max: 25000, noNaN: true }));

describe("geo cells and bounding boxes", () => {
  test("a point within the radius is inside the box and in a covering cell (property)", () => {
    fc.assert(fc.property(lat, lng, radius, fc.double({ min: 0, max: 360, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (la, ln, r, bearing, f) => {
      const center = { lat: la, lng: ln };
      const p = destination(center, bearing, r * f);
      const box = boundingBox(center, r);
      expect(inBox(p, box)).toBe(true);
      const plan = coveringCells(box);
      if (!plan.all) {
        expect(plan.cells.length).toBeLessThanOrEqual(MAX_QUERY_CELLS);
        expect(plan.cells).toContain(cellsOf(p)[plan.level]);
      }
    }), { numRuns: 3000 });
  });

  test("points exactly on the circle are covered", () => {
    for (const center of [{ lat: 48.85, lng: 2.35 }, { lat: 0, lng: 179.99 }, { lat: -45, lng: -179.95 }, { lat: 89, lng: 10 }]) {
      for (const r of [1, 40.2335, 500]) {
        const plan = coveringCells(boundingBox(center, r));
        for (let b = 0; b < 360; b += 15) {
          const p = destination(center, b, r);
          expect(distanceKm(center, p)).toBeCloseTo(r, 6);
          if (!plan.all) expect(plan.cells).toContain(cellsOf(p)[plan.level]);
        }
      }
    }
  });

  test("a 25-mile radius uses the finest cells; a huge one reads everything", () => {
    const small = coveringCells(boundingBox({ lat: 48.85, lng: 2.35 }, 40.2335));
    expect(small.all).toBe(false);
    if (!small.all) expect(small.level).toBe(0);
    const medium = coveringCells(boundingBox({ lat: 48.85, lng: 2.35 }, 300));
    expect(medium.all).toBe(false);
    if (!medium.all) expect(medium.level).toBe(1);
    expect(coveringCells(boundingBox({ lat: 10, lng: 10 }, 15000)).all).toBe(true);
  });

  test("boxes: antimeridian split, poles span every longitude, whole sphere", () => {
    const box = boundingBox({ lat: 0, lng: 179.9 }, 50);
    expect(box.lngRanges).toHaveLength(2);
    expect(inBox({ lat: 0, lng: -179.9 }, box)).toBe(true);
    expect(inBox({ lat: 0, lng: 0 }, box)).toBe(false);
    const polar = boundingBox({ lat: 89.9, lng: 0 }, 50);
    expect(polar.lngRanges).toEqual([[-180, 180]]);
    expect(polar.north).toBe(90);
    expect(boundingBox({ lat: 0, lng: 0 }, 30000)).toEqual({ south: -90, north: 90, lngRanges: [[-180, 180]] });
  });

  test("cell keys: one per level, distinct across levels, ±180 in the same column", () => {
    const keys = cellsOf({ lat: 48.85, lng: 2.35 });
    expect(keys).toHaveLength(LEVELS.length);
    expect(new Set(keys).size).toBe(LEVELS.length);
    expect(cellsOf({ lat: 10, lng: 180 })).toEqual(cellsOf({ lat: 10, lng: -180 }));
    expect(cellsOf({ lat: 90, lng: 0 })[0]).toBeGreaterThan(cellsOf({ lat: 89.95, lng: 0 })[0] - 1);
  });
});
