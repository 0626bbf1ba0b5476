/**
 * A single event's answer from the store's renderings (docs/caching.md#stored-renderings): one statement
 * reads the event's own and those of the records it links, stitched with no call to another service.
 * The event's own rendering is kept by the computed read of an event the variant shows as stored (published,
 * no password, its text in the read language its own), made from the document that read found.
 */
import type { EventDoc } from "../../lib/events/event-doc";
import { eventFragment, eventRefs, stitchEvent, type LinkedKind } from "../../lib/events/event-fragment";
import { bodyTag } from "../../lib/http/etag";

/** An event's stored fragment and, in order, those of the records it links. */
export interface StitchedEvent {
  own: { body: string };
  refs: Array<{ kind: string; id: number; body: string }>;
  /** Whether every record it links has its rendering there. */
  complete: boolean;
}

/** An event's answer as JSON text (whole, or as a list carries it), with its `modified_utc` and the hash of the text (lib/http/etag.ts `bodyTag`). */
export interface AnswerText {
  text: string;
  modified: string | null;
  tag: string;
}

/** What composing an event keeps: its whole answer, and the same without its JSON-LD (`plain`, a list's by default) with its hash. */
export interface ComposedAnswers extends AnswerText {
  plain: string;
  plainTag: string;
}

/**
 * A page's stored answers (EventRenderings `answers`, `texts`), by id: records or their texts. `unlinked`:
 * the events whose own rendering is there but not that of every record they link; `keep`: the events the
 * store may keep whose own rendering is not there, to be kept in `variant`.
 */
export interface PageAnswers<T> {
  stored: Map<number, T>;
  unlinked: Set<number>;
  keep: EventDoc[];
  variant: string | undefined;
}

/** What the events service answers about the stored renderings (the store's, for the request's site); `S`: the store's stitched renderings. */
export interface RenderingPort<C, S extends StitchedEvent = StitchedEvent> {
  /** The variant the call reads, or undefined when its answer is computed (a caller, a password, `context=edit`, another language or format). */
  variant(call: C): string | undefined;
  /** Whether the record's text in the variant's language is its own (no translation read). */
  ownText(call: C, doc: EventDoc): boolean;
  mark(): Promise<number>;
  keep(variant: string, mark: number, rendering: { id: number; doc: EventDoc; body: string; refs: Array<[LinkedKind, number]> }): Promise<void>;
  stitched(variant: string, id: number): Promise<S | undefined>;
  /** As `stitched`, for a page of events in one statement: those whose own rendering is there, by id, complete or not. */
  stitchedMany(variant: string, ids: readonly number[]): Promise<Map<number, S>>;
  /** The event's answer text composed from its renderings, while each it was composed from is still the stored one. */
  composed(variant: string, id: number): Promise<AnswerText | undefined>;
  /** As `composed`, for a page of events in one statement: the texts with their JSON-LD (`jsonLd`) or without, by id. */
  composedMany(variant: string, ids: readonly number[], jsonLd: boolean): Promise<Map<number, AnswerText>>;
  /** Keeps `answer`, composed from `from`, with the event's rendering (unless that rendering was kept again since). */
  compose(variant: string, from: S, answer: ComposedAnswers): Promise<void>;
}

export class EventRenderings<C, S extends StitchedEvent = StitchedEvent> {
  constructor(private readonly port: RenderingPort<C, S>) {}

  /** The stored answer of event `id` for this call, or undefined when it is computed. */
  async answer(call: C, id: number): Promise<Record<string, unknown> | undefined> {
    const variant = this.port.variant(call);
    if (variant === undefined) return undefined;
    const stored = await this.port.stitched(variant, id);
    return stored ? stitchEvent(stored.own.body, stored.refs) : undefined;
  }

  /**
   * The stored answer of event `id` for this call as JSON text (the bytes an HTTP answer sends), or
   * undefined when it is computed: the text composed before, while every rendering it was composed from is
   * still the stored one; otherwise stitched from the renderings, and the text kept for the next reads.
   */
  async answerText(call: C, id: number): Promise<AnswerText | undefined> {
    const variant = this.port.variant(call);
    if (variant === undefined) return undefined;
    const composed = await this.port.composed(variant, id);
    if (composed) return composed;
    const stored = await this.port.stitched(variant, id);
    return stored ? this.composeAnswer(variant, stored) : undefined;
  }

  /**
   * The answers stitched from an event's renderings, as text with its JSON-LD and without, kept for the
   * next reads. They are right whether or not they are kept: a failed keep costs the next read a stitching.
   */
  private async composeAnswer(variant: string, stored: S): Promise<ComposedAnswers> {
    const record = stitchEvent(stored.own.body, stored.refs);
    const text = JSON.stringify(record);
    const plain = JSON.stringify(stitchEvent(stored.own.body, stored.refs, false));
    const answer = { text, plain, modified: typeof record.modified_utc === "string" ? record.modified_utc : null, tag: bodyTag(text), plainTag: bodyTag(plain) };
    await this.port.compose(variant, stored, answer).catch(() => undefined);
    return answer;
  }

  /**
   * The stored answers of a page's events, by id: those the call reads as stored (as `storable` says) whose
   * renderings are all in the store; `jsonLd`: whether the page's records carry their JSON-LD.
   */
  async answers(call: C, docs: readonly EventDoc[], jsonLd: boolean): Promise<PageAnswers<Record<string, unknown>>> {
    const stored = new Map<number, Record<string, unknown>>();
    const unlinked = new Set<number>();
    const variant = this.port.variant(call);
    const storable = variant === undefined ? [] : docs.filter(doc => this.shown(call, doc));
    if (!storable.length) return { stored, unlinked, keep: [], variant };
    const found = await this.port.stitchedMany(variant!, storable.map(doc => doc._id));
    for (const [id, renderings] of found) {
      if (renderings.complete) stored.set(id, stitchEvent(renderings.own.body, renderings.refs, jsonLd));
      else unlinked.add(id);
    }
    return { stored, unlinked, keep: storable.filter(doc => !found.has(doc._id)), variant };
  }

  /**
   * As `answers`, each event's answer as JSON text (the bytes a list sends): the texts composed before,
   * while every rendering each was composed from is still the stored one (one statement for the page);
   * the others stitched from their renderings and their texts kept for the next reads.
   */
  async texts(call: C, docs: readonly EventDoc[], jsonLd: boolean): Promise<PageAnswers<AnswerText>> {
    const unlinked = new Set<number>();
    const variant = this.port.variant(call);
    const storable = variant === undefined ? [] : docs.filter(doc => this.shown(call, doc));
    if (!storable.length) return { stored: new Map(), unlinked, keep: [], variant };
    const stored = await this.port.composedMany(variant!, storable.map(doc => doc._id), jsonLd);
    const rest = storable.filter(doc => !stored.has(doc._id));
    const found = rest.length ? await this.port.stitchedMany(variant!, rest.map(doc => doc._id)) : new Map<number, S>();
    await Promise.all([...found].map(async ([id, renderings]) => {
      if (!renderings.complete) return void unlinked.add(id);
      const answer = await this.composeAnswer(variant!, renderings);
      stored.set(id, jsonLd ? { text: answer.text, modified: answer.modified, tag: answer.tag } : { text: answer.plain, modified: answer.modified, tag: answer.plainTag });
    }));
    return { stored, unlinked, keep: rest.filter(doc => !found.has(doc._id)), variant };
  }

  /** Whether the event's answer in the call's variant may be stored: it moves with neither the clock nor the caller. */
  storable(call: C, doc: EventDoc): string | undefined {
    const variant = this.port.variant(call);
    return variant !== undefined && this.shown(call, doc) ? variant : undefined;
  }

  /** An event whose answer a stored variant may hold: published, no password, its text its own. */
  private shown(call: C, doc: EventDoc): boolean {
    return doc.status === "publish" && !doc.post_password && this.port.ownText(call, doc);
  }

  mark(): Promise<number> {
    return this.port.mark();
  }

  /** Keeps the event's rendering: `record`, its answer with nothing linked embedded, made after `mark` was read. */
  keep(variant: string, mark: number, doc: EventDoc, record: Record<string, unknown>, additional: Array<Record<string, unknown>> | undefined): Promise<void> {
    return this.port.keep(variant, mark, { id: doc._id, doc, body: eventFragment(record, doc, additional), refs: eventRefs(doc) });
  }
}
