/**
 * A site serving The Events Calendar's REST API (`tribe/events/v1`) or this service's (`calendar/events/v1`)
 * read into the inputs of our writes (docs/imports.md#the-events-calendar): WordPress discovery of the
 * REST root, the list addresses page by page, and each source record as the params of our create/update
 * with the source's ids mapped to ours. Pure: no I/O.
 */
import { importedFields } from "../records/field-table";
import { EVENT_FIELDS } from "../events/event-fields";
import { ORGANIZER_FIELDS } from "../linked/organizer-fields";
import { VENUE_FIELDS } from "../linked/venue-fields";

/** The namespaces a TEC source may serve, in the order they are tried. */
export const TEC_NAMESPACES = ["tribe/events/v1", "calendar/events/v1"] as const;

/** The source's lists, in the order they are imported (terms before the events that name them). */
export type TecList = "categories" | "tags" | "venues" | "organizers" | "events";

/** Records asked for per page (TEC's and this service's maximum). */
export const TEC_PER_PAGE = 50;

/** Explicit dates spanning every event: the source's default list window is not the whole calendar. */
export const TEC_WINDOW = { start_date: "1900-01-01 00:00:00", end_date: "2999-12-31 23:59:59" };

/** Statuses asked for (what the credentials may read of them is the source's decision, C64: what an import brings). */
export const TEC_STATUSES = "publish,future,draft,pending,private";

type Rec = Record<string, unknown>;

/** The REST root a `Link: <…>; rel="https://api.w.org/"` header names, if any. */
export function restRootFromLink(link: string | string[] | undefined): string | undefined {
  for (const header of Array.isArray(link) ? link : link ? [link] : []) {
    for (const part of header.split(/,(?=\s*<)/)) {
      const m = /^\s*<([^>]+)>\s*;(.*)$/.exec(part);
      if (m && /rel\s*=\s*"?https:\/\/api\.w\.org\/"?/i.test(m[2])) return m[1].endsWith("/") ? m[1] : `${m[1]}/`;
    }
  }
  return undefined;
}

/** The REST root to try when the site sends no discovery header: `{site}/wp-json/`. */
export function defaultRestRoot(site: string): string {
  const u = new URL(site);
  u.search = "";
  u.hash = "";
  const path = u.pathname.replace(/\/+$/, "");
  // the address may already be the REST root or a namespace under it
  const at = path.indexOf("/wp-json");
  u.pathname = at >= 0 ? `${path.slice(0, at)}/wp-json/` : `${path}/wp-json/`;
  return u.toString();
}

/** The address of one page of a list. */
export function listUrl(ns: string, list: TecList, page: number, statuses = true): string {
  const u = new URL(`${ns.replace(/\/$/, "")}/${list}`);
  u.searchParams.set("page", String(page));
  u.searchParams.set("per_page", String(TEC_PER_PAGE));
  if (list === "categories" || list === "tags") u.searchParams.set("hide_empty", "0");
  if ((list === "venues" || list === "organizers") && statuses) u.searchParams.set("status", TEC_STATUSES);
  if (list === "events") {
    u.searchParams.set("start_date", TEC_WINDOW.start_date);
    u.searchParams.set("end_date", TEC_WINDOW.end_date);
    if (statuses) u.searchParams.set("status", TEC_STATUSES);
  }
  return u.toString();
}

/** The records of a list page's body (`{events: […]}`, `{categories: […]}`…). */
export function pageRecords(list: TecList, body: unknown): Rec[] | undefined {
  const b = body as Rec | null;
  const records = b && typeof b === "object" ? b[list] : undefined;
  return Array.isArray(records) ? (records as Rec[]) : undefined;
}

/** The number of pages a list page says there are (`total_pages`), at least the page read. */
export function totalPagesOf(body: unknown, headers: Record<string, unknown>, page: number): number {
  const fromBody = Number((body as Rec | null)?.total_pages);
  const fromHeader = Number(headers["x-tec-totalpages"] ?? headers["x-wp-totalpages"]);
  const n = Number.isFinite(fromBody) && fromBody > 0 ? fromBody : Number.isFinite(fromHeader) && fromHeader > 0 ? fromHeader : page;
  return Math.max(n, page);
}

/** Terms with every parent before its children (a parent outside the list counts as none). */
export function parentsFirst(terms: Rec[]): Rec[] {
  const byId = new Map(terms.map(t => [Number(t.id), t]));
  const out: Rec[] = [];
  const placed = new Set<number>();
  const visit = (t: Rec, seen: Set<number>): void => {
    const id = Number(t.id);
    if (placed.has(id) || seen.has(id)) return;
    seen.add(id);
    const parent = byId.get(Number(t.parent));
    if (parent) visit(parent, seen);
    placed.add(id);
    out.push(t);
  };
  for (const t of terms) visit(t, new Set());
  return out;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === "boolean" ? v : v === "1" || v === 1 ? true : v === "0" || v === 0 || v === "" ? false : undefined);

/** Copies the fields of `from` named in `names` that hold a value (strings, numbers, booleans). */
function pick(from: Rec, names: readonly string[]): Rec {
  const out: Rec = {};
  for (const n of names) {
    const v = from[n];
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[n] = v;
  }
  return out;
}

/** An image object's URL (TEC answers `false` when there is none). */
function imageUrl(v: unknown): string | undefined {
  const url = v && typeof v === "object" ? str((v as Rec).url) : undefined;
  return url && /^https?:\/\//i.test(url) ? url : undefined;
}

/** A term's create params; `parent` already mapped to ours (0: none). */
export function termInput(r: Rec, parent: number | undefined): Rec {
  const out: Rec = { name: decodeEntities(str(r.name) ?? "") };
  if (str(r.slug)) out.slug = r.slug;
  if (str(r.description)) out.description = r.description;
  if (parent !== undefined && parent > 0) out.parent = parent;
  return out;
}

/** `&amp;` `&lt;` `&gt;` `&quot;` `&#039;` as the characters: names are stored escaped (D27: term names are sanitised) and answered so. */
export function decodeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#0?39);/g, (_m, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: "\"" } as Record<string, string>)[e] ?? "'");
}

/** The venue and organizer fields an import copies as the source answers them, or reads as a flag (their field tables' `imported`). */
const VENUE_VALUES = importedFields(VENUE_FIELDS, "value");
const VENUE_FLAGS = importedFields(VENUE_FIELDS, "flag");
const ORGANIZER_VALUES = importedFields(ORGANIZER_FIELDS, "value");

/** Common post fields: status (or the import's), publication date, image by URL. */
function postFields(r: Rec, status: string | undefined): Rec {
  const out: Rec = {};
  const s = status ?? str(r.status);
  if (s) out.status = s;
  // a draft's unset publication date is answered as zeros (WordPress): not a date to send back
  const real = (v: unknown) => typeof v === "string" && v !== "" && !v.startsWith("0000-00-00");
  if (real(r.date)) out.date = r.date;
  if (real(r.date_utc)) out.date_utc = r.date_utc;
  const image = imageUrl(r.image);
  if (image) out.image = image;
  return out;
}

/** A venue's create/update params. */
export function venueInput(r: Rec, status?: string): Rec {
  const out: Rec = { ...pick(r, VENUE_VALUES), ...postFields(r, status) };
  for (const f of VENUE_FLAGS) if (bool(r[f]) !== undefined) out[f] = bool(r[f]);
  for (const f of ["geo_lat", "geo_lng"]) if (Number.isFinite(Number(r[f])) && r[f] !== null && r[f] !== "") out[f] = Number(r[f]);
  return out;
}

/** An organizer's create/update params. */
export function organizerInput(r: Rec, status?: string): Rec {
  return { ...pick(r, ORGANIZER_VALUES), ...postFields(r, status) };
}

/** The source's ids mapped to ours, per kind. */
export interface IdMaps {
  categories: Map<number, number>;
  tags: Map<number, number>;
  venues: Map<number, number>;
  organizers: Map<number, number>;
}

/** Ids of a list of records (or one record, or bare ids), mapped; unknown ones left out. */
function mapped(v: unknown, map: Map<number, number>): number[] {
  const list = Array.isArray(v) ? v : v && typeof v === "object" && Object.keys(v).length ? [v] : [];
  const out: number[] = [];
  for (const item of list) {
    const id = typeof item === "number" ? item : Number((item as Rec)?.id);
    const ours = map.get(id);
    if (ours !== undefined && !out.includes(ours)) out.push(ours);
  }
  return out;
}

/** The event fields an import copies, by how it reads them from the source (lib/records/field-table.ts `ImportWay`); the others it maps below. */
const EVENT_VALUES = importedFields(EVENT_FIELDS, "value");
const EVENT_TEXTS = importedFields(EVENT_FIELDS, "text");
const EVENT_FLAGS = importedFields(EVENT_FIELDS, "flag");

/** An event's create/update params, its links mapped to ours. */
export function eventInput(r: Rec, maps: IdMaps, status?: string): Rec {
  // a create needs a title: an empty one is refused with the record's other problems
  const out: Rec = { title: str(r.title) ?? "", ...pick(r, EVENT_VALUES), ...postFields(r, status) };
  for (const f of EVENT_TEXTS) if (str(r[f])) out[f] = r[f];
  for (const f of EVENT_FLAGS) if (bool(r[f]) !== undefined) out[f] = bool(r[f]);
  const cost = costInput(r);
  if (cost) out.cost = cost;
  out.categories = mapped(r.categories, maps.categories);
  out.tags = mapped(r.tags, maps.tags);
  out.venue = mapped(r.venue, maps.venues);
  out.organizer = mapped(r.organizer, maps.organizers);
  if (Array.isArray(r.recurrence) && r.recurrence.length) out.recurrence = r.recurrence;
  // without a website of its own an event answers its permalink there: the source's address, not a field to copy
  if (out.website !== undefined && out.website === r.url) delete out.website;
  return out;
}

/**
 * The cost as it was entered: `cost` is answered formatted (a default currency symbol added), so the
 * values of `cost_details` with its own symbol where it stands, else the formatted text.
 */
function costInput(r: Rec): string | undefined {
  const d = r.cost_details as Rec | undefined;
  const values = Array.isArray(d?.values) ? (d!.values as unknown[]).map(String).filter(v => v !== "") : [];
  // a cost in words ("Free", "Donation") is answered in `cost` as entered, its values as slugs: the text is kept
  if (!values.length || !values.some(v => /\d/.test(v))) return str(r.cost) || undefined;
  const symbol = str(d!.currency_symbol) ?? "";
  const text = values.join(" - ");
  return d!.currency_position === "postfix" ? `${text}${symbol}` : `${symbol}${text}`;
}

/**
 * The events of a page that are occurrences of a series of the source other than its first (they come
 * with the first event's `recurrence`): those are not imported one by one.
 */
export function isLaterOccurrence(r: Rec, seriesIds: ReadonlySet<number>): boolean {
  const parent = Number(r.post_parent);
  return Number.isInteger(parent) && parent > 0 && seriesIds.has(parent) && !Array.isArray(r.recurrence);
}
