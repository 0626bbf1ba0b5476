/**
 * The spatial prefilter of the embedded store: the bounding box of a radius on the sphere, and a grid of
 * cells in three sizes. A located venue stores the key of the cell holding it at every level (one indexed
 * array field); a radius query asks for the cells covering its bounding box at the finest level that
 * needs few of them, reads only those venues through the index, then checks the exact distance.
 */
import { EARTH_RADIUS_KM, LatLng } from "./distance";

export interface BoundingBox {
  south: number;
  north: number;
  /** Longitude ranges [west, east] within [-180, 180]: two when the box crosses the antimeridian. */
  lngRanges: Array<[number, number]>;
}

const DEG = 180 / Math.PI;
const RAD = Math.PI / 180;
/** Widening of every box, in degrees: keeps points exactly on the circle inside despite rounding. */
const MARGIN = 1e-7;

/** The smallest latitude/longitude box holding every point within `radiusKm` of `center`. */
export function boundingBox(center: LatLng, radiusKm: number): BoundingBox {
  const d = radiusKm / EARTH_RADIUS_KM; // angular radius, radians
  if (d >= Math.PI) return { south: -90, north: 90, lngRanges: [[-180, 180]] };
  const lat = center.lat * RAD;
  const south = (lat - d) * DEG - MARGIN;
  const north = (lat + d) * DEG + MARGIN;
  // A cap that reaches a pole spans every longitude.
  if (south <= -90 || north >= 90) return { south: Math.max(-90, south), north: Math.min(90, north), lngRanges: [[-180, 180]] };
  const ratio = Math.sin(d) / Math.cos(lat);
  if (ratio >= 1) return { south, north, lngRanges: [[-180, 180]] };
  const dLng = Math.asin(ratio) * DEG + MARGIN;
  const west = center.lng - dLng;
  const east = center.lng + dLng;
  if (east - west >= 360) return { south, north, lngRanges: [[-180, 180]] };
  if (west < -180) return { south, north, lngRanges: [[west + 360, 180], [-180, east]] };
  if (east > 180) return { south, north, lngRanges: [[west, 180], [-180, east - 360]] };
  return { south, north, lngRanges: [[west, east]] };
}

/** Is the point inside the box (edges included)? */
export function inBox(p: LatLng, box: BoundingBox): boolean {
  return p.lat >= box.south && p.lat <= box.north && box.lngRanges.some(([w, e]) => p.lng >= w && p.lng <= e);
}

/** Cell sizes in degrees, finest first, as cells per degree (exact in binary for the multiplication). */
export const LEVELS = [{ size: 0.1, perDegree: 10 }, { size: 1, perDegree: 1 }, { size: 10, perDegree: 0.1 }] as const;
/** Keys of level L are L * LEVEL_STRIDE + row * columns + column. */
const LEVEL_STRIDE = 10_000_000;
/** A query covering more cells than this at a level moves to the next, coarser level. */
export const MAX_QUERY_CELLS = 200;

const rowsOf = (level: number) => Math.ceil(180 * LEVELS[level].perDegree);
const colsOf = (level: number) => Math.ceil(360 * LEVELS[level].perDegree);

function rowOf(lat: number, level: number): number {
  return Math.min(rowsOf(level) - 1, Math.max(0, Math.floor((lat + 90) * LEVELS[level].perDegree)));
}

function colOf(lng: number, level: number): number {
  const cols = colsOf(level);
  const c = Math.floor((lng + 180) * LEVELS[level].perDegree);
  return ((c % cols) + cols) % cols;
}

export function cellKey(level: number, row: number, col: number): number {
  return level * LEVEL_STRIDE + row * colsOf(level) + col;
}

/** The key of the cell holding the point at each level. */
export function cellsOf(p: LatLng): number[] {
  return LEVELS.map((_, level) => cellKey(level, rowOf(p.lat, level), colOf(p.lng, level)));
}

/** The columns a longitude range covers at a level (without wrapping: ranges are already split). */
function colSpan(w: number, e: number, level: number): [number, number] {
  const cols = colsOf(level);
  const first = Math.max(0, Math.floor((w + 180) * LEVELS[level].perDegree));
  const last = Math.min(cols - 1, Math.floor((e + 180) * LEVELS[level].perDegree));
  return [first, last];
}

export type CellPlan = { all: true } | { all: false; level: number; cells: number[] };

/**
 * The cells to read for a box: those of the finest level needing at most `maxCells`, or `all` when even
 * the coarsest level would need more (a radius of thousands of km: read every located venue).
 */
export function coveringCells(box: BoundingBox, maxCells = MAX_QUERY_CELLS): CellPlan {
  for (let level = 0; level < LEVELS.length; level++) {
    const r0 = rowOf(box.south, level);
    const r1 = rowOf(box.north, level);
    const spans = box.lngRanges.map(([w, e]) => colSpan(w, e, level));
    // The longitude 180 falls in column 0 (it is -180): a range ending there also covers column 0.
    const wraps = box.lngRanges.some(([, e]) => e >= 180);
    const colSet = new Set<number>();
    for (const [c0, c1] of spans) for (let c = c0; c <= c1 && colSet.size <= maxCells; c++) colSet.add(c);
    if (wraps) colSet.add(0);
    const count = (r1 - r0 + 1) * colSet.size;
    if (count > maxCells) continue;
    const cells: number[] = [];
    for (let r = r0; r <= r1; r++) for (const c of colSet) cells.push(cellKey(level, r, c));
    return { all: false, level, cells };
  }
  return { all: true };
}
