/**
 * What the linked records (venues and organizers, domain/linked/) ask of the rest of the service, each
 * a narrow port the service answers in its created() (mixins/linked-post.mixin.ts). `R`: the request a
 * read or write runs for (the service's call context), passed through to the ports as it is; the
 * domain never looks inside it.
 */
import type { InsertOptions, Query } from "../../store/collection";
import type { Who } from "../../lib/access/capabilities";
import type { SearchTerm } from "../../lib/text/search";
import type { SearchMode } from "../../lib/i18n/store-query";
import type { FieldValues } from "../../lib/i18n/values";
import type { LinkedDoc } from "../../lib/linked/record";
import type { NearInput } from "../../lib/geo/near-query";

export type WriteAction = "created" | "updated" | "deleted";

/** The request as the records see it: who calls, on which site address, with which idempotency claim. */
export interface RequestPort<R> {
  /** The caller: a Caller, null (anonymous) or undefined (trusted internal call). */
  caller(request: R): Who;
  /** `{site}`: the base URL plus the language root the request came in on. */
  siteUrl(request: R): string;
  /** What a create stores with its record when the request is an idempotent create (C21: idempotency keys; C41: invariants under concurrency). */
  claimOf(request: R, id: number): InsertOptions["claim"];
  /** The source identity an import's create stores with the record (C64: what an import brings; lib/imports/source.ts); none otherwise. */
  importSource?(request: R): Record<string, unknown>;
}

/** Images (docs/records.md#images, D7: images without downloads): an `image` input checked, resolved, and images by id. */
export interface ImagePort<R> {
  /** Throws 400 on `image` when the input names no usable image; no side effect. */
  check(request: R, value: unknown): Promise<void>;
  /** The image id the input names, creating the image record of a URL. */
  resolve(request: R, value: unknown): Promise<number>;
  byId(ids: number[]): Promise<Map<number, { url: string; id: number; extension: string }>>;
}

/** A write's fields split between the record and the i18n service (mixins/translatable.mixin.ts splitWrite). */
export interface SplitFields {
  inline: Record<string, unknown>;
}

/** What a list search asks of the language port (mixins/translatable.mixin.ts searchQuery). */
export interface LinkedSearchOptions {
  fields: readonly string[];
  mode: SearchMode;
  shared: (terms: SearchTerm[]) => Query | undefined;
  limited?: { fields: readonly string[]; unless: Query };
}

/** The eight languages (docs/i18n.md): values of the request's language, queries in it, writes split by it. */
export interface LanguagePort<R> {
  localize(request: R, docs: LinkedDoc[]): Promise<Map<number, FieldValues>>;
  localized(request: R, docs: LinkedDoc[]): Promise<LinkedDoc[]>;
  applyLanguage(record: Record<string, unknown>, doc: LinkedDoc, request: R): Record<string, unknown>;
  splitWrite(request: R, doc: LinkedDoc | undefined, fields: Record<string, unknown>): Promise<SplitFields>;
  nameQuery(request: R, name: string, originalCondition: Query): Promise<Query>;
  searchQuery(request: R, terms: SearchTerm[], originalCondition: (terms: SearchTerm[]) => Query, opts: LinkedSearchOptions): Promise<Query>;
}

/** The events service, as far as linked records go. */
export interface EventsPort<R> {
  /** Removes the record from every event linking it (before a trash is answered, C16: read your writes). */
  unlink(request: R, id: number): Promise<unknown>;
  /** The ids of this kind the events filter names (docs/lists.md#venue-and-organizer-filters); null: no such event. */
  linkedIds(request: R, conditions: Record<string, unknown>): Promise<number[] | null>;
}

/** After a write: the feed and the bus (mixins/post.mixin.ts announce; the write stored its own feed entry). */
export interface AnnouncePort {
  announce(action: WriteAction, record: LinkedDoc): Promise<void>;
}

/** Venues: the radius search (C11: venues hold their coordinates); undefined when the list asked for none. */
export type NearPort<R> = (request: R, p: NearInput) => Promise<Map<number, number> | undefined>;

/** The stored renderings of the records an event embeds, which a single read answers too (store/renderings.ts), for the request's site. */
export interface LinkedRenderingPort<R> {
  /** The variant an embedding read asks for, or undefined when its records are computed for it alone. */
  variant(request: R, jsonLd: boolean, access: { password?: string; context?: string }): string | undefined;
  /** Whether the record's text in the variant's language is its own (no translation read). */
  ownText(request: R, doc: LinkedDoc): boolean;
  mark(): Promise<number>;
  keep(variant: string, mark: number, renderings: Array<{ id: number; doc: LinkedDoc; body: string }>): Promise<void>;
  /** The record's stored rendering in the variant (its answer as JSON; empty when the variant shows it nowhere), if kept. */
  stored(variant: string, id: number): Promise<string | undefined>;
}
