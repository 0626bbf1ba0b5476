/**
 * The events service: owns events. A thin Moleculer adapter over the events domain (domain/events/,
 * plain classes built once in created() with what they depend on passed in): each action validates its
 * params, calls the domain and answers. The domain asks the venues, organizers and taxonomy services for
 * what they own (batched per page) and the geolocation service for the `geoloc*` filters through the
 * ports built here (domain/events/event-ports.ts), each a `ctx.call` or a mixin's method.
 */
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PostMixin, type PostFace } from "../mixins/post.mixin";
import type { Stitched } from "../store/renderings";
import type { Ctx } from "../broker/context";
import { serviceSchema } from "../broker/service-schema";
import { TranslatableMixin, TRANSLATION_INDEXES, type TranslatableMethods } from "../mixins/translatable.mixin";
import { ApiError } from "../lib/errors";
import { settings } from "../lib/settings";
import { EVENT_PARAMS } from "../lib/events/event-params";
import type { EventDoc } from "../lib/events/event-doc";
import { storedAs } from "../store/collection";
import type { SeriesDoc } from "../lib/events/series";
import { requireGeolocation, venuesNear } from "../broker/geolocation";
import { SeriesPlanner } from "../domain/events/series-planner";
import { SERIES_JOB_LOCK, SERIES_JOB_TIMEOUT_MS } from "../domain/events/series-horizon";
import { SeriesCalendar } from "../domain/events/series-calendar";
import { EventEmbedder } from "../domain/events/event-embeds";
import type { PostRecords } from "../domain/posts/post-records";
import type { EventFeed, NeighbourServices, PostServices } from "../domain/events/event-ports";
import { TermCountNotices } from "../domain/events/term-count-notices";
import { EventTargets } from "../domain/events/event-targets";
import { EventListQueries, type ListParams } from "../domain/events/event-list-filters";
import { EventReader, type EmbedRequest, type LinkedIdsQuery, type RecordOptions } from "../domain/events/event-reader";
import { EventRecordWriter } from "../domain/events/event-writer";
import { EventWriteChecks } from "../domain/events/write-checks";
import { EventCommands, type LinkField } from "../domain/events/event-commands";
import { termCountPatterns } from "../cache/staleness";
import { currentSiteId } from "../lib/sites/scope";
import { TRANSLATABLE } from "../lib/i18n/types";
import { RecordFieldsMixin, RECORD_FIELDS_COLLECTIONS, type RecordFieldsFace } from "../mixins/record-fields.mixin";
import type { ImportSourceMeta } from "../lib/imports/source";
import { EventRenderings } from "../domain/events/event-renderings";
import { renderingVariant } from "../lib/records/rendering-variant";
import { needsValues } from "../lib/i18n/languages";
import { batchReadsOf, readOnce } from "../lib/imports/batch-reads";
import { termIdsOnly } from "../lib/terms/term-rules";
import { linkedIdsOnly } from "../lib/linked/links";

const DAY_MS = 86_400_000;
/** How often each node removes the stored renderings nobody reads any more. */
const RENDERINGS_UPKEEP_EVERY_MS = 3_600_000;

/** The params of the reads by id and slug (lib/events/event-params.ts). */
type ReadParams = ListParams & { id: number; slug: string };
/** The params of the writes (validated by their schemas; each input is read where it is used). */
type WriteParams = Record<string, unknown> & { id: number; slug?: string };

const methods = {
  /** One page of the events list, or its text (cached per caller and language by cachedRead, which runs it by name). */
  async listEvents(ctx: Ctx<ListParams>): Promise<Record<string, unknown> | string> {
    // the gateway's read of the page as it is sent: its text, made of its events' composed texts
    if (!ctx.meta.$answerText) return this.reader.listPage(ctx);
    const page = await this.reader.listText(ctx);
    ctx.meta.$answerModified = page.modified;
    ctx.meta.$answerTag = page.tag;
    ctx.meta.$answerIds = page.ids;
    return page.text;
  },
  /** Output records of a page of events (the change feed's pages too, mixins/change-source.mixin.ts). */
  records(ctx: Ctx, docs: EventDoc[], opts: RecordOptions): Promise<Array<Record<string, unknown>>> {
    return this.reader.answer(ctx, docs, opts);
  },
  /** The checks of a write's params (domain/events/write-checks.ts): one 400 naming each refused, before any permission check. */
  checkWrite(ctx: Ctx, p: Record<string, unknown> & { id?: number }, creating = false): Promise<void> {
    return this.checks.check(ctx, p, creating);
  }
} satisfies ThisType<EventsThis>;

type EventsMethods = typeof methods;
interface EventsVars {
  /** The scheduled jobs' timers (started(): SERIES_JOB_MS, DUE_EVENTS_JOB_MS). */
  jobs?: NodeJS.Timeout[];
  // the events domain (domain/events/), built in created()
  targets: EventTargets;
  queries: EventListQueries<Ctx>;
  reader: EventReader<Ctx>;
  checks: EventWriteChecks<Ctx>;
  commands: EventCommands<Ctx>;
  series: SeriesPlanner<Ctx>;
  calendar: SeriesCalendar;
  renderings: EventRenderings<Ctx, Stitched>;
}
/**
 * The service's `this`: Moleculer's service, the faces its mixins export, and its own methods and
 * variables; nothing restated (an interface, as a type alias of `typeof methods` would refer to itself).
 */
interface EventsThis extends Service, PostFace, TranslatableMethods, RecordFieldsFace, EventsMethods, EventsVars {}

const EventsService: ServiceSchema<ServiceSettingSchema, EventsMethods, EventsVars, EventsThis> = {
  name: "events",
  mixins: [PostMixin({
    kind: "event",
    collection: "events",
    // The list filters' fields, each answered by an index of the store.
    indexes: [
      ...["start_date", "end_date", "featured", "post_parent"].map(field => ({ field })),
      // event status and online events: an index each, whose absent values (the defaults) it holds too
      { field: "event_status" }, { field: "attendance_mode" },
      // the lists' order (lib/events/event-query.ts): a page is read from this index, not sorted
      { field: "start_date", then: ["date"] },
      ...["categories", "tags", "venues", "organizers"].map(field => ({ field, array: true })),
      ...TRANSLATION_INDEXES,
      // Recurring events (domain/events/series-planner.ts): membership, the job's lookup, one row per occurrence, exceptions.
      { field: "series_id", sparse: true }, { field: "series_horizon", sparse: true }, { field: "series_key", unique: true, sparse: true },
      { field: "series_overrides", array: true },
      // custom field filters (MongoDB; the SQL stores answer them from the link table)
      { field: "custom_links", array: true }
    ],
    companions: RECORD_FIELDS_COLLECTIONS
  }), TranslatableMixin({ type: "event", fields: TRANSLATABLE.event.fields }), RecordFieldsMixin("event")],

  created() {
    // the change feed's pages show events as the lists do (mixins/change-source.mixin.ts)
    this.recordRenderer = { render: (ctx, docs) => this.records(ctx, storedAs<EventDoc>(docs), { jsonLd: false }) };
    // the post mixin's records of events: one instance, so the domain's slugs are held with the service's own
    const records = this.postRecords as PostRecords<SeriesDoc>;
    const services: NeighbourServices<Ctx> = {
      termFilter: (ctx, taxonomy, values, param) => ctx.call("taxonomy.resolveFilter", { taxonomy, values, param }),
      // terms and linked records given by id are read once for a batch's writes (lib/imports/batch-reads.ts)
      termsForEvent: (ctx, input) => {
        const read = () => ctx.call("taxonomy.resolveEventTerms", input) as Promise<{ categories?: number[]; tags?: number[] }>;
        if (!termIdsOnly(input)) return read();
        return readOnce(batchReadsOf(ctx.meta), `terms|${JSON.stringify(input)}`, read).then(terms => structuredClone(terms));
      },
      link: (ctx, kind, value) => ctx.call(`${kind}.link`, { value }),
      validateLinks: (ctx, kind, value) => {
        const read = () => ctx.call(`${kind}.validateLinks`, { value });
        return linkedIdsOnly(value) ? readOnce(batchReadsOf(ctx.meta), `${kind}|${JSON.stringify(value)}`, read) : read();
      },
      requireGeolocation: actions => requireGeolocation(this.broker, actions),
      venuesNear: (ctx, near) => venuesNear(ctx, near),
      venuesWithCoordinates: ctx => ctx.call("geolocation.venuesWithCoordinates", {})
    };
    const posts: PostServices<Ctx> = {
      pagedFind: (query, sort, page, countParts) => this.pagedFind(query, sort, page, countParts) as Promise<{ docs: EventDoc[]; total: number }>,
      listEnvelope: (ctx, plural, order, sent, page, total) => this.listEnvelope(ctx, plural, order, sent, page, total),
      listStatusFilter: (ctx, requested) => this.listStatusFilter(ctx, requested),
      passwordAccess: (ctx, record, params) => this.passwordAccess(ctx, record, params),
      siteOf: ctx => this.siteOf(ctx),
      nsOf: ctx => this.nsOf(ctx),
      checkImage: (ctx, value) => this.checkImage(ctx, value),
      resolveImage: (ctx, value) => this.resolveImage(ctx, value),
      localize: (ctx, docs) => this.localize(ctx, docs),
      applyLanguage: (record, doc, ctx) => this.applyLanguage(record, doc, ctx),
      splitWrite: (ctx, doc, fields) => this.splitWrite(ctx, doc, fields),
      searchQuery: (ctx, terms, original, opts) => this.searchQuery(ctx, terms, original, opts)
    };
    const feed: EventFeed = {
      recordChanges: (changes, opts) => this.recordChanges(changes, opts),
      announce: (action, doc, recorded) => this.announce(action, doc, recorded),
      emit: (event, payload) => void this.broker.emit(event, payload),
      eventsLinking: (field, ids) => this.eventsLinking(field, ids)
    };
    const counts = new TermCountNotices({ cleanCaches: () => this.cleanCaches(termCountPatterns(currentSiteId())), emit: feed.emit, now: () => this.now() });
    // The linked records follow the caller's rights (C1: embedded records follow visibility) and the request's password / context (docs/authorization.md#password-protected-records).
    const access = (ctx: Ctx) => Object.fromEntries(["password", "context"].filter(k => typeof ctx.params?.[k] === "string").map(k => [k, ctx.params[k]]));
    const embedder = new EventEmbedder<EmbedRequest<Ctx>>({
      venues: ({ call, jsonLd }, ids) => call.call("venues.embed", { ids, jsonLd, ...access(call) }),
      organizers: ({ call, jsonLd }, ids) => call.call("organizers.embed", { ids, jsonLd, ...access(call) }),
      terms: ({ call }, ids) => call.call("taxonomy.embed", { ids }),
      images: ids => this.imagesById(ids)
    });
    const targets = (this.targets = new EventTargets(records));
    const fields = this.recordFields;
    const queries = (this.queries = new EventListQueries<Ctx>({ targets, services, posts, now: () => this.now(), fields }));
    // the store is opened when the service starts: its renderings are asked for then (none on MongoDB)
    const stored = () => this.storeHandle!.renderings!;
    const renderings = (this.renderings = new EventRenderings<Ctx, Stitched>({
      variant: ctx => (this.storeHandle?.renderings ? renderingVariant({
        enabled: settings().storedRenderings, caller: ctx.meta?.caller, params: ctx.params ?? {}, language: this.languageOf(ctx),
        defaultLanguage: settings().defaultLanguage, site: posts.siteOf(ctx), ns: posts.nsOf(ctx), baseUrl: settings().baseUrl
      }) : undefined),
      ownText: (ctx, doc) => !needsValues(doc, this.languageOf(ctx), settings().defaultLanguage),
      mark: () => stored().mark(currentSiteId()),
      keep: (variant, mark, r) => stored().keep(currentSiteId(), variant, mark, [{ kind: "events", ...r }]),
      stitched: (variant, id) => stored().stitched(currentSiteId(), variant, "events", id),
      stitchedMany: (variant, ids) => stored().stitchedMany(currentSiteId(), variant, "events", ids),
      composed: (variant, id) => stored().composed(currentSiteId(), variant, "events", id),
      composedMany: (variant, ids, jsonLd) => stored().composedMany(currentSiteId(), variant, "events", ids, jsonLd),
      compose: (variant, from, answer) => stored().compose(currentSiteId(), variant, from, answer)
    }));
    this.reader = new EventReader<Ctx>({ records, queries, embedder, posts, fields, renderings });
    const writer = new EventRecordWriter<Ctx>({ records, nextId: () => this.allocateId("posts", "event"), services, posts, counts, feed, fields });
    const series = (this.series = new SeriesPlanner<Ctx>({ records, writer, feed, counts, languageOf: ctx => this.languageOf(ctx), logger: this.logger }));
    this.calendar = new SeriesCalendar(records);
    this.checks = new EventWriteChecks<Ctx>({ targets, services, posts, series, fields });
    this.commands = new EventCommands<Ctx>({ records, targets, writer, series, counts, feed });
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
        await this.commands.beforeWrite();
        await this.checkWrite(ctx, ctx.params, true);
        const created = await this.commands.create(ctx, ctx.params);
        // an import's create (domain/imports/import-run.ts) reads the new id alone: the record is not rendered for it
        // (its embeds are three more calls and their reads per imported event)
        if ((ctx.meta as ImportSourceMeta).importSource) return { id: created._id };
        const record = await this.reader.written(ctx, created);
        ctx.meta.$statusCode = 201;
        ctx.meta.$location = record.rest_url as string;
        return record;
      }
    },

    get: {
      params: EVENT_PARAMS.get,
      async handler(ctx: Ctx<ReadParams>) {
        // the gateway's read of the answer as it is sent: its stored text, when it has it whole
        if (ctx.meta.$answerText) {
          const stored = await this.renderings.answerText(ctx, ctx.params.id);
          if (stored) {
            ctx.meta.$answerModified = stored.modified;
            ctx.meta.$answerTag = stored.tag;
            return stored.text;
          }
        } else {
          const stored = await this.renderings.answer(ctx, ctx.params.id);
          if (stored) return stored;
        }
        return this.reader.read(ctx, await this.targets.byId(ctx.params.id));
      }
    },
    getBySlug: {
      params: EVENT_PARAMS.getBySlug,
      async handler(ctx: Ctx<ReadParams>) {
        return this.reader.read(ctx, await this.targets.bySlug(ctx.params.slug));
      }
    },

    update: {
      params: EVENT_PARAMS.update,
      async handler(ctx: Ctx<WriteParams>) {
        await this.commands.beforeWrite();
        await this.checkWrite(ctx, ctx.params);
        return this.reader.written(ctx, await this.commands.update(ctx, ctx.params.id, ctx.params));
      }
    },
    updateBySlug: {
      params: EVENT_PARAMS.updateBySlug,
      async handler(ctx: Ctx<WriteParams & { slug: string }>) {
        // D4: the body's `slug` is the new slug; the path's names the event
        const p = { ...ctx.params, slug: ctx.meta.bodySlug };
        if (p.slug === undefined) delete p.slug;
        if (p.slug !== undefined && String(p.slug).trim() === "") throw ApiError.invalidParam("slug", "param.empty");
        await this.commands.beforeWrite();
        await this.checkWrite(ctx, p);
        return this.reader.written(ctx, await this.commands.updateBySlug(ctx, ctx.params.slug, p));
      }
    },

    remove: {
      params: EVENT_PARAMS.remove,
      async handler(ctx: Ctx<WriteParams>) {
        await this.commands.beforeWrite();
        return this.reader.written(ctx, await this.commands.remove(ctx, ctx.params.id));
      }
    },
    removeBySlug: {
      params: EVENT_PARAMS.removeBySlug,
      async handler(ctx: Ctx<WriteParams & { slug: string }>) {
        await this.commands.beforeWrite();
        return this.reader.written(ctx, await this.commands.removeBySlug(ctx, ctx.params.slug));
      }
    },

    // ---- internal actions (not routed) -------------------------------------------------------------

    /** The terms linked to an event, or null when the id is not an event (terms' `post` filter). */
    links: {
      params: { id: "number" },
      handler(ctx: Ctx<{ id: number }>) {
        return this.reader.links(ctx, ctx.params.id);
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
      handler(ctx: Ctx<LinkedIdsQuery>) {
        return this.reader.linkedPostIds(ctx, ctx.params);
      }
    },
    /** Drops a trashed venue/organizer from every event (docs/records.md#deleting-venues-and-organizers). */
    unlinkPost: {
      params: { kind: { type: "enum", values: ["venue", "organizer"] }, id: "number" },
      handler(ctx: Ctx<{ kind: "venue" | "organizer"; id: number }>) {
        const field: LinkField = ctx.params.kind === "venue" ? "venues" : "organizers";
        return this.commands.unlinkFrom(field, ctx.params.id);
      }
    },
    /** Drops a deleted term from every event (docs/records.md#deleting-terms). */
    unlinkTerm: {
      params: { taxonomy: { type: "enum", values: ["category", "tag"] }, id: "number" },
      handler(ctx: Ctx<{ taxonomy: "category" | "tag"; id: number }>) {
        const field: LinkField = ctx.params.taxonomy === "category" ? "categories" : "tags";
        return this.commands.unlinkFrom(field, ctx.params.id);
      }
    },
    /** `GET /events/{id}/occurrences` (C54: occurrence slugs and route): a series' occurrences, paged, with `/events` visibility. */
    occurrences: {
      params: EVENT_PARAMS.occurrences,
      async handler(ctx: Ctx<{ id: number }>) {
        return this.reader.occurrencesPage(ctx, await this.targets.byId(ctx.params.id));
      }
    },
    /** Moves every series' horizon forward (the scheduled job, C46 (scheduled time: due posts published, answers expire on time)/C55); `now` states the time (tests, operators). */
    materialise: {
      params: { now: { type: "string", optional: true } },
      async handler(ctx: Ctx<{ now?: string }>) {
        const now = ctx.params.now ? new Date(ctx.params.now) : undefined;
        if (now && Number.isNaN(now.getTime())) throw ApiError.invalidParam("now");
        const run = () => this.series.horizon.extendHorizons(now, true);
        const extended = this.storeHandle ? await this.storeHandle.withLock(SERIES_JOB_LOCK, run) : await run();
        return { extended };
      }
    },
    /** What the iCalendar answer of a list needs of its events' series (C55: horizon and ICS), called with the list's own parameters. */
    seriesCalendar: {
      params: { ...EVENT_PARAMS.list, ids: { type: "array", items: "number" }, whole: { type: "boolean", optional: true } },
      async handler(ctx: Ctx<ListParams & { ids: number[]; whole?: boolean }>) {
        const whole = !!ctx.params.whole;
        return this.calendar.of(ctx.params.ids, whole ? undefined : await this.queries.filters(ctx), whole);
      }
    },

    /** Publishes the due `future` events of the caller's site (the scheduled job, C13: a due `future` post counts as published). */
    publishDue: {
      async handler() {
        await this.commands.publishDue();
      }
    },
    /** Ticket state, set by a ticketing service on the bus (D33: the `ticketed` flag). */
    setTicketed: {
      params: { id: "number", ticketed: "boolean" },
      async handler(ctx: Ctx<{ id: number; ticketed: boolean }>) {
        return this.reader.written(ctx, await this.commands.setTicketed(ctx.params.id, ctx.params.ticketed));
      }
    }
  },

  methods,

  started() {
    // Scheduled jobs, on every node and for every site (an internal call names its site in meta, docs/sites.md):
    // the series' horizon (C46: scheduled time: due posts published, answers expire on time; C55; the store's lock keeps one runner at a time), also once soon after
    // start (a node that was down for a while); the publication of due events (C13: a due `future` post counts as published; each event is
    // published by one atomic update, whichever node comes first).
    const everySite = (name: string, action: string, timeout?: number) => () => void (async () => {
      for (const site of await this.siteIds()) {
        await this.broker.call(action, {}, { meta: { site }, ...(timeout ? { timeout } : {}) }).catch((err: Error) => this.logger.warn(`${name} (site ${site}): ${err.message}`));
      }
    })().catch((err: Error) => this.logger.warn(`${name}: ${err.message}`));
    const { seriesJobMs, dueEventsJobMs, renderingsUnreadDays } = settings();
    this.jobs = [];
    if (seriesJobMs > 0) {
      const run = everySite("Series horizon job", "events.materialise", SERIES_JOB_TIMEOUT_MS);
      this.jobs.push(setInterval(run, seriesJobMs), setTimeout(run, Math.min(seriesJobMs, 5_000)));
    }
    if (dueEventsJobMs > 0) this.jobs.push(setInterval(everySite("Due events job", "events.publishDue"), dueEventsJobMs));
    // The stored renderings of addresses or languages nobody reads any more (docs/caching.md#stored-renderings),
    // every site's at once; any node may do it, and two doing it at once remove the same rows.
    const renderings = this.storeHandle?.renderings;
    if (renderings && renderingsUnreadDays > 0) {
      const forget = () => void renderings.forgetUnread(Date.now() - renderingsUnreadDays * DAY_MS)
        .catch((err: Error) => this.logger.warn(`Stored renderings upkeep: ${err.message}`));
      this.jobs.push(setInterval(forget, RENDERINGS_UPKEEP_EVERY_MS));
    }
    for (const job of this.jobs) job.unref?.();
  },
  stopped() {
    // (clearTimeout clears an interval as well: both are timers of one kind)
    for (const job of this.jobs ?? []) clearTimeout(job);
  }
};

export default serviceSchema(EventsService);
