/**
 * What writes one event from a write's parameters: a create (`current` undefined) or an update of
 * `current`; answers the stored event. The series planner (domain/events/series-planner.ts) knows it by
 * its interface, `EventWriter`, and writes each event of a series through it; `EventRecordWriter` is the
 * one the events service builds. `C`: what the write carries from its caller (the request's call).
 */
import { ApiError } from "../../lib/errors";
import { settings } from "../../lib/settings";
import { Who } from "../../lib/access/capabilities";
import { parseUtc, parseWallClock } from "../../lib/time/dates";
import { sanitizeSlug, trashedSlug, untrashedSlug } from "../../lib/text/slug";
import { FLOATING_STATUSES, resolvePublication } from "../../lib/posts/publication";
import { plainEventFields, resolveSchedule } from "../../lib/events/event-input";
import type { EventDoc } from "../../lib/events/event-doc";
import type { SlugHold } from "../../lib/posts/write-order";
import { sent } from "../../lib/http/params";
import { producedBy } from "../../lib/http/idempotency";
import { importSourceOf, type ImportSourceMeta } from "../../lib/imports/source";
import type { PostRecords } from "../posts/post-records";
import type { EventCall, EventFeed, NeighbourServices, PostServices } from "./event-ports";
import type { TermCountNotices } from "./term-count-notices";
import { checkedLinks } from "./checked-links";
import { eventStatusWrite } from "./event-status-rule";
import type { RecordFields } from "../fields/record-fields";

export interface EventWriter<C> {
  write(call: C, params: Record<string, unknown>, current: EventDoc | undefined): Promise<EventDoc>;
}

/** A write's params (validated by their schemas; each input is read where it is used). */
export type EventInput = Record<string, unknown> & { slug?: unknown };

export interface EventRecordWriterDeps<C> {
  records: PostRecords<EventDoc>;
  /** A new id of the post sequence, recorded as an event's (D2: two id sequences). */
  nextId(): Promise<number>;
  services: NeighbourServices<C>;
  posts: PostServices<C>;
  counts: TermCountNotices;
  feed: EventFeed;
  /** The custom fields of events (domain/fields/record-fields.ts): `meta` in, the stored values out. */
  fields?: RecordFields<C>;
}

const siteZone = (): string => settings().siteTimezone;

export class EventRecordWriter<C extends EventCall> implements EventWriter<C> {
  private readonly records: PostRecords<EventDoc>;

  constructor(private readonly deps: EventRecordWriterDeps<C>) {
    this.records = deps.records;
  }

  /** Creates (current undefined) or updates an event from validated parameters; returns the stored doc. */
  async write(call: C, p: EventInput, current: EventDoc | undefined): Promise<EventDoc> {
    const { records, services, posts } = this;
    const who: Who = call.meta?.caller;
    const now = records.now();
    const schedule = resolveSchedule(p, current, siteZone(), now);
    const publication = resolvePublication(who, {
      status: (p.status as string | undefined) ?? undefined,
      date: sent(p.date) ? parseWallClock(p.date, schedule.timezone, now)! : undefined,
      date_utc: sent(p.date_utc) ? parseUtc(p.date_utc, now)! : undefined
    }, current, siteZone(), now);
    const fields: Record<string, unknown> = { ...plainEventFields(p, !current), ...schedule, ...publication, ...records.modifiedAt(now) };
    Object.assign(fields, eventStatusWrite(p, current, schedule.utc_start_date, siteZone()));
    if (sent(p.author)) fields.author = p.author;
    if (sent(p.post_parent)) fields.post_parent = p.post_parent;
    if (sent(p.image)) fields.image = await posts.resolveImage(call, p.image);
    if (this.deps.fields) Object.assign(fields, await this.deps.fields.written(call, p.meta, current));

    // Records made inline draw ids from two sequences (terms; venues and organizers share the posts'): each
    // sequence is drawn in one order — categories before tags, the venue before organizers — so a request
    // makes the same ids whenever it runs (the two sequences side by side).
    const given = (v: unknown) => v !== undefined && v !== null;
    const terms = { ...(given(p.categories) ? { categories: p.categories } : {}), ...(given(p.tags) ? { tags: p.tags } : {}) };
    const [{ categories, tags }, [venues, organizers]] = await Promise.all([
      Object.keys(terms).length ? services.termsForEvent(call, terms) : ({} as { categories?: number[]; tags?: number[] }),
      (async () => [
        sent(p.venue) ? checkedLinks(call, "venues", p.venue) ?? await services.link(call, "venues", p.venue) : undefined,
        sent(p.organizer) ? checkedLinks(call, "organizers", p.organizer) ?? await services.link(call, "organizers", p.organizer) : undefined
      ])()
    ]);
    if (categories) fields.categories = categories;
    if (tags) fields.tags = tags;
    if (venues) fields.venues = venues;
    if (organizers) fields.organizers = organizers;

    const id: number = current ? current._id : await this.deps.nextId();
    // The slug is unique by the store's constraint; a write that lost a race for it picks the next one.
    // The record as this write found it under the store's lock: the term counts move by exactly this change.
    let before: EventDoc | undefined = current;
    const doc: EventDoc = await records.retryOnSlugConflict(async (round: number): Promise<EventDoc> => {
      // a slug chosen here is held against parallel writes of this process until this one is stored
      const holds: SlugHold[] = [];
      try {
        // A create's first try takes its slug unchecked: the insert's own statement checks it.
        const unchecked = !current && round === 1;
        const attempt: Record<string, unknown> = { ...fields, ...(await this.slugAndTrash(p, current, { ...current, ...fields }, id, holds, unchecked)) };
        // i18n: a create (which also sets `lang` and `translations`) or a write in the original language stays
        // inline; in another language title, description and excerpt go to the i18n service.
        const { inline } = await posts.splitWrite(call, current, attempt);
        // The write stores its change-feed entry with it (one transaction).
        if (!current) {
          const defaults: Partial<EventDoc> = {
            _id: id, author: who ? who.id : 1, title: "", description: "", excerpt: "", image: null, categories: [], tags: [], venues: [], organizers: [],
            ticketed: false, post_parent: 0, post_password: "", ...importSourceOf(call.meta as ImportSourceMeta)
          };
          // the stored fields (status, dates, slug…) are the write's own, computed above
          const created = { ...defaults, ...inline };
          const unique = !FLOATING_STATUSES.has(String(created.status)) && created.status !== "trash";
          // an idempotent create's claim is marked with this record in its transaction (C21: idempotency keys; C41: invariants under concurrency)
          const claim = call.meta.idempotencyRead === "events.get" ? producedBy(call.meta, id) : undefined;
          return await records.store.insert(created, { change: records.feedEntryOf("created", created), unlessTaken: unique ? "slug" : undefined, claim });
        }
        const change = await records.store.updateOneChange({ _id: id }, { $set: inline }, { change: after => records.feedEntryOf("updated", after), expected: current });
        if (!change) throw new ApiError("rest-event-not-found", 404, { id });
        before = change.before;
        return change.after;
      } finally {
        for (const hold of holds) hold.release();
      }
    });
    await this.deps.counts.afterWrites([[before, doc]]);
    await this.deps.feed.announce(current ? "updated" : "created", doc, true);
    return doc;
  }

  /**
   * Slug rules (docs/records.md#event-slugs, D16: drafts created without a slug keep an empty slug) and trash by status (C13: a due `future` post counts as published): entering the trash suffixes the slug
   * (an event created in the trash gets its would-be slug suffixed); leaving it removes the suffix and
   * makes the slug unique again. A slug taken is held (`holds`) until the write is stored.
   */
  /** `next`: the record as the write leaves it (its status and title are read). */
  async slugAndTrash(p: EventInput, current: EventDoc | undefined, next: { status?: unknown; title?: unknown }, id: number, holds: SlugHold[] = [], unchecked = false): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    const status = String(next.status);
    if (status === "trash") {
      if (!current) {
        const base = sanitizeSlug(String(sent(p.slug) ? p.slug : next.title)) || String(id);
        return { slug: trashedSlug(base) };
      }
      if (current.status !== "trash") Object.assign(out, { prior_status: current.status, slug: current.slug ? trashedSlug(untrashedSlug(current.slug)) : "" });
      return out;
    }
    const leavingTrash = current?.status === "trash";
    const floating = FLOATING_STATUSES.has(status);
    let base: string | undefined;
    if (sent(p.slug)) base = sanitizeSlug(String(p.slug));
    else if (leavingTrash) base = untrashedSlug(current!.slug ?? "");
    else if (!current || !current.slug) base = floating ? "" : sanitizeSlug(String(next.title ?? ""));
    // leaving draft/pending with a slug: from now on it has to be unique (docs/records.md#event-slugs)
    else if (FLOATING_STATUSES.has(current.status) && !floating) base = current.slug;
    if (base === undefined) return out;
    // WordPress sanitize_title falls back to the post id when nothing is left of the title or slug.
    if (base === "" && !floating) base = String(id);
    if (base && (!floating || leavingTrash)) {
      const hold: SlugHold = await this.records.holdSlug(base, id, unchecked);
      holds.push(hold);
      out.slug = hold.slug;
    } else out.slug = base;
    if (leavingTrash) out.prior_status = undefined;
    return out;
  }

  private get services(): NeighbourServices<C> {
    return this.deps.services;
  }
  private get posts(): PostServices<C> {
    return this.deps.posts;
  }
}
