/**
 * The reads of events: a page of the list (docs/lists.md), the occurrences of a series (C54: occurrence slugs and route), one event
 * (docs/records.md#reading-an-event), the records as answered (embedded venues, organizers, terms and
 * images fetched once per page, domain/events/event-embeds.ts; the asked language's texts), and what
 * other services learn of the events' links. Reads never write: a due `future` event is read as
 * published by arithmetic (lib/events/due-events.ts).
 */
import { ApiError } from "../../lib/errors";
import { settings } from "../../lib/settings";
import { canEditPost, canReadPost, effectiveStatus, Who } from "../../lib/access/capabilities";
import { nowDb } from "../../lib/time/dates";
import { EVENT_LINK_ORDER } from "../../lib/events/event-params";
import { eventRecord } from "../../lib/events/event-record";
import type { EventDoc } from "../../lib/events/event-doc";
import { eventSort } from "../../lib/events/event-query";
import { pageOf, type Page } from "../../lib/posts/paging";
import { withDistance } from "../../lib/geo/near-query";
import { isMember, textSource } from "../../lib/events/series";
import { asRead, dueStatuses } from "../../lib/events/due-events";
import type { PostRecords } from "../posts/post-records";
import type { EventEmbedder } from "./event-embeds";
import type { EventListQueries } from "./event-list-filters";
import type { EventCall, PostServices } from "./event-ports";
import type { RecordFields } from "../fields/record-fields";
import type { AnswerText, EventRenderings, PageAnswers } from "./event-renderings";
import { bodyTag, newestModified, partsTag } from "../../lib/http/etag";

/** What a page of events' embedded records depend on: the call (caller, password, context) and JSON-LD. */
export interface EmbedRequest<C> {
  call: C;
  jsonLd: boolean;
}

/** A list page as the JSON text sent, with the ids of the events it shows. */
export interface ListText extends AnswerText {
  ids: number[];
}

/** How records are answered: with JSON-LD; `editor`: the protected fields shown (a write's answer, one event read past its password check). */
export interface RecordOptions {
  jsonLd: boolean;
  editor?: boolean;
}

/** The params of `linkedPostIds` (the venues' and organizers' `event`, `has_events`, `only_with_upcoming` filters). */
export type LinkedIdsQuery = {
  kind: "venue" | "organizer";
  event?: number;
  hasEvents?: boolean;
  upcoming?: boolean;
  statuses?: string[];
};

export interface EventReaderDeps<C extends EventCall> {
  records: PostRecords<EventDoc>;
  queries: EventListQueries<C>;
  embedder: EventEmbedder<EmbedRequest<C>>;
  posts: PostServices<C>;
  /** `meta`, `custom_fields` and the JSON-LD's `additionalProperty` (domain/fields/record-fields.ts). */
  fields?: RecordFields<C>;
  /** The stored renderings (domain/events/event-renderings.ts): absent on a store that keeps none. */
  renderings?: EventRenderings<C>;
}

/** The smallest distance of an answered event's venues from the radius search's point (two decimals). */
export function distanceOf(ev: Record<string, unknown>, geo: Map<number, number>): number | undefined {
  const venue = ev.venue as Array<{ id?: number }> | { id?: number } | null | undefined;
  const venues = Array.isArray(venue) ? venue : venue && venue.id ? [venue] : [];
  const ds = venues.map((v: { id?: number }) => geo.get(v.id!)).filter((d: number | undefined) => d !== undefined);
  return ds.length ? Math.round(Math.min(...ds) * 100) / 100 : undefined;
}

/** A computed record as a list page's text carries it. */
function recordText(record: Record<string, unknown>): AnswerText {
  const text = JSON.stringify(record);
  return { text, modified: typeof record.modified_utc === "string" ? record.modified_utc : null, tag: bodyTag(text) };
}

export class EventReader<C extends EventCall> {
  private readonly records: PostRecords<EventDoc>;

  constructor(private readonly deps: EventReaderDeps<C>) {
    this.records = deps.records;
  }

  private nowDb(): string {
    return nowDb(this.records.now());
  }

  /** One page of the events list, with its envelope (links, totals) and paging headers. */
  async listPage(call: C): Promise<Record<string, unknown>> {
    const listed = await this.listed(call);
    const events = await this.answerPage(call, listed.docs, listed.jsonLd);
    return { events: listed.geo ? events.map(ev => withDistance(ev, distanceOf(ev, listed.geo!))) : events, ...listed.envelope() };
  }

  /**
   * `listPage` as the JSON text sent: the events' composed texts (none parsed or serialised again) in the
   * envelope's text, with the ids the page shows, its newest `modified_utc` and the hash of the text.
   */
  async listText(call: C): Promise<ListText> {
    const { docs, jsonLd, geo, envelope } = await this.listed(call);
    // a page whose events carry their distance is made of its records
    const texts = geo ? (await this.answerPage(call, docs, jsonLd)).map(ev => recordText(withDistance(ev, distanceOf(ev, geo)))) : await this.pageTexts(call, docs, jsonLd);
    const rest = JSON.stringify(envelope());
    // the text JSON.stringify makes of `{ events, ...envelope }`, its hash made of its events' own
    const text = `{"events":[${texts.map(t => t.text).join(",")}]${rest === "{}" ? "}" : `,${rest.slice(1)}`}`;
    return { text, modified: newestModified(texts.map(t => t.modified)) ?? null, tag: partsTag(texts.map(t => t.tag), rest), ids: docs.map(doc => doc._id) };
  }

  /** A list page's events, and its envelope (links, totals; made when asked, as it sets the paging headers). */
  private async listed(call: C): Promise<{ docs: EventDoc[]; jsonLd: boolean; geo?: Map<number, number>; envelope: () => Record<string, unknown> }> {
    const p = call.params as { orderby?: string; json_ld?: boolean; page?: number; per_page?: number };
    const filters = await this.deps.queries.filters(call);
    const page = pageOf(p);
    const geo = call.locals?.geo as Map<number, number> | undefined;
    let docs: EventDoc[];
    let total: number;
    if (p.orderby === "distance" && geo) ({ docs, total } = await this.pageByDistance(this.deps.queries.listQuery(filters), page, geo));
    else ({ docs, total } = await this.deps.posts.pagedFind(this.deps.queries.listQuery(filters), eventSort(!!filters.include), page, this.deps.queries.listCountParts(filters)));
    const sent = { ...(call.meta.query ?? {}) } as Record<string, unknown>;
    return { docs, jsonLd: !!p.json_ld, geo, envelope: () => this.deps.posts.listEnvelope(call, "events", EVENT_LINK_ORDER, sent, page, total) };
  }

  /** `orderby=distance`: the matching events (already bounded by the radius) sorted nearest first. */
  async pageByDistance(query: Record<string, unknown>, page: Page, geo: Map<number, number>): Promise<{ docs: EventDoc[]; total: number }> {
    const all = await this.records.store.find(query, { sort: eventSort(false) });
    const nearest = (d: EventDoc) => Math.min(...d.venues.map(v => geo.get(v) ?? Infinity));
    all.sort((a, b) => nearest(a) - nearest(b));
    const docs = all.slice(page.skip, page.skip + page.perPage);
    if (page.page > 1 && !docs.length) throw new ApiError("event-archive-page-not-found", 404);
    return { docs, total: all.length };
  }

  /** `GET /events/{id}/occurrences` (C54: occurrence slugs and route): a series' occurrences, paged, with `/events` visibility. */
  async occurrencesPage(call: C, doc: EventDoc): Promise<Record<string, unknown>> {
    if (!isMember(doc)) throw new ApiError("rest_event_not_recurring", 404, { id: doc._id });
    const page = pageOf(call.params as { page?: number; per_page?: number });
    const { docs, total } = await this.deps.posts.pagedFind(this.deps.queries.occurrencesQuery(call, doc), { start_date: 1, _id: 1 }, page);
    const events = await this.answer(call, docs, { jsonLd: false });
    const sent = { ...(call.meta.query ?? {}) } as Record<string, unknown>;
    const envelope = this.deps.posts.listEnvelope(call, `events/${doc._id}/occurrences`, ["page", "per_page", "start_date", "end_date", "status", "strict_dates"], sent, page, total);
    return { events, ...envelope };
  }

  /** docs/records.md#reading-an-event: trash, visibility, password, then the record with JSON-LD. */
  async read(call: C, doc: EventDoc): Promise<Record<string, unknown>> {
    const who: Who = call.meta?.caller;
    if (doc.status === "trash") throw new ApiError("event-no-longer-available", 403);
    const status = effectiveStatus(doc, this.nowDb());
    if (status !== "publish" && !canReadPost(who, { ...doc, status })) throw new ApiError("event-not-accessible", 403);
    if (!this.deps.posts.passwordAccess(call, doc, call.params)) throw new ApiError("event-password-protected", 403);
    const jsonLd = who === null ? status === "publish" && !doc.post_password : true;
    // an answer the store may keep: the mark read before anything it is made of (store/renderings.ts)
    const variant = this.deps.renderings?.storable(call, doc);
    const mark = variant !== undefined ? await this.deps.renderings!.mark() : undefined;
    const answer = (await this.answer(call, [doc], { jsonLd, editor: true }))[0];
    if (variant !== undefined) await this.keepRenderings(call, [doc], variant, mark!);
    return answer;
  }

  /**
   * A list page's records: those the store keeps stitched from their renderings (one statement for the
   * page), the others computed. Of these, the events the store may keep are kept for the next read, and
   * the records they link are embedded once more as the stored renderings hold them (with their JSON-LD)
   * when the page itself is read without it, so their renderings are kept too.
   */
  private async answerPage(call: C, docs: EventDoc[], jsonLd: boolean): Promise<Array<Record<string, unknown>>> {
    const renderings = this.deps.renderings;
    if (!renderings || !docs.length) return this.answer(call, docs, { jsonLd });
    return this.pageOf(call, docs, jsonLd, await renderings.answers(call, docs, jsonLd), record => record);
  }

  /** As `answerPage`, each record as its JSON text with its `modified_utc` (the stored ones as composed before). */
  private async pageTexts(call: C, docs: EventDoc[], jsonLd: boolean): Promise<AnswerText[]> {
    const renderings = this.deps.renderings;
    if (!renderings || !docs.length) return (await this.answer(call, docs, { jsonLd })).map(recordText);
    return this.pageOf(call, docs, jsonLd, await renderings.texts(call, docs, jsonLd), recordText);
  }

  /** A page's answers: those stored, the others computed (`as` makes each computed record an answer), and their renderings kept. */
  private async pageOf<T>(call: C, docs: EventDoc[], jsonLd: boolean, stored: PageAnswers<T>, as: (record: Record<string, unknown>) => T): Promise<T[]> {
    const { keep, variant } = stored;
    const missing = docs.filter(doc => !stored.stored.has(doc._id));
    // the mark read before anything the kept renderings are made of (store/renderings.ts)
    const mark = keep.length ? await this.deps.renderings!.mark() : undefined;
    const computed = await this.answer(call, missing, { jsonLd });
    if (keep.length) await this.keepRenderings(call, keep, variant!, mark!);
    const linking = missing.filter(doc => stored.unlinked.has(doc._id) || keep.includes(doc));
    if (!jsonLd && linking.length) await this.deps.embedder.embedsOf({ call, jsonLd: true }, linking);
    const byId = new Map(missing.map((doc, k) => [doc._id, computed[k]]));
    return docs.map(doc => stored.stored.get(doc._id) ?? as(byId.get(doc._id)!));
  }

  /** The events' stored renderings kept: each one's answer with nothing linked embedded (lib/events/event-fragment.ts). */
  private async keepRenderings(call: C, docs: EventDoc[], variant: string, mark: number): Promise<void> {
    const unlinked = docs.map(doc => ({ ...doc, venues: [], organizers: [], categories: [], tags: [] }));
    const { records, views } = await this.shaped(call, unlinked, { jsonLd: true, editor: true }, true);
    await Promise.all(docs.map((doc, k) => this.deps.renderings!.keep(variant, mark, doc, records[k], views?.(doc).additional)));
  }

  /** The answer to a write: the event as stored, protected fields shown. */
  async written(call: C, doc: EventDoc): Promise<Record<string, unknown>> {
    return (await this.answer(call, [doc], { jsonLd: false, editor: true }))[0];
  }

  /** Output records of a page of events, with everything embedded fetched once per page. */
  async answer(call: C, docs: EventDoc[], opts: RecordOptions): Promise<Array<Record<string, unknown>>> {
    if (!docs.length) return [];
    return (await this.shaped(call, docs, opts, false)).records;
  }

  /** The records of `docs` and the custom fields' views they were shaped with (`fresh`: the definitions read from the store). */
  private async shaped(call: C, docs: EventDoc[], opts: RecordOptions, fresh: boolean): Promise<{ records: Array<Record<string, unknown>>; views?: Awaited<ReturnType<RecordFields<C>["views"]>> }> {
    const { posts, embedder } = this.deps;
    const [embeds, texts, views] = await Promise.all([embedder.embedsOf({ call, jsonLd: opts.jsonLd }, docs), posts.localize(call, docs.map(textSource)), this.deps.fields?.views(call, fresh)]);
    const rc = { site: posts.siteOf(call), ns: posts.nsOf(call), baseUrl: settings().baseUrl };
    const now = this.nowDb();
    const params = call.params ?? {};
    const records = docs.map(doc => {
      const blank = !opts.editor && !posts.passwordAccess(call, doc, params);
      // C13: a due `future` event reads as published before a write publishes it
      const record = eventRecord(asRead(doc, now), rc, embeds, { jsonLd: opts.jsonLd, blank, text: texts.get(textSource(doc)._id), fields: views?.(doc) });
      // an imported event's source identity, to those who may edit it (C64: what an import brings; docs/imports.md#idempotency)
      if (doc.import_source && params.context === "edit" && canEditPost(call.meta?.caller, doc)) record.import_source = doc.import_source;
      return posts.applyLanguage(record, doc, call);
    });
    return { records, views };
  }

  /**
   * Whether the caller may learn an event's terms, venues and organizers through the `event`/`post`
   * list filters: the event is readable (docs/authorization.md#per-record-rules; trashed ones never are) and not password-protected
   * (those fields are blanked, docs/records.md#password-protected-records). Trusted internal callers always may.
   */
  linksVisible(call: C, doc: EventDoc): boolean {
    const who: Who = call.meta?.caller;
    if (who === undefined) return true;
    if (doc.status === "trash" || doc.post_password) return false;
    const status = effectiveStatus(doc, this.nowDb());
    return status === "publish" || canReadPost(who, { ...doc, status });
  }

  /** The terms, venues and organizers linked to an event (empty when the caller may not learn them), null when the id is not an event. */
  async links(call: C, id: number): Promise<Pick<EventDoc, "categories" | "tags" | "venues" | "organizers"> | null> {
    const doc = await this.records.findById(id);
    if (doc && !this.linksVisible(call, doc)) return { categories: [], tags: [], venues: [], organizers: [] };
    return doc ? { categories: doc.categories, tags: doc.tags, venues: doc.venues, organizers: doc.organizers } : null;
  }

  /** Distinct venue/organizer ids linked from events matching the conditions (one query); null when `event` is not an event. */
  async linkedPostIds(call: C, q: LinkedIdsQuery): Promise<number[] | null> {
    const field = q.kind === "venue" ? "venues" : "organizers";
    if (q.event !== undefined) {
      const doc = await this.records.findById(q.event);
      return doc ? (this.linksVisible(call, doc) ? doc[field] : []) : null;
    }
    const and: Record<string, unknown>[] = [{ [field]: { $exists: true } }];
    if (q.hasEvents !== undefined) and.push({ status: { $nin: ["draft", "pending"] } });
    if (q.upcoming) {
      and.push({ start_date: { $gte: this.nowDb() } }, { hide_from_listings: { $ne: true } });
      // statuses as C13 (a due `future` post counts as published) reads them (a due `future` event as published)
      if (q.statuses) {
        const due = dueStatuses(q.statuses, this.nowDb());
        and.push({ status: { $in: due.statuses } }, ...(due.condition ? [due.condition] : []));
      }
    }
    const docs = await this.records.store.find({ $and: and }, { projection: { [field]: 1 } });
    return [...new Set(docs.flatMap(d => (d[field] as number[] | undefined) ?? []))];
  }
}
