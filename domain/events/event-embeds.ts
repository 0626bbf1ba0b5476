/**
 * What the records of a page of events embed — their venues, organizers, terms and images — fetched once
 * per page through a port (the events service answers it with the venues, organizers and taxonomy
 * services and the id registry's images), each linked id asked for once.
 */
import type { EventDoc, EventEmbeds, Embedded } from "../../lib/events/event-doc";

/**
 * How embedded records are fetched. `R`: what a request says about them (its caller's rights, password
 * and context, whether JSON-LD is asked for), passed through as it is.
 */
export interface EmbedPort<R> {
  venues(request: R, ids: number[]): Promise<Record<string, Embedded>>;
  organizers(request: R, ids: number[]): Promise<Record<string, Embedded>>;
  terms(request: R, ids: number[]): Promise<Record<string, Embedded>>;
  images(ids: number[]): Promise<EventEmbeds["images"]>;
}

const distinct = (ids: number[]): number[] => [...new Set(ids)];

export class EventEmbedder<R> {
  constructor(private readonly port: EmbedPort<R>) {}

  /** Everything a page of events embeds, each kind asked for once (not at all when no event links one). */
  async embedsOf(request: R, docs: ReadonlyArray<Pick<EventDoc, "venues" | "organizers" | "categories" | "tags" | "image">>): Promise<EventEmbeds> {
    const venueIds = distinct(docs.flatMap(d => d.venues));
    const organizerIds = distinct(docs.flatMap(d => d.organizers));
    const termIds = distinct(docs.flatMap(d => [...d.categories, ...d.tags]));
    const imageIds = docs.map(d => d.image).filter((id): id is number => !!id);
    const [venues, organizers, terms, images] = await Promise.all([
      venueIds.length ? this.port.venues(request, venueIds) : {},
      organizerIds.length ? this.port.organizers(request, organizerIds) : {},
      termIds.length ? this.port.terms(request, termIds) : {},
      this.port.images(imageIds)
    ]);
    return { venues, organizers, terms, images };
  }
}
