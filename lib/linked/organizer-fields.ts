/**
 * The organizer's fields, each declared once (lib/records/field-table.ts): how it is written and validated,
 * answered (protected, translated) and documented in /doc. The organizers' create parameters
 * (lib/linked/params.ts), the Organizer schema of /doc (lib/http/response-schemas.ts), the organizer's own text
 * fields and their answer order (lib/linked/kinds.ts, record.ts), its password blanks, its translatable
 * fields (lib/i18n/types.ts) and the fields an import copies (lib/imports/tec.ts) are read from it.
 */
import type { FieldTable } from "../records/field-table";
import { headEntries, jsonLdEntry, type LinkedShaping, tailEntries, textEntry } from "./linked-field-parts";

export const ORGANIZER_FIELDS: FieldTable<LinkedShaping> = {
  fields: {
    ...headEntries("organizer", "organizer", "all"),
    phone: textEntry("phone", { answer: "The organizer phone number", write: "The organizer's phone number", searched: true }),
    website: textEntry("website", { answer: "The organizer website URL", write: "The organizer's website (an absolute URL)", url: true, searched: true }),
    email: textEntry("email", { answer: "The organizer email address", write: "The organizer's e-mail address", searched: true }),
    json_ld: jsonLdEntry("organizer"),
    ...tailEntries("organizer")
  },
  writeOrder: ["author", "date", "date_utc", "organizer", "description", "status", "phone", "website", "email", "image"]
};
