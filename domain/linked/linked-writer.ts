/**
 * The writes of venues and organizers (docs/records.md#venues-and-organizers): create with duplicate
 * avoidance (D25), update, and trash, each on the record as the earlier writes of it left it. Answers
 * the stored record; the service presents it (domain/linked/linked-presenter.ts).
 */
import { ApiError, throwIfInvalid } from "../../lib/errors";
import { settings } from "../../lib/settings";
import { currentSiteId } from "../../lib/sites/scope";
import { sanitizeSlug, trashedSlug, untrashedSlug } from "../../lib/text/slug";
import { nowDb, parseInZone, parseUtc } from "../../lib/time/dates";
import { FLOATING_STATUSES, resolvePublication } from "../../lib/posts/publication";
import { canCreatePost, canDeletePost, canEditPost } from "../../lib/access/capabilities";
import { codesOf, LinkedKindSpec } from "../../lib/linked/spec";
import { LinkedDoc, matchesDuplicate, nameKey, nameKeyCondition, namedBy, writeChanges } from "../../lib/linked/record";
import type { SlugHold } from "../../lib/posts/write-order";
import type { PostRecords } from "../posts/post-records";
import type { AnnouncePort, EventsPort, ImagePort, LanguagePort, RequestPort, WriteAction } from "./linked-ports";
import type { LinkedInput } from "./linked-input";
import { mayEdit, mayRead, postLike } from "./linked-rights";
import type { RecordFields } from "../fields/record-fields";

export interface LinkedWriterDeps<R> {
  spec: LinkedKindSpec;
  /** The kind's records (lookups, slugs, trash, the feed entry a write stores with itself). */
  records: PostRecords<LinkedDoc>;
  input: LinkedInput<R>;
  request: RequestPort<R>;
  language: LanguagePort<R>;
  images: ImagePort<R>;
  events: EventsPort<R>;
  feed: AnnouncePort;
  /** A new id of the post sequence (D2: two id sequences), drawn for this kind. */
  newId(): Promise<number>;
  /** Runs `fn` as the only holder of the store-wide lock `name` of the current site, on every node (mixins/store.mixin.ts `exclusive`). */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>;
  logger: { error(...args: unknown[]): void };
  /** The kind's custom fields (domain/fields/record-fields.ts): `meta` in, the stored values out. */
  fields?: RecordFields<R>;
}

export class LinkedWriter<R> {
  private readonly codes;

  constructor(private readonly deps: LinkedWriterDeps<R>) {
    this.codes = codesOf(deps.spec.kind);
  }

  /** Runs a write of `record` after the earlier writes of it, on the record as they left it. */
  inOrderOf<T>(record: LinkedDoc, write: (current: LinkedDoc) => Promise<T>): Promise<T> {
    const { records } = this.deps;
    return records.inRecordOrder(record._id, async () => write((await records.findById(record._id)) ?? record));
  }

  /** POST: the input checks, 403 for a caller who may not create, then the create (or the record it reuses). */
  async create(request: R, p: Record<string, unknown>): Promise<LinkedDoc> {
    await this.deps.input.check(request, p);
    await this.checkMeta(request, p);
    const who = this.deps.request.caller(request);
    if (!canCreatePost(who)) throw ApiError.forbidden(who === null);
    return this.createOrReuse(request, p);
  }

  /**
   * POST semantics with duplicate avoidance (docs/records.md#duplicates, D25: duplicate venues and organizers; C3: writing onto a found duplicate): the first readable, non-trashed record of the
   * same name (and description, when one is given) is answered instead of a new one; the other provided
   * fields are written onto it when the caller may edit it. Creates of one name run one at a time.
   */
  createOrReuse(request: R, p: Record<string, unknown>): Promise<LinkedDoc> {
    const { spec } = this.deps;
    // per site: names are compared within one site (docs/sites.md)
    const key = `${currentSiteId()}:${nameKey(String(p[spec.nameField] ?? ""))}`;
    // one at a time across nodes, under the store's lock of that name
    return this.deps.exclusive(`${spec.kind}:name:${key}`, () => this.createOrReuseNow(request, p));
  }

  private async createOrReuseNow(request: R, p: Record<string, unknown>): Promise<LinkedDoc> {
    const { spec, records, language } = this.deps;
    const who = this.deps.request.caller(request);
    // C9: name (and description) compared in the request's language, falling back to the original.
    const key = nameKey(String(p[spec.nameField]));
    const candidates = await records.store.find({ status: { $ne: "trash" }, ...(await language.nameQuery(request, key, { name_key: nameKeyCondition(key) })) }, { sort: { _id: 1 } });
    const shown = await language.localized(request, candidates);
    const now = this.nowDb();
    const at = shown.findIndex((d, i) => namedBy(key, [d.name, candidates[i].name]) && matchesDuplicate(d, p.description) && mayRead(who, d, now));
    if (at < 0) return this.insert(request, p);
    const found = candidates[at];
    if (!mayEdit(who, found, now)) return found;
    const { set, unset } = writeChanges(spec, p, found, "duplicate");
    if (p.image !== undefined && p.image !== null) set.image = await this.imageIdOf(request, p.image);
    Object.assign(set, await this.deps.fields?.written(request, p.meta, found));
    const { inline } = await language.splitWrite(request, found, { ...set, ...records.modifiedAt(records.now()) });
    return this.apply(found, inline, unset, "updated");
  }

  private async insert(request: R, p: Record<string, unknown>): Promise<LinkedDoc> {
    const { spec, records, language } = this.deps;
    const who = this.deps.request.caller(request);
    const now = records.now();
    const publication = resolvePublication(who, this.publicationInput(p, now), undefined, settings().siteTimezone, now);
    const { set } = writeChanges(spec, p, undefined, "create");
    Object.assign(set, await this.deps.fields?.written(request, p.meta, undefined));
    const image = p.image !== undefined && p.image !== null ? await this.imageIdOf(request, p.image) : 0;
    // The slug is the name at every status (unlike events); unique only outside draft/pending
    // (docs/records.md#creating-venues-and-organizers).
    const base = sanitizeSlug(String(set.name));
    const id = await this.deps.newId();
    // The slug is unique by the store's constraint; a create that lost a race for it picks the next one.
    const inserted = await records.retryOnSlugConflict(async (): Promise<LinkedDoc | null> => {
      // a unique slug is held against parallel creates of this process until this one is stored
      const hold = FLOATING_STATUSES.has(publication.status) ? undefined : await records.holdSlug(base);
      try {
        let slug = hold ? hold.slug : base;
        if (publication.status === "trash" && slug) slug = trashedSlug(slug);
        // i18n: a create makes the request's language the original (`lang`, `translations`).
        const { inline } = await language.splitWrite(request, undefined, set);
        const doc = {
          _id: id,
          // as events: a trusted internal call (no caller) writes as user 1
          author: (p.author as number | undefined) ?? (who ? who.id : 1),
          ...publication,
          ...records.modifiedAt(now),
          slug,
          image,
          ...inline,
          // an import's create: the record's source identity (C64: what an import brings)
          ...(this.deps.request.importSource?.(request) ?? {})
        };
        // an idempotent create's claim is marked with this record in its transaction (C21: idempotency keys; C41: invariants under concurrency)
        const claim = this.deps.request.claimOf(request, id);
        return await records.store.insert(doc, { change: records.feedEntryOf("created", doc), claim });
      } finally {
        hold?.release();
      }
    });
    if (!inserted) throw new ApiError(this.codes.couldNotCreate, 400);
    await this.deps.feed.announce("created", inserted);
    return inserted;
  }

  /** docs/records.md#updating-venues-and-organizers (D3: absent fields unchanged; C13: `status=trash` is a DELETE, leaving trash restores the slug). */
  async update(request: R, record: LinkedDoc, p: Record<string, unknown>): Promise<LinkedDoc> {
    const { spec, records, language } = this.deps;
    await this.deps.input.check(request, p);
    await this.checkMeta(request, p);
    const who = this.deps.request.caller(request);
    const like = postLike(record, this.nowDb());
    if (!canEditPost(who, like)) throw ApiError.forbidden(who === null);
    const now = records.now();
    const publication = resolvePublication(who, this.publicationInput(p, now), record, settings().siteTimezone, now);
    const toTrash = publication.status === "trash" && record.status !== "trash";
    if (toTrash && !canDeletePost(who, like)) throw ApiError.forbidden(who === null);
    const { set, unset } = writeChanges(spec, p, record, "update");
    if (p.image !== undefined && p.image !== null) set.image = await this.imageIdOf(request, p.image);
    if (p.author !== undefined && p.author !== null) set.author = p.author;
    Object.assign(set, await this.deps.fields?.written(request, p.meta, record));
    // a slug made unique here is held against parallel writes until this one is stored
    return records.retryOnSlugConflict(async () => {
      const holds: SlugHold[] = [];
      try {
        Object.assign(set, publication, records.modifiedAt(now), await this.slugAfter(record, publication.status, holds));
        if (toTrash) set.prior_status = record.status;
        else if (record.status === "trash" && publication.status !== "trash") unset.push("prior_status");
        if (toTrash) await this.deps.events.unlink(request, record._id);
        // i18n: in a language other than the record's original, the translatable fields go to the i18n service.
        const { inline } = await language.splitWrite(request, record, set);
        return this.apply(record, inline, unset, toTrash ? "deleted" : "updated");
      } finally {
        for (const hold of holds) hold.release();
      }
    });
  }

  /** docs/records.md#deleting-venues-and-organizers: trash (never delete), unlinked from every event before the answer (C16: read your writes). */
  async remove(request: R, record: LinkedDoc): Promise<LinkedDoc> {
    const { spec, records } = this.deps;
    const who = this.deps.request.caller(request);
    if (!canDeletePost(who, postLike(record, this.nowDb()))) throw ApiError.forbidden(who === null);
    if (record.status === "trash") throw new ApiError(this.codes.inTrash, 410);
    await this.deps.events.unlink(request, record._id);
    let trashed: LinkedDoc | null;
    try {
      trashed = await records.trash(record);
    } catch (err) {
      this.deps.logger.error(`Trashing ${spec.kind} ${record._id} failed:`, err);
      trashed = null;
    }
    if (!trashed) throw new ApiError(this.codes.couldNotDelete, 500);
    await this.deps.feed.announce("deleted", trashed);
    return trashed;
  }

  /** `meta`'s values refused: a 400 before any permission check (a create's missing required fields are the write's own 400). */
  private async checkMeta(request: R, p: Record<string, unknown>): Promise<void> {
    if (p.meta !== undefined && p.meta !== null && this.deps.fields) throwIfInvalid(await this.deps.fields.check(request, p.meta, { _id: 0 }));
  }

  /** Publication input: `date` read in the site zone, `date_utc` as UTC (docs/dates.md#how-each-parameter-is-read). */
  private publicationInput(p: Record<string, unknown>, now: Date) {
    const zone = settings().siteTimezone;
    return {
      status: p.status as string | undefined,
      date: p.date !== undefined && p.date !== null ? parseInZone(p.date, zone, now) ?? undefined : undefined,
      date_utc: p.date_utc !== undefined && p.date_utc !== null ? parseUtc(p.date_utc, now) ?? undefined : undefined
    };
  }

  /** The image id an input names (0 for `""`: no image), creating the image record of a URL. */
  private imageIdOf(request: R, value: unknown): Promise<number> {
    return value === "" ? Promise.resolve(0) : this.deps.images.resolve(request, value);
  }

  /** The slug after a status change (C13: a due `future` post counts as published): trash suffix on and off, uniqueness when leaving draft/pending. */
  private async slugAfter(record: LinkedDoc, status: string, holds: SlugHold[]): Promise<{ slug?: string }> {
    if (!record.slug) return {};
    const wasTrash = record.status === "trash";
    if (status === "trash") return wasTrash ? {} : { slug: trashedSlug(record.slug) };
    const base = wasTrash ? untrashedSlug(record.slug) : record.slug;
    if (FLOATING_STATUSES.has(status)) return wasTrash ? { slug: base } : {};
    if (wasTrash || FLOATING_STATUSES.has(record.status)) {
      const hold = await this.deps.records.holdSlug(base, record._id);
      holds.push(hold);
      return { slug: hold.slug };
    }
    return {};
  }

  /** Stores a change of `record` with its feed entry (only over the record as read), then announces it. */
  private async apply(record: LinkedDoc, set: Record<string, unknown>, unset: string[], action: WriteAction): Promise<LinkedDoc> {
    const { records } = this.deps;
    const update: Record<string, unknown> = { $set: set };
    if (unset.length) update.$unset = Object.fromEntries(unset.map(k => [k, true]));
    const updated = await records.store.updateOne({ _id: record._id }, update, { change: after => records.feedEntryOf(action, after), expected: record });
    if (!updated) throw new ApiError(this.codes.couldNotUpdate, 400);
    await this.deps.feed.announce(action, updated);
    return updated;
  }

  private nowDb(): string {
    return nowDb(this.deps.records.now());
  }
}
