/**
 * The `json_ld` of a venue (schema.org Place) or an organizer (Person), without `@context`
 * (docs/records.md#json-ld, D22: the JSON-LD shape). Built from the record as the caller sees it, so blanked fields never leak here.
 */
import { collapseWhitespace, isPhpEmpty, plainText } from "../text/sanitize";
import type { LinkedKindSpec } from "./spec";

type View = Record<string, unknown>;

const text = (v: unknown): string => (typeof v === "string" ? v : "");


/** schema.org PostalAddress of the non-empty address parts, or undefined when there is none. */
function postalAddress(v: View): Record<string, string> | undefined {
  const parts: Array<[string, string]> = [
    ["streetAddress", text(v.address)],
    ["addressLocality", text(v.city)],
    ["addressRegion", text(v.stateprovince) || text(v.state) || text(v.province)],
    ["postalCode", text(v.zip)],
    ["addressCountry", text(v.country)]
  ];
  const present = parts.filter(([, value]) => value !== "");
  return present.length ? { "@type": "PostalAddress", ...Object.fromEntries(present) } : undefined;
}

/** `view`: the record's output keys (name under `spec.nameField`, rendered description, image object…). */
export function linkedJsonLd(spec: LinkedKindSpec, view: View): Record<string, unknown> {
  const ld: Record<string, unknown> = { "@type": spec.jsonLdType, name: text(view[spec.nameField]) };
  // plain text on one line
  const description = collapseWhitespace(plainText(view.description)).trim();
  if (description) ld.description = description;
  const image = view.image as { url?: unknown } | false | undefined;
  if (image && typeof image === "object" && image.url) ld.image = image.url;
  const website = text(view.website);
  if (spec.jsonLdType === "Place") {
    ld.url = text(view.url);
    const address = postalAddress(view);
    if (address) ld.address = address;
    ld.telephone = text(view.phone);
    ld.sameAs = website;
    if (!isPhpEmpty(view.geo_lat) && !isPhpEmpty(view.geo_lng)) ld.geo = { "@type": "GeoCoordinates", latitude: view.geo_lat, longitude: view.geo_lng };
  } else {
    ld.url = website;
    ld.telephone = text(view.phone);
    ld.email = text(view.email);
    ld.sameAs = website;
  }
  return ld;
}
