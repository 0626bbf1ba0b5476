/**
 * The event record as the API returns it (docs/records.md#event-fields): key order, types, date details, cost, website,
 * embedded venue / organizers / terms, password blanking and JSON-LD. Pure: the service hands in the
 * stored document and what it fetched for the page (embeds).
 */
import { isoWithOffset } from "../time/dates";
import { stripTags } from "../text/sanitize";
import { blankProtected } from "../posts/password";
import { globalId, permalink } from "../posts/permalink";
import { protectedBlanks, shapedFields, shapeRecord } from "../records/field-table";
import { statusJsonLd, statusRecordFields } from "./event-status";
import { EVENT_FIELDS } from "./event-fields";
import type { Embedded, EventDoc, EventEmbeds, RecordContext, RecordOptions } from "./event-doc";

/** The fields the table shapes, in answer order, and the password-protected keys (lib/events/event-fields.ts). */
const SHAPED = shapedFields(EVENT_FIELDS);
export const EVENT_BLANKS = protectedBlanks(EVENT_FIELDS);

const CURRENCY_CODES: Record<string, string> = { $: "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "R$": "BRL" };

/** What the JSON-LD of an event reads of its output record (a type, so a record's keys can be read as it). */
type JsonLdSource = {
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
};

/** What the JSON-LD reads of the stored event beside its output record. */
export type JsonLdDoc = Pick<EventDoc, "start_date" | "end_date" | "timezone" | "previous_utc_start_date" | "cost" | "currency_symbol" | "date_utc">;

export function eventJsonLd(out: JsonLdSource, doc: JsonLdDoc): Record<string, unknown> {
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
export function withAdditional(ld: Record<string, unknown>, additional: Array<Record<string, unknown>> | undefined): Record<string, unknown> {
  return additional?.length ? { ...ld, additionalProperty: additional } : ld;
}

/** The keys of the record that embed other records, in answer order. */
const LINKED_KEYS = new Set(["categories", "tags", "venue", "organizer"]);
const LINKED = SHAPED.filter(([name]) => LINKED_KEYS.has(name));

/**
 * The values of the keys that embed other records, shaped by the table's own shapers: they read the
 * event's links, the embedded records and the venues found, nothing else of the shaping.
 */
export function linkedValues(links: Pick<EventDoc, "venues" | "organizers" | "categories" | "tags">, embeds: EventEmbeds): Record<string, unknown> {
  const venues = links.venues.map(id => embeds.venues[id]).filter(Boolean);
  // these keys' shapers read no other part of the shaping (their entries in lib/events/event-fields.ts)
  const s = { doc: links, embeds, venues } as unknown as Parameters<(typeof SHAPED)[number][1]>[0];
  return Object.fromEntries(LINKED.map(([name, shape]) => [name, shape(s)]));
}

/** The output record of one event. */
export function eventRecord(doc: EventDoc, rc: RecordContext, embeds: EventEmbeds, opts: RecordOptions): Record<string, unknown> {
  const gid = globalId(rc.baseUrl, doc._id);
  const venues = doc.venues.map(id => embeds.venues[id]).filter(Boolean);
  const status = statusRecordFields(doc, opts.text?.event_status_reason);
  // the table's shapers answer these keys with these types (test/unit/response-schemas.test.ts checks the record against its schema)
  const out = shapeRecord(SHAPED, { doc, rc, embeds, opts, gid, url: permalink(rc.site, "tribe_events", doc), venues, status });
  // a protected event's online URL is blanked for the caller: its JSON-LD names none either
  const record: Record<string, unknown> = opts.jsonLd ? { ...out, json_ld: withAdditional(eventJsonLd((opts.blank ? { ...out, online_url: null } : out) as JsonLdSource, doc), opts.fields?.additional) } : out;
  // C51: a series' first event carries its rule lines, every other occurrence its first event's id.
  if (doc.series_id) {
    if (doc.series_id === doc._id) record.recurrence = [...(doc.series_lines ?? [])];
    else record.post_parent = doc.series_id;
  }
  return opts.blank ? blankProtected(record, EVENT_BLANKS) : record;
}
