/**
 * The reads of venues and organizers: one record by id or slug (docs/records.md#reading-venues-and-organizers),
 * the lists (docs/lists.md#venue-and-organizer-lists: statuses per caller, event filters, search, the
 * radius search of venues, date desc then id desc, paging) and the records an event embeds.
 */
import type { Query } from "../../store/collection";
import { ApiError } from "../../lib/errors";
import { TRANSLATABLE } from "../../lib/i18n/types";
import { nowDb } from "../../lib/time/dates";
import { isLooseTruthy } from "../../lib/http/query";
import { hasCap, listStatuses, REGISTERED_STATUSES } from "../../lib/access/capabilities";
import { codesOf, LinkedKindSpec } from "../../lib/linked/spec";
import type { LinkedDoc } from "../../lib/linked/record";
import { allOf, idCondition, searchFragments, searchQuery, statusCondition } from "../../lib/linked/query";
import { pageOf, Page } from "../../lib/posts/paging";
import { modifiedQuery } from "../../lib/changes/modified";
import { withDistance, type NearInput } from "../../lib/geo/near-query";
import type { PostRecords } from "../posts/post-records";
import type { EventsPort, LanguagePort, LinkedRenderingPort, NearPort, RequestPort } from "./linked-ports";
import { linkedFragment } from "../../lib/events/event-fragment";
import { mayEdit, mayRead } from "./linked-rights";
import type { LinkedPresenter } from "./linked-presenter";
import type { RecordFields } from "../fields/record-fields";

/** The list params, as the list schema leaves them (lib/linked/params.ts). */
export interface LinkedListParams extends NearInput {
  status?: string[];
  event?: number;
  has_events?: unknown;
  only_with_upcoming?: unknown;
  search?: string;
  page?: number;
  per_page?: number;
  modified_after?: unknown;
  modified_before?: unknown;
  [param: string]: unknown;
}

/** A password and its context (docs/authorization.md#password-protected-records). */
export interface Access {
  password?: string;
  context?: string;
}

/** One page of a list: its records as the API returns them, the page asked for, the total. */
export interface LinkedPage {
  items: Record<string, unknown>[];
  page: Page;
  total: number;
}

export interface LinkedReaderDeps<R> {
  spec: LinkedKindSpec;
  records: PostRecords<LinkedDoc>;
  request: RequestPort<R>;
  language: LanguagePort<R>;
  events: EventsPort<R>;
  presenter: LinkedPresenter<R>;
  /** May the caller see the protected fields of this record with this password (mixins/post.mixin.ts passwordAccess)? */
  passwordAccess(request: R, record: LinkedDoc, access: Access): boolean;
  /** Venues: the radius search; organizers have none. */
  near?: NearPort<R>;
  /** `meta[<key>]=<value>` filters (domain/fields/record-fields.ts). */
  fields?: RecordFields<R>;
  /** The stored renderings the embedding reads keep (absent: none kept). */
  renderings?: LinkedRenderingPort<R>;
}

export class LinkedReader<R> {
  private readonly codes;
  private readonly searchFields: string[];
  private readonly protectedSearchFields: string[];
  private readonly translatedSearch: string[];
  private readonly sharedSearch: string[];

  constructor(private readonly deps: LinkedReaderDeps<R>) {
    const { spec } = deps;
    this.codes = codesOf(spec.kind);
    // and the custom fields' text values (lib/fields/values.ts `custom_text`)
    this.searchFields = ["name", "description", ...spec.searchFields, "custom_text"];
    this.protectedSearchFields = this.searchFields.filter(f => f in spec.blanks);
    // i18n: name, description and (venues) the address fields have a value per language (lib/i18n/types.ts)
    const translatable = TRANSLATABLE[spec.kind].fields;
    this.translatedSearch = this.searchFields.filter(f => translatable.includes(f));
    this.sharedSearch = this.searchFields.filter(f => !translatable.includes(f));
  }

  /** The record of this kind with that id, else 400 `params.id` (ids of other kinds included, D2: two id sequences). */
  async byId(id: number): Promise<LinkedDoc> {
    const record = id > 0 ? await this.deps.records.findById(id) : null;
    if (!record) throw ApiError.invalidParam("id", "param.unknown_id");
    return record;
  }

  /** The record of this kind with that slug (any status), else 400 `params.slug` (docs/records.md#venue-and-organizer-slugs). */
  async bySlug(slug: string): Promise<LinkedDoc> {
    let record: LinkedDoc | null = null;
    try {
      record = await this.deps.records.findBySlug(slug);
    } catch {
      record = null; // a malformed percent-escape names nothing
    }
    if (!record) throw ApiError.invalidParam("slug", "param.unknown_id");
    return record;
  }

  /** Readable (publish, or read_post; trashed ones by editors), password blanking, `json_ld`. */
  async read(request: R, record: LinkedDoc, access: Access): Promise<Record<string, unknown>> {
    if (!this.mayRead(request, record)) throw new ApiError(this.codes.notAccessible, 403);
    // a published record without a password answers as events embed it: from its stored rendering when
    // kept, else computed and kept (its mark read before anything the rendering is made of, store/renderings.ts)
    const stored = this.deps.renderings;
    const variant = stored && record.status === "publish" && !record.post_password && stored.ownText(request, record) ? stored.variant(request, true, access) : undefined;
    if (variant !== undefined) {
      const body = await stored!.stored(variant, record._id);
      if (body) return JSON.parse(body) as Record<string, unknown>;
    }
    const mark = variant !== undefined ? await stored!.mark() : undefined;
    const out = await this.deps.presenter.one(request, record, { jsonLd: true, reveal: d => this.deps.passwordAccess(request, d, access), freshFields: variant !== undefined });
    if (variant !== undefined) await stored!.keep(variant, mark!, [{ id: record._id, doc: record, body: linkedFragment(out) }]);
    // where an import brought it from (C64: what an import brings): in context=edit, to callers who may edit it, as events answer it
    if (record.import_source && access.context === "edit" && mayEdit(this.deps.request.caller(request), record, this.nowDb())) out.import_source = record.import_source;
    return out;
  }

  /** The records an event embeds, by id: only those the caller may read (C1: embedded records follow visibility), each with its `keep` (a scheduled one's status moves with the clock). */
  async embedded(request: R, ids: number[], jsonLd: boolean, access: Access): Promise<Map<number, { value: unknown; keep: boolean }>> {
    // a variant the store keeps: its mark read before anything the renderings are made of (store/renderings.ts)
    const stored = this.deps.renderings;
    const variant = stored?.variant(request, jsonLd, access);
    const mark = variant !== undefined ? await stored!.mark() : undefined;
    const found = await this.deps.records.store.findByIds(ids);
    const docs = found.filter(d => this.mayRead(request, d));
    const items = await this.deps.presenter.many(request, docs, { jsonLd, reveal: d => this.deps.passwordAccess(request, d, access), freshFields: variant !== undefined });
    if (variant !== undefined) {
      // each record as the variant shows it, or not at all (empty); a scheduled one's status moves with the clock
      const shown = new Map(docs.map((d, i) => [d._id, items[i]]));
      const kept = found.filter(d => d.status !== "future" && stored!.ownText(request, d)).map(d => ({ id: d._id, doc: d, body: linkedFragment(shown.get(d._id)) }));
      await stored!.keep(variant, mark!, kept);
    }
    return new Map(docs.map((d, i) => [d._id, { value: items[i], keep: d.status !== "future" }]));
  }

  /** One page of the list (docs/lists.md#venue-and-organizer-lists). */
  async list(request: R, p: LinkedListParams): Promise<LinkedPage> {
    const who = this.deps.request.caller(request);
    const listed = listStatuses(who, p.status);
    if (!listed.ok) throw ApiError.invalidParam("status", "param.status");
    const statuses = listed.statuses;
    const near = this.deps.spec.geo && this.deps.near ? await this.deps.near(request, p) : undefined;
    const { include, exclude } = await this.eventIdFilters(request, p, statuses);
    if (near) include.push([...near.keys()]);
    const searchText = p.search;
    const searching = searchText !== undefined;
    const unrestricted = who === undefined;
    const { searchFields, protectedSearchFields, translatedSearch, sharedSearch } = this;
    // i18n: the translated fields in the asked language (fallback: the original), the others as stored;
    // D34: a protected record matches through its unprotected fields only.
    const search = searchText !== undefined
      ? await this.deps.language.searchQuery(request, searchFragments(searchText).map(text => ({ text, exclude: false })),
        () => searchQuery(searchText, searchFields, protectedSearchFields, unrestricted), {
          fields: translatedSearch,
          mode: "one-field",
          shared: () => (sharedSearch.length ? searchQuery(searchText, sharedSearch, protectedSearchFields, unrestricted) : undefined),
          limited: unrestricted ? undefined : { fields: translatedSearch.filter(f => !protectedSearchFields.includes(f)), unless: { post_password: { $exists: false } } }
        })
      : undefined;
    const query = allOf([
      statusCondition(statuses, this.nowDb()),
      idCondition(include, exclude),
      searching ? { status: { $ne: "trash" } } : undefined,
      search,
      modifiedQuery(p),
      ...((await this.deps.fields?.filters(request, (p as { meta?: unknown }).meta)) ?? [])
    ]);
    const page = pageOf(p);
    // filtered by events (event, has_events, only_with_upcoming): among those ids only
    const among: number[] | undefined = include.length ? (idCondition(include, exclude)?._id as { $in?: number[] } | undefined)?.$in : undefined;
    const sort = { date: -1, _id: -1 } as const;
    const { docs, total } = near && p.orderby === "distance" ? await this.pageByDistance(query, page, near)
      : await this.deps.records.pagedFind(among ? { $and: [{ _id: { $in: [...among] } }, query] } : query, sort, page);
    let items = await this.deps.presenter.many(request, docs, { reveal: d => this.deps.passwordAccess(request, d, {}) });
    if (near) items = items.map(item => withDistance(item, near.get(item.id as number)));
    return { items, page, total };
  }

  private mayRead(request: R, record: LinkedDoc): boolean {
    return mayRead(this.deps.request.caller(request), record, this.nowDb());
  }

  /**
   * The id sets of the event filters (docs/lists.md#venue-and-organizer-filters), one events call per filter, in parallel:
   * `include` sets a record must be in, `exclude` one it must not be in (has_events falsy).
   */
  private async eventIdFilters(request: R, p: LinkedListParams, statuses: string[]): Promise<{ include: number[][]; exclude?: number[] }> {
    if (p.event !== undefined && p.event <= 0) throw ApiError.invalidParam("event", "param.unknown_id");
    const who = this.deps.request.caller(request);
    const ids = (conditions: Record<string, unknown>) => this.deps.events.linkedIds(request, conditions);
    const upcomingStatuses = p.status !== undefined ? statuses : hasCap(who, "edit_posts") ? REGISTERED_STATUSES.filter(s => s !== "trash") : ["publish"];
    const [event, hasEvents, upcoming] = await Promise.all([
      p.event !== undefined ? ids({ event: p.event }) : undefined,
      p.has_events !== undefined ? ids({ hasEvents: true }) : undefined,
      isLooseTruthy(p.only_with_upcoming) ? ids({ upcoming: true, statuses: upcomingStatuses }) : undefined
    ]);
    if (p.event !== undefined && !event) throw ApiError.invalidParam("event", "param.unknown_id");
    const include = [event, upcoming].filter((found): found is number[] => Array.isArray(found));
    if (!hasEvents) return { include };
    return isLooseTruthy(p.has_events) ? { include: [...include, hasEvents] } : { include, exclude: hasEvents };
  }

  /** `orderby=distance`: the matching records (already within the radius), nearest first, then by id. */
  private async pageByDistance(query: Query, page: Page, near: Map<number, number>): Promise<{ docs: LinkedDoc[]; total: number }> {
    const all = await this.deps.records.store.find(query);
    const distance = (d: LinkedDoc) => near.get(d._id) ?? Infinity;
    all.sort((a, b) => distance(a) - distance(b) || a._id - b._id);
    const docs = all.slice(page.skip, page.skip + page.perPage);
    if (page.page > 1 && !docs.length) throw new ApiError(`${this.deps.spec.kind}-archive-page-not-found`, 404);
    return { docs, total: all.length };
  }

  private nowDb(): string {
    return nowDb(this.deps.records.now());
  }
}
