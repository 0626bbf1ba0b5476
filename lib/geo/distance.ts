/**
 * Great-circle distances on a spherical Earth (the radius the premium add-on uses: 6371 km) and the two
 * units of the `geoloc_unit` parameter.
 */

export type DistanceUnit = "mi" | "km";

export const EARTH_RADIUS_KM = 6371;
export const KM_PER_MILE = 1.609344;

export interface LatLng {
  lat: number;
  lng: number;
}

const RAD = Math.PI / 180;

/** Haversine distance between two points, in km. */
export function distanceKm(a: LatLng, b: LatLng): number {
  const dLat = (b.lat - a.lat) * RAD;
  const dLng = (b.lng - a.lng) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * RAD) * Math.cos(b.lat * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

export function toKm(value: number, unit: DistanceUnit): number {
  return unit === "mi" ? value * KM_PER_MILE : value;
}

export function fromKm(km: number, unit: DistanceUnit): number {
  return unit === "mi" ? km / KM_PER_MILE : km;
}

/** Distance between two points in the unit. */
export function distance(a: LatLng, b: LatLng, unit: DistanceUnit): number {
  return fromKm(distanceKm(a, b), unit);
}

/** Two decimals, as `distance` is reported (C11: venues hold their coordinates). */
export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/**
 * Is `km` within an inclusive radius? A relative tolerance of 1e-9 absorbs floating-point noise, so a
 * point placed exactly on the circle is inside.
 */
export function withinRadius(km: number, radiusKm: number): boolean {
  return km <= radiusKm * (1 + 1e-9) + 1e-9;
}

export function isLatitude(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v) && v >= -90 && v <= 90;
}

export function isLongitude(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v) && v >= -180 && v <= 180;
}

/** A coordinate pair when both values are valid numbers (numeric strings accepted), else undefined. */
export function coordinatesOf(lat: unknown, lng: unknown): LatLng | undefined {
  const num = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? Number(v) : v);
  const la = num(lat);
  const ln = num(lng);
  return isLatitude(la) && isLongitude(ln) ? { lat: la, lng: ln } : undefined;
}
