/**
 * The taxonomy service: event categories (`tribe_events_cat`, hierarchical) and event tags (`post_tag`,
 * flat) — the five routes of each (docs/records.md#categories-and-tags, docs/lists.md#category-and-tag-lists) and the internal actions the events service
 * uses to resolve, filter, embed and count terms. Record shapes, normalisation, duplicate and slug rules
 * and list-query building live in lib/terms/*; this file orders the checks and talks to the store.
 *
 * Order of every routed write (docs/errors.md#order-of-checks): params schema → existence checks (`id`, `parent`) →
 * capability (docs/authorization.md#term-capabilities) → handler rules. Writes that touch the tree run one at a time on
 * every node, under the store's lock (TERMS_LOCK). Counts and `tree_count` (what `hide_empty` reads) are the
 * database's: triggers keep them with every event write and term move, in the same transaction
 * (store/sql/term-counts.ts).
 */
import { Errors, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { serviceSchema } from "../broker/service-schema";
import { importSourceOf, type ImportSourceMeta } from "../lib/imports/source";
import { isUniqueViolation } from "../store/errors";
import { StoreMixin, type StoreFace } from "../mixins/store.mixin";
import { TranslatableMixin, TranslatableMethods, TRANSLATION_INDEXES } from "../mixins/translatable.mixin";
import { ChangeSourceMixin, termType, type ChangeSourceFace } from "../mixins/change-source.mixin";
import { modifiedRange } from "../lib/changes/modified";
import { lastModifiedHeader } from "../lib/http/etag";
import { storedAs } from "../store/collection";
import { ApiError, throwIfInvalid } from "../lib/errors";
import { canManageTerms } from "../lib/access/capabilities";
import { nowDb } from "../lib/time/dates";
import { sanitizeSlug } from "../lib/text/slug";
import { settings } from "../lib/settings";
import { embeddedTerm, rootsOf, Roots, TAXONOMIES, Taxonomy, taxonomyKey, TermDoc, termRecord, TermRecord } from "../lib/terms/term-record";
import { INTERNAL_PARAMS, TERM_PARAMS } from "../lib/terms/term-params";
import { buildTermQuery, termSearchCondition, termSlugCondition, paging, pagingHeaders, sortByInclude, termListEnvelope, termOrder } from "../lib/terms/term-query";
import {
  baseSlug, filterToken, findCreateConflict, givenSlug, loopSafeParent, nameKey, normaliseTermName, slugClashOutcome, TERM_NAME_MAX, termNameTooLong,
  termTokens, uniqueIds, uniqueTermSlug
} from "../lib/terms/term-rules";
import { ancestorIds, ancestorSlugs, loadAncestors, withDescendants } from "../lib/terms/term-tree";
import { sent } from "../lib/http/params";
import { producedBy } from "../lib/http/idempotency";
import { FieldDefinitionsMixin, FIELD_DEFINITIONS_COLLECTIONS } from "../mixins/field-definitions.mixin";
import { currentSiteId } from "../lib/sites/scope";
import type { Ctx } from "../broker/context";
import { renderingVariant } from "../lib/records/rendering-variant";
import { needsValues } from "../lib/i18n/languages";
import { linkedFragment } from "../lib/events/event-fragment";

// ---------------------------------------------------------------------------------------------------------
// Parameter and result types
// ---------------------------------------------------------------------------------------------------------

export interface TermListParams {
  page?: number;
  per_page?: number;
  search?: string;
  exclude?: string[];
  include?: string[];
  order?: string;
  orderby?: string;
  hide_empty?: boolean;
  parent?: number;
  post?: number;
  event?: number;
  slug?: string;
  modified_after?: string | number;
  modified_before?: string | number;
}

export interface TermWriteParams {
  id?: number;
  name?: string;
  description?: string;
  slug?: string;
  /** Categories: a validated positive integer. Tags: anything (refused by the handler). */
  parent?: unknown;
}

export interface ResolveForEventParams { taxonomy: Taxonomy; value?: unknown }
/** An event input's `categories` and `tags` (each resolved when sent). */
export interface EventTermsParams { categories?: unknown; tags?: unknown }
export type EventTerms = { categories?: number[]; tags?: number[] };
export interface ResolveFilterParams { taxonomy: Taxonomy; values: string[]; param: string }
export interface EmbedParams { ids: number[] }
/** What `events.links` answers: the terms of an event, or null when the id is not an event. */
export type EventLinks = { categories: number[]; tags: number[] } | null;

interface TermInput {
  name: string;
  slug?: string;
  description?: string;
  parent: number;
}

/**
 * The service's `this`: Moleculer's service, the faces its mixins export and its own methods; nothing
 * restated (an interface, as a type alias of `typeof methods` would refer to itself).
 */
interface Self extends Service, StoreFace<TermDoc>, TranslatableMethods, ChangeSourceFace, TaxonomyMethods {}

// ---------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------

const UNKNOWN = "param.unknown_id";

/** An event's term fields and their taxonomies, in the order their terms are resolved (and made). */
const EVENT_TERM_FIELDS: ReadonlyArray<readonly ["categories" | "tags", Taxonomy]> = [["categories", "category"], ["tags", "tag"]];



/**
 * A handler-level 400 of the term rules (docs/errors.md#term-errors). It is caused by one parameter, so, like every
 * such 400, it names it in `data.params` (C17: codes for the remaining statuses).
 */
function termError(code: string, param: string, key: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError(code, 400, {}, { ...extra, params: { [param]: { key } } });
}


/**
 * The store's lock (held across nodes: mixins/store.mixin.ts `exclusive`) of the writes that read the tree
 * or the names before they write: a new parent checked not to be below the term it moves, a name checked
 * not to be taken. Two nodes moving A under B and B under A at once would each find no loop without it.
 * A node's many writers (an import's parallel writes) take turns for it within the node first, so one of
 * them at a time waits on the database (store/lock-turns.ts).
 */
const TERMS_LOCK = "terms:tree";

/** Creates race only across processes (a slug taken meanwhile): try again with fresh lookups. */
const INSERT_ATTEMPTS = 3;

// ---------------------------------------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------------------------------------

const methods = {
  // Routed operations ---------------------------------------------------------------------------------

  // Reads, answered through the action cache
  listCategories(ctx: Ctx<TermListParams>): Promise<Record<string, unknown>> { return this.listTerms(ctx, "category"); },
  listTags(ctx: Ctx<TermListParams>): Promise<Record<string, unknown>> { return this.listTerms(ctx, "tag"); },
  getCategory(ctx: Ctx<TermWriteParams>): Promise<TermRecord> { return this.getTerm(ctx, "category"); },
  getTag(ctx: Ctx<TermWriteParams>): Promise<TermRecord> { return this.getTerm(ctx, "tag"); },

  async listTerms(ctx: Ctx<TermListParams>, taxonomy: Taxonomy): Promise<Record<string, unknown>> {
    const p = ctx.params;
    const reasons: Record<string, string> = {};
    const includeIds = p.include ? await this.resolveItems(taxonomy, p.include) : undefined;
    if (p.include && !includeIds) reasons.include = UNKNOWN;
    const excludeIds = p.exclude ? await this.resolveItems(taxonomy, p.exclude) : undefined;
    if (p.exclude && !excludeIds) reasons.exclude = UNKNOWN;
    if (taxonomy === "category" && p.parent !== undefined && !(await this.findTerm("category", p.parent))) reasons.parent = UNKNOWN;
    // `event` is the alias of `post` and wins when both are sent; each sent value must name an event.
    let eventTermIds: number[] | undefined;
    for (const name of ["post", "event"] as const) {
      const id = p[name];
      if (id === undefined) continue;
      const links = await this.eventLinks(ctx, id);
      if (!links) reasons[name] = UNKNOWN;
      else if (name === "event" || p.event === undefined) eventTermIds = links[TAXONOMIES[taxonomy].collection];
    }
    throwIfInvalid(reasons);

    const query = buildTermQuery({
      taxonomy,
      hideEmpty: p.hide_empty ?? true,
      includeIds,
      excludeIds,
      eventTermIds,
      parent: p.parent,
      slug: p.slug === undefined ? undefined : sanitizeSlug(p.slug),
      modified: modifiedRange(p)
    });
    // i18n: the name in the asked language (fallback: the original), or the slug (one across languages).
    if (p.search !== undefined) {
      const search = p.search;
      Object.assign(query, await this.searchQuery(ctx, [{ text: search, exclude: false }], () => termSearchCondition(search), { fields: ["name"], shared: () => termSlugCondition(search) }));
    }
    const order = termOrder(p.orderby, p.order, includeIds);
    const total = await this.store.count(query);
    const page = paging(p.page, p.per_page, total);
    let docs: TermDoc[] = [];
    if (page.skip < total) {
      docs = order.kind === "include"
        ? sortByInclude((await this.store.find(query)), order.ids, order.direction).slice(page.skip, page.skip + page.perPage)
        : await this.store.find(query, { sort: order.sort, skip: page.skip, limit: page.perPage });
    }
    const roots = this.roots(ctx);
    const language = ctx.meta.languageParam ? ctx.meta.language : undefined;
    ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), ...pagingHeaders(taxonomy, page, roots, p as Record<string, unknown>, language), ...lastModifiedHeader(docs.map(d => d.modified_utc)) };
    return termListEnvelope(taxonomy, await this.records(ctx, docs, roots), page, roots, language);
  },

  async getTerm(ctx: Ctx<TermWriteParams>, taxonomy: Taxonomy): Promise<TermRecord> {
    const doc = await this.findTerm(taxonomy, ctx.params.id!);
    if (!doc) throw ApiError.invalidParam("id", UNKNOWN);
    ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), ...lastModifiedHeader([doc.modified_utc]) }; // HTTP caching (C22: caching headers and shaping)
    const record = (await this.records(ctx, [doc], this.roots(ctx)))[0];
    // where an import brought it from (C64: what an import brings): in context=edit, to the term's managers
    const imported = (doc as { import_source?: unknown }).import_source;
    return imported && (ctx.params as { context?: string }).context === "edit" && canManageTerms(ctx.meta.caller, taxonomy) ? { ...record, import_source: imported } : record;
  },

  async createTerm(ctx: Ctx<TermWriteParams>, taxonomy: Taxonomy): Promise<TermRecord> {
    const p = ctx.params;
    if (taxonomy === "category" && sent(p.parent) && !(await this.findTerm("category", p.parent as number))) throw ApiError.invalidParam("parent", UNKNOWN);
    this.ensureMayManage(ctx, taxonomy);
    if (taxonomy === "tag" && sent(p.parent)) throw termError("rest_taxonomy_not_hierarchical", "parent", "param.invalid");
    const input: TermInput = { name: p.name!, slug: p.slug, description: p.description, parent: (p.parent as number | undefined) ?? 0 };
    const doc = await this.exclusive(TERMS_LOCK, () => this.insertTerm(ctx, taxonomy, input, this.languageOf(ctx)));
    const [record] = await this.records(ctx, [doc], this.roots(ctx));
    ctx.meta.$statusCode = 201;
    ctx.meta.$location = record.urls.self;
    ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), Location: record.urls.self };
    return record;
  },

  async updateTerm(ctx: Ctx<TermWriteParams>, taxonomy: Taxonomy): Promise<TermRecord> {
    const p = ctx.params;
    const reasons: Record<string, string> = {};
    const current = await this.findTerm(taxonomy, p.id!);
    if (!current) reasons.id = UNKNOWN;
    if (taxonomy === "category" && sent(p.parent) && !(await this.findTerm("category", p.parent as number))) reasons.parent = UNKNOWN;
    throwIfInvalid(reasons);
    this.ensureMayManage(ctx, taxonomy);
    if (taxonomy === "tag" && sent(p.parent)) throw termError("rest_taxonomy_not_hierarchical", "parent", "param.invalid");
    const updated = await this.exclusive(TERMS_LOCK, () => this.applyUpdate(ctx, current!, p));
    await this.recordTermUpdate(current!, updated); // change feed (sync issue)
    return (await this.records(ctx, [updated], this.roots(ctx)))[0];
  },

  async removeTerm(ctx: Ctx<TermWriteParams>, taxonomy: Taxonomy): Promise<TermRecord> {
    const current = await this.findTerm(taxonomy, ctx.params.id!);
    if (!current) throw ApiError.invalidParam("id", UNKNOWN);
    this.ensureMayManage(ctx, taxonomy);
    const below = await this.termDescendants(current); // change feed: their parent or path changes
    const record = await this.exclusive(TERMS_LOCK, () => this.deleteTerm(ctx, current, this.roots(ctx)));
    await this.recordTermDelete(current, below);
    // Events lose the term before the answer goes out (C16: read your writes); outside the lock: events may call back.
    try {
      await ctx.call("events.unlinkTerm", { taxonomy, id: current._id });
    } catch (err) {
      if (!(err instanceof Errors.ServiceNotFoundError) && !(err instanceof Errors.ServiceNotAvailableError)) throw err;
    }
    return record;
  },

  // Internal operations -------------------------------------------------------------------------------

  async resolveEventTerms(ctx: Ctx<EventTermsParams>): Promise<EventTerms> {
    const sent = EVENT_TERM_FIELDS.filter(([field]) => ctx.params[field] !== undefined && ctx.params[field] !== null);
    const tokens = sent.map(([field]) => termTokens(ctx.params[field]));
    const out: EventTerms = {};
    if (tokens.every(ts => ts.every(t => "id" in t))) {
      // ids only (no name to look up or make): the named terms of either taxonomy in one read, each input
      // keeping those of its own taxonomy, as resolveForEvent keeps them
      const ids = uniqueIds(tokens.flat().map(t => (t as { id: number }).id));
      const taxonomyOf = new Map((await this.store.findByIds(ids)).map(d => [d._id as number, d.taxonomy]));
      sent.forEach(([field, taxonomy], i) => { out[field] = uniqueIds(tokens[i].flatMap(t => ("id" in t && taxonomyOf.get(t.id) === taxonomy ? [t.id] : []))); });
      return out;
    }
    // names: the categories first, then the tags (the terms made draw their ids in that order)
    for (const [field, taxonomy] of sent) out[field] = await this.resolveForEvent(ctx, taxonomy, ctx.params[field]);
    return out;
  },

  async resolveForEvent(ctx: Ctx<unknown>, taxonomy: Taxonomy, value: unknown): Promise<number[]> {
    const tokens = termTokens(value);
    const ids: number[] = [];
    const known = new Map((await this.store.find({ taxonomy, _id: { $in: tokens.flatMap(t => ("id" in t ? [t.id] : [])) } })).map(d => [d._id as number, d]));
    const found = async (text: string): Promise<number | undefined> => {
      const slug = sanitizeSlug(text);
      const bySlug = slug === "" ? null : await this.store.findOne({ tax_slug: taxonomyKey({ taxonomy, slug }) });
      if (bySlug) return bySlug._id;
      // i18n: a name names the term in any of its languages.
      const key = nameKey(normaliseTermName(text));
      const byName = await this.store.find({ taxonomy, ...(await this.nameQuery(ctx, key, { name_lc: key }, { anyLanguage: true })) }, { sort: { _id: 1 }, limit: 1 });
      return byName.length > 0 ? byName[0]._id : undefined;
    };
    const created = async (text: string): Promise<number | undefined> => {
      try {
        return (await this.insertTerm(ctx, taxonomy, { name: text, parent: 0 }, this.languageOf(ctx)))._id;
      } catch (err) {
        if (err instanceof ApiError && err.type === "term_exists") return err.data.term_id as number;
        if (err instanceof ApiError && err.type === "empty_term_name") return undefined;
        throw err;
      }
    };
    const resolveAll = async (): Promise<number[]> => {
      // a name no term may have (too long) and no term answers to refuses the event's parameter before any term is made
      for (const token of tokens) {
        if ("text" in token && termNameTooLong(normaliseTermName(token.text)) && (await found(token.text)) === undefined)
          throw ApiError.invalidParam(TAXONOMIES[taxonomy].collection, "param.length", { max: TERM_NAME_MAX });
      }
      for (const token of tokens) {
        const id = "id" in token ? (known.has(token.id) ? token.id : undefined) : ((await found(token.text)) ?? (await created(token.text)));
        if (id !== undefined) ids.push(id);
      }
      return uniqueIds(ids);
    };
    // Lookups and creations of names run under the write lock: two events naming the same new term get one.
    return tokens.some(t => "text" in t) ? this.exclusive(TERMS_LOCK, resolveAll) : resolveAll();
  },

  async resolveFilter({ taxonomy, values, param }: ResolveFilterParams): Promise<number[]> {
    const ids = await this.resolveItems(taxonomy, values);
    if (!ids) throw ApiError.invalidParam(param, UNKNOWN);
    if (!TAXONOMIES[taxonomy].hierarchical || ids.length === 0) return ids;
    return withDescendants(ids, parents => this.store.find({ taxonomy, parent: { $in: parents } }) as Promise<TermDoc[]>);
  },

  embed(ctx: Ctx<EmbedParams>): Promise<Record<string, unknown>> {
    const roots = this.roots(ctx);
    // one kept entry per term (docs/caching.md#embedded-records)
    return this.keptPerRecord(ctx, "term", uniqueIds(ctx.params.ids), null, async missing => {
      // a variant the store keeps (store/renderings.ts): its mark read before the terms
      const language = this.languageOf(ctx);
      const variant = this.storeHandle?.renderings ? renderingVariant({
        enabled: settings().storedRenderings, caller: ctx.meta?.caller, params: {}, language,
        defaultLanguage: settings().defaultLanguage, site: roots.site, ns: roots.ns, baseUrl: settings().baseUrl
      }) : undefined;
      const stored = this.storeHandle?.renderings;
      const mark = variant !== undefined ? await stored!.mark(currentSiteId()) : undefined;
      const docs = await this.fetchByIds(missing);
      // i18n: the embedding record's language (ctx.meta.language came along), language keys last (C9: the i18n fields).
      const shown = await this.localized(ctx, docs);
      const values = docs.map((doc, i) => this.applyLanguage({ ...embeddedTerm(shown[i], roots) }, doc, ctx));
      if (variant !== undefined) {
        const kept = docs.flatMap((doc, i) => (needsValues(doc, language, settings().defaultLanguage) ? [] : [{ kind: "terms" as const, id: doc._id, doc, body: linkedFragment(values[i]) }]));
        await stored!.keep(currentSiteId(), variant, mark!, kept);
      }
      return new Map(docs.map((doc, i) => [doc._id, { value: values[i], keep: true }]));
    });
  },

  // Building blocks -----------------------------------------------------------------------------------

  roots(ctx: Ctx<unknown>): Roots {
    return rootsOf(ctx.meta, settings());
  },

  async findTerm(taxonomy: Taxonomy, id: number): Promise<TermDoc | undefined> {
    return (await this.store.findOne({ _id: id, taxonomy })) ?? undefined;
  },

  async fetchByIds(ids: number[]): Promise<TermDoc[]> {
    return ids.length === 0 ? [] : this.store.findByIds(ids);
  },

  /** Standalone records, with the ancestors' slugs of categories loaded in one lookup per level. */
  async records(ctx: Ctx<unknown>, docs: TermDoc[], roots: Roots): Promise<TermRecord[]> {
    const [byId, shown] = await Promise.all([loadAncestors(docs, ids => this.fetchByIds(ids)), this.localized(ctx, docs)]);
    // i18n: name and description in the asked language, language keys last (C9: the i18n fields).
    return docs.map((doc, i) => this.applyLanguage(termRecord(shown[i], ancestorSlugs(doc, byId), roots), doc, ctx));
  },

  ensureMayManage(ctx: Ctx<unknown>, taxonomy: Taxonomy): void {
    const caller = ctx.meta.caller;
    if (!canManageTerms(caller, taxonomy)) throw ApiError.forbidden(caller === null);
  },

  /** Ids for a list of ids and slugs of the taxonomy (first-seen order); undefined when one names no term. */
  async resolveItems(taxonomy: Taxonomy, items: string[]): Promise<number[] | undefined> {
    const tokens = items.map(filterToken);
    // digits past the safe integers name no term (and are no store's id: PostgreSQL's bigint refused them, 500)
    const wantedIds = tokens.flatMap(t => ("id" in t && Number.isSafeInteger(t.id) ? [t.id] : []));
    const wantedSlugs = tokens.flatMap(t => ("text" in t ? [sanitizeSlug(t.text)] : []));
    const byId = new Set(wantedIds.length === 0 ? [] : (await this.store.find({ taxonomy, _id: { $in: wantedIds } })).map(d => d._id as number));
    const bySlug = new Map(wantedSlugs.length === 0 ? [] : (await this.store.find({ tax_slug: { $in: wantedSlugs.map(slug => taxonomyKey({ taxonomy, slug })) } })).map(d => [d.slug as string, d._id as number]));
    const ids: number[] = [];
    for (const token of tokens) {
      const id = "id" in token ? (byId.has(token.id) ? token.id : undefined) : bySlug.get(sanitizeSlug(token.text));
      if (id === undefined) return undefined;
      ids.push(id);
    }
    return uniqueIds(ids);
  },

  async eventLinks(ctx: Ctx<unknown>, id: number): Promise<EventLinks> {
    return ctx.call<EventLinks, { id: number }>("events.links", { id });
  },

  /** docs/records.md#creating-terms, #term-duplicates-and-slugs: normalise, refuse duplicates (`term_exists`), make the slug unique, store. */
  async insertTerm(ctx: Ctx<unknown>, taxonomy: Taxonomy, input: TermInput, lang: string): Promise<TermDoc> {
    const name = normaliseTermName(input.name);
    if (name === "") throw termError("empty_term_name", "name", "param.empty");
    if (termNameTooLong(name)) throw ApiError.invalidParam("name", "param.length", { max: TERM_NAME_MAX });
    const { hierarchical } = TAXONOMIES[taxonomy];
    const parent = hierarchical ? input.parent : 0;
    const chain = parent > 0 ? await this.parentChain(parent) : [];
    if (parent > 0 && chain.length === 0) throw ApiError.invalidParam("parent", UNKNOWN);
    const slugGiven = givenSlug(input.slug);
    const slug = baseSlug(slugGiven, name);
    // C9: duplicate names compared in the request's language (fallback: the original).
    const key = nameKey(name);
    const [nameMatch] = await this.store.find({ taxonomy, ...(hierarchical ? { parent } : {}), ...(await this.nameQuery(ctx, key, { name_lc: key })) }, { sort: { _id: 1 }, limit: 1 });
    const slugHolder = slug === "" ? null : (await this.store.findOne({ tax_slug: taxonomyKey({ taxonomy, slug }) }));
    const conflict = findCreateConflict({ hierarchical, parent, slugProvided: slugGiven !== undefined, slug, nameMatch, slugHolder: slugHolder ?? undefined });
    if (conflict) throw termError("term_exists", conflict === nameMatch ? "name" : "slug", "param.invalid", { term_id: conflict._id });

    for (let attempt = 1; ; attempt++) {
      const id = await this.allocateId("terms", taxonomy);
      // A name without slug characters gets its id as slug (WordPress sanitize_title fallback).
      const unique = await uniqueTermSlug(slug === "" ? String(id) : slug, chain.map(d => d.slug), c => this.slugTaken(taxonomy, c));
      const doc: TermDoc = {
        _id: id, taxonomy, name, name_lc: nameKey(name), slug: unique, tax_slug: taxonomyKey({ taxonomy, slug: unique }),
        description: input.description ?? "", description_lc: (input.description ?? "").toLowerCase(), parent, count: 0, tree_count: 0, lang, translations: [lang], modified_utc: nowDb(),
        // an import's create: the term's source identity (C64: what an import brings)
        ...importSourceOf(ctx.meta as ImportSourceMeta)
      };
      try {
        // an idempotent create's claim is marked with this term in its transaction (C21: idempotency keys; C41: invariants under concurrency)
        const claim = ctx.meta.idempotencyRead === `taxonomy.${TAXONOMIES[taxonomy].collection}.get` ? producedBy(ctx.meta, id) : undefined;
        await this.store.insert(doc, { claim });
        await this.recordChanges([this.changeOf(termType(doc), "created", doc)], { emit: true }); // change feed
        return doc;
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= INSERT_ATTEMPTS) throw err;
      }
    }
  },

  /** docs/records.md#updating-terms: only given fields change; loop-safe parent; `duplicate_term_slug` unless the parent moves. */
  async applyUpdate(ctx: Ctx<unknown>, stale: TermDoc, input: TermWriteParams): Promise<TermDoc> {
    const current = await this.findTerm(stale.taxonomy, stale._id);
    if (!current) throw ApiError.invalidParam("id", UNKNOWN);
    const set: Partial<TermDoc> = {};
    if (input.name !== undefined) {
      const name = normaliseTermName(input.name);
      if (name === "") throw termError("empty_term_name", "name", "param.empty");
      if (termNameTooLong(name)) throw ApiError.invalidParam("name", "param.length", { max: TERM_NAME_MAX });
      set.name = name;
      set.name_lc = nameKey(name);
    }
    if (input.description !== undefined) {
      set.description = input.description;
      set.description_lc = input.description.toLowerCase();
    }

    let parent = current.parent;
    let chain: TermDoc[] = [];
    if (TAXONOMIES[current.taxonomy].hierarchical && typeof input.parent === "number") {
      chain = await this.parentChain(input.parent);
      if (chain.length === 0) throw ApiError.invalidParam("parent", UNKNOWN);
      parent = loopSafeParent(current._id, input.parent, chain.slice(1).map(d => d._id));
      if (parent === 0) chain = [];
    } else if (current.parent > 0) {
      chain = await this.parentChain(current.parent);
    }
    const parentChanged = parent !== current.parent;

    const slugWasEmpty = input.slug !== undefined && givenSlug(input.slug) === undefined;
    let slug = input.slug === undefined ? current.slug : (givenSlug(input.slug) ?? sanitizeSlug(set.name ?? current.name));
    if (slug === "") slug = String(current._id);
    if (slug !== current.slug && (await this.slugTaken(current.taxonomy, slug, current._id))) {
      if (slugClashOutcome({ slugWasEmpty, parentChanged }) === "duplicate_term_slug") throw termError("duplicate_term_slug", "slug", "param.invalid");
      slug = await uniqueTermSlug(slug, chain.map(d => d.slug), c => this.slugTaken(current.taxonomy, c, current._id));
    }
    if (slug !== current.slug) {
      set.slug = slug;
      set.tax_slug = taxonomyKey({ taxonomy: current.taxonomy, slug });
    }
    if (parentChanged) set.parent = parent;
    if (Object.keys(set).length === 0) return current;

    set.modified_utc = nowDb();
    // i18n: in a language other than the term's original, name and description go to the i18n service.
    const { inline } = await this.splitWrite(ctx, current, set);
    let updated: TermDoc | null;
    try {
      updated = await this.store.updateOne({ _id: current._id }, { $set: inline });
    } catch (err) {
      if (isUniqueViolation(err)) throw termError("duplicate_term_slug", "slug", "param.invalid");
      throw err;
    }
    // (its tree_count leaves its old ancestors and joins the new ones in the update's own transaction:
    // store/sql/term-counts.ts)
    return updated ?? { ...current, ...inline };
  },

  /** docs/records.md#deleting-terms: the record as before; children move up to the parent; the tree counts follow. */
  async deleteTerm(ctx: Ctx<unknown>, stale: TermDoc, roots: Roots): Promise<TermRecord> {
    const current = await this.findTerm(stale.taxonomy, stale._id);
    if (!current) throw ApiError.invalidParam("id", UNKNOWN);
    const [record] = await this.records(ctx, [current], roots);
    try {
      if (TAXONOMIES[current.taxonomy].hierarchical) {
        await this.store.updateMany({ taxonomy: current.taxonomy, parent: current._id }, { $set: { parent: current.parent, modified_utc: nowDb() } });
      }
      // (the ancestors lose its own count with the delete itself, its children's moved with them: store/sql/term-counts.ts)
      const removed = await this.store.removeMany({ _id: current._id, taxonomy: current.taxonomy });
      if (removed !== 1) throw new Error(`term ${current._id} was not removed`);
    } catch (err) {
      this.logger.error(`Deleting term ${current._id} failed:`, err);
      throw new ApiError("rest_cannot_delete", 500);
    }
    // i18n: the term's values in other languages go with it (a no-op when the i18n service is not running).
    await this.dropTranslations(ctx, current._id);
    return record;
  },

  async slugTaken(taxonomy: Taxonomy, slug: string, exceptId?: number): Promise<boolean> {
    return (await this.store.idsWhere("tax_slug", taxonomyKey({ taxonomy, slug }))).some(id => id !== exceptId);
  },

  /** A category and its ancestors, parent first; [] when the category does not exist. */
  async parentChain(parent: number): Promise<TermDoc[]> {
    const start = await this.findTerm("category", parent);
    if (!start) return [];
    const byId = await loadAncestors([start], ids => this.fetchByIds(ids));
    return [start, ...ancestorIds(start, byId).map(id => byId.get(id)!)];
  }
} satisfies ThisType<Self>;

type TaxonomyMethods = typeof methods;

// ---------------------------------------------------------------------------------------------------------
// Service
// ---------------------------------------------------------------------------------------------------------

const TaxonomyService: ServiceSchema<ServiceSettingSchema, TaxonomyMethods, object, Self> = {
  name: "taxonomy",

  mixins: [StoreMixin({
    collection: "terms",
    indexes: [
      { field: "taxonomy" },
      { field: "tax_slug", unique: true },
      { field: "slug" },
      { field: "name_lc" },
      { field: "parent" },
      { field: "tree_count" },
      { field: "modified_utc" },
      ...TRANSLATION_INDEXES
    ],
    companions: FIELD_DEFINITIONS_COLLECTIONS
  }), TranslatableMixin({ type: "term", fields: ["name", "description"], derived: { name_lc: "name", description_lc: "description" } }),
  ChangeSourceMixin({ kind: "term" }),
  // the site's custom field definitions (`{ns}/fields`): site vocabulary, like its terms (README "Custom fields")
  FieldDefinitionsMixin()],

  settings: {},

  methods,

  actions: {
    // Categories ----------------------------------------------------------------------------------------
    "categories.list": { params: TERM_PARAMS.category.list, async handler(ctx: Ctx<TermListParams>) { return this.cachedRead(ctx, "listCategories"); } },
    "categories.create": { params: TERM_PARAMS.category.create, async handler(ctx: Ctx<TermWriteParams>) { return this.createTerm(ctx, "category"); } },
    "categories.get": { params: TERM_PARAMS.category.get, async handler(ctx: Ctx<TermWriteParams>) { return this.cachedRead(ctx, "getCategory"); } },
    "categories.update": { params: TERM_PARAMS.category.update, async handler(ctx: Ctx<TermWriteParams>) { return this.updateTerm(ctx, "category"); } },
    "categories.remove": { params: TERM_PARAMS.category.remove, async handler(ctx: Ctx<TermWriteParams>) { return this.removeTerm(ctx, "category"); } },

    // Tags ----------------------------------------------------------------------------------------------
    "tags.list": { params: TERM_PARAMS.tag.list, async handler(ctx: Ctx<TermListParams>) { return this.cachedRead(ctx, "listTags"); } },
    "tags.create": { params: TERM_PARAMS.tag.create, async handler(ctx: Ctx<TermWriteParams>) { return this.createTerm(ctx, "tag"); } },
    "tags.get": { params: TERM_PARAMS.tag.get, async handler(ctx: Ctx<TermWriteParams>) { return this.cachedRead(ctx, "getTag"); } },
    "tags.update": { params: TERM_PARAMS.tag.update, async handler(ctx: Ctx<TermWriteParams>) { return this.updateTerm(ctx, "tag"); } },
    "tags.remove": { params: TERM_PARAMS.tag.remove, async handler(ctx: Ctx<TermWriteParams>) { return this.removeTerm(ctx, "tag"); } },

    // Internal (not routed) -----------------------------------------------------------------------------
    /** docs/records.md#categories-and-tags-on-events: ids of the terms an event input names, creating missing ones. */
    resolveForEvent: { params: INTERNAL_PARAMS.resolveForEvent, async handler(ctx: Ctx<ResolveForEventParams>) { return this.resolveForEvent(ctx, ctx.params.taxonomy, ctx.params.value); } },
    /** The same for an event input's categories and tags at once: `{ categories, tags }`, each answered when sent (one call, one read when both name ids only). */
    resolveEventTerms: { params: INTERNAL_PARAMS.resolveEventTerms, async handler(ctx: Ctx<EventTermsParams>) { return this.resolveEventTerms(ctx); } },
    /** docs/lists.md#event-filters: ids for the events list filters (categories include their descendants); unknown → 400. */
    resolveFilter: { params: INTERNAL_PARAMS.resolveFilter, async handler(ctx: Ctx<ResolveFilterParams>) { return this.resolveFilter(ctx.params); } },
    /** docs/records.md#embedded-terms: embedded term objects by id, one call per page of events. */
    embed: { params: INTERNAL_PARAMS.embed, async handler(ctx: Ctx<EmbedParams>) { return this.embed(ctx); } }
  },


  created() {
    // the change feed's pages show terms as the lists do (mixins/change-source.mixin.ts)
    this.recordRenderer = { render: (ctx, docs) => this.records(ctx, storedAs<TermDoc>(docs), this.roots(ctx)) };
  }
};

/** Typed with its own `this` above; services/index.ts takes the plain schema type. */
export default serviceSchema(TaxonomyService);
