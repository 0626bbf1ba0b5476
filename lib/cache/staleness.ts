/**
 * What a kept answer depends on, and what a write makes stale (docs/caching.md): the one place that
 * decides both, for the gateway's kept answers and the services' action cache alike.
 *
 * Every kept answer's key begins `<space>:<site>:<dependency>:`, where the dependency is
 * - `E<id>`, `V<id>`, `O<id>`: the page of one event, venue or organizer (`GET …/events/{id}` and the
 *   like), which depends on that record and on what it embeds;
 * - `S`: anything else of the site (lists, totals, terms, by-slug pages, documents), which any write of
 *   the site may change.
 * A write then cleans only the keys it can have made stale, as key-prefix patterns (`prefix**`), which
 * every cacher (memory or Redis) cleans alike.
 */

/** Kept answers of the gateway and of the services' `cached` actions. */
export type CacheSpace = "RESP" | "ACT";

export type RecordKind = "event" | "venue" | "organizer";

const KIND_LETTER: Record<RecordKind, string> = { event: "E", venue: "V", organizer: "O" };

/** What one kept answer depends on: one record's page, or the rest of the site. */
export type Dependency = { kind: RecordKind; id: number } | { kind: "site" };

export function dependencyTag(dep: Dependency): string {
  return dep.kind === "site" ? "S" : `${KIND_LETTER[dep.kind]}${dep.id}`;
}

/** The beginning of every key of `space` under `dep` on `site`. */
export function keyPrefix(space: CacheSpace, site: number, dep: Dependency): string {
  return `${space}:${site}:${dependencyTag(dep)}:`;
}

const RECORD_PATH = /\/(events|venues|organizers)\/(\d+)\/?(?:\?|$)/;
const PATH_KIND: Record<string, RecordKind> = { events: "event", venues: "venue", organizers: "organizer" };

/**
 * What the answer of a GET depends on, from its URL (path with any language prefix and query): a
 * record's own page, or the site. `namespacePath` is the REST namespace (`/wp-json/calendar/events/v1`).
 */
export function dependencyOfUrl(url: string, namespacePath: string): Dependency {
  const at = url.indexOf(namespacePath);
  if (at < 0) return { kind: "site" };
  const m = RECORD_PATH.exec(url.slice(at + namespacePath.length));
  if (!m || m.index !== 0) return { kind: "site" };
  return { kind: PATH_KIND[m[1]], id: Number(m[2]) };
}

/** A stored write, as the store layer saw it. */
export interface Write {
  /** The collection written (events, venues, organizers, terms, translations, …). */
  collection: string;
  /** The written record's id, when the write was of one record. */
  id?: number;
  /** Whether the record is part of a recurring series (its pages then depend on one another). */
  series?: boolean;
}

const COLLECTION_KIND: Record<string, RecordKind> = { events: "event", venues: "venue", organizers: "organizer" };

/** Every kept answer of every site. */
export const EVERYTHING = ["**"];

const SPACES: CacheSpace[] = ["RESP", "ACT"];

/** Every kept answer of one site. */
export function sitePatterns(site: number): string[] {
  return SPACES.map(space => `${space}:${site}:**`);
}

/**
 * The patterns of the keys `write` on `site` may have made stale, in every space (prefix patterns, the
 * cachers' quick case):
 * - an event, venue or organizer written alone: the site's `S` answers and that record's page; a venue or
 *   organizer is embedded in event pages, so those go too;
 * - an event of a series, a write of many records, terms, translations or anything else: all of the site.
 */
export function stalePatterns(site: number, write: Write): string[] {
  const kind = COLLECTION_KIND[write.collection];
  if (!kind || write.id === undefined || (kind === "event" && write.series)) return sitePatterns(site);
  const tags = ["S", dependencyTag({ kind, id: write.id })];
  return SPACES.flatMap(space => [
    ...tags.map(tag => `${space}:${site}:${tag}:**`),
    ...(kind === "event" ? [] : [`${space}:${site}:E**`])
  ]);
}

/** Whether a stored record belongs to a recurring series (its first event or another occurrence, lib/events/series.ts). */
export function inSeries(doc: Record<string, unknown> | null | undefined): boolean {
  if (!doc) return false;
  return doc.series_lines !== undefined || (doc.post_parent !== undefined && doc.post_parent !== null && doc.post_parent !== 0);
}
