/**
 * Stored renderings (docs/caching.md#stored-renderings): each record's answer as one variant of the API
 * renders it (the anonymous `view` in one language under one site's addresses), kept in the store beside
 * the record. A write of the record removes its renderings in the write's own transaction (triggers, so
 * whatever statement or node made it); a rendering is kept again only while the documents it was made
 * from are still the stored ones, so a kept one is never older than its record.
 */
import type { Doc } from "./collection";

/** The record tables whose records keep renderings. */
export type RenderedKind = "events" | "venues" | "organizers" | "terms";

/** One rendering to keep: made from `doc` (as read from the store), its body the answer's JSON; `refs`: what it stitches in. */
export interface Rendering {
  kind: RenderedKind;
  id: number;
  doc: Doc;
  /** The rendered JSON; empty for a linked record the variant does not show. */
  body: string;
  /** The records whose renderings are stitched into this one at read, in order (an event's venues, organizers and terms). */
  refs?: Array<[RenderedKind, number]>;
}

/** A stored rendering as read back. */
export interface StoredRendering {
  kind: RenderedKind;
  id: number;
  body: string;
  /** Which keep of the rendering this is: every rendering kept gets a number no other one had. */
  ver: number;
}

/**
 * A record's whole answer as last composed from its rendering and those it stitches in: `vers`, the numbers
 * (StoredRendering `ver`) of those it was composed from, in order; `modified`, the record's `modified_utc`.
 */
export interface ComposedAnswer {
  text: string;
  modified: string | null;
  /** The hash of the text an ETag is made of (lib/http/etag.ts `bodyTag`). */
  tag: string;
}

/** What composing a record keeps: its whole answer, and the same answer without its JSON-LD (`plain`: the lists' by default) with its hash. */
export interface ComposedAnswers extends ComposedAnswer {
  plain: string;
  plainTag: string;
}

/** A record's own rendering and, in order, those it stitches in (`complete`: every one it refers to is there). */
export interface Stitched {
  own: StoredRendering;
  refs: StoredRendering[];
  complete: boolean;
}

export interface Renderings {
  /** The site's definitions mark: read before anything a rendering depends on beside its documents. */
  mark(site: number): Promise<number>;
  /** Keeps each rendering whose document is still the stored one and whose site's mark still reads `mark`. */
  keep(site: number, variant: string, mark: number, renderings: readonly Rendering[]): Promise<void>;
  /**
   * One statement: the rendering of `id` of `kind` and, in its `refs` order, those it stitches in;
   * undefined when the record has none or one of those it refers to has none.
   */
  stitched(site: number, variant: string, kind: RenderedKind, id: number): Promise<Stitched | undefined>;
  /** As `stitched`, for several records in one statement: those whose own rendering is there, by id, complete or not. */
  stitchedMany(site: number, variant: string, kind: RenderedKind, ids: readonly number[]): Promise<Map<number, Stitched>>;
  /**
   * One statement: the record's answer as composed from its renderings, when each it was composed from is
   * still the stored one (none of them kept again since); undefined otherwise.
   */
  composed(site: number, variant: string, kind: RenderedKind, id: number): Promise<ComposedAnswer | undefined>;
  /**
   * As `composed`, for several records in one statement: the texts of those composed from the renderings
   * stored now, by id, with their JSON-LD (`jsonLd`) or without.
   */
  composedMany(site: number, variant: string, kind: RenderedKind, ids: readonly number[], jsonLd: boolean): Promise<Map<number, ComposedAnswer>>;
  /** Keeps the answers composed from `from` (as `stitched` read it) with the record's rendering, unless that rendering was kept again since. */
  compose(site: number, variant: string, from: Stitched, answer: ComposedAnswers): Promise<void>;
  /**
   * Removes the renderings of every variant no node has read or kept since `before` (ms since the epoch):
   * the addresses or the language of a site changed, and nothing will ask for them again. Answers how many
   * renderings it removed. A variant in use is noted as read by its reads and keeps, on every node.
   */
  forgetUnread(before: number): Promise<number>;
}
