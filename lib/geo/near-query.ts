/**
 * The radius search of the lists (D8: geolocation; C11: venues hold their coordinates), one rule for every list that has it (`/events`, and `/venues`
 * near-search): the parameters `geoloc_lat`, `geoloc_lng`, `geoloc_radius` (default 25), `geoloc_unit`
 * (`mi` by default, or `km`) and `orderby=distance`, answered by the geolocation service's `near` action
 * (published venues within the inclusive radius, with their distance in the unit, two decimals).
 *
 * Order of failures (C11: venues hold their coordinates): the values themselves are checked by the params schemas (non-numeric or
 * out-of-range coordinates, an unknown unit, a radius ≤ 0: 400 `rest_invalid_param`), then the pairing here
 * (`geoloc_lat` without `geoloc_lng` or the reverse, `orderby=distance` without them), and only then 400
 * `geoloc-not-available` when no geolocation service runs (broker/geolocation.ts asks the bus).
 */
import { ApiError } from "../errors";
import { number, Rule, string } from "../http/params";
import type { DistanceUnit } from "./distance";

export const DEFAULT_RADIUS = 25;
export const DEFAULT_UNIT: DistanceUnit = "mi";
/** The geolocation service's radius query. */
export const NEAR_ACTION = "geolocation.near";

export interface NearParams {
  lat: number;
  lng: number;
  radius: number;
  unit: DistanceUnit;
}

/** The list parameters of a radius search, as the params schemas hand them over. */
export interface NearInput {
  geoloc_lat?: number;
  geoloc_lng?: number;
  geoloc_radius?: number;
  geoloc_unit?: string;
  orderby?: string;
}

/** The params rules of the radius search (a list adds its own `orderby`, with `distance` among its values). */
export function nearRules(): Record<"geoloc_lat" | "geoloc_lng" | "geoloc_radius" | "geoloc_unit", Rule> {
  return {
    geoloc_lat: number({ description: "Latitude of the centre of a radius search (geolocation service).", min: -90, max: 90 }),
    geoloc_lng: number({ description: "Longitude of the centre of a radius search (geolocation service).", min: -180, max: 180 }),
    geoloc_radius: number({ description: `Radius of the search around geoloc_lat/geoloc_lng (default ${DEFAULT_RADIUS}).`, exclusiveMin: 0 }),
    geoloc_unit: string({ description: "Unit of the radius and distances: mi (default) or km.", enum: ["mi", "km"] })
  };
}

/**
 * What a list asked of the radius search: `asked` when any of its parameters was sent (then the
 * geolocation service is needed), `near` when there is a centre to search around. Throws 400
 * `rest_invalid_param` for an unpaired coordinate and for `orderby=distance` without a centre.
 */
export function readNear(p: NearInput): { asked: boolean; near?: NearParams } {
  const hasLat = p.geoloc_lat !== undefined;
  const hasLng = p.geoloc_lng !== undefined;
  const asked = hasLat || hasLng || p.geoloc_radius !== undefined || p.geoloc_unit !== undefined || p.orderby === "distance";
  if (!asked) return { asked };
  if (hasLat !== hasLng) throw ApiError.invalidParam(hasLat ? "geoloc_lng" : "geoloc_lat", "param.required");
  if (p.orderby === "distance" && !hasLat) throw ApiError.invalidParam("orderby");
  if (!hasLat) return { asked };
  return {
    asked,
    near: { lat: p.geoloc_lat!, lng: p.geoloc_lng!, radius: p.geoloc_radius ?? DEFAULT_RADIUS, unit: (p.geoloc_unit as DistanceUnit | undefined) ?? DEFAULT_UNIT }
  };
}

/** The record with `distance` added before the language keys, which stay last (C9: the i18n fields). */
export function withDistance<T extends Record<string, unknown>>(record: T, distance: number | undefined): T {
  if (distance === undefined) return record;
  const out = { ...record };
  const tail = Object.keys(record).filter(key => key === "i18n_language" || key === "translations");
  for (const key of ["distance", ...tail]) Reflect.deleteProperty(out, key);
  Reflect.set(out, "distance", distance);
  for (const key of tail) Reflect.set(out, key, record[key]);
  return out;
}
