/**
 * The record types with translatable fields, as the i18n service stores them. Field names are the
 * STORED field names of each record service (venues and organizers store their name as `name`).
 * Categories and tags are one type, `term`: their ids come from one sequence.
 */
import { EVENT_FIELDS } from "../events/event-fields";
import { translatableFields } from "../records/field-table";
import { ORGANIZER_FIELDS } from "../linked/organizer-fields";
import { VENUE_FIELDS } from "../linked/venue-fields";
import { TERM_FIELDS } from "../terms/term-fields";

export type TranslatableType = "event" | "venue" | "organizer" | "term";

export interface TypeSpec {
  fields: readonly string[];
  /** The field duplicate checks and name lookups compare. */
  nameField: string;
}

/** Venues and organizers answer their name under the kind's name and store it as `name`. */
const storedNames = (fields: string[], answerName: string) => fields.map(name => (name === answerName ? "name" : name));

export const TRANSLATABLE: Readonly<Record<TranslatableType, TypeSpec>> = {
  event: { fields: translatableFields(EVENT_FIELDS), nameField: "title" },
  venue: { fields: storedNames(translatableFields(VENUE_FIELDS), "venue"), nameField: "name" },
  organizer: { fields: storedNames(translatableFields(ORGANIZER_FIELDS), "organizer"), nameField: "name" },
  term: { fields: translatableFields(TERM_FIELDS), nameField: "name" }
};

export const TRANSLATABLE_TYPES = Object.keys(TRANSLATABLE) as TranslatableType[];
