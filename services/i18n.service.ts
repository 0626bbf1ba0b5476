/**
 * The i18n service: the eight languages and every record's values in the languages other than its
 * original one (the i18n issue, D19). Records keep their original-language values inline with `lang` and
 * `translations`; this service keeps one document per record × other language (lib/i18n/store-query.ts).
 * Record services reach it through mixins/translatable.mixin.ts: one `values` call per page (cached per
 * language), `write` for a write in another language, `search` / `findByName` for list filters and
 * duplicate checks.
 *
 * `values` answers are kept per site, type, language and ids (`i18n.values:<site>:…`), and kept only if no
 * translation write of the site cleaned them while they were read (docs/caching.md#a-read-that-crosses-a-write).
 * After every write the service cleans the site's kept values and the record services' kept reads of
 * the site (they embed translated values), on every node (mixins/cache.mixin.ts `cleanCaches`).
 */
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { serviceSchema } from "../broker/service-schema";
import { isUniqueViolation } from "../store/errors";
import { StoreMixin, type StoreFace } from "../mixins/store.mixin";
import { KeyedQueue } from "../lib/async/queue";
import type { Doc } from "../store/collection";
import { settings } from "../lib/settings";
import { defaultLanguageOf, LANGUAGES, Language, orderLanguages } from "../lib/i18n/languages";
import type { FieldValues } from "../lib/i18n/values";
import { holdsValues, newTranslationDoc, nameFilter, searchFilter, SearchMode, translationId, writeUpdate } from "../lib/i18n/store-query";
import { TRANSLATABLE, TRANSLATABLE_TYPES, TranslatableType } from "../lib/i18n/types";
import type { SearchTerm } from "../lib/text/search";
import { createHash } from "crypto";
import type { CleanLog } from "../cache/clean-mark";
import { keptOrComputed } from "../cache/clean-mark";
import { sitePatterns } from "../cache/staleness";
import { currentSiteId } from "../lib/sites/scope";
import type { Ctx } from "../broker/context";

// ---- action parameters and answers -------------------------------------------------------------------

export interface LanguagesAnswer {
  languages: Language[];
  default: Language;
}
export interface ValuesParams { type: TranslatableType; ids: number[]; language: Language }
/** Record id → field → value: only values stored for that language. */
export type ValuesAnswer = Record<string, FieldValues>;
export interface WriteParams {
  type: TranslatableType;
  id: number;
  language: Language;
  /** Values of that language; "" (or null) clears the field (it falls back to the original). */
  fields: Record<string, string | null>;
  /** The record's original values of the translatable fields (kept lower-cased for search fallback). */
  originals?: FieldValues;
  /** The record's original language: included in the answer (the record keeps those values itself). */
  original?: Language;
}
/** The record's languages with values, spec order: those held here, plus `original` when given. */
export type WriteAnswer = Language[];
export interface OriginalsParams { type: TranslatableType; id: number; originals: FieldValues }
export interface SearchParams {
  type: TranslatableType;
  language: Language;
  terms: SearchTerm[];
  /** Default: every translatable field of the type. */
  fields?: string[];
  /** Default: `any-field`. */
  mode?: SearchMode;
}
export interface FindByNameParams { type: TranslatableType; name: string; language?: Language }
export interface RemoveParams { type: TranslatableType; id: number }


const TYPE = { type: "enum", values: TRANSLATABLE_TYPES };
const LANGUAGE = { type: "enum", values: LANGUAGES as readonly string[] };
const ID = { type: "number", integer: true, positive: true, convert: true };
const STRINGS = { type: "record", key: { type: "string" }, value: { type: "string" } };


const methods = {
    /** Unknown field names are a programming error of the calling service, not a client's. */
    checkFields(type: TranslatableType, fields: Record<string, unknown>) {
      const known = TRANSLATABLE[type].fields;
      const unknown = Object.keys(fields).filter(f => !known.includes(f));
      if (unknown.length) throw new Error(`i18n: ${type} has no translatable field ${unknown.join(", ")}`);
    },

    async writeLanguage(type: TranslatableType, id: number, language: Language, fields: WriteParams["fields"], originals?: FieldValues) {
      const _id = translationId(type, id, language);
      const update = writeUpdate(fields, originals);
      let doc: Doc | null = update.$set || update.$unset ? await this.store.updateOne({ _id }, update) : await this.store.findOne({ _id });
      if (!doc) {
        const fresh = newTranslationDoc(type, id, language, fields, originals);
        if (!holdsValues(fresh)) return;
        try {
          doc = await this.store.insert(fresh);
        } catch (err) {
          // inserted meanwhile by another node: apply the update to it
          if (!isUniqueViolation(err)) throw err;
          doc = await this.store.updateOne({ _id }, update);
        }
      }
      if (doc && !holdsValues(doc)) await this.store.removeMany({ _id });
    },

    async languagesOf(type: TranslatableType, id: number): Promise<Language[]> {
      const docs: Doc[] = await this.store.find({ type, record_id: id }, { projection: { lang: 1, fields: 1 } });
      return orderLanguages(docs.filter(holdsValues).map(d => d.lang as string));
    },


    /** One language's stored values of records of one type, read from the store. */
    async readValues(type: TranslatableType, ids: number[], language: Language): Promise<ValuesAnswer> {
      const out: ValuesAnswer = {};
      const docs: Doc[] = await this.store.find({ type, lang: language, record_id: { $in: [...new Set(ids)] } }, { projection: { record_id: 1, fields: 1 } });
      for (const doc of docs) if (holdsValues(doc)) out[String(doc.record_id)] = { ...doc.fields };
      return out;
    },

    /** Where the kept values of `site` live (their keys begin with it). */
    valuesPrefix(site: number): string {
      return `${this.fullName}.values:${site}:`;
    },

    /**
     * C16: the site's kept values and the records' kept reads that embed them are gone before the write is
     * answered, here and (by the cache mixin's broadcast) on every node.
     */
    async changed() {
      const site = currentSiteId();
      await this.cleanCaches([`${this.valuesPrefix(site)}**`, ...sitePatterns(site)]);
    }
  } satisfies ThisType<I18nSelf>;

type I18nMethods = typeof methods;
interface I18nSettings extends ServiceSettingSchema {
  /** Set when the service is created. */
  defaultLanguage?: Language;
}
interface I18nVars {
  /** Per translation document: its writes, one after another (read-your-writes per language). */
  queues: KeyedQueue;
  /** The log of the cacher's cleans (opened by the cache mixin, mixins/cache.mixin.ts). */
  cleanLog: CleanLog | undefined;
}
interface I18nSelf extends Service<I18nSettings>, I18nMethods, I18nVars, StoreFace {}

const I18nService: ServiceSchema<I18nSettings, I18nMethods, I18nVars, I18nSelf> = {
  name: "i18n",
  mixins: [StoreMixin({ collection: "translations", indexes: [{ field: "type" }, { field: "record_id" }, { field: "lang" }] })],
  settings: {
    /** The default language (DEFAULT_LANGUAGE, `en`); filled from the process settings when created. */
    defaultLanguage: undefined
  },

  actions: {
    /** The eight languages in the spec's order and the default one. */
    languages: {
      params: {},
      handler(): LanguagesAnswer {
        return { languages: [...LANGUAGES], default: this.settings.defaultLanguage! };
      }
    },

    /** One language's stored values of a page of records (one call per page; cached per language). */
    values: {
      params: { type: TYPE, ids: { type: "array", items: ID, max: 1000 }, language: LANGUAGE },
      async handler(ctx: Ctx<ValuesParams>): Promise<ValuesAnswer> {
        const { type, ids, language } = ctx.params;
        if (!ids.length) return {};
        const cacher = this.broker.cacher;
        if (!cacher) return this.readValues(type, ids, language);
        // one site's values: record ids are numbered per site (docs/sites.md)
        const key = this.valuesPrefix(currentSiteId()) + createHash("sha1").update(JSON.stringify([type, language, ids])).digest("base64url");
        return keptOrComputed(cacher, this.cleanLog, key, () => this.readValues(type, ids, language));
      }
    },

    /** Stores (merges) one language's values of a record; answers the languages it holds values in. */
    write: {
      params: {
        type: TYPE, id: ID, language: LANGUAGE,
        fields: { ...STRINGS, value: { type: "string", nullable: true } },
        originals: { ...STRINGS, optional: true },
        original: { ...LANGUAGE, optional: true }
      },
      async handler(ctx: Ctx<WriteParams>): Promise<WriteAnswer> {
        const { type, id, language, fields, originals, original } = ctx.params;
        this.checkFields(type, { ...fields, ...originals });
        await this.queues.run(translationId(type, id, language), () => this.writeLanguage(type, id, language, fields, originals));
        await this.changed();
        const held: Language[] = await this.languagesOf(type, id);
        return original ? orderLanguages([original, ...held]) : held;
      }
    },

    /** The record's original values changed: refresh the fallback copies of its other languages. */
    originals: {
      params: { type: TYPE, id: ID, originals: STRINGS },
      async handler(ctx: Ctx<OriginalsParams>): Promise<number> {
        const { type, id, originals } = ctx.params;
        this.checkFields(type, originals);
        const update = writeUpdate({}, originals);
        if (!update.$set) return 0;
        // Search and name lookups read these copies; the cached `values` do not.
        return this.store.updateMany({ type, record_id: id }, update);
      }
    },

    /** Ids of records whose text in `language` (with fallback) matches the search terms. */
    search: {
      params: {
        type: TYPE,
        language: LANGUAGE,
        terms: { type: "array", max: 50, items: { type: "object", props: { text: "string", exclude: "boolean" } } },
        fields: { type: "array", items: "string", optional: true },
        mode: { type: "enum", values: ["any-field", "one-field"], optional: true }
      },
      async handler(ctx: Ctx<SearchParams>): Promise<number[]> {
        const { type, language, terms } = ctx.params;
        const fields = ctx.params.fields ?? [...TRANSLATABLE[type].fields];
        this.checkFields(type, Object.fromEntries(fields.map(f => [f, ""])));
        if (!terms.length || !fields.length) return [];
        const docs: Doc[] = await this.store.find({ $and: [{ type, lang: language }, searchFilter(terms, fields, ctx.params.mode ?? "any-field")] }, { projection: { record_id: 1 } });
        return [...new Set(docs.map(d => d.record_id as number))].sort((a, b) => a - b);
      }
    },

    /** Ids of records whose name equals `name` case-insensitively: in `language` (with fallback) or in any. */
    findByName: {
      params: { type: TYPE, name: "string", language: { ...LANGUAGE, optional: true } },
      async handler(ctx: Ctx<FindByNameParams>): Promise<number[]> {
        const { type, name, language } = ctx.params;
        if (name.trim() === "") return [];
        const query = { $and: [{ type, ...(language ? { lang: language } : {}) }, nameFilter(TRANSLATABLE[type].nameField, name)] };
        const docs: Doc[] = await this.store.find(query, { projection: { record_id: 1 } });
        return [...new Set(docs.map(d => d.record_id as number))].sort((a, b) => a - b);
      }
    },

    /** A record deleted permanently: every language's values go. Answers how many documents went. */
    remove: {
      params: { type: TYPE, id: ID },
      async handler(ctx: Ctx<RemoveParams>): Promise<number> {
        const n: number = await this.store.removeMany({ type: ctx.params.type, record_id: ctx.params.id });
        if (n) await this.changed();
        return n;
      }
    }
  },

  methods,

  created() {
    this.settings.defaultLanguage = defaultLanguageOf(this.settings.defaultLanguage ?? settings().defaultLanguage);
    this.queues = new KeyedQueue();
  }
};

export default serviceSchema(I18nService);
