/**
 * The two linked-post kinds (docs/records.md#venues-and-organizers): what differs between venues and
 * organizers, read by their services (mixins/linked-post.mixin.ts) and by the params table (lib/http/action-schemas.ts).
 * Their fields come from their field tables (venue-fields.ts, organizer-fields.ts).
 */
import { protectedBlanks, searchedFields, shapedFields, writeRules, type FieldTable } from "../records/field-table";
import type { LinkedShaping } from "./linked-field-parts";
import { ORGANIZER_FIELDS } from "./organizer-fields";
import type { LinkedKindSpec } from "./spec";
import { VENUE_FIELDS } from "./venue-fields";

/** The parts of a kind description its field table gives: create rules, own text fields in write and answer order, blanks, searched fields. */
function fromTable(table: FieldTable<LinkedShaping>): Pick<LinkedKindSpec, "createRules" | "fields" | "outputOrder" | "blanks" | "searchFields"> {
  const own = shapedFields(table).map(([name]) => name);
  return {
    createRules: writeRules(table, true), fields: table.writeOrder.filter(name => own.includes(name)), outputOrder: own, blanks: protectedBlanks(table),
    searchFields: searchedFields(table)
  };
}

export const VENUE: LinkedKindSpec = {
  kind: "venue",
  plural: "venues",
  postType: "tribe_venue",
  nameField: "venue",
  ...fromTable(VENUE_FIELDS),
  mapFlags: true,
  geo: true,
  stateProvince: true,
  jsonLdType: "Place"
};

export const ORGANIZER: LinkedKindSpec = {
  kind: "organizer",
  plural: "organizers",
  postType: "tribe_organizer",
  nameField: "organizer",
  ...fromTable(ORGANIZER_FIELDS),
  mapFlags: false,
  geo: false,
  stateProvince: false,
  jsonLdType: "Person"
};
