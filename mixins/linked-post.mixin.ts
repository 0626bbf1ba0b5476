/**
 * What venues and organizers share, written once (docs/records.md#venues-and-organizers): the routed actions (list, read,
 * create with duplicate avoidance, update, trash, by id and by slug) and the internal ones the events
 * service uses to validate, link and embed them. A service is one kind description (lib/linked/spec.ts)
 * passed to `LinkedPostMixin`; everything else here is the same for both kinds.
 *
 * Order of checks on every routed action (docs/errors.md#order-of-checks): params schema → the record named by the path
 * (400 `params.id` / `params.slug`) → the remaining input checks (image, coordinates) → permission → handler.
 */
import { producedBy } from "../lib/http/idempotency";
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PostMixin, type PostFace } from "./post.mixin";
import type { Ctx } from "../broker/context";
import { TranslatableMixin, TRANSLATION_INDEXES, type TranslatableMethods } from "./translatable.mixin";
import { TRANSLATABLE } from "../lib/i18n/types";
import { mergeValues } from "../lib/i18n/values";
import { ApiError, ParamReason, isApiError } from "../lib/errors";
import { settings } from "../lib/settings";
import { currentSiteId } from "../lib/sites/scope";
import { isLooseTruthy } from "../lib/query";
import { sanitizeSlug, trashedSlug, untrashedSlug } from "../lib/slug";
import { parseInZone, parseUtc } from "../lib/dates";
import { FLOATING_STATUSES, resolvePublication } from "../lib/posts/publication";
import {
  canCreatePost, canDeletePost, canEditPost, canReadPost, effectiveStatus, hasCap, PostLike, REGISTERED_STATUSES
} from "../lib/capabilities";
import { codesOf, LinkedKindSpec } from "../lib/linked/spec";
import { geoPairProblems, LIST_LINK_ORDER, linkedSchemas } from "../lib/linked/params";
import { LinkedDoc, matchesDuplicate, nameKey, nameKeyCondition, namedBy, presentRecord, writeChanges } from "../lib/linked/record";
import { allOf, idCondition, searchFragments, searchQuery, statusCondition } from "../lib/linked/query";
import { LinkEntry, parseLinkEntries } from "../lib/linked/links";
import type { SlugHold } from "../lib/posts/write-order";
import type { Page } from "../lib/posts/paging";
import { KeyedQueue } from "../lib/queue";
import { modifiedQuery } from "../lib/changes/modified";
import { NearInput, NEAR_ACTION, readNear, withDistance } from "../lib/geo/near-query";
import { requireGeolocation, venuesNear } from "../broker/geolocation";


export type { LinkedKindSpec } from "../lib/linked/spec";

interface LinkedVars {
  /** Creates of one name key run one at a time (duplicate avoidance). */
  createsByName: KeyedQueue;
  /** The create params' checker, for inline venue/organizer data on events. */
  checkCreateParams(data: Record<string, unknown>): unknown;
}

/** The params of the routed reads and writes of one record (by id or by slug). */
interface RecordParams {
  id: number;
  slug: string;
  password?: string;
  context?: string;
  [param: string]: unknown;
}

/** The list params, as the list schema leaves them (lib/linked/params.ts). */
interface ListParams extends NearInput {
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

interface PresentOpts {
  jsonLd?: boolean;
  reveal: (doc: LinkedDoc) => boolean;
}

export function LinkedPostMixin(spec: LinkedKindSpec): ServiceSchema {
  const schemas = linkedSchemas(spec);
  const codes = codesOf(spec.kind);
  const searchFields = ["name", "description", ...spec.searchFields];
  const protectedSearchFields = searchFields.filter(f => f in spec.blanks);
  // i18n: name, description and (venues) the address fields have a value per language (lib/i18n/types.ts)
  const translatable = TRANSLATABLE[spec.kind].fields;
  const translatedSearch = searchFields.filter(f => translatable.includes(f));
  const sharedSearch = searchFields.filter(f => !translatable.includes(f));
  const linkParams = { value: { type: "any", optional: true } };

  const methods = {
    // Read pages answered through the action cache (mixins/cache.mixin.ts cachedRead).
    listLinkedPage(ctx: Ctx<ListParams>) {
      return this.listLinked(ctx, ctx.params);
    },
    async getLinkedPage(ctx: Ctx<RecordParams>) {
      return this.readLinked(ctx, await this.linkedById(ctx.params.id), ctx.params);
    },
    async getLinkedBySlugPage(ctx: Ctx<RecordParams>) {
      return this.readLinked(ctx, await this.linkedBySlug(ctx.params.slug), ctx.params);
    },
    // -------------------------------------------------------------------------------------------------
    // Lookup and rights
    // -------------------------------------------------------------------------------------------------

    /** The record of this kind with that id, else 400 `params.id` (ids of other kinds included, D2). */
    async linkedById(id: number): Promise<LinkedDoc> {
      const record = id > 0 ? await this.findById(id) : null;
      if (!record) throw ApiError.invalidParam("id", "param.unknown_id");
      return record as LinkedDoc;
    },
    /** The record of this kind with that slug (any status), else 400 `params.slug` (docs/records.md#venue-and-organizer-slugs). */
    async linkedBySlug(slug: string): Promise<LinkedDoc> {
      let record: LinkedDoc | null = null;
      try {
        record = (await this.findBySlug(slug)) as LinkedDoc | null;
      } catch {
        record = null; // a malformed percent-escape names nothing
      }
      if (!record) throw ApiError.invalidParam("slug", "param.unknown_id");
      return record;
    },
    /** Runs a write of `record` after the earlier writes of it, on the record as they left it. */
    inOrderOf(record: LinkedDoc, write: (current: LinkedDoc) => Promise<unknown>): Promise<unknown> {
      return this.inRecordOrder(record._id, async () => write(((await this.findById(record._id)) as LinkedDoc | null) ?? record));
    },
    /** The record as the capability rules see it (C13: a passed `future` counts as `publish`). */
    postLike(record: LinkedDoc): PostLike {
      return { ...record, status: effectiveStatus(record, this.nowDb()) };
    },
    mayRead(ctx: Ctx, record: LinkedDoc): boolean {
      return canReadPost(this.who(ctx), this.postLike(record));
    },
    mayEdit(ctx: Ctx, record: LinkedDoc): boolean {
      return canEditPost(this.who(ctx), this.postLike(record));
    },

    // -------------------------------------------------------------------------------------------------
    // Input checks that need the store or the caller (after the params schema, before permission)
    // -------------------------------------------------------------------------------------------------

    /** Input problems the params schema cannot see: coordinate pairs (D8), the image (post mixin, no side effect). */
    async writeInputProblems(ctx: Ctx, p: Record<string, unknown>): Promise<Record<string, ParamReason> | undefined> {
      const problems: Record<string, ParamReason> = { ...(spec.geo ? geoPairProblems(p) : undefined) };
      if (p.image !== undefined && p.image !== null && p.image !== "") {
        await this.checkImage(ctx, p.image).catch((err: unknown) => {
          if (!isApiError(err)) throw err;
          problems.image = { key: "param.image" };
        });
      }
      return Object.keys(problems).length ? problems : undefined;
    },
    async checkWriteInput(ctx: Ctx, p: Record<string, unknown>): Promise<void> {
      const problems = await this.writeInputProblems(ctx, p);
      if (problems) throw ApiError.invalidParams(problems);
    },
    /**
     * The entries of an event's link input, each checked: ids must be records of this kind, data objects
     * what POST would take (converted as POST's schema does). Validation reports 400 `rest_invalid_param`
     * on the input's name; when linking (after the events' own validation) a wrong id is the plugin's
     * `invalid-linked-post-id` and unusable data `could-not-create-{kind}` (docs/errors.md#event-errors).
     */
    async checkedLinkEntries(ctx: Ctx, value: unknown, linking: boolean): Promise<LinkEntry[]> {
      const entries = parseLinkEntries(value);
      if (!entries) throw ApiError.invalidParam(spec.kind);
      const ids = [...new Set(entries.flatMap(e => ("id" in e ? [e.id] : [])))];
      if (ids.length && (await this.store.count({ _id: { $in: ids } })) !== ids.length) {
        throw linking ? new ApiError("invalid-linked-post-id", 400) : ApiError.invalidParam(spec.kind, "param.unknown_id");
      }
      const checked: LinkEntry[] = [];
      for (const entry of entries) {
        if ("id" in entry) {
          checked.push(entry);
          continue;
        }
        const data = { ...entry.data };
        if (this.checkCreateParams(data) !== true || (await this.writeInputProblems(ctx, data))) {
          throw linking ? new ApiError(codes.couldNotCreate, 400) : ApiError.invalidParam(spec.kind);
        }
        checked.push({ data });
      }
      return checked;
    },

    // -------------------------------------------------------------------------------------------------
    // Writes
    // -------------------------------------------------------------------------------------------------

    /** Publication input: `date` read in the site zone, `date_utc` as UTC (docs/dates.md#how-each-parameter-is-read). */
    publicationInput(p: Record<string, unknown>, now: Date) {
      const zone = settings().siteTimezone;
      return {
        status: p.status as string | undefined,
        date: p.date !== undefined && p.date !== null ? parseInZone(p.date, zone, now) ?? undefined : undefined,
        date_utc: p.date_utc !== undefined && p.date_utc !== null ? parseUtc(p.date_utc, now) ?? undefined : undefined
      };
    },
    /** The image id an input names (0 for `""`: no image), creating the image record of a URL. */
    async imageIdOf(ctx: Ctx, value: unknown): Promise<number> {
      return value === "" ? 0 : this.resolveImage(ctx, value);
    },
    async applyWrite(record: LinkedDoc, set: Record<string, unknown>, unset: string[], action: "updated" | "deleted"): Promise<LinkedDoc> {
      const update: Record<string, unknown> = { $set: set };
      if (unset.length) update.$unset = Object.fromEntries(unset.map(k => [k, true]));
      const updated: LinkedDoc | null = (await this.store.updateOne({ _id: record._id }, update, { change: after => this.feedEntryOf(action, after as LinkedDoc), expected: record })) as LinkedDoc | null;
      if (!updated) throw new ApiError(codes.couldNotUpdate, 400);
      await this.announce(action, updated, true);
      return updated;
    },

    /**
     * POST semantics with duplicate avoidance (docs/records.md#duplicates, D25, C3): the first readable, non-trashed record of the
     * same name (and description, when one is given) is answered instead of a new one; the other provided
     * fields are written onto it when the caller may edit it. Creates of one name run one at a time.
     */
    async createOrReuse(ctx: Ctx, p: Record<string, unknown>): Promise<LinkedDoc> {
      // per site: names are compared within one site (docs/sites.md)
      const key = `${currentSiteId()}:${nameKey(String(p[spec.nameField] ?? ""))}`;
      // one at a time in this process, and across nodes under the store's lock of that name
      return this.createsByName.run(key, () => this.exclusive(`${spec.kind}:name:${key}`, () => this.createOrReuseNow(ctx, p)));
    },
    async createOrReuseNow(ctx: Ctx, p: Record<string, unknown>): Promise<LinkedDoc> {
      // C9: name (and description) compared in the request's language, falling back to the original.
      const key = nameKey(String(p[spec.nameField]));
      const candidates: LinkedDoc[] = await this.store.find({ status: { $ne: "trash" }, ...(await this.nameQuery(ctx, key, { name_key: nameKeyCondition(key) })) }, { sort: { _id: 1 } }) as LinkedDoc[];
      const shown: LinkedDoc[] = await this.localized(ctx, candidates);
      const at = shown.findIndex((d, i) => namedBy(key, [d.name, candidates[i].name]) && matchesDuplicate(d, p.description) && this.mayRead(ctx, d));
      if (at < 0) return this.insertLinked(ctx, p);
      const found = candidates[at];
      if (!this.mayEdit(ctx, found)) return found;
      const { set, unset } = writeChanges(spec, p, found, "duplicate");
      if (p.image !== undefined && p.image !== null) set.image = await this.imageIdOf(ctx, p.image);
      const { inline } = await this.splitWrite(ctx, found, { ...set, ...this.modifiedAt(this.now()) });
      return this.applyWrite(found, inline, unset, "updated");
    },
    async insertLinked(ctx: Ctx, p: Record<string, unknown>): Promise<LinkedDoc> {
      const who = this.who(ctx);
      const now: Date = this.now();
      const publication = resolvePublication(who, this.publicationInput(p, now), undefined, settings().siteTimezone, now);
      const { set } = writeChanges(spec, p, undefined, "create");
      const image = p.image !== undefined && p.image !== null ? await this.imageIdOf(ctx, p.image) : 0;
      // The slug is the name at every status (unlike events); unique only outside draft/pending
      // (docs/records.md#creating-venues-and-organizers).
      const base = sanitizeSlug(String(set.name));
      const id: number = await this.allocateId("posts", spec.kind);
      // The slug is unique by the store's constraint; a create that lost a race for it picks the next one.
      const inserted: LinkedDoc | null = await this.retryOnSlugConflict(async (): Promise<LinkedDoc> => {
      // a unique slug is held against parallel creates of this process until this one is stored
      const hold = FLOATING_STATUSES.has(publication.status) ? undefined : await this.holdSlug(base);
      try {
        let slug = hold ? hold.slug : base;
        if (publication.status === "trash" && slug) slug = trashedSlug(slug);
        // i18n: a create makes the request's language the original (`lang`, `translations`).
        const { inline } = await this.splitWrite(ctx, undefined, set);
        const doc = {
          _id: id,
          // as events: a trusted internal call (no caller) writes as user 1
          author: (p.author as number | undefined) ?? (who ? who.id : 1),
          ...publication,
          ...this.modifiedAt(now),
          slug,
          image,
          ...inline
        };
        // an idempotent create's claim is marked with this record in its transaction (C21, C41)
        const claim = ctx.meta.idempotencyRead === `${spec.plural}.get` ? producedBy(ctx.meta, id) : undefined;
        return (await this.store.insert(doc, { change: this.feedEntryOf("created", doc as LinkedDoc), claim })) as LinkedDoc;
      } finally {
        hold?.release();
      }
      });
      if (!inserted) throw new ApiError(codes.couldNotCreate, 400);
      await this.announce("created", inserted, true);
      return inserted;
    },

    /** The slug after a status change (C13): trash suffix on and off, uniqueness when leaving draft/pending. */
    async slugAfter(record: LinkedDoc, status: string, holds: SlugHold[] = []): Promise<{ slug?: string }> {
      if (!record.slug) return {};
      const wasTrash = record.status === "trash";
      if (status === "trash") return wasTrash ? {} : { slug: trashedSlug(record.slug) };
      const base = wasTrash ? untrashedSlug(record.slug) : record.slug;
      if (FLOATING_STATUSES.has(status)) return wasTrash ? { slug: base } : {};
      if (wasTrash || FLOATING_STATUSES.has(record.status)) {
        const hold: SlugHold = await this.holdSlug(base, record._id);
        holds.push(hold);
        return { slug: hold.slug };
      }
      return {};
    },
    /** docs/records.md#updating-venues-and-organizers (D3: absent fields unchanged; C13: `status=trash` is a DELETE, leaving trash restores the slug). */
    async updateLinked(ctx: Ctx, record: LinkedDoc, p: Record<string, unknown>) {
      await this.checkWriteInput(ctx, p);
      const who = this.who(ctx);
      const like = this.postLike(record);
      if (!canEditPost(who, like)) throw ApiError.forbidden(who === null);
      const now: Date = this.now();
      const publication = resolvePublication(who, this.publicationInput(p, now), record, settings().siteTimezone, now);
      const toTrash = publication.status === "trash" && record.status !== "trash";
      if (toTrash && !canDeletePost(who, like)) throw ApiError.forbidden(who === null);
      const { set, unset } = writeChanges(spec, p, record, "update");
      if (p.image !== undefined && p.image !== null) set.image = await this.imageIdOf(ctx, p.image);
      if (p.author !== undefined && p.author !== null) set.author = p.author;
      // a slug made unique here is held against parallel writes until this one is stored
      const updated: LinkedDoc = await this.retryOnSlugConflict(async () => {
      const holds: SlugHold[] = [];
      try {
        Object.assign(set, publication, this.modifiedAt(now), await this.slugAfter(record, publication.status, holds));
        if (toTrash) set.prior_status = record.status;
        else if (record.status === "trash" && publication.status !== "trash") unset.push("prior_status");
        if (toTrash) await this.unlinkFromEvents(ctx, record._id);
        // i18n: in a language other than the record's original, the translatable fields go to the i18n service.
        const { inline } = await this.splitWrite(ctx, record, set);
        return this.applyWrite(record, inline, unset, toTrash ? "deleted" : "updated");
      } finally {
        for (const hold of holds) hold.release();
      }
      });
      return this.presentOne(ctx, updated, { reveal: () => true });
    },
    /** docs/records.md#deleting-venues-and-organizers: trash (never delete), unlinked from every event before the answer (C16). */
    async removeLinked(ctx: Ctx, record: LinkedDoc) {
      const who = this.who(ctx);
      if (!canDeletePost(who, this.postLike(record))) throw ApiError.forbidden(who === null);
      if (record.status === "trash") throw new ApiError(codes.inTrash, 410);
      await this.unlinkFromEvents(ctx, record._id);
      let trashed: LinkedDoc | null;
      try {
        trashed = (await this.trashRecord(record)) as LinkedDoc;
      } catch (err) {
        this.logger.error(`Trashing ${spec.kind} ${record._id} failed:`, err);
        trashed = null;
      }
      if (!trashed) throw new ApiError(codes.couldNotDelete, 500);
      await this.announce("deleted", trashed, true);
      return this.presentOne(ctx, trashed, { reveal: () => true });
    },
    unlinkFromEvents(ctx: Ctx, id: number): Promise<unknown> {
      return ctx.call("events.unlinkPost", { kind: spec.kind, id });
    },

    // -------------------------------------------------------------------------------------------------
    // Reads
    // -------------------------------------------------------------------------------------------------

    /** docs/records.md#reading-venues-and-organizers: readable (publish, or read_post; trashed ones by editors), password blanking, `json_ld`. */
    readLinked(ctx: Ctx, record: LinkedDoc, p: { password?: string; context?: string }) {
      if (!this.mayRead(ctx, record)) throw new ApiError(codes.notAccessible, 403);
      const access = { password: p.password, context: p.context };
      return this.presentOne(ctx, record, { jsonLd: true, reveal: (d: LinkedDoc) => this.passwordAccess(ctx, d, access) });
    },
    async presentOne(ctx: Ctx, record: LinkedDoc, opts: PresentOpts) {
      return (await this.presentMany(ctx, [record], opts))[0];
    },
    /** Records as the API returns them; the images of all of them in one look-up. */
    async presentMany(ctx: Ctx, docs: LinkedDoc[], opts: PresentOpts): Promise<Record<string, unknown>[]> {
      const [images, values] = await Promise.all([this.imagesById(docs.map(d => d.image)), this.localize(ctx, docs)]);
      const site = this.siteOf(ctx);
      const now = this.nowDb();
      // i18n: the asked language's values field by field (one i18n call per page); the language keys last (C9).
      return docs.map(doc => this.applyLanguage(presentRecord(spec, mergeValues(doc, values.get(doc._id), translatable), {
        site,
        baseUrl: settings().baseUrl,
        status: effectiveStatus(doc, now),
        image: images.get(doc.image) ?? false,
        jsonLd: !!opts.jsonLd,
        reveal: opts.reveal(doc)
      }), doc, ctx));
    },

    linkedPostIds(ctx: Ctx, conditions: Record<string, unknown>): Promise<number[] | null> {
      return ctx.call("events.linkedPostIds", { kind: spec.kind, ...conditions });
    },
    /**
     * The id sets of the event filters (docs/lists.md#venue-and-organizer-filters), one events call per filter, in parallel:
     * `include` sets a record must be in, `exclude` one it must not be in (has_events falsy).
     */
    async eventIdFilters(ctx: Ctx, p: ListParams, statuses: string[]): Promise<{ include: number[][]; exclude?: number[] }> {
      if (p.event !== undefined && p.event <= 0) throw ApiError.invalidParam("event", "param.unknown_id");
      const who = this.who(ctx);
      const upcomingStatuses = p.status !== undefined ? statuses : hasCap(who, "edit_posts") ? REGISTERED_STATUSES.filter(s => s !== "trash") : ["publish"];
      const [event, hasEvents, upcoming] = await Promise.all([
        p.event !== undefined ? this.linkedPostIds(ctx, { event: p.event }) : undefined,
        p.has_events !== undefined ? this.linkedPostIds(ctx, { hasEvents: true }) : undefined,
        isLooseTruthy(p.only_with_upcoming) ? this.linkedPostIds(ctx, { upcoming: true, statuses: upcomingStatuses }) : undefined
      ]);
      if (p.event !== undefined && !event) throw ApiError.invalidParam("event", "param.unknown_id");
      const include = [event, upcoming].filter((ids): ids is number[] => Array.isArray(ids));
      if (!hasEvents) return { include };
      return isLooseTruthy(p.has_events) ? { include: [...include, hasEvents] } : { include, exclude: hasEvents };
    },
    /** docs/lists.md#venue-and-organizer-lists: statuses per caller, event filters, search, date desc then id desc, paging, envelope. */
    async listLinked(ctx: Ctx, p: ListParams) {
      const statuses: string[] = this.listStatusFilter(ctx, p.status);
      const near: Map<number, number> | undefined = spec.geo ? await this.nearFilter(ctx, p) : undefined;
      const { include, exclude } = await this.eventIdFilters(ctx, p, statuses);
      if (near) include.push([...near.keys()]);
      const searchText = p.search;
      const searching = searchText !== undefined;
      const unrestricted = this.who(ctx) === undefined;
      // i18n: the translated fields in the asked language (fallback: the original), the others as stored;
      // D34: a protected record matches through its unprotected fields only.
      const search = searchText !== undefined
        ? await this.searchQuery(ctx, searchFragments(searchText).map(text => ({ text, exclude: false })),
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
        modifiedQuery(p)
      ]);
      const page = this.pageOf(p);
      // filtered by events (event, has_events, only_with_upcoming): among those ids only
      const among: number[] | undefined = include.length ? (idCondition(include, exclude)?._id as { $in?: number[] } | undefined)?.$in : undefined;
      const sort = { date: -1, _id: -1 } as const;
      const { docs, total } = near && p.orderby === "distance" ? await this.pageByDistance(query, page, near)
        : among ? await this.pagedFindAmong(among, query, sort, page) : await this.pagedFind(query, sort, page);
      let items = await this.presentMany(ctx, docs as LinkedDoc[], { reveal: (d: LinkedDoc) => this.passwordAccess(ctx, d, {}) });
      if (near) items = items.map((item: Record<string, unknown>) => withDistance(item, near.get(item.id as number)));
      return { [spec.plural]: items, ...this.listEnvelope(ctx, spec.plural, LIST_LINK_ORDER, p, page, total) };
    },
    /**
     * Venues near a point (C11, lib/geo/near-query.ts): venue id → distance, or undefined when the list
     * asked for no radius search. Parameter errors first, then 400 geoloc-not-available.
     */
    async nearFilter(ctx: Ctx, p: ListParams): Promise<Map<number, number> | undefined> {
      const { asked, near } = readNear(p);
      if (!asked) return undefined;
      requireGeolocation(this.broker, [NEAR_ACTION]);
      return near ? venuesNear(ctx, near) : undefined;
    },
    /** `orderby=distance`: the matching records (already within the radius), nearest first, then by id. */
    async pageByDistance(query: Record<string, unknown>, page: Page, near: Map<number, number>) {
      const all: LinkedDoc[] = (await this.store.find(query)) as LinkedDoc[];
      const distance = (d: LinkedDoc) => near.get(d._id) ?? Infinity;
      all.sort((a, b) => distance(a) - distance(b) || a._id - b._id);
      const docs = all.slice(page.skip, page.skip + page.perPage);
      if (page.page > 1 && !docs.length) throw new ApiError(`${spec.kind}-archive-page-not-found`, 404);
      return { docs, total: all.length };
    }
  } satisfies ThisType<LinkedSelf>;

  /** A venue or organizer service: this mixin's methods, with the post and translatable mixins'. */
  type LinkedMethods = typeof methods;
  interface LinkedSelf extends Service, PostFace, TranslatableMethods, LinkedMethods, LinkedVars {}

  const schema: ServiceSchema<ServiceSettingSchema & { linked: LinkedKindSpec }, LinkedMethods, LinkedVars, LinkedSelf> = {
    name: "linked-post",
    mixins: [
      PostMixin({ kind: spec.kind, collection: spec.plural, indexes: [{ field: "name_key" }, { field: "date" }, ...TRANSLATION_INDEXES] }),
      TranslatableMixin({ type: spec.kind, fields: translatable, derived: { name_key: "name" } })
    ],
    settings: { linked: spec },

    actions: {
      list: {
        params: schemas.actions.list,
        handler(ctx: Ctx) {
          return this.cachedRead(ctx, "listLinkedPage");
        }
      },
      create: {
        params: schemas.actions.create,
        async handler(ctx: Ctx) {
          await this.checkWriteInput(ctx, ctx.params);
          const who = this.who(ctx);
          if (!canCreatePost(who)) throw ApiError.forbidden(who === null);
          const record: LinkedDoc = await this.createOrReuse(ctx, ctx.params);
          ctx.meta.$statusCode = 201;
          ctx.meta.$location = `${this.nsOf(ctx)}/${spec.plural}/${record._id}`;
          return this.presentOne(ctx, record, { reveal: () => this.mayEdit(ctx, record) || this.passwordAccess(ctx, record, {}) });
        }
      },
      get: {
        params: schemas.actions.get,
        handler(ctx: Ctx) {
          return this.cachedRead(ctx, "getLinkedPage");
        }
      },
      getBySlug: {
        params: schemas.actions.getBySlug,
        handler(ctx: Ctx) {
          return this.cachedRead(ctx, "getLinkedBySlugPage");
        }
      },
      update: {
        params: schemas.actions.update,
        async handler(ctx: Ctx<RecordParams>) {
          return this.inOrderOf(await this.linkedById(ctx.params.id), (record: LinkedDoc) => this.updateLinked(ctx, record, ctx.params));
        }
      },
      updateBySlug: {
        params: schemas.actions.updateBySlug,
        async handler(ctx: Ctx<RecordParams>) {
          return this.inOrderOf(await this.linkedBySlug(ctx.params.slug), (record: LinkedDoc) => this.updateLinked(ctx, record, ctx.params));
        }
      },
      remove: {
        params: schemas.actions.remove,
        async handler(ctx: Ctx<RecordParams>) {
          return this.inOrderOf(await this.linkedById(ctx.params.id), (record: LinkedDoc) => this.removeLinked(ctx, record));
        }
      },
      removeBySlug: {
        params: schemas.actions.removeBySlug,
        async handler(ctx: Ctx<RecordParams>) {
          return this.inOrderOf(await this.linkedBySlug(ctx.params.slug), (record: LinkedDoc) => this.removeLinked(ctx, record));
        }
      },

      /** Internal: checks an event's `venue`/`organizer` input (docs/records.md#venue-and-organizer-input); 400 on that name. No side effects. */
      validateLinks: {
        params: linkParams,
        async handler(ctx: Ctx<{ value?: unknown }>): Promise<true> {
          await this.checkedLinkEntries(ctx, ctx.params.value, false);
          return true;
        }
      },
      /**
       * Internal: the ids an event's input names, in order, each once; inline data objects are created as by
       * POST (duplicate avoidance included) with the caller as author and no permission check of their own.
       */
      link: {
        params: linkParams,
        async handler(ctx: Ctx<{ value?: unknown }>): Promise<number[]> {
          const entries: LinkEntry[] = await this.checkedLinkEntries(ctx, ctx.params.value, true);
          const ids: number[] = [];
          for (const entry of entries) {
            const id = "id" in entry ? entry.id : ((await this.createOrReuse(ctx, entry.data)) as LinkedDoc | null)?._id;
            if (!id) throw new ApiError(codes.couldNotCreate, 400);
            if (!ids.includes(id)) ids.push(id);
          }
          return ids;
        }
      },
      /** Internal: the records an event embeds, by id; only those the caller may read (C1), blanked per caller. */
      embed: {
        params: {
          ids: { type: "array", items: "number" },
          jsonLd: { type: "boolean", optional: true },
          password: { type: "string", optional: true },
          context: { type: "string", optional: true }
        },
        async handler(ctx: Ctx<{ ids: number[]; jsonLd?: boolean; password?: string; context?: string }>): Promise<Record<string, unknown>> {
          const { ids, ...variant } = ctx.params;
          if (!ids.length) return {};
          const access = { password: ctx.params.password, context: ctx.params.context };
          // one kept entry per record (docs/caching.md#embedded-records); a scheduled one's status moves with the clock
          return this.keptPerRecord(ctx, spec.kind, ids, variant, async (missing: number[]) => {
            const docs: LinkedDoc[] = (await this.store.findByIds(missing) as LinkedDoc[]).filter((d: LinkedDoc) => this.mayRead(ctx, d));
            const items: unknown[] = await this.presentMany(ctx, docs, { jsonLd: !!ctx.params.jsonLd, reveal: (d: LinkedDoc) => this.passwordAccess(ctx, d, access) });
            return new Map(docs.map((d, i) => [d._id, { value: items[i], keep: d.status !== "future" }]));
          });
        }
      }
    },

    methods,

    created() {
      this.createsByName = new KeyedQueue();
      // Inline venue/organizer data on events is checked with the create parameters (docs/records.md#venue-and-organizer-input).
      this.checkCreateParams = this.broker.validator!.compile(schemas.create);
    }
  };
  return schema as unknown as ServiceSchema;
}
