/**
 * Venue and organizer records: what is stored (one flat document per record), what a write changes,
 * duplicate matching, and the record as the API returns it (docs/records.md#venue-fields, #organizer-fields, #creating-venues-and-organizers, #updating-venues-and-organizers).
 */
import { autop } from "../text/autop";
import { blankProtected } from "../posts/password";
import { globalId, permalink } from "../posts/permalink";
import { deriveStateProvince, isTruthyFlag, sanitizeTextField, stripEmptyKeys } from "../text/sanitize";
import { linkedJsonLd } from "./json-ld";
import type { LinkedKindSpec } from "./spec";
import type { PostDoc } from "../posts/post-doc";
import { sent } from "../http/params";
import { longerThan } from "../text/text-input";

/** A stored venue or organizer (store `_id` = the record id). */
export interface LinkedDoc extends PostDoc {
  /** The name, trimmed. */
  name: string;
  /** Lower-cased name: the indexed key of duplicate avoidance. */
  name_key: string;
  /** Raw description (rendered on output). */
  description: string;
  /** Image record id, 0 for none. */
  image: number;
  show_map?: boolean;
  show_map_link?: boolean;
  geo_lat?: number;
  geo_lng?: number;
  /** The kind's text fields (`address`, `phone`, `email`…). */
  [field: string]: unknown;
}

export interface ImageObject {
  url: string;
  id: number;
  extension: string;
}

export interface Changes {
  set: Record<string, unknown>;
  unset: string[];
}

/**
 * `create`: every field (absent → empty; map flags → on). `update` (D3: updates are partial): only given fields; an empty
 * description leaves it unchanged. `duplicate` (D25: duplicate venues and organizers): the provided fields other than name, description and
 * password are written onto the found record, map flags default to on.
 */
export type WriteMode = "create" | "update" | "duplicate";

const MAP_FLAGS = ["show_map", "show_map_link"] as const;
const REGION_INPUTS = ["state", "province", "country", "stateprovince"];

/** The key a name is compared by (duplicates, D25: duplicate venues and organizers): trimmed, lower-cased. */
export function nameKey(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * The longest `name_key` stored, in characters: a longer name keeps its first ones
 * (docs/records.md#duplicates). PostgreSQL's btree indexes take ~2 700 bytes an entry; a longer venue name
 * answered 500 there.
 */
export const NAME_KEY_MAX = 200;

/** The stored form of a key: at most NAME_KEY_MAX characters (whole code points). */
export function storedNameKey(key: string): string {
  return longerThan(key, NAME_KEY_MAX) ? Array.from(key).slice(0, NAME_KEY_MAX).join("") : key;
}

/**
 * The stored `name_key` values a name's records may hold: its stored form, and (a name longer than that)
 * also the whole key, which an older version stored. The records found then share the stored form only:
 * `namedBy` tells those of this very name.
 */
export function nameKeyCondition(key: string): string | { $in: string[] } {
  const stored = storedNameKey(key);
  return stored === key ? key : { $in: [stored, key] };
}

/** Whether one of a found record's names (original, shown) has this key; any does for a short key. */
export function namedBy(key: string, names: readonly unknown[]): boolean {
  return storedNameKey(key) === key || names.some(name => typeof name === "string" && nameKey(name) === key);
}


/** The stored fields a validated write changes (image, author, status, dates and slug are the mixin's). */
export function writeChanges(spec: LinkedKindSpec, p: Record<string, unknown>, current: LinkedDoc | undefined, mode: WriteMode): Changes {
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  if (mode !== "duplicate") {
    if (sent(p[spec.nameField])) {
      const name = String(p[spec.nameField]).trim();
      set.name = name;
      set.name_key = storedNameKey(nameKey(name));
    }
    if (mode === "create") set.description = sent(p.description) ? String(p.description) : "";
    else if (sent(p.description) && p.description !== "") set.description = String(p.description);
    if (sent(p.post_password)) {
      if (p.post_password === "") unset.push("post_password");
      else set.post_password = String(p.post_password);
    }
  }
  for (const field of spec.fields) {
    if (sent(p[field])) set[field] = sanitizeTextField(String(p[field]));
    else if (mode === "create") set[field] = "";
  }
  if (spec.stateProvince && !set.stateprovince && (mode === "create" || REGION_INPUTS.some(k => sent(p[k])))) {
    const merged: Record<string, unknown> = { ...(current ?? {}), ...set };
    set.stateprovince = deriveStateProvince(merged.state as string, merged.province as string, merged.country as string);
  }
  if (spec.mapFlags) {
    for (const flag of MAP_FLAGS) {
      if (sent(p[flag])) set[flag] = isTruthyFlag(p[flag]);
      else if (mode !== "update") set[flag] = true;
    }
  }
  if (spec.geo && sent(p.geo_lat) && sent(p.geo_lng)) {
    if (p.geo_lat === "") {
      if (mode !== "create") unset.push("geo_lat", "geo_lng");
    } else {
      set.geo_lat = Number(p.geo_lat);
      set.geo_lng = Number(p.geo_lng);
    }
  }
  return { set, unset };
}

/** D25: the same name (case-insensitive) and, only when a non-empty description is given, the same description. */
export function matchesDuplicate(doc: Pick<LinkedDoc, "description">, description: unknown): boolean {
  if (typeof description !== "string" || description.trim() === "") return true;
  return String(doc.description ?? "").trim().toLowerCase() === description.trim().toLowerCase();
}

export interface PresentOptions {
  /** `{site}` of the request. */
  site: string;
  /** `{base_url}` (global ids). */
  baseUrl: string;
  /** The status to show (C13: effective status). */
  status: string;
  image: ImageObject | false;
  /** Single reads only (docs/records.md#reading-venues-and-organizers). */
  jsonLd: boolean;
  /** false: the caller may not see the protected fields (blanked, docs/authorization.md#password-protected-records). */
  reveal: boolean;
}

/** The record as the API returns it (docs/records.md#venue-fields, #organizer-fields). */
export function presentRecord(spec: LinkedKindSpec, doc: LinkedDoc, o: PresentOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: doc._id,
    author: String(doc.author ?? 0),
    status: o.status,
    date: doc.date,
    date_utc: doc.date_utc,
    modified: doc.modified,
    modified_utc: doc.modified_utc,
    url: permalink(o.site, spec.postType, { _id: doc._id, slug: doc.slug, status: o.status }),
    [spec.nameField]: String(doc.name ?? "").trim(),
    description: autop(doc.description),
    excerpt: "",
    slug: doc.slug,
    image: o.image
  };
  for (const field of spec.outputOrder) out[field] = doc[field] ?? "";
  if (spec.geo && typeof doc.geo_lat === "number" && typeof doc.geo_lng === "number") {
    out.geo_lat = doc.geo_lat;
    out.geo_lng = doc.geo_lng;
  }
  if (o.jsonLd) out.json_ld = linkedJsonLd(spec, o.reveal ? out : blankProtected(out, spec.blanks));
  const record: Record<string, unknown> = stripEmptyKeys(out);
  if (spec.mapFlags) for (const flag of MAP_FLAGS) record[flag] = doc[flag] ?? true;
  record.global_id = globalId(o.baseUrl, doc._id);
  record.global_id_lineage = [record.global_id];
  return o.reveal ? record : blankProtected(record, spec.blanks);
}
