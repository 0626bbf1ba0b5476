/**
 * What events, venues and organizers share, written once: the store (integer ids from the shared post
 * sequence), who is calling, the namespace URLs of the request, slugs and their uniqueness, trash,
 * status visibility in lists, paging with its envelope and headers, password access, images, and the
 * change notifications other services listen to.
 */
import type { Service, ServiceSchema } from "moleculer";
import { StoreMixin, IndexSpec, type StoreFace } from "./store.mixin";
import { ChangeSourceMixin, type ChangeSourceFace } from "./change-source.mixin";
import type { Query, Sort } from "../store/collection";
import type { ImageRecord, IdRegistry } from "../store/registry";
import { ApiError } from "../lib/errors";
import { isUniqueViolation } from "../store/errors";
import { settings, NAMESPACE_PATH } from "../lib/settings";
import { currentSiteId, SiteLocal } from "../lib/sites/scope";
import { canAccessPassword, listStatuses, Who, hasCap } from "../lib/capabilities";
import { sanitizeSlug, trashedSlug } from "../lib/slug";
import { nowDb } from "../lib/dates";
import { feedEntry } from "../lib/changes/feed";
import { modifiedStamp } from "../lib/changes/modified";
import { pageOf, Page, listLinks, pagingHeaders, totalFromPage, totalPages } from "../lib/posts/paging";
import { imageUrlExtension } from "../lib/sanitize";
import { parseInteger } from "../lib/query";
import { SlugHold, SlugHolds } from "../lib/posts/write-order";
import { KeyedQueue } from "../lib/queue";

export type PostKind = "event" | "venue" | "organizer";

export interface PostOptions {
  kind: PostKind;
  collection: string;
  indexes: IndexSpec[];
}

import type { Ctx } from "../broker/context";
export type { Ctx } from "../broker/context";

export type { PostDoc } from "../lib/posts/post-doc";
import type { PostDoc } from "../lib/posts/post-doc";

const COMMON_INDEXES: IndexSpec[] = [
  // (each index is paid on every write: only fields a list filters, sorts or looks up by)
  { field: "status" }, { field: "slug" }, { field: "modified_utc" },
  // A slug is unique among a type's records outside draft/pending (docs/records.md#event-slugs), by constraint.
  { field: "slug", unique: true, unlessStatus: ["draft", "pending", "auto-draft", "trash"] }
];
/** Writes that lose a race for a slug this many times in a row give up (the error is answered); a create's first, unchecked try is one of them. */
const SLUG_ATTEMPTS = 16;

/** The shared methods; `opts` names the kind in errors and notifications. */
function postMethods(opts: PostOptions) {
  return {
    /** The caller of the request: a Caller, null (anonymous) or undefined (trusted internal call). */
    who(ctx: Ctx): Who {
      return ctx.meta?.caller;
    },
    /** `{site}`: the base URL plus the language root the request came in on. */
    siteOf(ctx: Ctx): string {
      return ctx.meta?.siteUrl ?? settings().baseUrl;
    },
    /** `{ns}`: the namespace root URL of the request. */
    nsOf(ctx: Ctx): string {
      return `${ctx.meta?.apiRoot ?? `${settings().baseUrl}/${settings().restPrefix}`}/${NAMESPACE_PATH}`;
    },
    now(): Date {
      return new Date();
    },
    nowDb(): string {
      return nowDb(this.now());
    },
    /** `modified` (site time) and `modified_utc` (UTC) of a write at `now` (C58). */
    modifiedAt(now: Date): { modified: string; modified_utc: string } {
      return modifiedStamp(now, settings().siteTimezone);
    },

    async findById(id: number): Promise<PostDoc | null> {
      return this.store.findOne({ _id: id }) as Promise<PostDoc | null>;
    },
    /** The record whose stored slug equals the normalised path segment (any status). */
    async findBySlug(slug: string): Promise<PostDoc | null> {
      // The gateway has decoded the path segment already; decode again only what still is encoded.
      let raw = String(slug);
      try { raw = decodeURIComponent(raw); } catch { /* a literal "%" */ }
      const normalised = sanitizeSlug(raw);
      if (!normalised) return null;
      return this.store.findOne({ slug: normalised }) as Promise<PostDoc | null>;
    },
    /** The post type owning an id in the shared id space (D2). */
    kindOfId(id: number): Promise<string | undefined> {
      return this.typeOfId(id);
    },

    /** `base` made unique among this type's records (reserved words avoided), held against parallel writes until `release()` (call it once the write is stored). */
    /**
     * With `unchecked`, `base` itself is taken without asking the store: the write's own statement checks
     * it (InsertOptions.unlessTaken) and a refusal runs the write again, checked (retryOnSlugConflict).
     */
    holdSlug(base: string, excludeId?: number, unchecked = false): Promise<SlugHold> {
      return this.slugHolds.here().hold(base, async candidate =>
        !(unchecked && candidate === base) && (await this.store.idsWhere("slug", candidate)).some((id: unknown) => id !== excludeId));
    },
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
    },
    /** Runs the writes of one record (`id`) one after another; `fn` reads the record itself, inside. */
    inRecordOrder<T>(id: number, fn: () => Promise<T>): Promise<T> {
      return this.recordWrites.run(`${currentSiteId()}:${id}`, fn);
    },

    /**
     * Moves a record to the trash: prior status remembered, slug suffixed (docs/records.md#deleting-an-event);
     * its `deleted` feed entry stored with it (announce it with `recorded`).
     */
    async trashRecord(record: PostDoc): Promise<PostDoc> {
      return this.store.updateOne({ _id: record._id }, {
        $set: { status: "trash", prior_status: record.status, slug: record.slug ? trashedSlug(record.slug) : record.slug, ...this.modifiedAt(this.now()) }
      }, { change: after => this.feedEntryOf("deleted", after as PostDoc) }) as Promise<PostDoc>;
    },

    /** Statuses a list shows to this caller (docs/lists.md#always-applied, #venue-and-organizer-lists); a forbidden `status` is a 400. */
    listStatusFilter(ctx: Ctx, requested: string[] | undefined): string[] {
      const res = listStatuses(ctx.meta?.caller, requested);
      if (!res.ok) throw ApiError.invalidParam("status", "param.status");
      return res.statuses;
    },

    /**
     * One page of a query plus the total, 404 `{kind}-archive-page-not-found` past the end. The page is
     * read first: one with room left gives the total, and only a full page is counted (docs/lists.md#counting-a-list).
     */
    async pagedFind(query: Query, sort: Sort, page: Page): Promise<{ docs: PostDoc[]; total: number }> {
      const docs = (await this.store.find(query, { sort, skip: page.skip, limit: page.perPage })) as PostDoc[];
      if (page.page > 1 && docs.length === 0) throw new ApiError(`${opts.kind}-archive-page-not-found`, 404);
      const total = totalFromPage(page, docs.length) ?? (await this.store.count(query));
      return { docs, total };
    },
    /** `pagedFind` for a query whose records are among `ids` (a list filtered by events). */
    pagedFindAmong(ids: readonly number[], query: Query, sort: Sort, page: Page): Promise<{ docs: PostDoc[]; total: number }> {
      return this.pagedFind({ $and: [{ _id: { $in: [...ids] } }, query] }, sort, page);
    },
    pageOf(params: { page?: number; per_page?: number }): Page {
      return pageOf(params);
    },
    /** The list envelope's links and total, and the paging headers on the response. */
    listEnvelope(ctx: Ctx, plural: string, order: readonly string[], sent: Record<string, unknown>, page: Page, total: number) {
      const links = listLinks(`${this.nsOf(ctx)}/${plural}/`, order, sent, page, total);
      ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), ...pagingHeaders(total, page.perPage, links) };
      return { ...links, total, total_pages: totalPages(total, page.perPage) };
    },

    /** May the caller see the protected fields of this record (docs/authorization.md#password-protected-records)? */
    passwordAccess(ctx: Ctx, record: PostDoc, params: { password?: string; context?: string }): boolean {
      if (!record.post_password) return true;
      return canAccessPassword(ctx.meta?.caller, record, params);
    },

    /**
     * An `image` input (docs/records.md#images, D7): an existing image id, or an image URL the caller may
     * upload (creates or reuses the image record). Returns the image id, or throws 400 on `param`.
     */
    async resolveImage(ctx: Ctx, value: unknown, param = "image"): Promise<number> {
      const reg: IdRegistry = await this.idRegistry();
      const asId = typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value.trim()) ? parseInteger(value) : undefined;
      if (asId !== undefined) {
        if (asId > 0 && (await reg.typeOf(asId)) === "image") return asId;
        throw ApiError.invalidParam(param, "param.image");
      }
      const ext = typeof value === "string" ? imageUrlExtension(value.trim()) : null;
      if (!ext || !hasCap(ctx.meta?.caller, "upload_files")) throw ApiError.invalidParam(param, "param.image");
      return (await reg.imageForUrl(String(value).trim(), ext)).id;
    },
    /**
     * The check of `resolveImage` without its side effect (no image record is made): for validation,
     * before the permission check. Throws 400 on `param` when the input names no usable image.
     */
    async checkImage(ctx: Ctx, value: unknown, param = "image"): Promise<void> {
      const text = typeof value === "string" ? value.trim() : undefined;
      if (typeof value === "number" || (text !== undefined && /^\d+$/.test(text))) {
        const id = Number(value);
        if (Number.isSafeInteger(id) && id > 0 && (await this.kindOfId(id)) === "image") return;
      } else if (text !== undefined && imageUrlExtension(text) && hasCap(ctx.meta?.caller, "upload_files")) return;
      throw ApiError.invalidParam(param, "param.image");
    },
    /** Image objects by id (`{url, id, extension}`), for a page of records at once. */
    async imagesById(ids: number[]): Promise<Map<number, { url: string; id: number; extension: string }>> {
      const wanted = [...new Set(ids.filter(Boolean))];
      const out = new Map<number, { url: string; id: number; extension: string }>();
      if (!wanted.length) return out;
      const reg: IdRegistry = await this.idRegistry();
      for (const img of (await reg.images(wanted)) as ImageRecord[]) out.set(img.id, { url: img.url, id: img.id, extension: img.extension });
      return out;
    },

    /**
     * After every write: tell the bus (`calendar.<kind>.created|updated|deleted`).
     */
    /** The feed entry of a write of this record, for the store to write with it (InsertOptions.change). */
    feedEntryOf(action: "created" | "updated" | "deleted", record: PostDoc): Record<string, unknown> {
      return { ...feedEntry(this.changeOf(opts.kind, action, record)) };
    },
    /** `recorded`: the write stored its own feed entry (feedEntryOf); what derives from it is still recorded here. */
    async announce(action: "created" | "updated" | "deleted", record: PostDoc, recorded = false): Promise<void> {
      // (the store cleaned the caches with the write itself)
      // The change feed has it before the write is answered (change-source mixin; venues and organizers: with the events embedding them).
      const change = this.changeOf(opts.kind, action, record);
      if (!recorded) await this.recordChanges([change], { derive: opts.kind !== "event" && action !== "created" });
      else if (opts.kind !== "event" && action !== "created") await this.recordDerivedChanges([change]);
      this.broker.emit(`calendar.${opts.kind}.${action}`, { id: record._id, status: record.status, modified_utc: record.modified_utc });
    }
  } satisfies ThisType<PostSelf>;
}

/** What a service with the post mixin has (with the store and change-source mixins'). */
export interface PostFace extends ReturnType<typeof postMethods>, StoreFace, ChangeSourceFace {}

interface PostSelf extends Service, PostFace {
  recordWrites: KeyedQueue;
  /** Slugs held by writes in progress, per site (slugs are unique per site, docs/sites.md). */
  slugHolds: SiteLocal<SlugHolds>;
}

export function PostMixin(opts: PostOptions): ServiceSchema {
  return {
    name: "post",
    mixins: [StoreMixin({ collection: opts.collection, indexes: [...COMMON_INDEXES, ...opts.indexes] }), ChangeSourceMixin({ kind: opts.kind })],
    methods: postMethods(opts),
    created(this: PostSelf) {
      this.recordWrites = new KeyedQueue();
      this.slugHolds = new SiteLocal(() => new SlugHolds());
    }
  } as unknown as ServiceSchema;
}
