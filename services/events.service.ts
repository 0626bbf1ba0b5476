/**
 * The events service: owns events. It asks the venues, organizers and taxonomy services for what they
 * own (batched per page) and the geolocation service for the `geoloc*` filters.
 */
import type { ServiceSchema } from "moleculer";
import { PostMixin, Ctx, PostDoc } from "../mixins/post.mixin";
import { ApiError } from "../lib/errors";
import { registerSchemas } from "../lib/schemas";
import { settings } from "../lib/settings";
import { canCreatePost, canDeletePost, canEditPost, canReadPost, effectiveStatus, hasCap, Who } from "../lib/capabilities";
import { knownUserIds } from "../lib/callers";
import { loadApiKeys } from "../lib/api-keys";
import { defaultListWindow, listBound, ListBoundKind, parseUtc, parseWallClock } from "../lib/dates";
import { sanitizeSlug, untrashedSlug } from "../lib/slug";
import { resolvePublication } from "../lib/posts/publication";
import { EVENT_PARAMS, EVENT_LINK_ORDER } from "../lib/events/event-params";
import { checkEventInput, plainEventFields, resolveSchedule } from "../lib/events/event-input";
import { EventDoc, eventRecord } from "../lib/events/event-record";
import { buildEventQuery, eventSort, EventListFilters } from "../lib/events/event-query";
import { imageUrlExtension } from "../lib/sanitize";

registerSchemas(Object.fromEntries(Object.entries(EVENT_PARAMS).map(([name, schema]) => [`events.${name}`, schema])));

const FLOATING_STATUSES = new Set(["draft", "pending", "auto-draft"]);
const DATE_FILTERS: ListBoundKind[] = ["start_date", "end_date", "starts_before", "starts_after", "ends_before", "ends_after"];
const present = (v: unknown) => v !== undefined && v !== null;
const publishedTerms = (doc: Pick<EventDoc, "status" | "categories" | "tags"> | undefined): number[] =>
  doc && doc.status === "publish" ? [...doc.categories, ...doc.tags] : [];

const EventsService: ServiceSchema = {
  name: "events",
  mixins: [PostMixin({
    kind: "event",
    collection: "events",
    indexes: [
      { field: "start_date" }, { field: "end_date" }, { field: "categories" }, { field: "tags" }, { field: "venues" },
      { field: "organizers" }, { field: "featured" }, { field: "ticketed" }, { field: "post_parent" }, { field: "hide_from_listings" }
    ]
  })],

  actions: {
    list: {
      params: EVENT_PARAMS.list,
      async handler(this: any, ctx: Ctx) {
        await this.promoteDueEvents();
        const filters: EventListFilters = await this.listFilters(ctx);
        const page = this.pageOf(ctx.params);
        const geo = ctx.locals?.geo as Map<number, number> | undefined;
        let docs: EventDoc[];
        let total: number;
        if (ctx.params.orderby === "distance" && geo) ({ docs, total } = await this.pageByDistance(filters, page, geo));
        else ({ docs, total } = await this.pagedFind(buildEventQuery(filters), eventSort(!!filters.include), page));
        const events = await this.records(ctx, docs, { jsonLd: !!ctx.params.json_ld });
        if (geo) for (const ev of events) ev.distance = this.distanceOf(ev, geo);
        const sent = { ...(ctx.meta.query ?? {}) } as Record<string, unknown>;
        const envelope = this.listEnvelope(ctx, "events", EVENT_LINK_ORDER, sent, page, total);
        return { events, ...envelope };
      }
    },

    create: {
      params: EVENT_PARAMS.create,
      async handler(this: any, ctx: Ctx) {
        const p = ctx.params;
        await this.checkWrite(ctx, p);
        if (!canCreatePost(this.who(ctx))) throw ApiError.forbidden(this.who(ctx) === null);
        const doc = await this.writeEvent(ctx, p, undefined);
        ctx.meta.$statusCode = 201;
        return (await this.records(ctx, [doc], { jsonLd: false, editor: true }))[0];
      }
    },

    get: {
      params: EVENT_PARAMS.get,
      async handler(this: any, ctx: Ctx) {
        const doc = await this.targetById(ctx.params.id);
        return this.readEvent(ctx, doc);
      }
    },
    getBySlug: {
      params: EVENT_PARAMS.getBySlug,
      async handler(this: any, ctx: Ctx) {
        return this.readEvent(ctx, await this.targetBySlug(ctx.params.slug, "validation"));
      }
    },

    update: {
      params: EVENT_PARAMS.update,
      async handler(this: any, ctx: Ctx) {
        await this.checkWrite(ctx, ctx.params);
        const doc = await this.targetForWrite(ctx, await this.findById(ctx.params.id), ctx.params.id, "edit");
        return this.updateEvent(ctx, doc, ctx.params);
      }
    },
    updateBySlug: {
      params: EVENT_PARAMS.updateBySlug,
      async handler(this: any, ctx: Ctx) {
        const p = { ...ctx.params, slug: ctx.meta.bodySlug };
        if (p.slug === undefined) delete p.slug;
        if (p.slug !== undefined && String(p.slug).trim() === "") throw ApiError.invalidParam("slug", "param.empty");
        await this.checkWrite(ctx, p);
        const doc = await this.targetBySlug(ctx.params.slug, "missing");
        await this.targetForWrite(ctx, doc, doc._id, "edit");
        return this.updateEvent(ctx, doc, p);
      }
    },

    remove: {
      params: EVENT_PARAMS.remove,
      async handler(this: any, ctx: Ctx) {
        const doc = await this.targetForWrite(ctx, await this.findById(ctx.params.id), ctx.params.id, "delete");
        return this.trashEvent(ctx, doc);
      }
    },
    removeBySlug: {
      params: EVENT_PARAMS.removeBySlug,
      async handler(this: any, ctx: Ctx) {
        const doc = await this.targetBySlug(ctx.params.slug, "validation");
        await this.targetForWrite(ctx, doc, doc._id, "delete");
        return this.trashEvent(ctx, doc);
      }
    },

    // ---- internal actions (not routed) -------------------------------------------------------------

    /** The terms linked to an event, or null when the id is not an event (terms' `post` filter). */
    links: {
      params: { id: "number" },
      async handler(this: any, ctx: Ctx<{ id: number }>) {
        const doc: EventDoc | null = await this.findById(ctx.params.id);
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
      async handler(this: any, ctx: Ctx) {
        const field = ctx.params.kind === "venue" ? "venues" : "organizers";
        if (ctx.params.event !== undefined) {
          const doc: EventDoc | null = await this.findById(ctx.params.event);
          return doc ? doc[field] : null;
        }
        const and: Record<string, unknown>[] = [{ [field]: { $exists: true } }];
        if (ctx.params.hasEvents !== undefined) and.push({ status: { $nin: ["draft", "pending"] } });
        if (ctx.params.upcoming) {
          and.push({ start_date: { $gte: this.nowDb() } }, { hide_from_listings: { $ne: true } });
          if (ctx.params.statuses) and.push({ status: { $in: ctx.params.statuses } });
        }
        const docs = await this.store.find({ $and: and }, { projection: { [field]: 1 } });
        return [...new Set(docs.flatMap((d: any) => d[field] ?? []))];
      }
    },
    /** Drops a trashed venue/organizer from every event (venues-organizers.md §6). */
    unlinkPost: {
      params: { kind: { type: "enum", values: ["venue", "organizer"] }, id: "number" },
      async handler(this: any, ctx: Ctx) {
        const field = ctx.params.kind === "venue" ? "venues" : "organizers";
        const n = await this.store.updateMany({ [field]: ctx.params.id }, { $pull: { [field]: ctx.params.id } });
        if (n) await this.announceAll();
        return n;
      }
    },
    /** Drops a deleted term from every event (terms.md §5). */
    unlinkTerm: {
      params: { taxonomy: { type: "enum", values: ["category", "tag"] }, id: "number" },
      async handler(this: any, ctx: Ctx) {
        const field = ctx.params.taxonomy === "category" ? "categories" : "tags";
        const n = await this.store.updateMany({ [field]: ctx.params.id }, { $pull: { [field]: ctx.params.id } });
        if (n) await this.announceAll();
        return n;
      }
    },
    /** Ticket state, set by a ticketing service on the bus (D33). */
    setTicketed: {
      params: { id: "number", ticketed: "boolean" },
      async handler(this: any, ctx: Ctx) {
        const doc = await this.store.updateOne({ _id: ctx.params.id }, { $set: { ticketed: ctx.params.ticketed, ...this.touched() } });
        if (!doc) throw new ApiError("rest-event-not-found", 404, { id: ctx.params.id });
        await this.announce("updated", doc);
        return (await this.records(ctx, [doc], { jsonLd: false, editor: true }))[0];
      }
    }
  },

  methods: {
    siteZone(): string {
      return settings().siteTimezone;
    },
    touched(this: any) {
      const now = this.nowDb();
      return { modified: now, modified_utc: now };
    },
    async announceAll(this: any) {
      await this.broker.broadcast("cache.clean.calendar");
    },

    /** C13: future events whose date has passed are published (and counted) before anything reads them. */
    async promoteDueEvents(this: any) {
      const now = this.nowDb();
      if (this.lastPromotion === now) return;
      this.lastPromotion = now;
      const due: EventDoc[] = await this.store.find({ status: "future", date_utc: { $lte: now } });
      for (const doc of due) {
        const updated = await this.store.updateOne({ _id: doc._id, status: "future" }, { $set: { status: "publish" } });
        if (updated) await this.adjustCounts(doc, updated);
      }
    },

    // ---- reading -----------------------------------------------------------------------------------

    /** The event with that id, or the reference's 404 / 400 when there is none / it is another type. */
    async targetById(this: any, id: number): Promise<EventDoc> {
      await this.promoteDueEvents();
      const doc = id > 0 ? await this.findById(id) : null;
      if (doc) return doc;
      const kind = id > 0 ? await this.kindOfId(id) : undefined;
      if (kind && kind !== "event") throw new ApiError("rest-invalid-event-id", 400);
      throw new ApiError("rest-event-not-found", 404, { id });
    },
    /** By slug: an unknown slug is a validation error (GET, DELETE) or a 404 (update). */
    async targetBySlug(this: any, slug: string, unknown: "validation" | "missing"): Promise<EventDoc> {
      await this.promoteDueEvents();
      const doc = await this.findBySlug(slug);
      if (doc) return doc;
      if (unknown === "validation") throw ApiError.invalidParam("slug");
      throw new ApiError("rest-event-not-found", 404, { id: 0 });
    },
    /** events.md §2: trash, visibility, password, then the record with JSON-LD. */
    async readEvent(this: any, ctx: Ctx, doc: EventDoc) {
      const who: Who = this.who(ctx);
      if (doc.status === "trash") throw new ApiError("event-no-longer-available", 403);
      const status = effectiveStatus(doc, this.nowDb());
      if (status !== "publish" && !canReadPost(who, { ...doc, status })) throw new ApiError("event-not-accessible", 403);
      if (!this.passwordAccess(ctx, doc, ctx.params)) throw new ApiError("event-password-protected", 403);
      const jsonLd = who === null ? status === "publish" && !doc.post_password : true;
      return (await this.records(ctx, [doc], { jsonLd, editor: true }))[0];
    },

    /** Output records of a page of events, with everything embedded fetched once per page. */
    async records(this: any, ctx: Ctx, docs: EventDoc[], opts: { jsonLd: boolean; editor?: boolean }) {
      if (!docs.length) return [];
      const venueIds = [...new Set(docs.flatMap(d => d.venues))];
      const organizerIds = [...new Set(docs.flatMap(d => d.organizers))];
      const termIds = [...new Set(docs.flatMap(d => [...d.categories, ...d.tags]))];
      const [venues, organizers, terms, images, texts] = await Promise.all([
        venueIds.length ? ctx.call("venues.embed", { ids: venueIds, jsonLd: opts.jsonLd }) : {},
        organizerIds.length ? ctx.call("organizers.embed", { ids: organizerIds, jsonLd: opts.jsonLd }) : {},
        termIds.length ? ctx.call("taxonomy.embed", { ids: termIds }) : {},
        this.imagesById(docs.map(d => d.image).filter(Boolean)),
        this.translatedTexts(ctx, docs)
      ]);
      const rc = { site: this.siteOf(ctx), ns: this.nsOf(ctx), baseUrl: settings().baseUrl };
      return docs.map(doc => {
        const blank = !opts.editor && !this.passwordAccess(ctx, doc, ctx.params ?? {});
        const record = eventRecord(doc, rc, { venues: venues as any, organizers: organizers as any, terms: terms as any, images }, { jsonLd: opts.jsonLd, blank, text: texts.get(doc._id) });
        return this.withLanguage(ctx, record, doc);
      });
    },
    /** Text of the asked language (i18n service); none needed when every record is in that language. */
    async translatedTexts(this: any, ctx: Ctx, docs: EventDoc[]): Promise<Map<number, Record<string, string>>> {
      const lang = ctx.meta?.language;
      const wanted = docs.filter(d => lang && (d as any).translations?.includes(lang) && d.lang !== lang).map(d => d._id);
      if (!wanted.length || !this.broker.registry.hasService("i18n")) return new Map();
      const res: Record<string, Record<string, string>> = await ctx.call("i18n.values", { type: "event", ids: wanted, language: lang });
      return new Map(Object.entries(res ?? {}).map(([id, v]) => [Number(id), v]));
    },
    withLanguage(ctx: Ctx, record: Record<string, unknown>, doc: EventDoc) {
      record.i18n_language = ctx.meta?.language ?? settings().defaultLanguage;
      record.translations = (doc as any).translations ?? [doc.lang ?? settings().defaultLanguage];
      return record;
    },

    // ---- the list ----------------------------------------------------------------------------------

    async listFilters(this: any, ctx: Ctx): Promise<EventListFilters> {
      const p = ctx.params;
      const who: Who = this.who(ctx);
      const strict = !!p.strict_dates;
      const bounds: EventListFilters["bounds"] = {};
      for (const kind of DATE_FILTERS) if (present(p[kind])) (bounds as any)[kind] = listBound(p[kind], kind, strict, this.siteZone());
      if (!DATE_FILTERS.slice(2).some(k => present(p[k]))) {
        const window = defaultListWindow(strict, this.siteZone(), this.now());
        bounds.start_date ??= window.start;
        bounds.end_date ??= window.end;
      }
      const [categoryIds, tagIds] = await Promise.all([
        p.categories ? ctx.call("taxonomy.resolveFilter", { taxonomy: "category", values: p.categories, param: "categories" }) : undefined,
        p.tags ? ctx.call("taxonomy.resolveFilter", { taxonomy: "tag", values: p.tags, param: "tags" }) : undefined
      ]);
      await this.requireKind(p.venue, "venue", "venue");
      await this.requireKind(p.organizer, "organizer", "organizer");
      if (p.post_parent !== undefined) await this.requireKind([p.post_parent], "event", "post_parent");
      const searchAccess = who === undefined || (p.context === "edit" && hasCap(who, "edit_others_posts")) ? "all" : { password: p.password };
      return {
        statuses: this.listStatusFilter(ctx, p.status),
        bounds,
        include: p.include,
        search: p.search,
        searchAccess,
        categoryIds: categoryIds as number[] | undefined,
        tagIds: tagIds as number[] | undefined,
        venueIds: p.venue,
        organizerIds: p.organizer,
        featured: p.featured,
        postParent: p.post_parent,
        ticketed: p.ticketed,
        geoVenues: await this.geoFilter(ctx)
      };
    },
    /** Every id must be a record of that kind (list filters `venue`, `organizer`, `post_parent`). */
    async requireKind(this: any, ids: number[] | undefined, kind: string, param: string) {
      if (!ids) return;
      for (const id of ids) if ((await this.kindOfId(id)) !== kind) throw ApiError.invalidParam(param, "param.unknown_id");
    },
    /**
     * The `geoloc*` filters (D8, C11), answered by the geolocation service: parameter errors first, then
     * 400 geoloc-not-available when that service is not running.
     */
    async geoFilter(this: any, ctx: Ctx): Promise<EventListFilters["geoVenues"]> {
      const p = ctx.params;
      const hasLat = p.geoloc_lat !== undefined;
      const hasLng = p.geoloc_lng !== undefined;
      const asked = p.geoloc !== undefined || hasLat || hasLng || p.geoloc_radius !== undefined || p.geoloc_unit !== undefined || p.orderby === "distance";
      if (!asked) return undefined;
      if (hasLat !== hasLng) throw ApiError.invalidParam(hasLat ? "geoloc_lng" : "geoloc_lat", "param.required");
      if (p.orderby === "distance" && !hasLat) throw ApiError.invalidParam("orderby");
      if (!this.broker.registry.hasService("geolocation")) throw new ApiError("geoloc-not-available", 400);
      const out: NonNullable<EventListFilters["geoVenues"]> = {};
      if (hasLat) {
        const near: Array<{ id: number; distance: number }> = await ctx.call("geolocation.near", { lat: p.geoloc_lat, lng: p.geoloc_lng, radius: p.geoloc_radius ?? 25, unit: p.geoloc_unit ?? "mi" });
        ctx.locals = { ...(ctx.locals ?? {}), geo: new Map(near.map(n => [n.id, n.distance])) };
        out.in = near.map(n => n.id);
      }
      if (p.geoloc !== undefined) {
        const located: number[] = await ctx.call("geolocation.venuesWithCoordinates", {});
        if (p.geoloc) out.in = out.in ? out.in.filter(id => located.includes(id)) : located;
        else out.notIn = located;
      }
      return out;
    },
    /** `orderby=distance`: the matching events (already bounded by the radius) sorted nearest first. */
    async pageByDistance(this: any, filters: EventListFilters, page: any, geo: Map<number, number>) {
      const all: EventDoc[] = await this.store.find(buildEventQuery(filters), { sort: eventSort(false) });
      const nearest = (d: EventDoc) => Math.min(...d.venues.map(v => geo.get(v) ?? Infinity));
      all.sort((a, b) => nearest(a) - nearest(b));
      const docs = all.slice(page.skip, page.skip + page.perPage);
      if (page.page > 1 && !docs.length) throw new ApiError("event-archive-page-not-found", 404);
      return { docs, total: all.length };
    },
    distanceOf(ev: any, geo: Map<number, number>): number | undefined {
      const venues = Array.isArray(ev.venue) ? ev.venue : ev.venue && ev.venue.id ? [ev.venue] : [];
      const ds = venues.map((v: any) => geo.get(v.id)).filter((d: number | undefined) => d !== undefined);
      return ds.length ? Math.round(Math.min(...ds) * 100) / 100 : undefined;
    },

    // ---- writing -----------------------------------------------------------------------------------

    /** Checks that need more than the params schema; all are 400s before any permission check. */
    async checkWrite(this: any, ctx: Ctx, p: Record<string, any>) {
      checkEventInput(p, this.siteZone());
      if (present(p.author) && !knownUserIds(loadApiKeys(settings())).has(Number(p.author))) throw ApiError.invalidParam("author", "param.unknown_id");
      if (present(p.image)) await this.checkImage(ctx, p.image);
      if (present(p.post_parent)) await this.requireKind([p.post_parent], "event", "post_parent");
      if (present(p.venue)) await ctx.call("venues.validateLinks", { value: p.venue });
      if (present(p.organizer)) await ctx.call("organizers.validateLinks", { value: p.organizer });
    },
    /** events.md §3.9 without side effects: an existing image id, or an image URL the caller may upload. */
    async checkImage(this: any, ctx: Ctx, value: unknown) {
      if (typeof value === "number" || (typeof value === "string" && /^\d+$/.test(value.trim()))) {
        const id = Number(value);
        if (!(id > 0 && (await this.kindOfId(id)) === "image")) throw ApiError.invalidParam("image", "param.image");
        return;
      }
      if (typeof value !== "string" || !imageUrlExtension(value.trim()) || !hasCap(this.who(ctx), "upload_files")) throw ApiError.invalidParam("image", "param.image");
    },
    /**
     * Update and delete targets: permission first (general capability when no record has that id),
     * then 404 / 400 for a missing id or another type (events.md §4, §5).
     */
    async targetForWrite(this: any, ctx: Ctx, doc: EventDoc | null, id: number, action: "edit" | "delete"): Promise<EventDoc> {
      const who: Who = this.who(ctx);
      if (!doc) {
        if (!hasCap(who, action === "edit" ? "edit_posts" : "delete_posts")) throw ApiError.forbidden(who === null);
        const kind = id > 0 ? await this.kindOfId(id) : undefined;
        if (kind && kind !== "event") throw new ApiError("rest-invalid-event-id", 400);
        throw new ApiError("rest-event-not-found", 404, { id });
      }
      const view = { ...doc, status: effectiveStatus(doc, this.nowDb()) };
      const allowed = action === "edit" ? canEditPost(who, view) : canDeletePost(who, view);
      if (!allowed) throw ApiError.forbidden(who === null);
      return doc;
    },

    /** Creates (current undefined) or updates an event from validated parameters; returns the stored doc. */
    async writeEvent(this: any, ctx: Ctx, p: Record<string, any>, current: EventDoc | undefined): Promise<EventDoc> {
      const who: Who = this.who(ctx);
      const now = this.now();
      const schedule = resolveSchedule(p, current, this.siteZone(), now);
      const publication = resolvePublication(who, {
        status: p.status ?? undefined,
        date: present(p.date) ? parseWallClock(p.date, schedule.timezone, now)! : undefined,
        date_utc: present(p.date_utc) ? parseUtc(p.date_utc, now)! : undefined
      }, current, this.siteZone(), now);
      const fields: Record<string, any> = { ...plainEventFields(p, !current), ...schedule, ...publication, ...this.touched() };
      if (present(p.author)) fields.author = p.author;
      if (present(p.post_parent)) fields.post_parent = p.post_parent;
      if (present(p.image)) fields.image = await this.resolveImage(ctx, p.image);

      const [categories, tags, venues, organizers] = await Promise.all([
        p.categories !== undefined && p.categories !== null ? ctx.call("taxonomy.resolveForEvent", { taxonomy: "category", value: p.categories }) : undefined,
        p.tags !== undefined && p.tags !== null ? ctx.call("taxonomy.resolveForEvent", { taxonomy: "tag", value: p.tags }) : undefined,
        present(p.venue) ? ctx.call("venues.link", { value: p.venue }) : undefined,
        present(p.organizer) ? ctx.call("organizers.link", { value: p.organizer }) : undefined
      ]);
      if (categories) fields.categories = categories;
      if (tags) fields.tags = tags;
      if (venues) fields.venues = venues;
      if (organizers) fields.organizers = organizers;

      const id: number = current ? current._id : await this.allocateId("posts", "event");
      Object.assign(fields, await this.slugAndTrash(p, current, { ...current, ...fields }, id));

      let doc: EventDoc;
      if (!current) {
        doc = await this.store.insert({
          _id: id, author: who ? who.id : 1, title: "", description: "", excerpt: "", image: null, categories: [], tags: [], venues: [], organizers: [],
          ticketed: false, post_parent: 0, post_password: "", lang: ctx.meta?.language ?? settings().defaultLanguage, ...fields
        });
      } else {
        doc = await this.store.updateOne({ _id: id }, { $set: fields });
      }
      await this.adjustCounts(current, doc);
      await this.announce(current ? "updated" : "created", doc);
      return doc;
    },
    /** Slug rules (events.md §3.4, D16) and trash by status (C13). */
    async slugAndTrash(this: any, p: Record<string, any>, current: EventDoc | undefined, next: EventDoc, id: number) {
      const out: Record<string, unknown> = {};
      const status = next.status;
      if (status === "trash") {
        if (current && current.status !== "trash") Object.assign(out, { prior_status: current.status, slug: current.slug ? `${untrashedSlug(current.slug)}__trashed` : "" });
        return out;
      }
      const leavingTrash = current?.status === "trash";
      let base: string | undefined;
      if (present(p.slug)) base = sanitizeSlug(String(p.slug));
      else if (leavingTrash) base = untrashedSlug(current!.slug);
      else if (!current || !current.slug) base = FLOATING_STATUSES.has(status) ? "" : sanitizeSlug(next.title);
      if (base === undefined) return out;
      if (base === "" && !present(p.slug) && !FLOATING_STATUSES.has(status)) base = String(id);
      out.slug = base && !FLOATING_STATUSES.has(status) ? await this.uniqueSlugFor(base, id) : base;
      if (leavingTrash) out.prior_status = undefined;
      return out;
    },
    /** Term counts follow published events (terms.md §6): deltas, applied before the write is answered. */
    async adjustCounts(this: any, before: EventDoc | undefined, after: EventDoc | undefined) {
      const deltas: Record<string, number> = {};
      for (const id of publishedTerms(before)) deltas[id] = (deltas[id] ?? 0) - 1;
      for (const id of publishedTerms(after)) deltas[id] = (deltas[id] ?? 0) + 1;
      for (const id of Object.keys(deltas)) if (deltas[id] === 0) delete deltas[id];
      if (Object.keys(deltas).length) await this.broker.call("taxonomy.adjustCounts", { deltas });
    },

    async updateEvent(this: any, ctx: Ctx, doc: EventDoc, p: Record<string, any>) {
      const updated = await this.writeEvent(ctx, p, doc);
      return (await this.records(ctx, [updated], { jsonLd: false, editor: true }))[0];
    },
    /** DELETE: 410 when already trashed, else trash and answer the trashed record. */
    async trashEvent(this: any, ctx: Ctx, doc: EventDoc) {
      if (doc.status === "trash") throw new ApiError("event-is-in-trash", 410);
      const trashed = await this.trashRecord(doc as unknown as PostDoc);
      await this.adjustCounts(doc, trashed);
      await this.announce("deleted", trashed);
      return (await this.records(ctx, [trashed], { jsonLd: false, editor: true }))[0];
    }
  }
};

export default EventsService;
