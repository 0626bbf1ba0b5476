/**
 * What venues and organizers share, written once (docs/records.md#venues-and-organizers): the routed actions (list, read,
 * create with duplicate avoidance, update, trash, by id and by slug) and the internal ones the events
 * service uses to validate, link and embed them. A service is one kind description (lib/linked/spec.ts)
 * passed to `LinkedPostMixin`. The records themselves are plain classes in domain/linked/ (input checks,
 * writer, reader, presenter), built once in created() with their ports answered by this service; each
 * action here validates, calls them and answers.
 *
 * Order of checks on every routed action (docs/errors.md#order-of-checks): params schema → the record named by the path
 * (400 `params.id` / `params.slug`) → the remaining input checks (image, coordinates) → permission → handler.
 */
import { producedBy } from "../lib/http/idempotency";
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { PostMixin, type PostFace } from "./post.mixin";
import type { Ctx } from "../broker/context";
import { importSourceOf, type ImportSourceMeta } from "../lib/imports/source";
import { TranslatableMixin, TRANSLATION_INDEXES, type TranslatableMethods } from "./translatable.mixin";
import { TRANSLATABLE } from "../lib/i18n/types";
import { ApiError } from "../lib/errors";
import { nowDb } from "../lib/time/dates";
import type { LinkedKindSpec } from "../lib/linked/spec";
import { codesOf } from "../lib/linked/spec";
import { linkedSchemas } from "../lib/linked/params";
import type { LinkedDoc } from "../lib/linked/record";
import { storedAs } from "../store/collection";
import type { LinkEntry } from "../lib/linked/links";
import { NEAR_ACTION, readNear } from "../lib/geo/near-query";
import { requireGeolocation, venuesNear } from "../broker/geolocation";
import type { PostRecords } from "../domain/posts/post-records";
import type { LanguagePort, LinkedRenderingPort } from "../domain/linked/linked-ports";
import { renderingVariant } from "../lib/records/rendering-variant";
import { needsValues } from "../lib/i18n/languages";
import { settings as appSettings } from "../lib/settings";
import { currentSiteId } from "../lib/sites/scope";
import type { RenderedKind } from "../store/renderings";
import { LinkedInput } from "../domain/linked/linked-input";
import { LinkedPresenter } from "../domain/linked/linked-presenter";
import { Access, LinkedListParams, LinkedReader } from "../domain/linked/linked-reader";
import { LinkedWriter } from "../domain/linked/linked-writer";
import { mayEdit } from "../domain/linked/linked-rights";
import { RecordFieldsMixin, RECORD_FIELDS_COLLECTIONS, type RecordFieldsFace } from "./record-fields.mixin";


export type { LinkedKindSpec } from "../lib/linked/spec";

/** The kind's records as plain objects (domain/linked/), built once in created(). */
interface LinkedParts {
  input: LinkedInput<Ctx>;
  writer: LinkedWriter<Ctx>;
  reader: LinkedReader<Ctx>;
  presenter: LinkedPresenter<Ctx>;
}

/** The params of the routed reads and writes of one record (by id or by slug). */
interface RecordParams {
  id: number;
  slug: string;
  password?: string;
  context?: string;
  [param: string]: unknown;
}

export function LinkedPostMixin(spec: LinkedKindSpec): ServiceSchema {
  const schemas = linkedSchemas(spec);
  const codes = codesOf(spec.kind);
  const translatable = TRANSLATABLE[spec.kind].fields;
  const linkParams = { value: { type: "any", optional: true } };
  /** The kind description, in the service's settings as the registry shows them. */
  const settings: ServiceSettingSchema & { linked: LinkedKindSpec } = { linked: spec };

  /** The domain's ports answered by this service's mixins (post, translatable, store) and the bus. */
  function build(self: LinkedSelf): LinkedParts {
    const records = self.postRecords as PostRecords<LinkedDoc>;
    const request = {
      caller: (ctx: Ctx) => self.who(ctx),
      siteUrl: (ctx: Ctx) => self.siteOf(ctx),
      // an idempotent create's claim is marked with this record in its transaction (C21: idempotency keys; C41: invariants under concurrency)
      claimOf: (ctx: Ctx, id: number) => (ctx.meta.idempotencyRead === `${spec.plural}.get` ? producedBy(ctx.meta, id) : undefined),
      importSource: (ctx: Ctx) => importSourceOf(ctx.meta as ImportSourceMeta)
    };
    const images = {
      check: (ctx: Ctx, value: unknown) => self.checkImage(ctx, value),
      resolve: (ctx: Ctx, value: unknown) => self.resolveImage(ctx, value),
      byId: (ids: number[]) => self.imagesById(ids)
    };
    const language: LanguagePort<Ctx> = {
      localize: (ctx, docs) => self.localize(ctx, docs),
      localized: (ctx, docs) => self.localized(ctx, docs),
      applyLanguage: (record, doc, ctx) => self.applyLanguage(record, doc, ctx),
      splitWrite: (ctx, doc, fields) => self.splitWrite(ctx, doc, fields),
      nameQuery: (ctx, name, condition) => self.nameQuery(ctx, name, condition),
      searchQuery: (ctx, terms, original, opts) => self.searchQuery(ctx, terms, original, opts)
    };
    const events = {
      unlink: (ctx: Ctx, id: number) => ctx.call("events.unlinkPost", { kind: spec.kind, id }),
      linkedIds: (ctx: Ctx, conditions: Record<string, unknown>): Promise<number[] | null> => ctx.call("events.linkedPostIds", { kind: spec.kind, ...conditions })
    };
    // Inline venue/organizer data on events is checked with the create parameters (docs/records.md#venue-and-organizer-input).
    const checkCreateParams = self.broker.validator!.compile(schemas.create);
    const input = new LinkedInput<Ctx>({ spec, collection: () => self.store, images, checkCreateParams: data => checkCreateParams(data) });
    const fields = self.recordFields;
    const presenter = new LinkedPresenter<Ctx>({ spec, request, language, images, now: () => self.now(), fields });
    const writer = new LinkedWriter<Ctx>({
      spec, records, input, request, language, images, events,
      // the write stored its own feed entry (PostRecords.feedEntryOf); what derives from it is recorded here
      feed: { announce: (action, doc) => self.announce(action, doc, true) },
      newId: () => self.allocateId("posts", spec.kind),
      exclusive: (name, fn) => self.exclusive(name, fn),
      logger: self.logger,
      fields
    });
    // the store is opened when the service starts: its renderings are asked for then (none on MongoDB)
    const stored = () => self.storeHandle!.renderings!;
    const renderings: LinkedRenderingPort<Ctx> = {
      variant: (ctx, jsonLd, access) => (jsonLd && self.storeHandle?.renderings ? renderingVariant({
        enabled: appSettings().storedRenderings, caller: self.who(ctx), params: access, language: self.languageOf(ctx),
        defaultLanguage: appSettings().defaultLanguage, site: self.siteOf(ctx), ns: self.nsOf(ctx), baseUrl: appSettings().baseUrl
      }) : undefined),
      ownText: (ctx, doc) => !needsValues(doc, self.languageOf(ctx), appSettings().defaultLanguage),
      mark: () => stored().mark(currentSiteId()),
      keep: (variant, mark, kept) => stored().keep(currentSiteId(), variant, mark, kept.map(r => ({ kind: spec.plural as RenderedKind, ...r }))),
      stored: async (variant, id) => (await stored().stitched(currentSiteId(), variant, spec.plural as RenderedKind, id))?.own.body
    };
    const reader = new LinkedReader<Ctx>({
      spec, records, request, language, events, presenter, fields, renderings,
      passwordAccess: (ctx, record, access) => self.passwordAccess(ctx, record, access),
      // Venues near a point (C11: venues hold their coordinates; lib/geo/near-query.ts): parameter errors first, then 400 geoloc-not-available.
      near: spec.geo ? async (ctx, p) => {
        const { asked, near } = readNear(p);
        if (!asked) return undefined;
        requireGeolocation(self.broker, [NEAR_ACTION]);
        return near ? venuesNear(ctx, near) : undefined;
      } : undefined
    });
    return { input, writer, reader, presenter };
  }

  const methods = {
    // Read pages answered through the action cache (mixins/cache.mixin.ts cachedRead).
    async listLinkedPage(ctx: Ctx<LinkedListParams>) {
      const { items, page, total } = await this.linked.reader.list(ctx, ctx.params);
      return { [spec.plural]: items, ...this.listEnvelope(ctx, spec.plural, schemas.linkOrder, ctx.params, page, total) };
    },
    async getLinkedPage(ctx: Ctx<RecordParams>) {
      const { reader } = this.linked;
      return reader.read(ctx, await reader.byId(ctx.params.id), accessOf(ctx.params));
    },
    async getLinkedBySlugPage(ctx: Ctx<RecordParams>) {
      const { reader } = this.linked;
      return reader.read(ctx, await reader.bySlug(ctx.params.slug), accessOf(ctx.params));
    }
  } satisfies ThisType<LinkedSelf>;

  /** The actions' handlers and the life cycle, typed on the service (moleculer binds them to it). */
  const handlers = {
    created() {
      this.linked = build(this);
      // the change feed's pages show these records as the lists do (mixins/change-source.mixin.ts)
      this.recordRenderer = { render: (ctx, docs) => this.linked.presenter.many(ctx, storedAs<LinkedDoc>(docs), { reveal: d => this.passwordAccess(ctx, d, {}) }) };
    },
    list(ctx: Ctx) {
      return this.cachedRead(ctx, "listLinkedPage");
    },
    get(ctx: Ctx) {
      return this.cachedRead(ctx, "getLinkedPage");
    },
    getBySlug(ctx: Ctx) {
      return this.cachedRead(ctx, "getLinkedBySlugPage");
    },
    async create(ctx: Ctx) {
      const record = await this.linked.writer.create(ctx, ctx.params);
      ctx.meta.$statusCode = 201;
      ctx.meta.$location = `${this.nsOf(ctx)}/${spec.plural}/${record._id}`;
      return this.linked.presenter.one(ctx, record, { reveal: () => mayEdit(this.who(ctx), record, nowDb(this.now())) || this.passwordAccess(ctx, record, {}) });
    },
    async update(ctx: Ctx<RecordParams>) {
      return updated(this, ctx, await this.linked.reader.byId(ctx.params.id));
    },
    async updateBySlug(ctx: Ctx<RecordParams>) {
      return updated(this, ctx, await this.linked.reader.bySlug(ctx.params.slug));
    },
    async remove(ctx: Ctx<RecordParams>) {
      return removed(this, ctx, await this.linked.reader.byId(ctx.params.id));
    },
    async removeBySlug(ctx: Ctx<RecordParams>) {
      return removed(this, ctx, await this.linked.reader.bySlug(ctx.params.slug));
    },
    async validateLinks(ctx: Ctx<{ value?: unknown }>): Promise<true> {
      await this.linked.input.linkEntries(ctx, ctx.params.value, false);
      return true;
    },
    async link(ctx: Ctx<{ value?: unknown }>): Promise<number[]> {
      const entries: LinkEntry[] = await this.linked.input.linkEntries(ctx, ctx.params.value, true);
      const ids: number[] = [];
      for (const entry of entries) {
        const id = "id" in entry ? entry.id : (await this.linked.writer.createOrReuse(ctx, entry.data))?._id;
        if (!id) throw new ApiError(codes.couldNotCreate, 400);
        if (!ids.includes(id)) ids.push(id);
      }
      return ids;
    },
    async embed(ctx: Ctx<{ ids: number[]; jsonLd?: boolean; password?: string; context?: string }>): Promise<Record<string, unknown>> {
      const { ids, ...variant } = ctx.params;
      if (!ids.length) return {};
      // one kept entry per record (docs/caching.md#embedded-records); a scheduled one's status moves with the clock
      return this.keptPerRecord(ctx, spec.kind, ids, variant, (missing: number[]) => this.linked.reader.embedded(ctx, missing, !!ctx.params.jsonLd, accessOf(ctx.params)));
    }
  } satisfies ThisType<LinkedSelf>;

  /** A venue or organizer service: the domain parts, the read pages, the post and translatable mixins' faces. */
  interface LinkedSelf extends Service, PostFace, TranslatableMethods, RecordFieldsFace, LinkedMethods {
    linked: LinkedParts;
  }
  type LinkedMethods = typeof methods;

  return {
    name: "linked-post",
    mixins: [
      // `custom_links`: custom field filters (MongoDB; the SQL stores answer them from the link table)
      PostMixin({ kind: spec.kind, collection: spec.plural, indexes: [{ field: "name_key" }, { field: "date" }, ...TRANSLATION_INDEXES, { field: "custom_links", array: true }], companions: RECORD_FIELDS_COLLECTIONS }),
      TranslatableMixin({ type: spec.kind, fields: translatable, derived: { name_key: "name" } }),
      RecordFieldsMixin(spec.kind)
    ],
    settings,

    actions: {
      list: { params: schemas.actions.list, handler: handlers.list },
      create: { params: schemas.actions.create, handler: handlers.create },
      get: { params: schemas.actions.get, handler: handlers.get },
      getBySlug: { params: schemas.actions.getBySlug, handler: handlers.getBySlug },
      update: { params: schemas.actions.update, handler: handlers.update },
      updateBySlug: { params: schemas.actions.updateBySlug, handler: handlers.updateBySlug },
      remove: { params: schemas.actions.remove, handler: handlers.remove },
      removeBySlug: { params: schemas.actions.removeBySlug, handler: handlers.removeBySlug },
      /** Internal: checks an event's `venue`/`organizer` input (docs/records.md#venue-and-organizer-input); 400 on that name. No side effects. */
      validateLinks: { params: linkParams, handler: handlers.validateLinks },
      /**
       * Internal: the ids an event's input names, in order, each once; inline data objects are created as by
       * POST (duplicate avoidance included) with the caller as author and no permission check of their own.
       */
      link: { params: linkParams, handler: handlers.link },
      /** Internal: the records an event embeds, by id; only those the caller may read (C1: embedded records follow visibility), blanked per caller. */
      embed: {
        params: {
          ids: { type: "array", items: "number" },
          jsonLd: { type: "boolean", optional: true },
          password: { type: "string", optional: true },
          context: { type: "string", optional: true }
        },
        handler: handlers.embed
      }
    },

    methods,

    created: handlers.created
  };
}

/** The password and context a read carries. */
function accessOf(p: { password?: string; context?: string }): Access {
  return { password: p.password, context: p.context };
}

/** An update on the record as the earlier writes of it left it, answered in full (the writer may edit it). */
function updated(self: { linked: LinkedParts }, ctx: Ctx<RecordParams>, record: LinkedDoc) {
  const { writer, presenter } = self.linked;
  return writer.inOrderOf(record, async current => presenter.one(ctx, await writer.update(ctx, current, ctx.params), { reveal: () => true }));
}

/** A trash on the record as the earlier writes of it left it, answered in full. */
function removed(self: { linked: LinkedParts }, ctx: Ctx<RecordParams>, record: LinkedDoc) {
  const { writer, presenter } = self.linked;
  return writer.inOrderOf(record, async current => presenter.one(ctx, await writer.remove(ctx, current), { reveal: () => true }));
}
