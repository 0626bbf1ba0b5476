/**
 * The records of one post type (events, venues or organizers) in the store: lookups by id and slug,
 * ids from the shared post sequence, slugs made unique (held against this process's parallel writes,
 * the store's constraint deciding between nodes), the writes of one record one after another, trash,
 * and the change-feed entry a write stores with itself. A plain class: the store's collection and id
 * registry are given (functions, as the service opens its store after it is built), no broker.
 */
import { recordsOf, type Collection, type Doc, type Query, type Sort } from "../../store/collection";
import type { IdRegistry } from "../../store/registry";
import { isUniqueViolation } from "../../store/errors";
import type { PostDoc } from "../../lib/posts/post-doc";
import { SlugHold, SlugHolds } from "../../lib/posts/write-order";
import { KeyedQueue } from "../../lib/async/queue";
import { currentSiteId, SiteLocal } from "../../lib/sites/scope";
import { sanitizeSlug, trashedSlug } from "../../lib/text/slug";
import { feedEntry } from "../../lib/changes/feed";
import { changeOf } from "../../lib/changes/change-of";
import { modifiedStamp } from "../../lib/changes/modified";
import { settings } from "../../lib/settings";
import { ApiError } from "../../lib/errors";
import { Page, totalFromPage } from "../../lib/posts/paging";
import type { CountPart } from "../../lib/events/due-events";

export type PostKind = "event" | "venue" | "organizer";
export type WriteAction = "created" | "updated" | "deleted";

/** Writes that lose a race for a slug this many times in a row give up (the error is answered); a create's first, unchecked try is one of them. */
const SLUG_ATTEMPTS = 16;

export interface PostRecordsDeps {
  kind: PostKind;
  /** The type's collection of the current site (each write followed by a cache clean). */
  collection(): Collection;
  /** The id registry of the current site. */
  registry(): IdRegistry;
  now(): Date;
}

export class PostRecords<D extends PostDoc = PostDoc> {
  readonly kind: PostKind;
  /** Slugs held by writes in progress, per site (slugs are unique per site, docs/sites.md). */
  private readonly slugHolds = new SiteLocal(() => new SlugHolds());
  private readonly recordWrites = new KeyedQueue();

  constructor(private readonly deps: PostRecordsDeps) {
    this.kind = deps.kind;
  }

  get store(): Collection<D> {
    return recordsOf<D>(this.deps.collection());
  }
  now(): Date {
    return this.deps.now();
  }

  findById(id: number): Promise<D | null> {
    return this.store.findOne({ _id: id });
  }
  /** The record whose stored slug equals the normalised path segment (any status). */
  findBySlug(slug: string): Promise<D | null> {
    // The gateway has decoded the path segment already; decode again only what still is encoded.
    let raw = String(slug);
    try { raw = decodeURIComponent(raw); } catch { /* a literal "%" */ }
    const normalised = sanitizeSlug(raw);
    if (!normalised) return Promise.resolve(null);
    return this.store.findOne({ slug: normalised });
  }
  /** The post type owning an id in the shared id space (D2: two id sequences). */
  kindOfId(id: number): Promise<string | undefined> {
    return this.deps.registry().typeOf(id);
  }
  /** `count` ids of the post sequence at once, ascending. */
  allocateIds(count: number): Promise<number[]> {
    return this.deps.registry().allocatePosts(this.kind, count);
  }

  /**
   * `base` made unique among this type's records (reserved words avoided), held against parallel writes
   * until `release()` (call it once the write is stored). With `unchecked`, `base` itself is taken without
   * asking the store: the write's own statement checks it (InsertOptions.unlessTaken) and a refusal runs
   * the write again, checked (retryOnSlugConflict).
   */
  holdSlug(base: string, excludeId?: number, unchecked = false): Promise<SlugHold> {
    return this.slugHolds.current().hold(base, async candidate =>
      !(unchecked && candidate === base) && (await this.store.idsWhere("slug", candidate)).some((id: unknown) => id !== excludeId));
  }
  /**
   * Runs a write that picks a slug; when the store's unique constraint refuses the slug (another node
   * took it meanwhile), runs it again, so it picks the next free one.
   */
  async retryOnSlugConflict<T>(fn: (attempt: number) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn(attempt);
      } catch (err) {
        if (!isUniqueViolation(err) || !/slug/.test((err as Error).message) || attempt >= SLUG_ATTEMPTS) throw err;
      }
    }
  }
  /** Runs the writes of one record (`id`) one after another; `fn` reads the record itself, inside. */
  inRecordOrder<T>(id: number, fn: () => Promise<T>): Promise<T> {
    return this.recordWrites.run(`${currentSiteId()}:${id}`, fn);
  }

  /**
   * One page of a query plus the total, 404 `{kind}-archive-page-not-found` past the end. The page is
   * read first: one with room left gives the total, and only a full page is counted (docs/lists.md#counting-a-list).
   */
  async pagedFind(query: Query, sort: Sort, page: Page, countParts?: readonly CountPart[]): Promise<{ docs: D[]; total: number }> {
    const docs = await this.store.find(query, { sort, skip: page.skip, limit: page.perPage });
    if (page.page > 1 && docs.length === 0) throw new ApiError(`${this.kind}-archive-page-not-found`, 404);
    const total = totalFromPage(page, docs.length) ?? (await this.countOf(query, countParts));
    return { docs, total };
  }

  /** The total of `query`, or the sum of its disjoint `parts` when the caller gives them (lib/events/due-events.ts `dueCountParts`). */
  private countOf(query: Query, parts?: readonly CountPart[]): Promise<number> {
    return parts ? this.store.countParts(parts) : this.store.count(query);
  }

  /** `modified` (site time) and `modified_utc` (UTC) of a write at `now` (C58: `modified` in site time). */
  modifiedAt(now: Date): { modified: string; modified_utc: string } {
    return modifiedStamp(now, settings().siteTimezone);
  }
  /** The feed entry of a write of this record, for the store to write with it (InsertOptions.change). */
  feedEntryOf(action: WriteAction, record: Doc): Record<string, unknown> {
    return { ...feedEntry(changeOf(this.kind, action, record)) };
  }
  /**
   * Moves a record to the trash: prior status remembered, slug suffixed (docs/records.md#deleting-an-event);
   * its `deleted` feed entry stored with it.
   */
  async trash(record: D): Promise<D> {
    const trashed = await this.store.updateOne({ _id: record._id }, {
      $set: { status: "trash", prior_status: record.status, slug: record.slug ? trashedSlug(record.slug) : record.slug, ...this.modifiedAt(this.now()) }
    }, { change: after => this.feedEntryOf("deleted", after) });
    // the caller read the record in its record order (inRecordOrder): it is there to update
    return trashed!;
  }
}
