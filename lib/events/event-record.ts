/**
 * The event record as the API returns it (docs/records.md#event-fields): key order, types, date details, cost, website,
 * embedded venue / organizers / terms, password blanking and JSON-LD. Pure: the service hands in the
 * stored document and what it fetched for the page (embeds).
 */
import { autop } from "../autop";
import { costDetails, formatCost } from "../cost";
import { dateDetails, isoWithOffset, timezoneAbbr } from "../dates";
import { escapeUrlForOutput, stripTags } from "../sanitize";
import { blankProtected, EVENT_BLANKS } from "../posts/password";
import { globalId, permalink } from "../posts/permalink";
import type { PostDoc } from "../posts/post-doc";
import { statusJsonLd, statusRecordFields, type EventStatusFields } from "./event-status";

export interface EventDoc extends PostDoc, EventStatusFields {
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
  /** A series member (lib/events/series.ts): its series' first event, and on that one the rule lines. */
  series_id?: number;
  series_lines?: string[];
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

const byName = (a: Embedded, b: Embedded) => String(a.name).localeCompare(String(b.name), undefined, { sensitivity: "base" }) || Number(a.id) - Number(b.id);

const CURRENCY_CODES: Record<string, string> = { $: "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "R$": "BRL" };

/** What the JSON-LD of an event reads of its output record. */
interface JsonLdSource {
  title: string;
  excerpt: string;
  description: string;
  image: { url: string } | boolean;
  url: string;
  venue: Embedded | Embedded[];
  organizer: Embedded[];
  cost_details: { values: string[] };
  event_status: string;
  attendance_mode: string;
  online_url: string | null;
}

function eventJsonLd(out: JsonLdSource, doc: EventDoc): Record<string, unknown> {
  const ld: Record<string, unknown> = {
    "@context": "http://schema.org",
    "@type": "Event",
    name: out.title,
    description: stripTags(out.excerpt || out.description || "").trim()
  };
  if (typeof out.image === "object" && out.image.url) ld.image = out.image.url;
  ld.url = out.url;
  ld.startDate = isoWithOffset(doc.start_date, doc.timezone);
  ld.endDate = isoWithOffset(doc.end_date, doc.timezone);
  const venue = Array.isArray(out.venue) ? out.venue[0] : out.venue;
  Object.assign(ld, statusJsonLd({ ...out, timezone: doc.timezone, previous_utc_start_date: doc.previous_utc_start_date }, venue?.json_ld || undefined));
  const organizer = out.organizer[0];
  if (organizer && organizer.json_ld) ld.organizer = organizer.json_ld;
  if (doc.cost.length) {
    const values: string[] = out.cost_details.values;
    const offer: Record<string, unknown> = { "@type": "Offer", price: values[0] ?? "" };
    const code = CURRENCY_CODES[doc.currency_symbol || "$"];
    if (code) offer.priceCurrency = code;
    Object.assign(offer, { url: out.url, category: "primary", availability: "inStock", validFrom: isoWithOffset(doc.date_utc, "UTC") });
    ld.offers = offer;
  }
  ld.performer = "Organization";
  return ld;
}

/** schema.org `additionalProperty`: the event's custom field values (docs/records.md#custom-fields), when it has some. */
function withAdditional(ld: Record<string, unknown>, additional: Array<Record<string, unknown>> | undefined): Record<string, unknown> {
  return additional?.length ? { ...ld, additionalProperty: additional } : ld;
}

/** The output record of one event. */
export function eventRecord(doc: EventDoc, rc: RecordContext, embeds: EventEmbeds, opts: RecordOptions): Record<string, unknown> {
  const gid = globalId(rc.baseUrl, doc._id);
  const url = permalink(rc.site, "tribe_events", doc);
  const title = opts.text?.title ?? doc.title;
  const description = opts.text?.description ?? doc.description ?? "";
  const excerpt = opts.text?.excerpt ?? doc.excerpt ?? "";
  const venues = doc.venues.map(id => embeds.venues[id]).filter(Boolean);
  const website = doc.website === null || doc.website === undefined ? url : doc.website === "" ? "" : escapeUrlForOutput(doc.website);
  const out = {
    id: doc._id,
    global_id: gid,
    global_id_lineage: [gid],
    author: String(doc.author),
    status: doc.status,
    date: doc.date,
    date_utc: doc.date_utc,
    modified: doc.modified,
    modified_utc: doc.modified_utc,
    url,
    rest_url: `${rc.ns}/events/${doc._id}`,
    title: String(title).trim(),
    description: autop(description),
    excerpt: autop(excerpt),
    slug: doc.slug,
    image: (doc.image && embeds.images.get(doc.image)) || false,
    all_day: !!doc.all_day,
    start_date: doc.start_date,
    start_date_details: dateDetails(doc.start_date),
    end_date: doc.end_date,
    end_date_details: dateDetails(doc.end_date),
    utc_start_date: doc.utc_start_date,
    utc_start_date_details: dateDetails(doc.utc_start_date),
    utc_end_date: doc.utc_end_date,
    utc_end_date_details: dateDetails(doc.utc_end_date),
    timezone: doc.timezone,
    timezone_abbr: timezoneAbbr(doc.timezone, doc.start_date),
    cost: formatCost(doc.cost, doc.currency_symbol, doc.currency_position),
    cost_details: costDetails(doc.cost, doc.currency_symbol, doc.currency_position),
    website,
    show_map: doc.show_map ?? true,
    show_map_link: doc.show_map_link ?? true,
    hide_from_listings: !!doc.hide_from_listings,
    sticky: !!doc.sticky,
    featured: !!doc.featured,
    ticketed: !!doc.ticketed,
    ...statusRecordFields(doc, opts.text?.event_status_reason),
    categories: doc.categories.map(id => embeds.terms[id]).filter(Boolean).sort(byName),
    tags: doc.tags.map(id => embeds.terms[id]).filter(Boolean).sort(byName),
    venue: venues.length === 0 ? [] : venues.length === 1 ? venues[0] : venues,
    organizer: doc.organizers.map(id => embeds.organizers[id]).filter(Boolean),
    custom_fields: opts.fields?.custom_fields ?? [],
    meta: opts.fields?.meta ?? {}
  };
  // a protected event's online URL is blanked for the caller: its JSON-LD names none either
  const record: Record<string, unknown> = opts.jsonLd ? { ...out, json_ld: withAdditional(eventJsonLd(opts.blank ? { ...out, online_url: null } : out, doc), opts.fields?.additional) } : out;
  // C51: a series' first event carries its rule lines, every other occurrence its first event's id.
  if (doc.series_id) {
    if (doc.series_id === doc._id) record.recurrence = [...(doc.series_lines ?? [])];
    else record.post_parent = doc.series_id;
  }
  return opts.blank ? blankProtected(record, EVENT_BLANKS) : record;
}
