/**
 * What distinguishes venues from organizers, as data: the linked-post mixin and the pure modules of
 * lib/linked build every schema, record, query and JSON-LD object from one of these descriptions
 * (docs/records.md#venues-and-organizers). The two services declare theirs; nothing else is kind-specific.
 */
import type { Blanks } from "../posts/password";
import type { PostTypeName } from "../posts/permalink";
import type { Rule } from "../http/params";

export type LinkedKind = "venue" | "organizer";

export interface LinkedKindSpec {
  kind: LinkedKind;
  /** Service name, collection name, list envelope key and URL segment (`venues`). */
  plural: string;
  /** Post type name of non-public permalinks (D29: WordPress names kept in output). */
  postType: PostTypeName;
  /** The name parameter and output key (`venue`, `organizer`). */
  nameField: string;
  /** The create parameters the plugin documents, in their order (from the kind's field table). */
  createRules: Readonly<Record<string, Rule>>;
  /** The kind's own text fields, in the order the create parameters declare them (from the field table). */
  fields: readonly string[];
  /** The same fields in answer order (from the field table). */
  outputOrder: readonly string[];
  /** Stored fields a list `search` looks at besides the name and the description (docs/lists.md#venue-and-organizer-filters). */
  searchFields: readonly string[];
  /** Venues: `show_map` / `show_map_link` flags. */
  mapFlags: boolean;
  /** Venues: optional `geo_lat` / `geo_lng` extension fields (D8: geolocation). */
  geo: boolean;
  /** Venues: `stateprovince` derived from state/province/country when not given. */
  stateProvince: boolean;
  /** schema.org type of the record's `json_ld`. */
  jsonLdType: "Place" | "Person";
  /** Keys blanked for callers without password access (docs/records.md#venue-fields, #organizer-fields; from the field table). */
  blanks: Blanks;
}

/** Message codes of a kind (docs/errors.md#venue-and-organizer-errors). */
export function codesOf(kind: LinkedKind) {
  return {
    notAccessible: `${kind}-not-accessible`,
    inTrash: `${kind}-is-in-trash`,
    couldNotCreate: `could-not-create-${kind}`,
    couldNotUpdate: `could-not-update-${kind}`,
    couldNotDelete: `could-not-delete-${kind}`
  };
}
