/**
 * The category and tag lists (docs/lists.md#category-and-tag-lists): the store query of the filters, the order, paging, the
 * envelope with its bare-form links, and the paging headers (D35). Pure; the service resolves ids,
 * slugs and event links first and hands the results in.
 */
import type { Taxonomy } from "./term-record";
import { collectionUrl, Roots, TAXONOMIES } from "./term-record";
import { modifiedCondition, ModifiedRange } from "../changes/modified";
import { totalHeaders } from "../http/list-totals";

export type StoreQuery = Record<string, unknown>;
export type StoreSort = Record<string, 1 | -1>;

export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 50;

/** Filters after validation and resolution (ids already checked to exist). */
export interface TermListFilter {
  taxonomy: Taxonomy;
  hideEmpty: boolean;
  /** Substring of the name or the slug, case-insensitive. */
  search?: string;
  includeIds?: readonly number[];
  excludeIds?: readonly number[];
  /** Terms carried by the event of `post`/`event`. */
  eventTermIds?: readonly number[];
  /** Direct children of this category (categories only). */
  parent?: number;
  /** Exact (normalised) slug. */
  slug?: string;
  /** `modified_after` / `modified_before` (sync issue): bounds on the internal `modified_utc`. */
  modified?: ModifiedRange;
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function intersect(a: readonly number[] | undefined, b: readonly number[] | undefined): number[] | undefined {
  if (!a) return b ? [...b] : undefined;
  if (!b) return [...a];
  const inB = new Set(b);
  return a.filter(id => inB.has(id));
}

/**
 * One store query on indexed fields (taxonomy, _id, parent, slug, name_lc, tree_count) in the operator
 * subset of lib/documents/store-query.ts. `hide_empty` keeps a term whose subtree holds a counted event.
 */
export function buildTermQuery(f: TermListFilter): StoreQuery {
  const query: StoreQuery = { taxonomy: f.taxonomy };
  const ids: Record<string, number[]> = {};
  const allowed = intersect(f.includeIds, f.eventTermIds);
  if (allowed) ids.$in = allowed;
  if (f.excludeIds && f.excludeIds.length > 0) ids.$nin = [...f.excludeIds];
  if (Object.keys(ids).length > 0) query._id = ids;
  if (f.parent !== undefined && TAXONOMIES[f.taxonomy].hierarchical) query.parent = f.parent;
  if (f.slug !== undefined) query.slug = f.slug;
  if (f.hideEmpty) query.tree_count = { $gt: 0 };
  if (f.search !== undefined) Object.assign(query, termSearchCondition(f.search));
  if (f.modified) Object.assign(query, modifiedCondition(f.modified));
  return query;
}

/** `search` on the stored (original-language) name or the slug, case-insensitive substring. */
export function termSearchCondition(search: string): StoreQuery {
  return { $or: [{ name_lc: { $regex: searchPattern(search) } }, termSlugCondition(search)] };
}

/** The slug part of `search` (slugs are one across languages). */
export function termSlugCondition(search: string): StoreQuery {
  return { slug: { $regex: searchPattern(search) } };
}

function searchPattern(search: string): RegExp {
  return new RegExp(escapeRegExp(search.toLowerCase()));
}

/** How a page is ordered: by store fields, or by the position in the `include` list. */
export type TermOrder =
  | { kind: "store"; sort: StoreSort }
  | { kind: "include"; ids: readonly number[]; direction: 1 | -1 };

/** Sort field of each `orderby` value (WP_Term_Query); `name` sorts case-insensitively. */
const ORDER_FIELDS: Readonly<Record<string, string | null>> = {
  id: "_id",
  term_id: "_id",
  name: "name_lc",
  slug: "slug",
  description: "description_lc",
  count: "count",
  parent: "parent",
  // every term has term_group 0: ties only, broken by id
  term_group: null,
  none: null
};

/**
 * docs/lists.md#term-filters-and-order `order`/`orderby`: `asc` (any case) ascending, any other value descending, absent
 * ascending; unknown `orderby` → name; `include` orders by the include list (name without one). Ties are
 * broken by id ascending. Text fields sort case-insensitively (their lower-cased copies).
 */
export function termOrder(orderby: string | undefined, order: string | undefined, includeIds?: readonly number[]): TermOrder {
  const direction: 1 | -1 = order === undefined || order.toLowerCase() === "asc" ? 1 : -1;
  const key = (orderby ?? "name").toLowerCase();
  if (key === "include" && includeIds && includeIds.length > 0) return { kind: "include", ids: includeIds, direction };
  const field = key in ORDER_FIELDS ? ORDER_FIELDS[key] : "name_lc";
  if (field === null) return { kind: "store", sort: { _id: 1 } };
  if (field === "_id") return { kind: "store", sort: { _id: direction } };
  return { kind: "store", sort: { [field]: direction, _id: 1 } };
}

/** Orders docs by their position in `ids` (`direction` -1 reverses). */
export function sortByInclude<T extends { _id: number }>(docs: readonly T[], ids: readonly number[], direction: 1 | -1): T[] {
  const position = new Map(ids.map((id, i) => [id, i]));
  return [...docs].sort((a, b) => direction * ((position.get(a._id) ?? 0) - (position.get(b._id) ?? 0)));
}

export interface Paging {
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
  skip: number;
}

/** docs/lists.md#paging: `per_page` above 50 is reduced to 50; `total_pages` = ceil(total / per_page). */
export function paging(page: number | undefined, perPage: number | undefined, total: number): Paging {
  const p = page ?? 1;
  const pp = Math.min(perPage ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page: p, perPage: pp, total, totalPages: Math.ceil(total / pp), skip: (p - 1) * pp };
}

function withQueryArg(url: string, name: string, value: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}${name}=${encodeURIComponent(value)}`;
}

/**
 * docs/lists.md#term-list-envelope, key order `rest_url`, `total`, `total_pages`, items, `next_rest_url`, `previous_rest_url`.
 * Links keep the plugin's bare form (`{ns}/categories/`, only `page` appended); C8: `i18n_language` when
 * the caller sent it.
 */
export function termListEnvelope<T>(taxonomy: Taxonomy, items: readonly T[], p: Paging, roots: Roots, language?: string): Record<string, unknown> {
  let restUrl = `${collectionUrl(taxonomy, roots)}/`;
  if (language !== undefined) restUrl = withQueryArg(restUrl, "i18n_language", language);
  const envelope: Record<string, unknown> = {
    rest_url: restUrl,
    total: p.total,
    total_pages: p.totalPages,
    [TAXONOMIES[taxonomy].collection]: items
  };
  if (p.page < p.totalPages) envelope.next_rest_url = withQueryArg(restUrl, "page", String(p.page + 1));
  if (p.page > 1) envelope.previous_rest_url = p.page === 2 ? restUrl : withQueryArg(restUrl, "page", String(p.page - 1));
  return envelope;
}

/** List parameters carried by the `Link` header, in this order (`page` is set per link). */
const LINK_PARAMS = ["per_page", "search", "exclude", "include", "order", "orderby", "hide_empty", "parent", "post", "event", "slug", "modified_after", "modified_before"] as const;

function linkValue(v: unknown): string {
  return Array.isArray(v) ? v.join(",") : String(v);
}

/**
 * D35 (paging headers) headers: `X-TEC-Total`, `X-TEC-TotalPages`, `X-WP-Total`, `X-WP-TotalPages`, and `Link` with
 * `rel="prev"` (page > 1, clamped to the last page) and `rel="next"` (page < total_pages). Unlike the
 * body's bare links, the `Link` URLs carry the filters the caller sent, so clients paging through the
 * header keep their filter (as WordPress's own `Link` does).
 */
export function pagingHeaders(taxonomy: Taxonomy, p: Paging, roots: Roots, params: Readonly<Record<string, unknown>>, language?: string): Record<string, string> {
  const headers: Record<string, string> = {
    "X-TEC-Total": String(p.total),
    "X-TEC-TotalPages": String(p.totalPages),
    ...totalHeaders(p.total, p.totalPages)
  };
  let base = collectionUrl(taxonomy, roots);
  for (const name of LINK_PARAMS) {
    if (params[name] !== undefined && params[name] !== null) base = withQueryArg(base, name, linkValue(params[name]));
  }
  if (language !== undefined) base = withQueryArg(base, "i18n_language", language);
  const links: string[] = [];
  if (p.page > 1) links.push(`<${withQueryArg(base, "page", String(Math.max(1, Math.min(p.page - 1, p.totalPages))))}>; rel="prev"`);
  if (p.page < p.totalPages) links.push(`<${withQueryArg(base, "page", String(p.page + 1))}>; rel="next"`);
  if (links.length > 0) headers.Link = links.join(", ");
  return headers;
}
