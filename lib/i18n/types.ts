/**
 * The record types with translatable fields, as the i18n service stores them. Field names are the
 * STORED field names of each record service (venues and organizers store their name as `name`).
 * Categories and tags are one type, `term`: their ids come from one sequence.
 */
import { EVENT_FIELDS } from "../events/event-fields";
import { translatableFields } from "../records/field-table";

export type TranslatableType = "event" | "venue" | "organizer" | "term";

export interface TypeSpec {
  fields: readonly string[];
  /** The field duplicate checks and name lookups compare. */
  nameField: string;
}

export const TRANSLATABLE: Readonly<Record<TranslatableType, TypeSpec>> = {
  event: { fields: translatableFields(EVENT_FIELDS), nameField: "title" },
  venue: { fields: ["name", "description", "address", "city", "province", "state", "stateprovince"], nameField: "name" },
  organizer: { fields: ["name", "description"], nameField: "name" },
  term: { fields: ["name", "description"], nameField: "name" }
};

export const TRANSLATABLE_TYPES = Object.keys(TRANSLATABLE) as TranslatableType[];
