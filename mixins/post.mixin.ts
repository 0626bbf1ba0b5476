/**
 * What events, venues and organizers share, written once: the store (integer ids from the shared post
 * sequence), who is calling, the namespace URLs of the request, slugs and their uniqueness, trash,
 * status visibility in lists, paging with its envelope and headers, password access, images, and the
 * change notifications other services listen to.
 */
import type { Context, ServiceSchema } from "moleculer";
import { StoreMixin, IndexSpec } from "./store.mixin";
import { ChangeSourceMixin } from "./change-source.mixin";
import type { Query, Sort } from "../store/collection";
import type { ImageRecord, IdRegistry } from "../store/registry";
import { ApiError } from "../lib/errors";
import { isUniqueViolation } from "../store/errors";
import { CallMeta } from "../lib/meta";
import { settings, NAMESPACE_PATH } from "../lib/settings";
import { canAccessPassword, listStatuses, Who, hasCap } from "../lib/capabilities";
import { sanitizeSlug, trashedSlug } from "../lib/slug";
import { nowDb } from "../lib/dates";
import { pageOf, Page, listLinks, pagingHeaders, totalPages } from "../lib/posts/paging";
import { imageUrlExtension } from "../lib/sanitize";
import { parseInteger } from "../lib/query";
import { KeyedQueue, SlugHold, SlugHolds } from "../lib/posts/write-order";

export type PostKind = "event" | "venue" | "organizer";

export interface PostOptions {
  kind: PostKind;
  collection: string;
  indexes: IndexSpec[];
}

export type Ctx<P = any> = Context<P, CallMeta>;

export type { PostDoc } from "../lib/posts/post-doc";
import type { PostDoc } from "../lib/posts/post-doc";

const COMMON_INDEXES: IndexSpec[] = [
  // (each index is paid on every write: only fields a list filters, sorts or looks up by)
  { field: "status" }, { field: "slug" }, { field: "modified_utc" },
  // A slug is unique among a type's records outside draft/pending (docs/records.md#event-slugs), by constraint.
  { field: "slug", unique: true, unlessStatus: ["draft", "pending", "auto-draft", "trash"] }
];
/** Writes that lose a race for a slug this many times in a row give up (the error is answered). */
const SLUG_ATTEMPTS = 8;

export function PostMixin(opts: PostOptions): ServiceSchema {
  return {
    name: "post",
    mixins: [StoreMixin({ collection: opts.collection, indexes: [...COMMON_INDEXES, ...opts.indexes] }), ChangeSourceMixin({ kind: opts.kind })],
    methods: {
      /** The caller of the request: a Caller, null (anonymous) or undefined (trusted internal call). */
      who(ctx: Ctx): Who {
        return ctx.meta?.caller;
      },
      /** `{site}`: the base URL plus the language root the request came in on. */
      siteOf(ctx: Ctx): string {
        return ctx.meta?.site ?? settings().baseUrl;
      },
      /** `{ns}`: the namespace root URL of the request. */
      nsOf(ctx: Ctx): string {
        return `${ctx.meta?.apiRoot ?? `${settings().baseUrl}/${settings().restPrefix}`}/${NAMESPACE_PATH}`;
      },
      now(): Date {
        return new Date();
      },
      nowDb(this: any): string {
        return nowDb(this.now());
      },

      async findById(this: any, id: number): Promise<PostDoc | null> {
        return this.store.findOne({ _id: id });
      },
      /** The record whose stored slug equals the normalised path segment (any status). */
      async findBySlug(this: any, slug: string): Promise<PostDoc | null> {
        // The gateway has decoded the path segment already; decode again only what still is encoded.
        let raw = String(slug);
        try { raw = decodeURIComponent(raw); } catch { /* a literal "%" */ }
        const normalised = sanitizeSlug(raw);
        if (!normalised) return null;
        return this.store.findOne({ slug: normalised });
      },
      /** The post type owning an id in the shared id space (D2). */
      kindOfId(this: any, id: number): Promise<string | undefined> {
        return this.typeOfId(id);
      },

      /** `base` made unique among this type's records (reserved words avoided), held against parallel writes until `release()` (call it once the write is stored). */
      holdSlug(this: any, base: string, excludeId?: number): Promise<SlugHold> {
        return (this.slugHolds as SlugHolds).hold(base, async candidate => (await this.store.idsWhere("slug", candidate)).some((id: unknown) => id !== excludeId));
      },
      /**
       * Runs a write that picks a slug; when the store's unique constraint refuses the slug (another node
       * took it meanwhile), runs it again, so it picks the next free one.
       */
      async retryOnSlugConflict<T>(fn: () => Promise<T>): Promise<T> {
        for (let attempt = 1; ; attempt++) {
          try {
            return await fn();
          } catch (err) {
            if (!isUniqueViolation(err) || !/slug/.test((err as Error).message) || attempt >= SLUG_ATTEMPTS) throw err;
          }
        }
      },
      /** Runs the writes of one record (`id`) one after another; `fn` reads the record itself, inside. */
      inRecordOrder<T>(this: any, id: number, fn: () => Promise<T>): Promise<T> {
        return (this.recordWrites as KeyedQueue).run(String(id), fn);
      },

      /** Moves a record to the trash: prior status remembered, slug suffixed (docs/records.md#deleting-an-event). */
      async trashRecord(this: any, record: PostDoc): Promise<PostDoc> {
        const now = this.nowDb();
        return this.store.updateOne({ _id: record._id }, {
          $set: { status: "trash", prior_status: record.status, slug: record.slug ? trashedSlug(record.slug) : record.slug, modified: now, modified_utc: now }
        });
      },

      /** Statuses a list shows to this caller (docs/lists.md#always-applied, #venue-and-organizer-lists); a forbidden `status` is a 400. */
      listStatusFilter(ctx: Ctx, requested: string[] | undefined): string[] {
        const res = listStatuses(ctx.meta?.caller, requested);
        if (!res.ok) throw ApiError.invalidParam("status", "param.status");
        return res.statuses;
      },

      /** One page of a query plus the total, 404 `{kind}-archive-page-not-found` past the end. */
      async pagedFind(this: any, query: Query, sort: Sort, page: Page): Promise<{ docs: PostDoc[]; total: number }> {
        const [total, docs] = await Promise.all([
          this.store.count(query),
          this.store.find(query, { sort, skip: page.skip, limit: page.perPage })
        ]);
        if (page.page > 1 && docs.length === 0) throw new ApiError(`${opts.kind}-archive-page-not-found`, 404);
        return { docs, total };
      },
      /** `pagedFind` for a query whose records are among `ids` (a list filtered by events). */
      pagedFindAmong(this: any, ids: readonly number[], query: Query, sort: Sort, page: Page): Promise<{ docs: PostDoc[]; total: number }> {
        return this.pagedFind({ $and: [{ _id: { $in: [...ids] } }, query] }, sort, page);
      },
      pageOf(params: { page?: number; per_page?: number }): Page {
        return pageOf(params);
      },
      /** The list envelope's links and total, and the paging headers on the response. */
      listEnvelope(this: any, ctx: Ctx, plural: string, order: readonly string[], sent: Record<string, unknown>, page: Page, total: number) {
        const links = listLinks(`${this.nsOf(ctx)}/${plural}/`, order, sent, page, total);
        ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), ...pagingHeaders(total, page.perPage, links) };
        return { ...links, total, total_pages: totalPages(total, page.perPage) };
      },

      /** May the caller see the protected fields of this record (docs/authorization.md#password-protected-records)? */
      passwordAccess(ctx: Ctx, record: PostDoc, params: { password?: string; context?: string }): boolean {
        if (!record.post_password) return true;
        return canAccessPassword(ctx.meta?.caller, record, params);
      },

      idRegistryOf(this: any): Promise<IdRegistry> {
        return this.idRegistry();
      },
      /**
       * An `image` input (docs/records.md#images, D7): an existing image id, or an image URL the caller may
       * upload (creates or reuses the image record). Returns the image id, or throws 400 on `param`.
       */
      async resolveImage(this: any, ctx: Ctx, value: unknown, param = "image"): Promise<number> {
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
      async checkImage(this: any, ctx: Ctx, value: unknown, param = "image"): Promise<void> {
        const text = typeof value === "string" ? value.trim() : undefined;
        if (typeof value === "number" || (text !== undefined && /^\d+$/.test(text))) {
          const id = Number(value);
          if (Number.isSafeInteger(id) && id > 0 && (await this.kindOfId(id)) === "image") return;
        } else if (text !== undefined && imageUrlExtension(text) && hasCap(ctx.meta?.caller, "upload_files")) return;
        throw ApiError.invalidParam(param, "param.image");
      },
      /** Image objects by id (`{url, id, extension}`), for a page of records at once. */
      async imagesById(this: any, ids: number[]): Promise<Map<number, { url: string; id: number; extension: string }>> {
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
      async announce(this: any, action: "created" | "updated" | "deleted", record: PostDoc): Promise<void> {
        // (the store cleaned the caches with the write itself)
        // The change feed has it before the write is answered (change-source mixin; venues and organizers: with the events embedding them).
        await this.recordChanges([this.changeOf(opts.kind, action, record)], { derive: opts.kind !== "event" && action !== "created" });
        this.broker.emit(`calendar.${opts.kind}.${action}`, { id: record._id, status: record.status, modified_utc: record.modified_utc });
      }
    },
    created(this: any) {
      this.recordWrites = new KeyedQueue();
      this.slugHolds = new SlugHolds();
    }
  } as ServiceSchema;
}
