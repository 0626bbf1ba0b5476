/**
 * How the geolocation service keeps its copy of venue positions: the record it stores per venue, and the
 * decision taken for each venue the venues service reports (explicit coordinates win; otherwise the
 * geocoder, run once per address, with its result written back to the venue).
 */
import { cellsOf } from "./cells";
import { coordinatesOf, LatLng } from "./distance";
import { AddressInput, addressKey } from "./geocoder";

/** A venue as `venues.locationFeed` reports it. */
export interface FeedVenue extends AddressInput {
  id: number;
  status: string;
  modified_utc: string;
  geo_lat?: number | string | null;
  geo_lng?: number | string | null;
}

/** The geocoder's last run for a venue: the address it read, what it found, whether the venue got it. */
export interface GeocodeRun {
  key: string;
  lat?: number;
  lng?: number;
  written?: boolean;
}

/** What the service stores per venue (collection `venue_locations`, `_id` = venue id). */
export interface LocationDoc {
  _id: number;
  status: string;
  modified_utc: string;
  /** The feed entry this record was built from, to skip unchanged venues cheaply. */
  fingerprint: string;
  lat?: number;
  lng?: number;
  source?: "explicit" | "geocoded";
  geocode?: GeocodeRun;
  /** Set only for published venues with coordinates: the spatial index holds nothing else. */
  searchable?: true;
  cells?: number[];
  /** GeoJSON point for MongoDB's 2dsphere index. */
  loc?: { type: "Point"; coordinates: [number, number] };
}

export type SyncPlan =
  /** Coordinates set on the venue by its editors. */
  | { kind: "explicit"; coords: LatLng }
  /** The venue carries what the geocoder found for its current address. */
  | { kind: "geocoded"; coords: LatLng }
  /** The geocoder found coordinates for this address but the venue never got them: write them again. */
  | { kind: "write-again"; coords: LatLng }
  /** No coordinates, and the geocoder already ran on this address (found nothing, or editors cleared its result). */
  | { kind: "none" }
  /** Run the geocoder; `clearStale`: the venue holds the geocoder's result for a previous address. */
  | { kind: "geocode"; key: string; clearStale: boolean };

const same = (a: LatLng | undefined, b: { lat?: number; lng?: number } | undefined): boolean =>
  !!a && !!b && b.lat !== undefined && b.lng !== undefined && Math.abs(a.lat - b.lat) < 1e-9 && Math.abs(a.lng - b.lng) < 1e-9;

export function fingerprintOf(v: FeedVenue): string {
  const c = coordinatesOf(v.geo_lat, v.geo_lng);
  return JSON.stringify([v.status, v.modified_utc, c?.lat ?? null, c?.lng ?? null, addressKey(v)]);
}

/** Nothing to do: the same feed entry was already applied and nothing is left to write. */
export function isUnchanged(prev: LocationDoc | null, v: FeedVenue): boolean {
  return !!prev && prev.fingerprint === fingerprintOf(v) && !(prev.geocode && prev.geocode.lat !== undefined && !prev.geocode.written && prev.source === "geocoded");
}

/** What to do with a venue, given what was stored for it before. */
export function planSync(prev: LocationDoc | null, v: FeedVenue): SyncPlan {
  const given = coordinatesOf(v.geo_lat, v.geo_lng);
  const key = addressKey(v);
  const run = prev?.geocode;
  const ours = !!given && same(given, run);
  if (given && !ours) return { kind: "explicit", coords: given };
  if (given && run && run.key === key) return { kind: "geocoded", coords: given };
  if (!given && run && run.key === key) {
    if (run.lat !== undefined && run.lng !== undefined && !run.written) return { kind: "write-again", coords: { lat: run.lat, lng: run.lng } };
    return { kind: "none" };
  }
  return { kind: "geocode", key, clearStale: ours };
}

/** The stored record for a venue at a position (or none). */
export function locationDoc(v: FeedVenue, coords: LatLng | undefined, source: LocationDoc["source"], geocode: GeocodeRun | undefined): LocationDoc {
  const doc: LocationDoc = { _id: v.id, status: v.status, modified_utc: v.modified_utc, fingerprint: fingerprintOf(v) };
  if (geocode) doc.geocode = geocode;
  if (coords) {
    doc.lat = coords.lat;
    doc.lng = coords.lng;
    doc.source = source;
    if (v.status === "publish") {
      doc.searchable = true;
      doc.cells = cellsOf(coords);
      doc.loc = { type: "Point", coordinates: [coords.lng, coords.lat] };
    }
  }
  return doc;
}

/** The same record with another status (an event arrived before the venue could be read). */
export function withStatus(doc: LocationDoc, status: string, modified_utc: string | undefined): LocationDoc {
  const v: FeedVenue = { id: doc._id, status, modified_utc: modified_utc ?? doc.modified_utc };
  const coords = doc.lat !== undefined && doc.lng !== undefined ? { lat: doc.lat, lng: doc.lng } : undefined;
  // keep the old fingerprint's address part out of reach: the next feed entry must be applied in full
  return { ...locationDoc(v, coords, doc.source, doc.geocode), fingerprint: "" };
}

/** The update that turns a stored record into `next` (fields it lacks are unset). */
export function replacement(next: LocationDoc): { $set: Record<string, unknown>; $unset: Record<string, true> } {
  const { _id, ...fields } = next;
  void _id;
  const $unset: Record<string, true> = {};
  for (const f of ["lat", "lng", "source", "geocode", "searchable", "cells", "loc"] as const) if (next[f] === undefined) $unset[f] = true;
  return { $set: fields, $unset };
}

/** "YYYY-MM-DD HH:mm:ss" (UTC) minus some seconds, same format; the input when it is not such a date. */
export function minusSeconds(utc: string, seconds: number): string {
  const t = Date.parse(`${utc.replace(" ", "T")}Z`);
  if (!Number.isFinite(t)) return utc;
  return new Date(t - seconds * 1000).toISOString().slice(0, 19).replace("T", " ");
}
