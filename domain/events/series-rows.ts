/**
 * The rows of a recurring event's series as both the series' writes (domain/events/series-planner.ts) and
 * the horizon (domain/events/series-horizon.ts) write them: one member updated or one occurrence stored with
 * its change-feed entry in the same transaction (C42: one transaction per write) and told to the bus, the first event of a member's
 * series, a claim on a series' planning, a free occurrence slug, and the horizon and clock of the store.
 */
import { randomBytes } from "crypto";
import type { Query } from "../../store/collection";
import { ApiError } from "../../lib/errors";
import { materialisationHorizon } from "../../lib/recurrence/expand";
import { nowDb as dbTime } from "../../lib/time/dates";
import { settings } from "../../lib/settings";
import { trashedSlug, untrashedSlug } from "../../lib/text/slug";
import { FLOATING_STATUSES } from "../../lib/posts/publication";
import { isFirst, occurrenceSlug, SeriesDoc, seriesClaim } from "../../lib/events/series";
import type { PostRecords } from "../posts/post-records";
import type { SeriesFeed } from "./event-ports";

/** Compare-and-set attempts of a series change before giving up (503: nothing changed). */
export const REVISE_ATTEMPTS = 20;

export class SeriesRows {
  constructor(
    /** The events in the store (domain/posts/post-records.ts). */
    readonly records: PostRecords<SeriesDoc>,
    private readonly feed: SeriesFeed
  ) {}

  nowDb(): string {
    return dbTime(this.records.now());
  }

  seriesHorizon(now?: Date): string {
    return materialisationHorizon(settings().siteTimezone, now ?? this.records.now());
  }

  /** Updates one member with its change-feed entry in the same transaction (C42: one transaction per write), and tells the bus. */
  async updateRecorded(query: Query, update: Record<string, unknown>): Promise<SeriesDoc | null> {
    const change = await this.records.store.updateOneChange(query, update, { change: after => this.records.feedEntryOf("updated", after) });
    if (!change) return null;
    const after = change.after;
    this.feed.emit("calendar.event.updated", { id: after._id, status: after.status, modified_utc: after.modified_utc });
    return after;
  }

  /** Stores a new occurrence with its change-feed entry in the same transaction (C42: one transaction per write), and tells the bus. */
  async insertRecorded(row: SeriesDoc): Promise<SeriesDoc> {
    const created = await this.records.store.insert(row, { change: this.records.feedEntryOf("created", row) });
    this.feed.emit("calendar.event.created", { id: created._id, status: created.status, modified_utc: created.modified_utc });
    return created;
  }

  /** The first event of a member's series (the member itself when it is the first). */
  async seriesHead(doc: SeriesDoc): Promise<SeriesDoc> {
    if (isFirst(doc)) return doc;
    const head = await this.records.findById(doc.series_id!);
    if (!head) throw new ApiError("rest-event-not-found", 404, { id: doc.series_id ?? 0 });
    return head;
  }

  /** A claim on a series' planning for this writer (lib/events/series.ts `seriesClaim`). */
  newSeriesClaim(now?: Date): string {
    return seriesClaim(now ?? this.records.now(), randomBytes(6).toString("hex"));
  }

  /** A free slug `{series slug}-{YYYY-MM-DD}` (then `-2`…, C54: occurrence slugs and route); empty while the series is a draft. */
  async occurrenceSlugFor(template: SeriesDoc, identity: string, id: number): Promise<string> {
    const base = occurrenceSlug(untrashedSlug(template.slug ?? ""), identity);
    if (!base || FLOATING_STATUSES.has(template.status)) return base;
    const hold = await this.records.holdSlug(base, id);
    hold.release(); // the store's unique constraint decides; a lost race is retried by the caller
    return template.status === "trash" ? trashedSlug(hold.slug) : hold.slug;
  }

}
