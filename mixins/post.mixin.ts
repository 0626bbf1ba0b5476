/**
 * What events, venues and organizers share, written once: the store (integer ids from the shared post
 * sequence), who is calling, the namespace URLs of the request, slugs and their uniqueness, trash,
 * status visibility in lists, paging with its envelope and headers, password access, images, and the
 * change notifications other services listen to.
 */
import type { Service, ServiceSchema } from "moleculer";
import { StoreMixin, IndexSpec, type Companions, type StoreFace } from "./store.mixin";
import { ChangeSourceMixin, type ChangeSourceFace } from "./change-source.mixin";
import type { Query, Sort } from "../store/collection";
import type { ImageRecord, IdRegistry } from "../store/registry";
import { ApiError } from "../lib/errors";
import { settings, NAMESPACE_PATH } from "../lib/settings";
import { canAccessPassword, listStatuses, Who, hasCap } from "../lib/access/capabilities";
import { nowDb } from "../lib/time/dates";
import { Page, listLinks, pagingHeaders, totalPages } from "../lib/posts/paging";
import { imageUrlExtension } from "../lib/text/sanitize";
import { parseInteger } from "../lib/http/query";
import { PostRecords } from "../domain/posts/post-records";
import { siteRegistry } from "../store/site-collection";

export type PostKind = "event" | "venue" | "organizer";

export interface PostOptions {
  kind: PostKind;
  collection: string;
  indexes: IndexSpec[];
  /** The store mixin's `companions`: collections opened on first use whose indexes are made at start. */
  companions?: Companions;
}

import type { Ctx } from "../broker/context";

export type { PostDoc } from "../lib/posts/post-doc";
import type { PostDoc } from "../lib/posts/post-doc";
import type { CountPart } from "../lib/events/due-events";

const COMMON_INDEXES: IndexSpec[] = [
  // (each index is paid on every write: only fields a list filters, sorts or looks up by)
  { field: "status" }, { field: "slug" }, { field: "modified_utc" },
  // A slug is unique among a type's records outside draft/pending (docs/records.md#event-slugs), by constraint.
  { field: "slug", unique: true, unlessStatus: ["draft", "pending", "auto-draft", "trash"] }
];

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
    /** `modified` (site time) and `modified_utc` (UTC) of a write at `now` (C58: `modified` in site time). */
    modifiedAt(now: Date): { modified: string; modified_utc: string } {
      return this.postRecords.modifiedAt(now);
    },

    /** Statuses a list shows to this caller (docs/lists.md#always-applied, #venue-and-organizer-lists); a forbidden `status` is a 400. */
    listStatusFilter(ctx: Ctx, requested: string[] | undefined): string[] {
      const res = listStatuses(ctx.meta?.caller, requested);
      if (!res.ok) throw ApiError.invalidParam("status", "param.status");
      return res.statuses;
    },

    /** One page of a query plus the total (domain/posts/post-records.ts pagedFind). */
    pagedFind(query: Query, sort: Sort, page: Page, countParts?: readonly CountPart[]): Promise<{ docs: PostDoc[]; total: number }> {
      return this.postRecords.pagedFind(query, sort, page, countParts);
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
     * An `image` input (docs/records.md#images, D7: images without downloads): an existing image id, or an image URL the caller may
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
        if (Number.isSafeInteger(id) && id > 0 && (await this.postRecords.kindOfId(id)) === "image") return;
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
     * After every write: tell the bus (`calendar.<kind>.created|updated|deleted`). `recorded`: the write stored
     * its own feed entry (PostRecords.feedEntryOf); what derives from it is still recorded here.
     */
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
export interface PostFace<D extends PostDoc = PostDoc> extends ReturnType<typeof postMethods>, StoreFace<D>, ChangeSourceFace {
  /** The type's records (domain/posts/post-records.ts), built in created(). */
  postRecords: PostRecords;
}

type PostSelf = Service & PostFace;

export function PostMixin(opts: PostOptions): ServiceSchema {
  const lifeCycle = {
    /** The type's records, on the collection and registry the store mixin opens at start. */
    created() {
      this.postRecords = new PostRecords({ kind: opts.kind, collection: () => this.store, registry: () => siteRegistry(this.storeHandle!), now: () => this.now() });
    }
  } satisfies ThisType<PostSelf>;
  return {
    name: "post",
    mixins: [StoreMixin({ collection: opts.collection, indexes: [...COMMON_INDEXES, ...opts.indexes], companions: opts.companions }), ChangeSourceMixin({ kind: opts.kind })],
    methods: postMethods(opts),
    created: lifeCycle.created
  };
}
