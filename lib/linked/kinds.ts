/**
 * The two linked-post kinds (docs/records.md#venues-and-organizers): what differs between venues and
 * organizers, read by their services (mixins/linked-post.mixin.ts) and by the params table (lib/schemas.ts).
 */
import { ORGANIZER_BLANKS, VENUE_BLANKS } from "../posts/password";
import type { LinkedKindSpec } from "./spec";

export const VENUE: LinkedKindSpec = {
  kind: "venue",
  plural: "venues",
  postType: "tribe_venue",
  nameField: "venue",
  fields: [
    { name: "address", description: "The venue's street address" },
    { name: "city", description: "The venue's city" },
    { name: "country", description: "The venue's country" },
    { name: "province", description: "The venue's province" },
    { name: "state", description: "The venue's state" },
    { name: "zip", description: "The venue's postal code" },
    { name: "phone", description: "The venue's phone number" },
    { name: "stateprovince", description: "The venue's state or province (derived from state, province and country when empty)" },
    { name: "website", url: true, description: "The venue's website (an absolute URL)" }
  ],
  outputOrder: ["address", "city", "country", "province", "state", "zip", "phone", "website", "stateprovince"],
  searchFields: ["address", "city", "province", "state", "stateprovince", "zip", "phone"],
  mapFlags: true,
  geo: true,
  stateProvince: true,
  jsonLdType: "Place",
  blanks: VENUE_BLANKS,
  allArgsDefaultNull: false
};

export const ORGANIZER: LinkedKindSpec = {
  kind: "organizer",
  plural: "organizers",
  postType: "tribe_organizer",
  nameField: "organizer",
  fields: [
    { name: "phone", description: "The organizer's phone number" },
    { name: "website", url: true, description: "The organizer's website (an absolute URL)" },
    { name: "email", description: "The organizer's e-mail address" }
  ],
  outputOrder: ["phone", "website", "email"],
  searchFields: ["phone", "email", "website"],
  mapFlags: false,
  geo: false,
  stateProvince: false,
  jsonLdType: "Person",
  blanks: ORGANIZER_BLANKS,
  allArgsDefaultNull: true
};
