/**
 * Categories and tags: the stored document, the taxonomies' fixed traits and the two output shapes — the
 * standalone term record (docs/records.md#term-fields: single GET, create, update, delete, list items) and the term
 * object embedded in events (docs/records.md#embedded-terms). Pure functions: the URLs come from the request's roots.
 */
import type { Taxonomy } from "../access/capabilities";
import { NAMESPACE_PATH } from "../settings";

export type { Taxonomy } from "../access/capabilities";

export interface TaxonomyTraits {
  /** Name printed in `taxonomy` (D29: WordPress names kept in output). */
  wpName: "tribe_events_cat" | "post_tag";
  /** Route segment: `{ns}/{collection}`; also the list envelope's key. */
  collection: "categories" | "tags";
  hierarchical: boolean;
}

export const TAXONOMIES: Readonly<Record<Taxonomy, TaxonomyTraits>> = {
  category: { wpName: "tribe_events_cat", collection: "categories", hierarchical: true },
  tag: { wpName: "post_tag", collection: "tags", hierarchical: false }
};

/** A term as stored (`terms` collection). `_id` is the integer term id (one sequence for both taxonomies, D2: two id sequences). */
export interface TermDoc {
  _id: number;
  taxonomy: Taxonomy;
  /** As stored after normalisation (D27: term names are sanitised). */
  name: string;
  /** Lower-cased `name`: case-insensitive duplicate checks, lookups and name order. */
  name_lc: string;
  slug: string;
  /** `{taxonomy}:{slug}`, unique: a slug exists once per taxonomy, whatever process writes. */
  tax_slug: string;
  description: string;
  /** Lower-cased `description`: its sort key (ordering is case-insensitive, like MySQL's collation). */
  description_lc: string;
  /** Parent category id, 0 at top level; always 0 for tags. */
  parent: number;
  /** Published events carrying the term (maintained through `adjustCounts`). */
  count: number;
  /** `count` plus the counts of every descendant: `hide_empty` keeps a term when this is > 0. */
  tree_count: number;
  /** Language the term was created in (its original language, i18n). */
  lang: string;
  /** Languages the term has values in (original included); missing on terms written before i18n. */
  translations?: string[];
  /** Last write, DB format (UTC). */
  modified_utc: string;
}

/** The roots URLs are built from: `{site}` and the namespace URL `{ns}`. */
export interface Roots {
  site: string;
  ns: string;
}

/** Roots of a request (gateway meta), falling back to the configured site for internal calls. */
export function rootsOf(meta: { siteUrl?: string; apiRoot?: string } | undefined, fallback: { baseUrl: string; restPrefix: string }): Roots {
  const site = meta?.siteUrl ?? fallback.baseUrl;
  const apiRoot = meta?.apiRoot ?? `${fallback.baseUrl}/${fallback.restPrefix}`;
  return { site, ns: `${apiRoot}/${NAMESPACE_PATH}` };
}

export function taxonomyKey(doc: Pick<TermDoc, "taxonomy" | "slug">): string {
  return `${doc.taxonomy}:${doc.slug}`;
}

/** `{ns}/categories` or `{ns}/tags`. */
export function collectionUrl(taxonomy: Taxonomy, roots: Roots): string {
  return `${roots.ns}/${TAXONOMIES[taxonomy].collection}`;
}

export interface TermUrls {
  self: string;
  collection: string;
  up?: string;
}

/** `urls` of both shapes: self, collection, and `up` when the category has a parent. */
export function termUrls(doc: Pick<TermDoc, "_id" | "taxonomy" | "parent">, roots: Roots): TermUrls {
  const collection = collectionUrl(doc.taxonomy, roots);
  const urls: TermUrls = { self: `${collection}/${doc._id}`, collection };
  if (TAXONOMIES[doc.taxonomy].hierarchical && doc.parent > 0) urls.up = `${collection}/${doc.parent}`;
  return urls;
}

/**
 * The term archive page (D20: permalinks): `{site}/events/category/{ancestors…}/{slug}/` (root first) or
 * `{site}/tag/{slug}/`.
 */
export function termUrl(doc: Pick<TermDoc, "taxonomy" | "slug">, ancestorSlugs: readonly string[], roots: Roots): string {
  if (doc.taxonomy === "tag") return `${roots.site}/tag/${doc.slug}/`;
  return `${roots.site}/events/category/${[...ancestorSlugs, doc.slug].join("/")}/`;
}

export type TermRecord = {
  id: number;
  count: number;
  description: string;
  name: string;
  slug: string;
  taxonomy: string;
  parent?: number;
  meta: never[];
  url: string;
  urls: TermUrls;
  /** Where an import brought the term from (context=edit, to its managers). */
  import_source?: unknown;
};

/** docs/records.md#term-fields, key order included; tags have no `parent` key. `ancestorSlugs` root first. */
export function termRecord(doc: TermDoc, ancestorSlugs: readonly string[], roots: Roots): TermRecord {
  const traits = TAXONOMIES[doc.taxonomy];
  return {
    id: doc._id,
    count: doc.count,
    description: doc.description,
    name: doc.name,
    slug: doc.slug,
    taxonomy: traits.wpName,
    ...(traits.hierarchical ? { parent: doc.parent } : {}),
    meta: [],
    url: termUrl(doc, ancestorSlugs, roots),
    urls: termUrls(doc, roots)
  };
}

export interface EmbeddedTerm {
  name: string;
  slug: string;
  term_group: 0;
  term_taxonomy_id: number;
  taxonomy: string;
  description: string;
  parent: number;
  count: number;
  filter: "raw";
  id: number;
  urls: TermUrls;
}

/** docs/records.md#embedded-terms: the WordPress term object with `id` last and `urls` added. */
export function embeddedTerm(doc: TermDoc, roots: Roots): EmbeddedTerm {
  return {
    name: doc.name,
    slug: doc.slug,
    term_group: 0,
    term_taxonomy_id: doc._id,
    taxonomy: TAXONOMIES[doc.taxonomy].wpName,
    description: doc.description,
    parent: doc.parent,
    count: doc.count,
    filter: "raw",
    id: doc._id,
    urls: termUrls(doc, roots)
  };
}
