/**
 * An event's stored rendering (docs/caching.md#stored-renderings) and the answer stitched from it: the
 * event's own record as answered with nothing embedded, what its JSON-LD reads of the stored event, its
 * custom fields' `additionalProperty`; at read, the records it links (each its own stored rendering) are
 * put in by the field table's shapers and the JSON-LD made again with them, so a linked record's change
 * shows in every event linking it without a write of those events. Pure.
 */
import type { Embedded, EventDoc, EventEmbeds } from "./event-doc";
import { eventJsonLd, linkedValues, withAdditional, type JsonLdDoc } from "./event-record";

type Links = Pick<EventDoc, "venues" | "organizers" | "categories" | "tags">;

interface Fragment {
  /** The answer with no linked record embedded, its keys in answer order. */
  record: Record<string, unknown>;
  links: Links;
  ld: JsonLdDoc | null;
  additional: Array<Record<string, unknown>> | null;
}

/** The kinds of the linked records, as the stored renderings name them. */
export type LinkedKind = "venues" | "organizers" | "terms";

/** The records an event stitches in, in the order its fragment names them (each once). */
export function eventRefs(links: Links): Array<[LinkedKind, number]> {
  const refs: Array<[LinkedKind, number]> = [];
  const seen = new Set<string>();
  const add = (kind: LinkedKind, id: number) => {
    if (seen.has(`${kind}:${id}`)) return;
    seen.add(`${kind}:${id}`);
    refs.push([kind, id]);
  };
  for (const id of links.venues) add("venues", id);
  for (const id of links.organizers) add("organizers", id);
  for (const id of [...links.categories, ...links.tags]) add("terms", id);
  return refs;
}

/** The stored rendering of an event: its answer computed with nothing linked embedded (`json_ld` made again at read when it has one). */
export function eventFragment(record: Record<string, unknown>, doc: EventDoc, additional: Array<Record<string, unknown>> | undefined): string {
  const { venues, organizers, categories, tags } = doc;
  const ld: JsonLdDoc | null = "json_ld" in record
    ? { start_date: doc.start_date, end_date: doc.end_date, timezone: doc.timezone, previous_utc_start_date: doc.previous_utc_start_date, cost: doc.cost, currency_symbol: doc.currency_symbol, date_utc: doc.date_utc }
    : null;
  const fragment: Fragment = { record, links: { venues, organizers, categories, tags }, ld, additional: additional ?? null };
  return JSON.stringify(fragment);
}

/** A linked record's stored rendering: empty when the variant does not show it. */
export function linkedFragment(value: unknown): string {
  return value === undefined ? "" : JSON.stringify(value);
}

/**
 * The event's answer from its fragment and those of the records it links (`refs`, as eventRefs named them).
 * `jsonLd` false: the answer of a list read without `json_ld`, which neither the event nor the records it
 * embeds carry (the linked records' fragments are kept with theirs; nothing else differs).
 */
export function stitchEvent(body: string, refs: ReadonlyArray<{ kind: string; id: number; body: string }>, jsonLd = true): Record<string, unknown> {
  const fragment = JSON.parse(body) as Fragment;
  const embeds: EventEmbeds = { venues: {}, organizers: {}, terms: {}, images: new Map() };
  for (const ref of refs) {
    if (!ref.body) continue;
    const target = ref.kind === "venues" ? embeds.venues : ref.kind === "organizers" ? embeds.organizers : embeds.terms;
    const linked = JSON.parse(ref.body) as Embedded;
    if (!jsonLd) delete (linked as Record<string, unknown>).json_ld;
    target[ref.id] = linked;
  }
  const record = Object.assign(fragment.record, linkedValues(fragment.links, embeds));
  if (!jsonLd) delete record.json_ld;
  // the record is the answer, so it holds every key the JSON-LD reads of an answer
  else if (fragment.ld) record.json_ld = withAdditional(eventJsonLd(record as unknown as Parameters<typeof eventJsonLd>[0], fragment.ld), fragment.additional ?? undefined);
  return record;
}
