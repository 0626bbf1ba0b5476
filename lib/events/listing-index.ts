/**
 * The events list on the embedded store, answered from an ordered in-memory index instead of a store
 * scan. NeDB picks candidates from one index but then matches, sorts and counts every candidate: the
 * default list (all upcoming events) touched every stored event twice per request. This index keeps,
 * per status, the listed (not hidden) events in list order (start, publication date, id), so a page is
 * a binary search plus a merge, and the total a sum of range sizes. A bound on the end (the default
 * window has one) is checked only near the edges of the start range: no event lasts longer than the
 * longest one seen, so an event starting well inside the range ends inside it too. Other filters scan
 * the start range, on compact entries, or the events of the venues / organizers a filter names when
 * those are fewer.
 *
 * It answers exactly what `buildEventQuery` + `eventSort` select (test/unit/listing-index.test.ts
 * checks the two against each other on a real NeDB); `search` runs as a compiled condition on the
 * stored documents (lib/query-match.ts); `orderby=distance` stays a store query. It is only correct
 * while one process owns the events store: the embedded store.
 */
import { EventListFilters, searchPart } from "./event-query";
import { compareValues, compileQuery, Predicate, UnsupportedQuery } from "../query-match";
import { fromDb, toDb } from "../dates";
import { requiredText, searchTextOf } from "./search-text";

/** At most this many code units of folded search text are kept (~64 MB). */
const SEARCH_TEXT_BUDGET = 32 * 1024 * 1024;

/** What the list needs of an event. */
export interface ListingEntry {
  id: number;
  start: string;
  end: string;
  date: string;
  status: string;
  hidden: boolean;
  featured: boolean;
  ticketed: boolean;
  postParent?: number;
  modifiedUtc: string;
  categories: readonly number[];
  tags: readonly number[];
  venues: readonly number[];
  organizers: readonly number[];
  /** The stored document itself (frozen by the store), for conditions on other fields (`search`). */
  doc: ListedDoc;
  /** Its searchable text, case-folded (lib/events/search-text.ts), made by the first search that needs it. */
  searchText?: string;
}

export type LinkField = "venues" | "organizers";

/** The stored event fields the index reads. */
export interface ListedDoc {
  _id: number;
  start_date: string;
  end_date: string;
  date: string;
  status: string;
  hide_from_listings?: boolean;
  featured?: boolean;
  ticketed?: boolean;
  post_parent?: number;
  modified_utc: string;
  categories?: number[];
  tags?: number[];
  venues?: number[];
  organizers?: number[];
  [field: string]: unknown;
}

export function entryOf(doc: ListedDoc): ListingEntry {
  return {
    id: doc._id,
    start: doc.start_date,
    end: doc.end_date,
    date: doc.date,
    status: doc.status,
    hidden: doc.hide_from_listings === true,
    featured: doc.featured === true,
    ticketed: doc.ticketed === true,
    postParent: doc.post_parent,
    modifiedUtc: doc.modified_utc,
    categories: doc.categories ?? [],
    tags: doc.tags ?? [],
    venues: doc.venues ?? [],
    organizers: doc.organizers ?? [],
    doc,
    searchText: undefined
  };
}

/** List order: start (wall clock), publication date, id. */
function listOrder(a: ListingEntry, b: ListingEntry): number {
  return compareValues(a.start, b.start) || compareValues(a.date, b.date) || a.id - b.id;
}
/** Order of an `include` list: publication date, id. */
function includeOrder(a: ListingEntry, b: ListingEntry): number {
  return compareValues(a.date, b.date) || a.id - b.id;
}

/** First position in `list` (sorted by `listOrder`) whose start is not before `start` (`after`: after it). */
function lowerBound(list: readonly ListingEntry[], start: string, after: boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const s = list[mid].start;
    if (s === undefined || s < start || (after && s === start)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Position of `entry` in `list`, or where it would go. */
function positionOf(list: readonly ListingEntry[], entry: ListingEntry): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (listOrder(list[mid], entry) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const LINK_FIELDS: readonly LinkField[] = ["venues", "organizers"];

function insertSorted(list: ListingEntry[], entry: ListingEntry): void {
  list.splice(positionOf(list, entry), 0, entry);
}
function removeSorted(list: ListingEntry[] | undefined, entry: ListingEntry): void {
  if (!list) return;
  const at = positionOf(list, entry);
  if (list[at] === entry) list.splice(at, 1);
}

const both = (a: Keep | undefined, b: Keep | undefined): Keep | undefined => (a && b ? e => a(e) && b(e) : a ?? b);

const anyIn = (values: readonly number[], set: ReadonlySet<number>) => values.some(v => set.has(v));

type Keep = (e: ListingEntry) => boolean;

/** An entry's folded search text, or undefined when none is kept for it. */
type TextOf = (e: ListingEntry) => string | undefined;

/**
 * The `search` condition run on the stored documents; undefined when there is none. The text a match needs
 * is looked for in the entry's folded copy first: an entry without it cannot match.
 */
function searchPredicate(f: EventListFilters, textOf: TextOf): Keep | undefined {
  const query = searchPart(f);
  if (!query) return undefined;
  const match: Predicate = compileQuery(query);
  const needs = requiredText(query);
  if (!needs.length) return e => match(e.doc);
  return e => {
    const text = textOf(e);
    return (text === undefined || needs.every(n => text.includes(n))) && match(e.doc);
  };
}

/** The filters other than statuses and the date ranges, as one predicate (undefined: none). */
function entryPredicate(f: EventListFilters, textOf: TextOf): Keep | undefined {
  const tests: Keep[] = [];
  const search = searchPredicate(f, textOf);
  const set = (ids: number[] | undefined) => (ids ? new Set(ids) : undefined);
  const categories = set(f.categoryIds);
  if (categories) tests.push(e => anyIn(e.categories, categories));
  const tags = set(f.tagIds);
  if (tags) tests.push(e => anyIn(e.tags, tags));
  const venues = set(f.venueIds);
  if (venues) tests.push(e => anyIn(e.venues, venues));
  const organizers = set(f.organizerIds);
  if (organizers) tests.push(e => anyIn(e.organizers, organizers));
  if (f.featured !== undefined) tests.push(e => e.featured === f.featured);
  if (f.postParent !== undefined) tests.push(e => e.postParent === f.postParent);
  if (f.ticketed !== undefined) tests.push(e => e.ticketed === f.ticketed);
  const geoIn = set(f.geoVenues?.in);
  if (geoIn) tests.push(e => anyIn(e.venues, geoIn));
  const geoOut = set(f.geoVenues?.notIn);
  if (geoOut) tests.push(e => !anyIn(e.venues, geoOut));
  const modified = f.modified;
  if (modified) tests.push(e => (modified.after === undefined || e.modifiedUtc > modified.after) && (modified.before === undefined || e.modifiedUtc < modified.before));
  // the text last: the cheap tests first
  if (search) tests.push(search);
  if (!tests.length) return undefined;
  return e => tests.every(t => t(e));
}

/** A range of DB-format strings; each bound inclusive or not. */
interface Range {
  lo?: string;
  loOpen?: boolean;
  hi?: string;
  hiOpen?: boolean;
}

function inRange(v: string | undefined, r: Range): boolean {
  if (v === undefined) return false;
  if (r.lo !== undefined && (r.loOpen ? v <= r.lo : v < r.lo)) return false;
  if (r.hi !== undefined && (r.hiOpen ? v >= r.hi : v > r.hi)) return false;
  return true;
}

/** The tighter of two bounds (`upper`: the smaller one wins; on a tie the open one). */
function tighter(r: Range, side: "lo" | "hi", value: string | undefined, open: boolean): void {
  if (value === undefined) return;
  const cur = r[side];
  const openKey = side === "lo" ? "loOpen" : "hiOpen";
  if (cur === undefined || (side === "lo" ? value > cur : value < cur) || (value === cur && open)) {
    r[side] = value;
    r[openKey] = open;
  }
}

/** The start and end ranges of the date filters, as `buildEventQuery` applies them. */
function dateRanges(b: EventListFilters["bounds"]): { start: Range; end: Range } {
  const start: Range = {};
  const end: Range = {};
  tighter(start, "lo", b.start_date, false);
  tighter(start, "lo", b.starts_after, true);
  tighter(start, "hi", b.starts_before, true);
  tighter(end, "hi", b.end_date, false);
  tighter(end, "lo", b.ends_after, true);
  tighter(end, "hi", b.ends_before, true);
  return { start, end };
}

export interface ListingPage {
  ids: number[];
  total: number;
}

export class ListingIndex {
  private readonly byId = new Map<number, ListingEntry>();
  /** Listed (not hidden) entries per status, in list order. */
  private readonly byStatus = new Map<string, ListingEntry[]>();
  /** Listed entries per linked venue / organizer id, in list order (the `only_with_upcoming` filters). */
  private readonly linked: Record<LinkField, Map<number, ListingEntry[]>> = { venues: new Map(), organizers: new Map() };
  /** The longest duration (end − start) seen since the last load: never shrinks, so always an upper bound. */
  private longestMs = 0;
  /** Entries that end before they start (none when the store keeps start ≤ end). */
  private backwards = 0;
  /** Code units of folded search text kept (bounded: past the budget, searches test those entries exactly). */
  private searchTextUnits = 0;

  /** `searchTextBudget`: the most folded search text kept, in code units. */
  constructor(private readonly searchTextBudget = SEARCH_TEXT_BUDGET) {}

  private readonly textOf: TextOf = e => {
    if (e.searchText === undefined) {
      if (this.searchTextUnits >= this.searchTextBudget) return undefined;
      e.searchText = searchTextOf(e.doc);
      this.searchTextUnits += e.searchText.length;
    }
    return e.searchText;
  };

  get size(): number {
    return this.byId.size;
  }

  clear(): void {
    this.byId.clear();
    this.byStatus.clear();
    for (const map of Object.values(this.linked)) map.clear();
    this.longestMs = 0;
    this.backwards = 0;
    this.searchTextUnits = 0;
  }

  /** Many documents at once (start-up): one sort per status instead of one insertion each. */
  load(docs: Iterable<ListedDoc>): void {
    this.clear();
    for (const doc of docs) {
      const entry = entryOf(doc);
      this.byId.set(entry.id, entry);
      this.measure(entry, 1);
      if (entry.hidden) continue;
      this.bucket(entry.status).push(entry);
      for (const field of LINK_FIELDS) for (const id of entry[field]) this.linkedList(field, id).push(entry);
    }
    for (const list of this.byStatus.values()) list.sort(listOrder);
    for (const field of LINK_FIELDS) for (const list of this.linked[field].values()) list.sort(listOrder);
  }

  /** The document as stored now (after an insert or an update). */
  upsert(doc: ListedDoc): void {
    this.remove(doc._id);
    const entry = entryOf(doc);
    this.byId.set(entry.id, entry);
    this.measure(entry, 1);
    if (entry.hidden) return;
    insertSorted(this.bucket(entry.status), entry);
    for (const field of LINK_FIELDS) for (const id of entry[field]) insertSorted(this.linkedList(field, id), entry);
  }

  remove(id: number): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.byId.delete(id);
    this.measure(old, -1);
    if (old.searchText !== undefined) this.searchTextUnits -= old.searchText.length;
    if (old.hidden) return;
    removeSorted(this.byStatus.get(old.status), old);
    for (const field of LINK_FIELDS) {
      for (const linkedId of old[field]) {
        const list = this.linked[field].get(linkedId);
        removeSorted(list, old);
        if (list && !list.length) this.linked[field].delete(linkedId);
      }
    }
  }

  /**
   * One page of the list the filters select, and its total; undefined when the index cannot answer
   * (a condition outside the store subset lib/query-match.ts knows): the caller asks the store.
   */
  page(f: EventListFilters, skip: number, limit: number): ListingPage | undefined {
    try {
      return this.pageOf(f, skip, limit);
    } catch (err) {
      if (err instanceof UnsupportedQuery) return undefined;
      throw err;
    }
  }

  private pageOf(f: EventListFilters, skip: number, limit: number): ListingPage {
    if (f.include) return this.includePage(f, skip, limit);
    const { start, end } = dateRanges(f.bounds);
    // start ≤ end for every stored event: an upper bound on the end bounds the start too.
    if (start.lo !== undefined || start.hi !== undefined) {
      tighter(start, "hi", end.hi, !!end.hiOpen);
    }
    const endKeep: Keep | undefined = end.lo !== undefined || end.hi !== undefined ? e => inRange(e.end, end) : undefined;
    const other = entryPredicate(f, this.textOf);
    const startSlice = (list: readonly ListingEntry[]): Slice => ({
      list,
      from: start.lo === undefined ? 0 : lowerBound(list, start.lo, !!start.loOpen),
      to: start.hi === undefined ? list.length : lowerBound(list, start.hi, !start.hiOpen)
    });
    const statuses = new Set(f.statuses);
    const ranges = [...statuses].flatMap(status => {
      const list = this.byStatus.get(status);
      return list?.length ? [startSlice(list)] : [];
    }).filter(r => r.from < r.to);
    // A venue or organizer filter: the events of those venues / organizers, when they are fewer.
    const linked = this.linkedSource(f);
    if (linked && other) {
      const slices = linked.map(startSlice);
      if (sizeOf(slices) < sizeOf(ranges)) {
        const keep = both(both(endKeep, other), e => statuses.has(e.status))!;
        const found: ListingEntry[] = [];
        for (const r of slices) for (let i = r.from; i < r.to; i++) if (keep(r.list[i])) found.push(r.list[i]);
        // an event of two of the venues asked for is in both lists
        const matching = slices.length > 1 ? [...new Set(found)].sort(listOrder) : found;
        return { total: matching.length, ids: matching.slice(skip, skip + limit).map(e => e.id) };
      }
    }
    if (!other) {
      // Only the edges of each range can hold events ending outside the end range.
      let total = 0;
      for (const r of ranges) {
        total += r.to - r.from;
        if (endKeep) for (const [a, b] of this.endBands(r, end)) for (let i = a; i < b; i++) if (!endKeep(r.list[i])) total--;
      }
      return { total, ids: mergePage(ranges, skip, limit, endKeep) };
    }
    const keep = both(endKeep, other)!;
    const matching = ranges.map(r => {
      const list: ListingEntry[] = [];
      for (let i = r.from; i < r.to; i++) if (keep(r.list[i])) list.push(r.list[i]);
      return { list, from: 0, to: list.length };
    });
    return { total: matching.reduce((n, r) => n + r.to, 0), ids: mergePage(matching, skip, limit) };
  }

  /**
   * The parts of a start range whose events may end outside `end`: those starting at or before its
   * lower bound, and those starting within the longest duration before its upper bound. All of it
   * while some event ends before it starts.
   */
  private endBands(r: Slice, end: Range): Array<[number, number]> {
    if (this.backwards > 0 || !Number.isFinite(this.longestMs)) return [[r.from, r.to]];
    const lowTo = end.lo === undefined ? r.from : Math.min(r.to, lowerBound(r.list, end.lo, true));
    let highFrom = r.to;
    if (end.hi !== undefined) {
      const edge = fromDb(end.hi).getTime() - this.longestMs;
      highFrom = Number.isFinite(edge) ? Math.max(r.from, lowerBound(r.list, toDb(new Date(edge)), false)) : r.from;
    }
    return [[r.from, lowTo], [Math.max(lowTo, highFrom), r.to]];
  }

  /**
   * Venue or organizer ids linked from listed events starting at or after `from`, in these statuses
   * (any when absent): per linked id, its events are looked at from the latest start backwards.
   */
  linkedUpcoming(field: LinkField, from: string, statuses?: readonly string[]): number[] {
    const wanted = statuses ? new Set(statuses) : undefined;
    const out: number[] = [];
    for (const [id, list] of this.linked[field]) {
      for (let i = list.length - 1; i >= 0 && list[i].start >= from; i--) {
        if (!wanted || wanted.has(list[i].status)) {
          out.push(id);
          break;
        }
      }
    }
    return out;
  }

  private includePage(f: EventListFilters, skip: number, limit: number): ListingPage {
    const statuses = new Set(f.statuses);
    const keep = entryPredicate(f, this.textOf);
    const found: ListingEntry[] = [];
    for (const id of new Set(f.include)) {
      const e = this.byId.get(id);
      if (e && !e.hidden && statuses.has(e.status) && (!keep || keep(e))) found.push(e);
    }
    found.sort(includeOrder);
    return { total: found.length, ids: found.slice(skip, skip + limit).map(e => e.id) };
  }

  private measure(e: ListingEntry, sign: 1 | -1): void {
    const ms = fromDb(e.end).getTime() - fromDb(e.start).getTime();
    if (!(ms >= 0)) this.backwards += sign; // negative, or a date that does not parse
    else if (sign > 0 && ms > this.longestMs) this.longestMs = ms;
  }

  /** The lists of the venues (or else organizers) a `venue` / `organizer` filter names, if any. */
  private linkedSource(f: EventListFilters): ListingEntry[][] | undefined {
    const pick = (field: LinkField, ids: number[] | undefined) => ids && [...new Set(ids)].map(id => this.linked[field].get(id) ?? []);
    return pick("venues", f.venueIds) ?? pick("organizers", f.organizerIds);
  }

  private linkedList(field: LinkField, id: number): ListingEntry[] {
    let list = this.linked[field].get(id);
    if (!list) this.linked[field].set(id, (list = []));
    return list;
  }

  private bucket(status: string): ListingEntry[] {
    let list = this.byStatus.get(status);
    if (!list) this.byStatus.set(status, (list = []));
    return list;
  }
}

interface Slice {
  list: readonly ListingEntry[];
  from: number;
  to: number;
}

const sizeOf = (slices: readonly Slice[]) => slices.reduce((n, r) => n + (r.to - r.from), 0);

/** Ids of positions skip … skip+limit of the merged slices (each in list order), of the entries `keep` keeps. */
function mergePage(slices: Slice[], skip: number, limit: number, keep?: Keep): number[] {
  if (slices.length === 1 && !keep) {
    const r = slices[0];
    return r.list.slice(r.from + skip, Math.min(r.to, r.from + skip + limit)).map(e => e.id);
  }
  const at = slices.map(r => r.from);
  const ids: number[] = [];
  let n = 0;
  while (n < skip + limit) {
    let best = -1;
    for (let i = 0; i < slices.length; i++) {
      if (at[i] < slices[i].to && (best < 0 || listOrder(slices[i].list[at[i]], slices[best].list[at[best]]) < 0)) best = i;
    }
    if (best < 0) break;
    const e = slices[best].list[at[best]++];
    if (keep && !keep(e)) continue;
    if (n >= skip) ids.push(e.id);
    n++;
  }
  return ids;
}
