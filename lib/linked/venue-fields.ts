/**
 * The venue's fields, each declared once (lib/records/field-table.ts): how it is written and validated,
 * answered (protected, translated) and documented in /doc. The venues' create parameters
 * (lib/linked/params.ts), the Venue schema of /doc (lib/http/response-schemas.ts), the venue's own text fields
 * and their answer order (lib/linked/kinds.ts, record.ts), its password blanks, its translatable fields
 * (lib/i18n/types.ts) and the fields an import copies (lib/imports/tec.ts) are read from it.
 */
import type { FieldTable } from "../records/field-table";
import { distance, flag, num } from "../records/schema-parts";
import { headEntries, jsonLdEntry, type LinkedShaping, tailEntries, textEntry } from "./linked-field-parts";
import { mapFlagRule } from "./params";

export const VENUE_FIELDS: FieldTable<LinkedShaping> = {
  fields: {
    ...headEntries("venue", "venue", "content"),
    address: textEntry("address", { answer: "The venue street address", write: "The venue's street address", translatable: true, searched: true }),
    city: textEntry("city", { answer: "The venue city", write: "The venue's city", translatable: true, searched: true }),
    country: textEntry("country", { answer: "The venue country", write: "The venue's country" }),
    province: textEntry("province", { answer: "The venue province", write: "The venue's province", translatable: true, searched: true }),
    state: textEntry("state", { answer: "The venue state", write: "The venue's state", translatable: true, searched: true }),
    zip: textEntry("zip", { answer: "The venue postal code", write: "The venue's postal code", searched: true }),
    phone: textEntry("phone", { answer: "The venue phone number", write: "The venue's phone number", searched: true }),
    website: textEntry("website", { answer: "The venue website URL", write: "The venue's website (an absolute URL)", url: true }),
    stateprovince: textEntry("stateprovince", {
      answer: "The venue state or province", write: "The venue's state or province (derived from state, province and country when empty)", translatable: true,
      searched: true
    }),
    geo_lat: { answer: { schema: num("The venue latitude"), addedBy: "lib/linked/record.ts (venues with coordinates)", blank: 0 }, imported: "own" },
    geo_lng: { answer: { schema: num("The venue longitude"), addedBy: "lib/linked/record.ts (venues with coordinates)", blank: 0 }, imported: "own" },
    json_ld: jsonLdEntry("venue"),
    show_map: {
      answer: { schema: flag("Whether events at the venue show a map"), addedBy: "lib/linked/record.ts" },
      write: () => mapFlagRule({ description: "Whether events at the venue show a map", default: null }),
      imported: "flag"
    },
    show_map_link: {
      answer: { schema: flag("Whether events at the venue show a map link"), addedBy: "lib/linked/record.ts" },
      write: () => mapFlagRule({ description: "Whether events at the venue show a link to a map", default: null }),
      imported: "flag"
    },
    distance: { answer: { schema: distance, addedBy: "the geolocation search" } },
    ...tailEntries("venue")
  },
  writeOrder: ["author", "date", "date_utc", "venue", "description", "status", "show_map", "show_map_link", "address", "city", "country", "province", "state",
    "zip", "phone", "stateprovince", "website", "image"]
};
