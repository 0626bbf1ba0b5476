/**
 * The writes of events, each as a request asks for it: create (a rule starts a series), update and
 * delete by id or slug (the target checked, then the writer or the series planner; the writes of one
 * event one after another), the publication of due `future` events (C13: a due `future` post counts as published) and what runs before every
 * write (docs/decisions.md "Reads never write"), the ticket state (D33: the `ticketed` flag) and the removal of a linked record
 * from every event. The parameter checks (domain/events/write-checks.ts) run before these, in the action.
 */
import { ApiError } from "../../lib/errors";
import { SiteLocal } from "../../lib/sites/scope";
import { canCreatePost, Who } from "../../lib/access/capabilities";
import { nowDb } from "../../lib/time/dates";
import type { EventDoc } from "../../lib/events/event-doc";
import { isMember } from "../../lib/events/series";
import { changeOf } from "../../lib/changes/change-of";
import type { PostRecords } from "../posts/post-records";
import type { EventWriter } from "./event-writer";
import type { SeriesPlanner } from "./series-planner";
import type { EventTargets, TargetAction } from "./event-targets";
import type { TermCountNotices } from "./term-count-notices";
import type { EventCall, EventFeed } from "./event-ports";

/** A write's params as their schemas left them. */
type Params = Record<string, unknown>;
/** The event fields that link records another service owns. */
export type LinkField = "venues" | "organizers" | "categories" | "tags";

export interface EventCommandsDeps<C> {
  records: PostRecords<EventDoc>;
  targets: EventTargets;
  writer: EventWriter<C>;
  series: SeriesPlanner<C>;
  counts: TermCountNotices;
  feed: EventFeed;
}

/** Updating to `trash` is a delete (C13: a due `future` post counts as published): it needs delete_post as well as edit_post. */
export function writeAction(p: Params): Exclude<TargetAction, "delete"> {
  return p.status === "trash" ? "trash" : "edit";
}

export class EventCommands<C extends EventCall> {
  private readonly records: PostRecords<EventDoc>;
  /** The `nowDb()` second of the last publication of due `future` events, per site. */
  private readonly lastPublication = new SiteLocal<string>(() => "");

  constructor(private readonly deps: EventCommandsDeps<C>) {
    this.records = deps.records;
  }

  /** POST /events: the caller may create, the event is written, and a `recurrence` starts its series (C51: recurrence fields). */
  async create(call: C, p: Params): Promise<EventDoc> {
    const who: Who = call.meta?.caller;
    if (!canCreatePost(who)) throw ApiError.forbidden(who === null);
    return this.deps.series.afterCreate(call, (await this.deps.writer.write(call, p, undefined)), p);
  }

  /** PUT /events/{id}: the target checked on the event as the previous write of it left it, then written (a series member by its scope). */
  update(call: C, id: number, p: Params): Promise<EventDoc> {
    // writes of one event run one after another, each on the event as the previous one left it
    return this.records.inRecordOrder(id, async () => {
      const doc = await this.deps.targets.forWrite(call.meta?.caller, await this.records.findById(id), id, writeAction(p));
      return this.deps.series.update(call, doc, p);
    });
  }
  /** PUT /events/by-slug/{slug}: D5 (by-slug writes check the record's own permissions), an unknown slug is judged like an unknown id (general capability, then 404 with id 0). */
  async updateBySlug(call: C, slug: string, p: Params): Promise<EventDoc> {
    const found = await this.records.findBySlug(slug);
    const write = async () => {
      const doc = await this.deps.targets.forWrite(call.meta?.caller, found ? await this.records.findById(found._id) : null, 0, writeAction(p));
      return this.deps.series.update(call, doc, p);
    };
    return found ? this.records.inRecordOrder(found._id, write) : write();
  }

  /** DELETE /events/{id}. */
  remove(call: C, id: number): Promise<EventDoc> {
    return this.records.inRecordOrder(id, async () => {
      const doc = await this.deps.targets.forWrite(call.meta?.caller, await this.records.findById(id), id, "delete");
      return this.trash(call, doc);
    });
  }
  /** DELETE /events/by-slug/{slug}: an unknown slug is a 400 before any permission check. */
  async removeBySlug(call: C, slug: string): Promise<EventDoc> {
    const found = await this.deps.targets.bySlug(slug);
    return this.records.inRecordOrder(found._id, async () => {
      const doc = (await this.records.findById(found._id)) ?? found;
      await this.deps.targets.forWrite(call.meta?.caller, doc, doc._id, "delete");
      return this.trash(call, doc);
    });
  }
  /** 410 when already trashed; a series member by its scope (`call.params.scope`); else trashed, counted and told. */
  async trash(call: C, doc: EventDoc): Promise<EventDoc> {
    if (doc.status === "trash") throw new ApiError("event-is-in-trash", 410);
    if (isMember(doc)) return this.deps.series.remove(call, doc, call.params.scope);
    const trashed = await this.records.trash(doc);
    await this.deps.counts.afterWrites([[doc, trashed]]);
    await this.deps.feed.announce("deleted", trashed, true);
    return trashed;
  }

  /**
   * What reads leave to the writes (docs/decisions.md "Reads never write"), run before each write of an
   * event: due `future` events are published, and the series' horizon moved where today's default list
   * window needs it (the scheduled jobs do both as well).
   */
  async beforeWrite(): Promise<void> {
    await this.publishDue();
    await this.deps.series.horizon.extendHorizons();
  }

  /**
   * C13: future events whose date has passed are published (and counted, and recorded in the feed). Run by
   * the writes of events and by a scheduled job (DUE_EVENTS_JOB_MS), never by a read: until then the reads
   * count them as published by arithmetic (lib/events/due-events.ts).
   */
  async publishDue(): Promise<void> {
    const now = nowDb(this.records.now());
    // Once a second per site (docs/sites.md).
    if (this.lastPublication.current() === now) return;
    this.lastPublication.set(now);
    // few events are `future`: read through the status index, not by testing every event
    const due = await this.records.store.find({ status: "future", date_utc: { $lte: now } }, { rare: "status" });
    for (const doc of due) {
      const updated = await this.records.store.updateOne({ _id: doc._id, status: "future" }, { $set: { status: "publish" } });
      if (updated) await this.deps.counts.afterWrites([[doc, updated]]);
      if (updated) await this.deps.feed.recordChanges([changeOf("event", "updated", updated)], { emit: true });
    }
  }

  /** Ticket state, set by a ticketing service on the bus (D33: the `ticketed` flag). */
  async setTicketed(id: number, ticketed: boolean): Promise<EventDoc> {
    const doc = (await this.records.store.updateOne({ _id: id }, { $set: { ticketed, ...this.records.modifiedAt(this.records.now()) } },
      { change: after => this.records.feedEntryOf("updated", after) }));
    if (!doc) throw new ApiError("rest-event-not-found", 404, { id });
    await this.deps.feed.announce("updated", doc, true);
    return doc;
  }

  /** Removes a linked record (venue, organizer, term) from every event carrying it; the feed records them. */
  async unlinkFrom(field: LinkField, id: number): Promise<number> {
    const linked = await this.deps.feed.eventsLinking(field, [id]);
    const n = await this.records.store.updateMany({ [field]: id }, { $pull: { [field]: id } });
    await this.deps.feed.recordChanges(linked, { emit: true });
    return n;
  }
}
