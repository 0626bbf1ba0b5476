/**
 * What a kept answer depends on, and what a write makes stale (docs/caching.md): the one place that
 * decides both, for the gateway's kept answers and the services' action cache alike.
 *
 * Every kept answer's key begins `<space>:<site>:<dependency>:`, where the dependency is
 * - `E<id>`, `V<id>`, `O<id>`: the page of one event, venue or organizer (`GET …/events/{id}` and the
 *   like), which depends on that record and on what it embeds; `V<id>`, `O<id>` and `T<id>` also hold a
 *   venue, organizer or term as other records embed it (one entry per record, docs/caching.md#embedded-records);
 * - `L`: a plain page of the events list (only paging and filters on what a list selects by, see
 *   PLAIN_LIST_PARAMS): which events it shows and its total. Its value names the page's body, kept under
 * - `B`: that body, whose key ends with the page's total and the ids of the events it shows
 *   (`RESP:1:B:<hash>:<total>:,12,15,`), so a write of one of them cleans exactly the bodies showing it;
 * - `F`: the change feed's pages (`GET …/changes`), which every stored change moves on: a record's write
 *   (its entry is stored with it) and a change the `changes` service stores alone (a term updated with
 *   nothing to change is still recorded, mixins/change-source.mixin.ts `recordTermUpdate`);
 * - `S`: anything else of the site (other lists, totals, terms, by-slug pages, documents), which any write
 *   of the site may change.
 * A write then cleans only the keys it can have made stale, as patterns whose only wildcard is `**`, which
 * every cacher (memory or Redis) cleans alike.
 */

import { EVENT_FIELDS } from "../lib/events/event-fields";
import { plainFilterParams, presentationFields } from "../lib/records/field-table";

/** Kept answers of the gateway and of the services' `cached` actions. */
export type CacheSpace = "RESP" | "ACT";

export type RecordKind = "event" | "venue" | "organizer" | "term";

const KIND_LETTER: Record<RecordKind, string> = { event: "E", venue: "V", organizer: "O", term: "T" };

/** What one kept answer depends on: one record's page, or the rest of the site. */
export type Dependency = { kind: RecordKind; id: number } | { kind: "list" } | { kind: "feed" } | { kind: "site" };

export function dependencyTag(dep: Dependency): string {
  return dep.kind === "site" ? "S" : dep.kind === "list" ? "L" : dep.kind === "feed" ? "F" : `${KIND_LETTER[dep.kind]}${dep.id}`;
}

/** The beginning of every key of `space` under `dep` on `site`. */
export function keyPrefix(space: CacheSpace, site: number, dep: Dependency): string {
  return `${space}:${site}:${dependencyTag(dep)}:`;
}

const RECORD_PATH = /\/(events|venues|organizers)\/(\d+)\/?(?:\?|$)/;
const PATH_KIND: Record<string, RecordKind> = { events: "event", venues: "venue", organizers: "organizer" };
const LIST_PATH = /^\/events\/?(?:\?|$)/;
const FEED_PATH = /^\/changes\/?(?:\?|$)/;

/**
 * The events list's parameters that make a page "plain": paging, and filters on fields that a write of
 * only PRESENTATION_FIELDS leaves alone (the event field table's plain list filters). A page with any
 * other parameter (search, ordering, modified windows, geolocation, ICS…) is an `S` answer.
 */
export const PLAIN_LIST_PARAMS: ReadonlySet<string> = new Set(["page", "per_page", ...plainFilterParams(EVENT_FIELDS)]);

/**
 * The fields of an event that no plain list page selects, orders or counts by (the event field table's
 * `presentation` fields): a write that changes only these leaves every page's events and totals as they
 * were (it changes the bodies that show the event).
 */
export const PRESENTATION_FIELDS: ReadonlySet<string> = new Set(presentationFields(EVENT_FIELDS));

function plainListQuery(query: string): boolean {
  if (!query) return true;
  for (const name of new URLSearchParams(query).keys()) if (!PLAIN_LIST_PARAMS.has(name)) return false;
  return true;
}

/**
 * What the answer of a GET depends on, from its URL (path with any language prefix and query): a
 * record's own page, a plain events list page, or the site. `namespacePath` is the REST namespace
 * (`/wp-json/calendar/events/v1`).
 */
export function dependencyOfUrl(url: string, namespacePath: string): Dependency {
  const at = url.indexOf(namespacePath);
  if (at < 0) return { kind: "site" };
  const rest = url.slice(at + namespacePath.length);
  if (FEED_PATH.test(rest)) return { kind: "feed" };
  if (LIST_PATH.test(rest)) {
    const q = rest.indexOf("?");
    return plainListQuery(q < 0 ? "" : rest.slice(q + 1)) ? { kind: "list" } : { kind: "site" };
  }
  const m = RECORD_PATH.exec(rest);
  if (!m || m.index !== 0) return { kind: "site" };
  return { kind: PATH_KIND[m[1]], id: Number(m[2]) };
}

/**
 * The key of a plain list page's body (kept under `B`), from the page's own key (under `L`): with the
 * page's total and the ids of the events it shows, in order. Two computations of one page with the same
 * total and events give the same body (the events' own content is cleaned by their writes).
 */
export function listBodyKey(listKey: string, total: number, ids: readonly number[]): string {
  const [space, site, , ...rest] = listKey.split(":");
  return `${space}:${site}:B:${rest.join(":")}:${total}:,${ids.join(",")},`;
}

const BODY_GROUP = /^[A-Z]+:\d+:B$/;
const BODY_PATTERN = /^([A-Z]+:\d+:B):\*\*,(\d+),\*\*$/;

/** What a key of a list body's group is indexed by, when its ids cannot be read from it (see bodyIds). */
export const ANY_SHOWN = "*";

/**
 * The ids of the events a list body's key shows (`RESP:1:B:<hash>:<total>:,12,15,` → 12, 15), as written
 * in the key, with the body's group (`RESP:1:B`); undefined for a key of any other group. Cachers index
 * bodies by them, so that an event's write cleans the bodies showing it without reading every body. A key
 * of a body group whose ids are not the only commas in it is indexed under ANY_SHOWN (every such clean
 * reads it).
 */
export function bodyIds(key: string): { group: string; ids: string[] } | undefined {
  const parts = key.split(":");
  if (parts.length < 4) return undefined;
  const group = parts.slice(0, 3).join(":");
  if (!BODY_GROUP.test(group)) return undefined;
  const tail = parts[parts.length - 1];
  const clean = tail.length >= 2 && tail.startsWith(",") && tail.endsWith(",") && !key.slice(0, key.length - tail.length).includes(",");
  return { group, ids: clean ? tail.slice(1, -1).split(",").filter(Boolean) : [ANY_SHOWN] };
}

/** For the pattern of the bodies that show one event (`RESP:1:B:**,12,**`, stalePatterns): the group and the id. */
export function bodyPatternId(pattern: string): { group: string; id: string } | undefined {
  const m = BODY_PATTERN.exec(pattern);
  return m ? { group: m[1], id: m[2] } : undefined;
}

/** Whether a key is a plain list page's (its value names the body's key). */
export function isListKey(key: string): boolean {
  const first = key.indexOf(":");
  const second = key.indexOf(":", first + 1);
  return key.startsWith("L:", second + 1);
}

/** A stored write, as the store layer saw it. */
export interface Write {
  /** The collection written (events, venues, organizers, terms, translations, …). */
  collection: string;
  /** The written record's id, when the write was of one record. */
  id?: number;
  /** Whether the record is part of a recurring series (its pages then depend on one another). */
  series?: boolean;
  /** The fields the write changed, when it saw the record before (an update); unknown: any field. */
  changed?: readonly string[];
}

/** The fields whose stored values differ between two versions of a record (top-level, by value). */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)]))
    if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) out.push(k);
  return out;
}

/** Whether an event's write changed only what no plain list page depends on (PRESENTATION_FIELDS). */
export function presentational(write: Write): boolean {
  return write.changed !== undefined && write.changed.every(field => PRESENTATION_FIELDS.has(field));
}

const COLLECTION_KIND: Record<string, RecordKind> = { events: "event", venues: "venue", organizers: "organizer" };

/** Every kept answer of every site. */
export const EVERYTHING = ["**"];

const SPACES: CacheSpace[] = ["RESP", "ACT"];

/** Every kept answer of one site. */
export function sitePatterns(site: number): string[] {
  return SPACES.map(space => `${space}:${site}:**`);
}

/** The kept pages of one site's change feed (the gateway keeps them; no action caches the feed). */
export function feedPatterns(site: number): string[] {
  return [`RESP:${site}:F:**`];
}

/**
 * The patterns of the keys a move of term counts on `site` may have made stale (an event write that
 * changed which published events carry some terms; their ancestors' `tree_count` moves too): every term
 * as events embed it and every answer showing counts — the site's `S` answers (term pages and lists,
 * `hide_empty`), every event page, list page and body (events embed their terms) — and the feed's pages
 * (each term's `updated` entry). A venue's or organizer's page and entries show no term: they stay, so the
 * next event page embeds them from the cache (docs/caching.md#embedded-records).
 */
export function termCountPatterns(site: number): string[] {
  return [
    ...SPACES.flatMap(space => [`${space}:${site}:S:**`, `${space}:${site}:E**`, `${space}:${site}:T**`]),
    `RESP:${site}:L:**`, `RESP:${site}:B:**`, ...feedPatterns(site)
  ];
}

/**
 * The patterns of the keys `write` on `site` may have made stale, in every space:
 * - an event written alone: the site's `S` answers, that event's page and the list bodies that show it;
 *   the plain list pages too (which events they show, their totals) unless it changed only
 *   PRESENTATION_FIELDS; the feed's pages (its entry is stored with it);
 * - a venue or organizer written alone: its page, the site's `S` answers, every event page and list
 *   page (events embed it), and the feed's pages;
 * - an event of a series, a write of many records, terms (their counts included), translations or anything
 *   else: all of the site.
 */
export function stalePatterns(site: number, write: Write): string[] {
  const kind = COLLECTION_KIND[write.collection];
  if (!kind || write.id === undefined || (kind === "event" && write.series)) return sitePatterns(site);
  const own = dependencyTag({ kind, id: write.id });
  if (kind === "event") {
    return [
      ...SPACES.flatMap(space => [`${space}:${site}:S:**`, `${space}:${site}:${own}:**`]),
      `RESP:${site}:B:**,${write.id},**`,
      ...(presentational(write) ? [] : [`RESP:${site}:L:**`]),
      ...feedPatterns(site)
    ];
  }
  return [
    ...SPACES.flatMap(space => [`${space}:${site}:S:**`, `${space}:${site}:${own}:**`, `${space}:${site}:E**`]),
    `RESP:${site}:L:**`, `RESP:${site}:B:**`, ...feedPatterns(site)
  ];
}

/** Whether a stored record belongs to a recurring series (its first event or another occurrence, lib/events/series.ts). */
export function inSeries(doc: Record<string, unknown> | null | undefined): boolean {
  if (!doc) return false;
  return doc.series_lines !== undefined || (doc.post_parent !== undefined && doc.post_parent !== null && doc.post_parent !== 0);
}
