/**
 * The events service: owns events. It asks the venues, organizers and taxonomy services for what they
 * own (batched per page) and the geolocation service for the `geoloc*` filters.
 */
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PostMixin, type PostFace } from "../mixins/post.mixin";
import type { Ctx } from "../broker/context";
import { TranslatableMixin, TRANSLATION_INDEXES, type TranslatableMethods } from "../mixins/translatable.mixin";
import { searchTerms, SearchTerm } from "../lib/search";
import { allChecks, ApiError, ParamReason, throwIfInvalid } from "../lib/errors";
import { settings } from "../lib/settings";
import { SiteLocal } from "../lib/sites/scope";
import { canCreatePost, canDeletePost, canEditPost, canReadPost, Capability, effectiveStatus, hasCap, REGISTERED_STATUSES, Who } from "../lib/capabilities";
import { listBound, parseUtc, parseWallClock } from "../lib/dates";
import { sanitizeSlug, trashedSlug, untrashedSlug } from "../lib/slug";
import { FLOATING_STATUSES, resolvePublication } from "../lib/posts/publication";
import { EVENT_PARAMS, EVENT_LINK_ORDER } from "../lib/events/event-params";
import { checkEventInput, plainEventFields, resolveSchedule } from "../lib/events/event-input";
import { EventDoc, eventRecord } from "../lib/events/event-record";
import { buildEventQuery, eventSearchCondition, eventSort, EventListFilters, readableCondition, SearchAccess } from "../lib/events/event-query";
import type { SlugHold } from "../lib/posts/write-order";
import type { Page } from "../lib/posts/paging";
import type { Query, Sort } from "../store/collection";
import { modifiedRange } from "../lib/changes/modified";
import { NearInput, NEAR_ACTION, readNear, withDistance } from "../lib/geo/near-query";
import { requireGeolocation, venuesNear } from "../broker/geolocation";
import { sent } from "../lib/params";
import { producedBy } from "../lib/http/idempotency";
import { SeriesPlanner, SERIES_JOB_LOCK, SERIES_JOB_TIMEOUT_MS } from "../domain/events/series-planner";
import { EventEmbedder } from "../domain/events/event-embeds";
import type { PostRecords } from "../domain/posts/post-records";
import type { SeriesDoc } from "../lib/events/series";
import { listBounds } from "../lib/events/series-window";
import { isMember, textSource } from "../lib/events/series";
import { importSourceOf, type ImportSourceMeta } from "../lib/imports/source";
import { asRead, dueStatuses, withDueStatuses } from "../lib/events/due-events";


/** The params of the list and the reads, as their schemas leave them (lib/events/event-params.ts). */
interface ListParams extends NearInput {
  id: number;
  slug: string;
  page?: number;
  per_page?: number;
  strict_dates?: boolean;
  search?: string;
  categories?: string[];
  tags?: string[];
  venue?: number[];
  organizer?: number[];
  featured?: boolean;
  status?: string[];
  geoloc?: boolean;
  include?: number[];
  post_parent?: number;
  ticketed?: boolean;
  password?: string;
  context?: string;
  json_ld?: boolean;
  modified_after?: unknown;
  modified_before?: unknown;
  [param: string]: unknown;
}
/** What a page of events' embedded records depend on: the request (caller, password, context) and JSON-LD. */
interface EmbedRequest {
  ctx: Ctx;
  jsonLd: boolean;
}
/** The occurrences route's params as its schema leaves them (lib/events/event-params.ts). */
interface OccurrencesParams extends Record<string, unknown> {
  id: number;
  page?: number;
  per_page?: number;
  status?: string[];
  strict_dates?: boolean;
}
/** The params of the writes (validated by their schemas; each input is read where it is used). */
type WriteParams = Record<string, unknown> & { id: number; slug?: string };
/** What writes one event: a write's params (a series writes its events without the route's id). */
type EventInput = Record<string, unknown> & { slug?: string };

const methods = {
  /** One page of the events list (cached per caller and language by cachedRead). */
  async listEvents(ctx: Ctx<ListParams>) {
    const filters: EventListFilters = await this.listFilters(ctx);
    const page = this.pageOf(ctx.params);
    const geo = ctx.locals?.geo as Map<number, number> | undefined;
    let docs: EventDoc[];
    let total: number;
    if (ctx.params.orderby === "distance" && geo) ({ docs, total } = await this.pageByDistance(filters, page, geo));
    else ({ docs, total } = await this.pagedFind(this.listQuery(filters), eventSort(!!filters.include), page));
    let events = await this.records(ctx, docs, { jsonLd: !!ctx.params.json_ld });
    if (geo) events = events.map(ev => withDistance(ev, this.distanceOf(ev, geo)));
    const sent = { ...(ctx.meta.query ?? {}) } as Record<string, unknown>;
    const envelope = this.listEnvelope(ctx, "events", EVENT_LINK_ORDER, sent, page, total);
    return { events, ...envelope };
  },

  /**
   * Whether the caller may learn an event's terms, venues and organizers through the `event`/`post`
   * list filters: the event is readable (docs/authorization.md#per-record-rules; trashed ones never are) and not password-protected
   * (those fields are blanked, docs/records.md#password-protected-records). Trusted internal callers always may.
   */
  linksVisible(ctx: Ctx, doc: EventDoc): boolean {
    const who: Who = this.who(ctx);
    if (who === undefined) return true;
    if (doc.status === "trash" || doc.post_password) return false;
    const status = effectiveStatus(doc, this.nowDb());
    return status === "publish" || canReadPost(who, { ...doc, status });
  },

  siteZone(): string {
    return settings().siteTimezone;
  },
  /** Removes a linked record (venue, organizer, term) from every event carrying it; the feed records them. */
  async unlinkFromEvents(field: "venues" | "organizers" | "categories" | "tags", id: number): Promise<number> {
    const linked = await this.eventsLinking(field, [id]);
    const n = await this.store.updateMany({ [field]: id }, { $pull: { [field]: id } });
    await this.recordChanges(linked, { emit: true });
    return n;
  },

  /**
   * A list's query, its statuses read as C13 reads them (a due `future` event as published): reads never
   * write, so a due event may not be published in the store yet (lib/events/due-events.ts).
   */
  listQuery(filters: EventListFilters): Query {
    const due = dueStatuses(filters.statuses, this.nowDb());
    return withDueStatuses(buildEventQuery({ ...filters, statuses: due.statuses }), due.condition);
  },

  /**
   * What reads leave to the writes (docs/decisions.md "Reads never write"), run before each write of an
   * event: due `future` events are published, and the series' horizon moved where today's default list
   * window needs it (the scheduled jobs do both as well).
   */
  async beforeWrite() {
    await this.publishDueEvents();
    await this.series.extendHorizons();
  },

  /**
   * C13: future events whose date has passed are published (and counted, and recorded in the feed). Run by
   * the writes of events and by a scheduled job (DUE_EVENTS_JOB_MS), never by a read: until then the reads
   * count them as published by arithmetic (lib/events/due-events.ts).
   */
  async publishDueEvents() {
    const now = this.nowDb();
    // Once a second per site (docs/sites.md).
    const published = (this.lastPublication ??= new SiteLocal<string>(() => ""));
    if (published.here() === now) return;
    published.set(now);
    const due: EventDoc[] = (await this.store.find({ status: "future", date_utc: { $lte: now } })) as EventDoc[];
    for (const doc of due) {
      const updated = (await this.store.updateOne({ _id: doc._id, status: "future" }, { $set: { status: "publish" } })) as EventDoc | null;
      if (updated) await this.adjustCounts(doc, updated);
      if (updated) await this.recordChanges([this.changeOf("event", "updated", updated)], { emit: true });
    }
  },

  // ---- reading -----------------------------------------------------------------------------------

  /** The event with that id, or the reference's 404 / 400 when there is none / it is another type. */
  async targetById(id: number): Promise<EventDoc> {
    const doc = id > 0 ? await this.findById(id) : null;
    if (doc) return doc;
    const kind = id > 0 ? await this.kindOfId(id) : undefined;
    if (kind && kind !== "event") throw new ApiError("rest-invalid-event-id", 400);
    throw new ApiError("rest-event-not-found", 404, { id });
  },
  /** By slug (GET, DELETE): an unknown slug is a validation error. */
  async targetBySlug(slug: string): Promise<EventDoc> {
    const doc = await this.findBySlug(slug);
    if (doc) return doc;
    throw ApiError.invalidParam("slug");
  },
  /** docs/records.md#reading-an-event: trash, visibility, password, then the record with JSON-LD. */
  async readEvent(ctx: Ctx, doc: EventDoc) {
    const who: Who = this.who(ctx);
    if (doc.status === "trash") throw new ApiError("event-no-longer-available", 403);
    const status = effectiveStatus(doc, this.nowDb());
    if (status !== "publish" && !canReadPost(who, { ...doc, status })) throw new ApiError("event-not-accessible", 403);
    if (!this.passwordAccess(ctx, doc, ctx.params)) throw new ApiError("event-password-protected", 403);
    const jsonLd = who === null ? status === "publish" && !doc.post_password : true;
    return (await this.records(ctx, [doc], { jsonLd, editor: true }))[0];
  },

  /** Output records of a page of events, with everything embedded fetched once per page. */
  async records(ctx: Ctx, docs: EventDoc[], opts: { jsonLd: boolean; editor?: boolean }) {
    if (!docs.length) return [];
    const [embeds, texts] = await Promise.all([this.embedder.embedsOf({ ctx, jsonLd: opts.jsonLd }, docs), this.localize(ctx, docs.map(textSource))]);
    const rc = { site: this.siteOf(ctx), ns: this.nsOf(ctx), baseUrl: settings().baseUrl };
    const now = this.nowDb();
    return docs.map(doc => {
      const blank = !opts.editor && !this.passwordAccess(ctx, doc, ctx.params ?? {});
      // C13: a due `future` event reads as published before a write publishes it
      const record = eventRecord(asRead(doc, now), rc, embeds, { jsonLd: opts.jsonLd, blank, text: texts.get(textSource(doc)._id) });
      // an imported event's source identity, to those who may edit it (C64, docs/imports.md#idempotency)
      if (doc.import_source && ctx.params?.context === "edit" && canEditPost(this.who(ctx), doc)) (record as Record<string, unknown>).import_source = doc.import_source;
      return this.applyLanguage(record, doc, ctx);
    });
  },

  // ---- the list ----------------------------------------------------------------------------------

  async listFilters(ctx: Ctx<ListParams>): Promise<EventListFilters> {
    const p = ctx.params;
    const who: Who = this.who(ctx);
    const bounds: EventListFilters["bounds"] = listBounds(p, this.siteZone(), this.now());
    // both refused: both named, whichever answered first
    const [categoryIds, tagIds] = await allChecks([
      p.categories ? ctx.call("taxonomy.resolveFilter", { taxonomy: "category", values: p.categories, param: "categories" }) : undefined,
      p.tags ? ctx.call("taxonomy.resolveFilter", { taxonomy: "tag", values: p.tags, param: "tags" }) : undefined
    ]);
    await this.requireKind(p.venue, "venue", "venue");
    await this.requireKind(p.organizer, "organizer", "organizer");
    if (p.post_parent !== undefined) await this.requireKind([p.post_parent as number], "event", "post_parent");
    const searchAccess: SearchAccess = this.searchAccess(who, p);
    // `search` matches the text of the asked language (i18n); D34: unreadable protected events by title only.
    const searchQuery = p.search
      ? await this.searchQuery(ctx, searchTerms(p.search), (terms: SearchTerm[]) => eventSearchCondition(terms, searchAccess),
        searchAccess === "all" ? {} : { limited: { fields: ["title"], unless: readableCondition(searchAccess) } })
      : undefined;
    return {
      statuses: this.listStatusFilter(ctx, p.status),
      bounds,
      include: p.include,
      search: p.search,
      searchQuery,
      searchAccess,
      categoryIds: categoryIds as number[] | undefined,
      tagIds: tagIds as number[] | undefined,
      venueIds: p.venue,
      organizerIds: p.organizer,
      featured: p.featured,
      postParent: p.post_parent,
      ticketed: p.ticketed,
      geoVenues: await this.geoFilter(ctx),
      modified: modifiedRange(p)
    };
  },
  /**
   * Whose protected fields a search may look into (D34, docs/authorization.md#password-protected-records): the trusted caller all; with
   * `context=edit`, every event the caller may edit (all for editors, own ones by status otherwise);
   * and the events whose password was sent.
   */
  searchAccess(who: Who, p: { password?: string; context?: string }): SearchAccess {
    if (who === undefined) return "all";
    const access: Exclude<SearchAccess, "all"> = { password: p.password };
    if (p.context === "edit" && who) {
      if (["edit_others_posts", "edit_published_posts", "edit_private_posts"].every(c => hasCap(who, c as Capability))) return "all";
      const statuses = REGISTERED_STATUSES.filter(status => status !== "trash" && canEditPost(who, { author: who.id, status }));
      if (statuses.length) access.own = { author: who.id, statuses };
    }
    return access;
  },
  /** Every id must be a record of that kind (list filters `venue`, `organizer`, `post_parent`). */
  async requireKind(ids: number[] | undefined, kind: string, param: string) {
    if (!ids) return;
    for (const id of ids) if ((await this.kindOfId(id)) !== kind) throw ApiError.invalidParam(param, "param.unknown_id");
  },
  /**
   * The `geoloc*` filters (D8, C11), answered by the geolocation service: parameter errors first, then
   * 400 geoloc-not-available when that service is not running.
   */
  async geoFilter(ctx: Ctx<ListParams>): Promise<EventListFilters["geoVenues"]> {
    const p = ctx.params;
    const { asked, near } = readNear(p);
    if (!asked && p.geoloc === undefined) return undefined;
    const needed = [...(near || p.geoloc === undefined ? [NEAR_ACTION] : []), ...(p.geoloc !== undefined ? ["geolocation.venuesWithCoordinates"] : [])];
    requireGeolocation(this.broker, needed);
    const out: NonNullable<EventListFilters["geoVenues"]> = {};
    if (near) {
      const distances = await venuesNear(ctx, near);
      ctx.locals = { ...(ctx.locals ?? {}), geo: distances };
      out.in = [...distances.keys()];
    }
    if (p.geoloc !== undefined) {
      const located: number[] = await ctx.call("geolocation.venuesWithCoordinates", {});
      if (p.geoloc) out.in = out.in ? out.in.filter(id => located.includes(id)) : located;
      else out.notIn = located;
    }
    return out;
  },
  /** The occurrences route's conditions: the series, the statuses as C13 reads them, the date bounds. */
  occurrencesQuery(ctx: Ctx<OccurrencesParams>, doc: EventDoc): Query {
    const p = ctx.params;
    // statuses as C13 reads them (a due `future` occurrence as published, lib/events/due-events.ts)
    const due = dueStatuses(this.listStatusFilter(ctx, p.status), this.nowDb());
    const and: Query[] = [{ series_id: doc.series_id }, { status: { $in: due.statuses } }, ...(due.condition ? [due.condition] : [])];
    for (const [kind, op] of [["start_date", "$gte"], ["end_date", "$lte"]] as const) {
      const value = p[kind];
      const bound = value !== undefined && value !== null ? listBound(value, kind, !!p.strict_dates, this.siteZone()) : null;
      if (bound !== null) and.push({ [kind]: { [op]: bound } });
    }
    return { $and: and };
  },
  /** `orderby=distance`: the matching events (already bounded by the radius) sorted nearest first. */
  async pageByDistance(filters: EventListFilters, page: Page, geo: Map<number, number>) {
    const all: EventDoc[] = (await this.store.find(this.listQuery(filters), { sort: eventSort(false) })) as EventDoc[];
    const nearest = (d: EventDoc) => Math.min(...d.venues.map(v => geo.get(v) ?? Infinity));
    all.sort((a, b) => nearest(a) - nearest(b));
    const docs = all.slice(page.skip, page.skip + page.perPage);
    if (page.page > 1 && !docs.length) throw new ApiError("event-archive-page-not-found", 404);
    return { docs, total: all.length };
  },
  distanceOf(ev: Record<string, unknown>, geo: Map<number, number>): number | undefined {
    const venue = ev.venue as Array<{ id?: number }> | { id?: number } | null | undefined;
    const venues = Array.isArray(venue) ? venue : venue && venue.id ? [venue] : [];
    const ds = venues.map((v: { id?: number }) => geo.get(v.id!)).filter((d: number | undefined) => d !== undefined);
    return ds.length ? Math.round(Math.min(...ds) * 100) / 100 : undefined;
  },

  // ---- writing -----------------------------------------------------------------------------------

  /**
   * Checks that need the store or other services; all are 400s before any permission check (D23),
   * reported together in one `rest_invalid_param`.
   */
  async checkWrite(ctx: Ctx, p: WriteParams) {
    const bad: Record<string, ParamReason> = checkEventInput(p, this.siteZone());
    const collect = async (param: string, check: () => Promise<unknown>) => {
      try {
        await check();
      } catch (err) {
        const e = err as ApiError;
        if (e?.type !== "rest_invalid_param" || !e.data?.params || Array.isArray(e.data.params)) throw err;
        Object.assign(bad, Object.keys(e.data.params).length ? e.data.params : { [param]: { key: "param.invalid" } });
      }
    };
    if (sent(p.image)) await collect("image", () => this.checkImage(ctx, p.image));
    if (sent(p.post_parent)) await collect("post_parent", () => this.requireKind([p.post_parent as number], "event", "post_parent"));
    if (sent(p.venue)) await collect("venue", () => ctx.call("venues.validateLinks", { value: p.venue }));
    if (sent(p.organizer)) await collect("organizer", () => ctx.call("organizers.validateLinks", { value: p.organizer }));
    Object.assign(bad, await this.series.checkWrite(p, p.id));
    throwIfInvalid(bad);
  },
  /** Updating to `trash` is a delete (C13): it needs delete_post as well as edit_post. */
  writeAction(p: WriteParams): "edit" | "trash" {
    return p.status === "trash" ? "trash" : "edit";
  },
  /**
   * Update and delete targets: permission first (general capability when no record has that id),
   * then 404 / 400 for a missing id or another type (docs/records.md#updating-an-event, #deleting-an-event).
   */
  async targetForWrite(ctx: Ctx, doc: EventDoc | null, id: number, action: "edit" | "delete" | "trash"): Promise<EventDoc> {
    const who: Who = this.who(ctx);
    if (!doc) {
      if (!hasCap(who, action === "delete" ? "delete_posts" : "edit_posts")) throw ApiError.forbidden(who === null);
      const kind = id > 0 ? await this.kindOfId(id) : undefined;
      if (kind && kind !== "event") throw new ApiError("rest-invalid-event-id", 400);
      throw new ApiError("rest-event-not-found", 404, { id });
    }
    const view = { ...doc, status: effectiveStatus(doc, this.nowDb()) };
    const allowed = (action === "delete" || canEditPost(who, view)) && (action === "edit" || canDeletePost(who, view));
    if (!allowed) throw ApiError.forbidden(who === null);
    return doc;
  },

  /** Creates (current undefined) or updates an event from validated parameters; returns the stored doc. */
  async writeEvent(ctx: Ctx, p: EventInput, current: EventDoc | undefined): Promise<EventDoc> {
    const who: Who = this.who(ctx);
    const now = this.now();
    const schedule = resolveSchedule(p, current, this.siteZone(), now);
    const publication = resolvePublication(who, {
      status: (p.status as string | undefined) ?? undefined,
      date: sent(p.date) ? parseWallClock(p.date, schedule.timezone, now)! : undefined,
      date_utc: sent(p.date_utc) ? parseUtc(p.date_utc, now)! : undefined
    }, current, this.siteZone(), now);
    const fields: Record<string, unknown> = { ...plainEventFields(p, !current), ...schedule, ...publication, ...this.modifiedAt(now) };
    if (sent(p.author)) fields.author = p.author;
    if (sent(p.post_parent)) fields.post_parent = p.post_parent;
    if (sent(p.image)) fields.image = await this.resolveImage(ctx, p.image);

    // Records made inline draw ids from two sequences (terms; venues and organizers share the posts'): each
    // sequence is drawn in one order — categories before tags, the venue before organizers — so a request
    // makes the same ids whenever it runs (the two sequences side by side).
    const [[categories, tags], [venues, organizers]] = await Promise.all([
      (async () => [
        p.categories !== undefined && p.categories !== null ? await ctx.call("taxonomy.resolveForEvent", { taxonomy: "category", value: p.categories }) : undefined,
        p.tags !== undefined && p.tags !== null ? await ctx.call("taxonomy.resolveForEvent", { taxonomy: "tag", value: p.tags }) : undefined
      ])(),
      (async () => [
        sent(p.venue) ? await ctx.call("venues.link", { value: p.venue }) : undefined,
        sent(p.organizer) ? await ctx.call("organizers.link", { value: p.organizer }) : undefined
      ])()
    ]);
    if (categories) fields.categories = categories;
    if (tags) fields.tags = tags;
    if (venues) fields.venues = venues;
    if (organizers) fields.organizers = organizers;

    const id: number = current ? current._id : await this.allocateId("posts", "event");
    // The slug is unique by the store's constraint; a write that lost a race for it picks the next one.
    // The record as this write found it under the store's lock: the term counts move by exactly this change.
    let before: EventDoc | undefined = current;
    const doc: EventDoc = await this.retryOnSlugConflict(async (round: number): Promise<EventDoc> => {
      // a slug chosen here is held against parallel writes of this process until this one is stored
      const holds: SlugHold[] = [];
      try {
        // A create's first try takes its slug unchecked: the insert's own statement checks it.
        const unchecked = !current && round === 1;
        const attempt: Record<string, unknown> = { ...fields, ...(await this.slugAndTrash(p, current, { ...current, ...fields } as EventDoc, id, holds, unchecked)) };
        // i18n: a create (which also sets `lang` and `translations`) or a write in the original language stays
        // inline; in another language title, description and excerpt go to the i18n service.
        const { inline } = await this.splitWrite(ctx, current, attempt);
        // The write stores its change-feed entry with it (one transaction).
        if (!current) {
          const created = {
            _id: id, author: who ? who.id : 1, title: "", description: "", excerpt: "", image: null, categories: [], tags: [], venues: [], organizers: [],
            ticketed: false, post_parent: 0, post_password: "", ...importSourceOf(ctx.meta as ImportSourceMeta), ...inline
          } as unknown as EventDoc;
          const unique = !FLOATING_STATUSES.has(created.status) && created.status !== "trash";
          // an idempotent create's claim is marked with this record in its transaction (C21, C41)
          const claim = ctx.meta.idempotencyRead === "events.get" ? producedBy(ctx.meta, id) : undefined;
          return (await this.store.insert(created, { change: this.feedEntryOf("created", created), unlessTaken: unique ? "slug" : undefined, claim })) as EventDoc;
        }
        const change = await this.store.updateOneChange({ _id: id }, { $set: inline }, { change: after => this.feedEntryOf("updated", after as EventDoc), expected: current });
        if (!change) throw new ApiError("rest-event-not-found", 404, { id });
        before = change.before as EventDoc;
        return change.after as EventDoc;
      } finally {
        for (const hold of holds) hold.release();
      }
    });
    await this.adjustCounts(before, doc);
    await this.announce(current ? "updated" : "created", doc, true);
    return doc;
  },
  /**
   * Slug rules (docs/records.md#event-slugs, D16) and trash by status (C13): entering the trash suffixes the slug
   * (an event created in the trash gets its would-be slug suffixed); leaving it removes the suffix and
   * makes the slug unique again.
   */
  async slugAndTrash(p: EventInput, current: EventDoc | undefined, next: EventDoc, id: number, holds: SlugHold[] = [], unchecked = false) {
    const out: Record<string, unknown> = {};
    const status = next.status;
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
    else if (!current || !current.slug) base = floating ? "" : sanitizeSlug(next.title);
    // leaving draft/pending with a slug: from now on it has to be unique (docs/records.md#event-slugs)
    else if (FLOATING_STATUSES.has(current.status) && !floating) base = current.slug;
    if (base === undefined) return out;
    // WordPress sanitize_title falls back to the post id when nothing is left of the title or slug.
    if (base === "" && !floating) base = String(id);
    if (base && (!floating || leavingTrash)) {
      const hold: SlugHold = await this.holdSlug(base, id, unchecked);
      holds.push(hold);
      out.slug = hold.slug;
    } else out.slug = base;
    if (leavingTrash) out.prior_status = undefined;
    return out;
  },
  /** Term counts follow published events (docs/records.md#term-counts): deltas, applied before the write is answered. */
  async adjustCounts(before: EventDoc | undefined, after: EventDoc | undefined) {
    await this.series.countDeltas([[before, after]]);
  },

  async updateEvent(ctx: Ctx, doc: EventDoc, p: WriteParams) {
    const updated = await this.series.update(ctx, doc, p);
    return (await this.records(ctx, [updated], { jsonLd: false, editor: true }))[0];
  },
  /** DELETE: 410 when already trashed, else trash and answer the trashed record. */
  async trashEvent(ctx: Ctx, doc: EventDoc) {
    if (doc.status === "trash") throw new ApiError("event-is-in-trash", 410);
    if (isMember(doc)) return (await this.records(ctx, [await this.series.remove(ctx, doc, ctx.params.scope)], { jsonLd: false, editor: true }))[0];
    const trashed = await this.trashRecord(doc);
    await this.adjustCounts(doc, trashed);
    await this.announce("deleted", trashed, true);
    return (await this.records(ctx, [trashed], { jsonLd: false, editor: true }))[0];
  }
} satisfies ThisType<EventsSelf>;

type EventsMethods = typeof methods;
interface EventsVars {
  /** The `nowDb()` second of the last publication of due `future` events, per site. */
  lastPublication?: SiteLocal<string>;
  /** The scheduled jobs' timers (started(): SERIES_JOB_MS, DUE_EVENTS_JOB_MS). */
  jobs?: NodeJS.Timeout[];
  /** Recurring events (domain/events/series-planner.ts), built in created(). */
  series: SeriesPlanner<Ctx>;
  /** What a page of events embeds (domain/events/event-embeds.ts), built in created(). */
  embedder: EventEmbedder<EmbedRequest>;
}
interface EventsSelf extends Service, PostFace, TranslatableMethods, EventsMethods, EventsVars {
  // this service's store holds events
  findById(id: number): Promise<EventDoc | null>;
  findBySlug(slug: string): Promise<EventDoc | null>;
  trashRecord(record: EventDoc): Promise<EventDoc>;
  pagedFind(query: Query, sort: Sort, page: Page): Promise<{ docs: EventDoc[]; total: number }>;
}

const EventsService: ServiceSchema<ServiceSettingSchema, EventsMethods, EventsVars, EventsSelf> = {
  name: "events",
  mixins: [PostMixin({
    kind: "event",
    collection: "events",
    // The list filters' fields, each answered by an index of the store.
    indexes: [
      ...["start_date", "end_date", "featured", "post_parent"].map(field => ({ field })),
      // the lists' order (lib/events/event-query.ts): a page is read from this index, not sorted
      { field: "start_date", then: ["date"] },
      ...["categories", "tags", "venues", "organizers"].map(field => ({ field, array: true })),
      ...TRANSLATION_INDEXES,
      // Recurring events (domain/events/series-planner.ts): membership, the job's lookup, one row per occurrence, exceptions.
      { field: "series_id", sparse: true }, { field: "series_horizon", sparse: true }, { field: "series_key", unique: true, sparse: true },
      { field: "series_overrides", array: true }
    ]
  }), TranslatableMixin({ type: "event", fields: ["title", "description", "excerpt"] })],

  created() {
    // the change feed's pages show events as the lists do (mixins/change-source.mixin.ts)
    this.recordRenderer = { render: (ctx, docs) => this.records(ctx, docs as EventDoc[], { jsonLd: false }) };
    // The linked records follow the caller's rights (C1) and the request's password / context (docs/authorization.md#password-protected-records).
    const access = (ctx: Ctx) => Object.fromEntries(["password", "context"].filter(k => typeof ctx.params?.[k] === "string").map(k => [k, ctx.params[k]]));
    this.embedder = new EventEmbedder<EmbedRequest>({
      venues: ({ ctx, jsonLd }, ids) => ctx.call("venues.embed", { ids, jsonLd, ...access(ctx) }),
      organizers: ({ ctx, jsonLd }, ids) => ctx.call("organizers.embed", { ids, jsonLd, ...access(ctx) }),
      terms: ({ ctx }, ids) => ctx.call("taxonomy.embed", { ids }),
      images: ids => this.imagesById(ids)
    });
    this.series = new SeriesPlanner<Ctx>({
      // the post mixin's records of events: one instance, so the planner's slugs are held with the service's own
      records: this.postRecords as PostRecords<SeriesDoc>,
      writer: { write: (ctx, p, current) => this.writeEvent(ctx, p, current) },
      feed: {
        recordChanges: (changes, opts) => this.recordChanges(changes, opts),
        announce: (action, doc) => this.announce(action, doc),
        emit: (event, payload) => void this.broker.emit(event, payload)
      },
      cleanCaches: () => this.cleanCaches(),
      languageOf: ctx => this.languageOf(ctx),
      logger: this.logger
    });
  },

  actions: {
    list: {
      params: EVENT_PARAMS.list,
      handler(ctx: Ctx<ListParams>) {
        return this.cachedRead(ctx, "listEvents");
      }
    },

    create: {
      params: EVENT_PARAMS.create,
      async handler(ctx: Ctx<WriteParams>) {
        const p = ctx.params;
        await this.beforeWrite();
        await this.checkWrite(ctx, p);
        if (!canCreatePost(this.who(ctx))) throw ApiError.forbidden(this.who(ctx) === null);
        const doc = await this.series.afterCreate(ctx, await this.writeEvent(ctx, p, undefined), p);
        const record = (await this.records(ctx, [doc], { jsonLd: false, editor: true }))[0];
        ctx.meta.$statusCode = 201;
        ctx.meta.$location = record.rest_url as string;
        return record;
      }
    },

    get: {
      params: EVENT_PARAMS.get,
      async handler(ctx: Ctx<ListParams>) {
        const doc = await this.targetById(ctx.params.id);
        return this.readEvent(ctx, doc);
      }
    },
    getBySlug: {
      params: EVENT_PARAMS.getBySlug,
      async handler(ctx: Ctx<ListParams>) {
        return this.readEvent(ctx, await this.targetBySlug(ctx.params.slug));
      }
    },

    update: {
      params: EVENT_PARAMS.update,
      async handler(ctx: Ctx<WriteParams>) {
        await this.beforeWrite();
        await this.checkWrite(ctx, ctx.params);
        // writes of one event run one after another, each on the event as the previous one left it
        return this.inRecordOrder(ctx.params.id, async () => {
          const doc = await this.targetForWrite(ctx, await this.findById(ctx.params.id), ctx.params.id, this.writeAction(ctx.params));
          return this.updateEvent(ctx, doc, ctx.params);
        });
      }
    },
    updateBySlug: {
      params: EVENT_PARAMS.updateBySlug,
      async handler(ctx: Ctx<WriteParams & { slug: string }>) {
        const p = { ...ctx.params, slug: ctx.meta.bodySlug };
        if (p.slug === undefined) delete p.slug;
        if (p.slug !== undefined && String(p.slug).trim() === "") throw ApiError.invalidParam("slug", "param.empty");
        await this.beforeWrite();
        await this.checkWrite(ctx, p);
        // D5: an unknown slug is judged like an unknown id (general capability, then 404 with id 0).
        const found: EventDoc | null = await this.findBySlug(ctx.params.slug);
        const write = async () => {
          const doc = await this.targetForWrite(ctx, found ? await this.findById(found._id) : null, 0, this.writeAction(p));
          return this.updateEvent(ctx, doc, p);
        };
        return found ? this.inRecordOrder(found._id, write) : write();
      }
    },

    remove: {
      params: EVENT_PARAMS.remove,
      async handler(ctx: Ctx<WriteParams>) {
        await this.beforeWrite();
        return this.inRecordOrder(ctx.params.id, async () => {
          const doc = await this.targetForWrite(ctx, await this.findById(ctx.params.id), ctx.params.id, "delete");
          return this.trashEvent(ctx, doc);
        });
      }
    },
    removeBySlug: {
      params: EVENT_PARAMS.removeBySlug,
      async handler(ctx: Ctx<WriteParams & { slug: string }>) {
        await this.beforeWrite();
        const found = await this.targetBySlug(ctx.params.slug);
        return this.inRecordOrder(found._id, async () => {
          const doc = (await this.findById(found._id)) ?? found;
          await this.targetForWrite(ctx, doc, doc._id, "delete");
          return this.trashEvent(ctx, doc);
        });
      }
    },

    // ---- internal actions (not routed) -------------------------------------------------------------

    /** The terms linked to an event, or null when the id is not an event (terms' `post` filter). */
    links: {
      params: { id: "number" },
      async handler(ctx: Ctx<{ id: number }>) {
        const doc: EventDoc | null = await this.findById(ctx.params.id);
        if (doc && !this.linksVisible(ctx, doc)) return { categories: [], tags: [], venues: [], organizers: [] };
        return doc ? { categories: doc.categories, tags: doc.tags, venues: doc.venues, organizers: doc.organizers } : null;
      }
    },
    /** Distinct venue/organizer ids linked from events matching the conditions (one query). */
    linkedPostIds: {
      params: {
        kind: { type: "enum", values: ["venue", "organizer"] },
        event: { type: "number", optional: true },
        hasEvents: { type: "boolean", optional: true },
        upcoming: { type: "boolean", optional: true },
        statuses: { type: "array", items: "string", optional: true }
      },
      async handler(ctx: Ctx<{ kind: "venue" | "organizer"; event?: number; hasEvents?: boolean; upcoming?: boolean; statuses?: string[] }>) {
        const field = ctx.params.kind === "venue" ? "venues" : "organizers";
        if (ctx.params.event !== undefined) {
          const doc: EventDoc | null = await this.findById(ctx.params.event);
          return doc ? (this.linksVisible(ctx, doc) ? doc[field] : []) : null;
        }
        const and: Record<string, unknown>[] = [{ [field]: { $exists: true } }];
        if (ctx.params.hasEvents !== undefined) and.push({ status: { $nin: ["draft", "pending"] } });
        if (ctx.params.upcoming) {
          and.push({ start_date: { $gte: this.nowDb() } }, { hide_from_listings: { $ne: true } });
          // statuses as C13 reads them (a due `future` event as published)
          if (ctx.params.statuses) {
            const due = dueStatuses(ctx.params.statuses, this.nowDb());
            and.push({ status: { $in: due.statuses } }, ...(due.condition ? [due.condition] : []));
          }
        }
        const docs = await this.store.find({ $and: and }, { projection: { [field]: 1 } });
        return [...new Set(docs.flatMap(d => (d[field] as number[] | undefined) ?? []))];
      }
    },
    /** Drops a trashed venue/organizer from every event (docs/records.md#deleting-venues-and-organizers). */
    unlinkPost: {
      params: { kind: { type: "enum", values: ["venue", "organizer"] }, id: "number" },
      handler(ctx: Ctx<{ kind: "venue" | "organizer"; id: number }>) {
        return this.unlinkFromEvents(ctx.params.kind === "venue" ? "venues" : "organizers", ctx.params.id);
      }
    },
    /** Drops a deleted term from every event (docs/records.md#deleting-terms). */
    unlinkTerm: {
      params: { taxonomy: { type: "enum", values: ["category", "tag"] }, id: "number" },
      handler(ctx: Ctx<{ taxonomy: "category" | "tag"; id: number }>) {
        return this.unlinkFromEvents(ctx.params.taxonomy === "category" ? "categories" : "tags", ctx.params.id);
      }
    },
    /** `GET /events/{id}/occurrences` (C54): a series' occurrences, paged, with `/events` visibility. */
    occurrences: {
      params: EVENT_PARAMS.occurrences,
      async handler(ctx: Ctx<OccurrencesParams>) {
        const p = ctx.params;
        const doc = await this.targetById(p.id);
        if (!isMember(doc)) throw new ApiError("rest_event_not_recurring", 404, { id: p.id });
        const page = this.pageOf(p);
        const { docs, total } = await this.pagedFind(this.occurrencesQuery(ctx, doc), { start_date: 1, _id: 1 }, page);
        const events = await this.records(ctx, docs, { jsonLd: false });
        const sent = { ...(ctx.meta.query ?? {}) } as Record<string, unknown>;
        const envelope = this.listEnvelope(ctx, `events/${p.id}/occurrences`, ["page", "per_page", "start_date", "end_date", "status", "strict_dates"], sent, page, total);
        return { events, ...envelope };
      }
    },
    /** Moves every series' horizon forward (the scheduled job, C46/C55); `now` states the time (tests, operators). */
    materialise: {
      params: { now: { type: "string", optional: true } },
      async handler(ctx: Ctx<{ now?: string }>) {
        const now = ctx.params.now ? new Date(ctx.params.now) : undefined;
        if (now && Number.isNaN(now.getTime())) throw ApiError.invalidParam("now");
        const run = () => this.series.extendHorizons(now, true);
        const extended = this.storeHandle?.sql ? await this.storeHandle.sql.withLock(SERIES_JOB_LOCK, run) : await run();
        return { extended };
      }
    },
    /** What the iCalendar answer of a list needs of its events' series (C55), called with the list's own parameters. */
    seriesCalendar: {
      params: { ...EVENT_PARAMS.list, ids: { type: "array", items: "number" }, whole: { type: "boolean", optional: true } },
      async handler(ctx: Ctx<ListParams & { ids: number[]; whole?: boolean }>) {
        const whole = !!ctx.params.whole;
        return this.series.calendar(ctx.params.ids, whole ? undefined : await this.listFilters(ctx), whole);
      }
    },

    /** Publishes the due `future` events of the caller's site (the scheduled job, C13). */
    publishDue: {
      async handler() {
        await this.publishDueEvents();
      }
    },
    /** Ticket state, set by a ticketing service on the bus (D33). */
    setTicketed: {
      params: { id: "number", ticketed: "boolean" },
      async handler(ctx: Ctx<{ id: number; ticketed: boolean }>) {
        const doc = (await this.store.updateOne({ _id: ctx.params.id }, { $set: { ticketed: ctx.params.ticketed, ...this.modifiedAt(this.now()) } },
          { change: after => this.feedEntryOf("updated", after as EventDoc) })) as EventDoc | null;
        if (!doc) throw new ApiError("rest-event-not-found", 404, { id: ctx.params.id });
        await this.announce("updated", doc, true);
        return (await this.records(ctx, [doc], { jsonLd: false, editor: true }))[0];
      }
    }
  },

  methods,

  started() {
    // Scheduled jobs, on every node and for every site (an internal call names its site in meta, docs/sites.md):
    // the series' horizon (C46, C55; the store's lock keeps one runner at a time), also once soon after
    // start (a node that was down for a while); the publication of due events (C13; each event is
    // published by one atomic update, whichever node comes first).
    const everySite = (name: string, action: string, timeout?: number) => () => void (async () => {
      for (const site of await this.siteIds()) {
        await this.broker.call(action, {}, { meta: { site }, ...(timeout ? { timeout } : {}) }).catch((err: Error) => this.logger.warn(`${name} (site ${site}): ${err.message}`));
      }
    })().catch((err: Error) => this.logger.warn(`${name}: ${err.message}`));
    const { seriesJobMs, dueEventsJobMs } = settings();
    this.jobs = [];
    if (seriesJobMs > 0) {
      const run = everySite("Series horizon job", "events.materialise", SERIES_JOB_TIMEOUT_MS);
      this.jobs.push(setInterval(run, seriesJobMs), setTimeout(run, Math.min(seriesJobMs, 5_000)));
    }
    if (dueEventsJobMs > 0) this.jobs.push(setInterval(everySite("Due events job", "events.publishDue"), dueEventsJobMs));
    for (const job of this.jobs) job.unref?.();
  },
  stopped() {
    // (clearTimeout clears an interval as well: both are timers of one kind)
    for (const job of this.jobs ?? []) clearTimeout(job);
  }
};

export default EventsService as unknown as ServiceSchema;
