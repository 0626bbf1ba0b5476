/**
 * The event as stored (EventDoc) and what its answer is shaped from (docs/records.md#event-fields): the
 * stored document, the records it embeds, the site it answers for and the caller's options.
 */
import type { PostDoc } from "../posts/post-doc";
import type { EventStatusFields } from "./event-status";

/** A series member's fields (lib/events/series.ts): its series' first event, on that one the rule lines, and how the series is planned. */
export interface SeriesFields {
  series_id?: number;
  series_identity?: string;
  series_key?: string;
  series_overrides?: string[];
  series_lines?: string[];
  series_shared?: Record<string, unknown>;
  series_horizon?: string;
  /** Counts the changes of a series' own fields (compare-and-set, domain/events/series-planner.ts). */
  series_version?: number;
  /** Who plans the series' occurrences now, and until when (`seriesClaim`): the others leave it alone. */
  series_claim?: string;
}

export interface EventDoc extends PostDoc, EventStatusFields, SeriesFields {
  _id: number;
  /** Set on events an import created (lib/imports/source.ts). */
  import_source?: { import: number; source_id: string };
  author: number;
  status: string;
  date: string;
  date_utc: string;
  modified: string;
  modified_utc: string;
  title: string;
  description?: string;
  excerpt?: string;
  slug: string;
  image?: number | null;
  all_day: boolean;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  timezone: string;
  cost: string[];
  currency_symbol: string;
  currency_position: string;
  website: string | null;
  show_map?: boolean;
  show_map_link?: boolean;
  hide_from_listings: boolean;
  sticky: boolean;
  featured: boolean;
  ticketed?: boolean;
  categories: number[];
  tags: number[];
  venues: number[];
  organizers: number[];
  post_parent?: number;
  post_password?: string;
  lang?: string;
}

/** A venue, organizer or term record as an event embeds it. */
export interface Embedded { id?: unknown; name?: unknown; json_ld?: unknown }

export interface EventEmbeds {
  venues: Record<string, Embedded>;
  organizers: Record<string, Embedded>;
  terms: Record<string, Embedded>;
  images: Map<number, { url: string; id: number; extension: string }>;
}

export interface RecordContext {
  site: string;
  ns: string;
  baseUrl: string;
}

export interface RecordOptions {
  /** Add `json_ld` (single GETs when the caller may see it). */
  jsonLd: boolean;
  /** The caller may not see the protected fields. */
  blank: boolean;
  /** Text in the language served (falls back to the stored text). */
  text?: { title?: string; description?: string; excerpt?: string; event_status_reason?: string };
  /** The event's custom fields as answered (domain/fields/record-fields.ts): absent, none. */
  fields?: { meta: Record<string, unknown>; custom_fields: Record<string, string> | []; additional: Array<Record<string, unknown>> };
}
