/**
 * What the events domain (domain/events/) asks of the world around it, as ports its classes are given in
 * their constructors: the call a request makes (`EventCall`), the other services (venues, organizers,
 * taxonomy, geolocation), what the post and translatable mixins give every record service, and the
 * change feed. The events service (services/events.service.ts) answers them with `ctx.call` and its
 * mixins' methods; the unit tests (test/unit/domain-events.test.ts) with plain functions.
 */
import type { CallMeta } from "../../lib/http/call-meta";
import type { Query, Sort } from "../../store/collection";
import type { SearchTerm } from "../../lib/text/search";
import type { CountPart } from "../../lib/events/due-events";
import type { Page } from "../../lib/posts/paging";
import type { ChangeInput } from "../../lib/changes/feed";
import type { NearParams } from "../../lib/geo/near-query";
import type { EventDoc } from "../../lib/events/event-doc";
import type { FieldValues } from "../../lib/i18n/values";

/** What a call brings the domain: its params as their schema left them, the gateway's meta, and room for what a read learns on the way (the radius search's distances). */
export interface EventCall {
  params: Record<string, unknown>;
  meta: CallMeta;
  locals?: Record<string, unknown>;
}

/** The services that own what events link: each method one call on the bus, made in the call's name. */
export interface NeighbourServices<C> {
  /** Term ids of a list filter (`categories`, `tags`); a 400 naming `param` when one is unknown. */
  termFilter(call: C, taxonomy: "category" | "tag", values: unknown, param: string): Promise<number[]>;
  /**
   * Term ids an event write links, for each of its `categories` and `tags` sent (terms named inline are
   * made, the categories' first): one call for both.
   */
  termsForEvent(call: C, input: { categories?: unknown; tags?: unknown }): Promise<{ categories?: number[]; tags?: number[] }>;
  /** Venue or organizer ids an event write links (records given inline are made or found, D25: duplicate venues and organizers). */
  link(call: C, kind: "venues" | "organizers", value: unknown): Promise<number[]>;
  /** The check of `link` without its side effect: a 400 when the value names no usable record. */
  validateLinks(call: C, kind: "venues" | "organizers", value: unknown): Promise<unknown>;
  /** 400 `geoloc-not-available` unless the geolocation service runs every one of these actions. */
  requireGeolocation(actions: readonly string[]): void;
  /** The published venues within a radius: venue id → distance. */
  venuesNear(call: C, near: NearParams): Promise<Map<number, number>>;
  /** The venues that have coordinates. */
  venuesWithCoordinates(call: C): Promise<number[]>;
}

/** What every record service shares (mixins/post.mixin.ts, mixins/translatable.mixin.ts), for the events. */
export interface PostServices<C> {
  /** One page of a query and the total, 404 past the end. */
  pagedFind(query: Query, sort: Sort, page: Page, countParts?: readonly CountPart[]): Promise<{ docs: EventDoc[]; total: number }>;
  /** The list envelope's links and total, and the paging headers on the answer. */
  listEnvelope(call: C, plural: string, order: readonly string[], sent: Record<string, unknown>, page: Page, total: number): Record<string, unknown>;
  /** Statuses a list shows to this caller; a forbidden `status` is a 400. */
  listStatusFilter(call: C, requested: string[] | undefined): string[];
  /** May the caller see the protected fields of this record? */
  passwordAccess(call: C, record: EventDoc, params: { password?: string; context?: string }): boolean;
  /** `{site}` and `{ns}`: the URLs the request's records are written with. */
  siteOf(call: C): string;
  nsOf(call: C): string;
  /** An `image` input checked (no image record made) / resolved to an image id (made when a URL is new). */
  checkImage(call: C, value: unknown): Promise<void>;
  resolveImage(call: C, value: unknown): Promise<number>;
  /** The asked language's values of a page of records; `i18n_language` and `translations` on a record. */
  localize(call: C, docs: EventDoc[]): Promise<Map<number, FieldValues>>;
  applyLanguage(record: Record<string, unknown>, doc: EventDoc, call: C): Record<string, unknown>;
  /** Which fields of a write stay on the record (the rest went to the i18n service). */
  splitWrite(call: C, doc: EventDoc | undefined, fields: Record<string, unknown>): Promise<{ inline: Record<string, unknown> }>;
  /** A search's store query in the asked language. */
  searchQuery(call: C, terms: SearchTerm[], original: (terms: SearchTerm[]) => Query, opts: { fields?: readonly string[]; limited?: { fields: readonly string[]; unless: Query } }): Promise<Query>;
}

/** What the series planner tells the feed and the bus (the events service's change-source and post mixins). */
export interface SeriesFeed {
  /** Stores the changes in the change feed and tells the bus of each. */
  recordChanges(changes: ChangeInput[], opts: { emit: boolean }): Promise<void>;
  /** Records a write of one event (its feed entry and the bus). */
  announce(action: "created" | "updated" | "deleted", doc: EventDoc): Promise<void>;
  /** Tells the bus (`calendar.<type>.<action>`). */
  emit(event: string, payload: Record<string, unknown>): void;
}

/** The change feed and the bus (mixins/change-source.mixin.ts, mixins/post.mixin.ts `announce`). */
export interface EventFeed extends SeriesFeed {
  /** Records a write of one event; `recorded`: the write stored its own feed entry, only the bus is told. */
  announce(action: "created" | "updated" | "deleted", doc: EventDoc, recorded?: boolean): Promise<void>;
  /** The events whose `field` links one of `ids`, as `updated` changes. */
  eventsLinking(field: string, ids: number[]): Promise<ChangeInput[]>;
}
