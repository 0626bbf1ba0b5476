/**
 * The entries venues and organizers share in their field tables (lib/linked/venue-fields.ts,
 * organizer-fields.ts): the post fields at the head of the record, a text field of the kind's own, and the
 * keys every linked record ends with. Their write rules are the plugin's create arguments
 * (docs/discovery.md#namespace-index); the extensions (`post_password`, `meta`, coordinates) are
 * lib/linked/params.ts's.
 */
import { dateTime, string } from "../http/params";
import type { FieldEntry } from "../records/field-table";
import { customFieldKeys, imageOrFalse, importSourceSchema, jsonLd, LANGUAGE_KEYS, postFields, str } from "../records/schema-parts";
import { authorRule, imageRule, statusRule, urlRule } from "./params";
import type { LinkedDoc } from "./record";

/** What a linked record's shaper gathers for the table's fields to read. */
export interface LinkedShaping {
  doc: LinkedDoc;
}

export type LinkedEntries = Record<string, FieldEntry<LinkedShaping>>;

/** A kind's create arguments declare `default: null` on every field (organizers) or on the content ones only (venues). */
export type NullDefaults = "all" | "content";

export function nullDefault(defaults: NullDefaults, content: boolean): { default?: null } {
  return content || defaults === "all" ? { default: null } : {};
}

/** The record's head, in answer order: the post fields, the name (under `nameField`), description, excerpt, slug and image. */
export function headEntries(kind: "venue" | "organizer", nameField: string, defaults: NullDefaults): LinkedEntries {
  const post = postFields(kind);
  const nul = (content: boolean) => nullDefault(defaults, content);
  return {
    id: { answer: { schema: post.id, addedBy: "lib/linked/record.ts" } },
    global_id: { answer: { schema: post.global_id, addedBy: "lib/linked/record.ts" } },
    global_id_lineage: { answer: { schema: post.global_id_lineage, addedBy: "lib/linked/record.ts" } },
    author: { answer: { schema: post.author, addedBy: "lib/linked/record.ts" }, write: () => authorRule({ description: `The user id of the ${kind}'s author`, ...nul(false) }) },
    status: { answer: { schema: post.status, addedBy: "lib/linked/record.ts" }, write: () => statusRule({ description: `The ${kind}'s status`, ...nul(false) }), imported: "own" },
    date: {
      answer: { schema: post.date, addedBy: "lib/linked/record.ts" }, write: () => dateTime({ description: `The publication date of the ${kind}, in the site time zone`, ...nul(false) }),
      imported: "own"
    },
    date_utc: {
      answer: { schema: post.date_utc, addedBy: "lib/linked/record.ts" }, write: () => dateTime({ description: `The publication date of the ${kind}, in UTC`, ...nul(false) }),
      imported: "own"
    },
    modified: { answer: { schema: post.modified, addedBy: "lib/linked/record.ts" } },
    modified_utc: { answer: { schema: post.modified_utc, addedBy: "lib/linked/record.ts" } },
    url: { answer: { schema: post.url, addedBy: "lib/linked/record.ts" } },
    [nameField]: {
      answer: { schema: str(`The ${kind} name`), addedBy: "lib/linked/record.ts" },
      write: () => string({ description: `The ${kind}'s name`, required: true, nonEmpty: true, ...nul(false) }),
      translatable: true, imported: "value"
    },
    description: {
      answer: { schema: str(`The ${kind} description (HTML)`), addedBy: "lib/linked/record.ts", blank: "" },
      write: () => string({ description: `The ${kind}'s description`, ...nul(true) }),
      translatable: true, imported: "value"
    },
    excerpt: { answer: { schema: str(`The ${kind} excerpt`), addedBy: "lib/linked/record.ts", blank: "" } },
    slug: { answer: { schema: str(`The ${kind} slug`), addedBy: "lib/linked/record.ts" } },
    image: {
      answer: { schema: imageOrFalse(kind), addedBy: "lib/linked/record.ts", blank: false },
      write: () => imageRule({ description: `The ${kind}'s featured image: an image id or an image URL`, ...nul(true) }),
      imported: "own"
    }
  };
}

/**
 * One of the kind's own text fields: stored, written and answered under its name ("" when unset), blank for a
 * protected record, and copied by an import as the source answers it.
 */
export function textEntry(name: string, o: { answer: string; write: string; url?: boolean; translatable?: boolean; searched?: boolean }): FieldEntry<LinkedShaping> {
  const rule = o.url ? urlRule : string;
  return {
    answer: { schema: str(o.answer), shape: s => s.doc[name] ?? "", blank: "" },
    write: () => rule({ description: o.write, default: null }),
    ...(o.translatable ? { translatable: true as const } : {}),
    ...(o.searched ? { searched: true as const } : {}),
    imported: "value"
  };
}

/** The keys a linked record ends with: custom fields, where an import brought it from, its languages. */
export function tailEntries(kind: "venue" | "organizer"): LinkedEntries {
  const custom = customFieldKeys(kind);
  return {
    custom_fields: { answer: { schema: custom.custom_fields, addedBy: "the custom fields step of the answer" } },
    meta: { answer: { schema: custom.meta, addedBy: "the custom fields step of the answer" } },
    import_source: { answer: { schema: importSourceSchema(kind), addedBy: "the linked records' reader (context=edit)", contexts: ["edit"] } },
    i18n_language: { answer: { schema: LANGUAGE_KEYS.i18n_language, addedBy: "the language step of the answer" } },
    translations: { answer: { schema: LANGUAGE_KEYS.translations, addedBy: "the language step of the answer" } }
  };
}

/** `json_ld`: the record as schema.org JSON-LD, built from the record as the caller sees it. */
export const jsonLdEntry = (kind: "venue" | "organizer"): FieldEntry<LinkedShaping> => ({ answer: { schema: jsonLd(kind), addedBy: "lib/linked/record.ts (single reads, json_ld=1 on lists)" } });
