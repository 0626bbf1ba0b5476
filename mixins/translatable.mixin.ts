/**
 * What a record service needs to serve and write its records in eight languages (the i18n issue), written
 * once and parameterised by the record type and its translatable (stored) fields. The service keeps its
 * ORIGINAL-language values inline, plus `lang` (the original language) and `translations` (languages with
 * values, indexed: add TRANSLATION_INDEXES to the store's indexes); the i18n service keeps the others.
 *
 * - `localize(ctx, docs)`: the asked language's values for a page of records, one `i18n.values` call (none
 *   when no record of the page has values in that language other than its original ones);
 * - `localized(ctx, docs)`: the same page with those values merged over the originals, field by field;
 * - `applyLanguage(record, doc, ctx)`: `i18n_language` and `translations` as the record's last two keys;
 * - `splitWrite(ctx, doc, fields)`: which fields of a write stay inline and which go to the i18n service;
 * - `searchQuery(ctx, terms, originalCondition, opts)` and `nameQuery(ctx, name, originalCondition, opts)`:
 *   store queries matching the text of the asked language, with the same fallback;
 * - `dropTranslations(ctx, id)`: a record deleted permanently.
 *
 * Needs the store mixin (`this.store`). Every i18n call goes through `ctx.call`, so the caller's meta
 * (language, caller) travels with it; the asked language is `ctx.meta.language`, else the default.
 */
import { Errors } from "moleculer";
import type { Service, ServiceSchema } from "moleculer";
import { serviceRuns } from "../broker/bus";
import type { IndexSpec, StoreFace } from "./store.mixin";
import type { Doc, Query } from "../store/collection";
import type { SearchTerm } from "../lib/text/search";
import { settings } from "../lib/settings";
import { Language, LanguageFields, needsValues, originalLanguage, resolveLanguage, translationsOf } from "../lib/i18n/languages";
import { FieldValues, mergeValues, pickFields, splitFields, withLanguageKeys } from "../lib/i18n/values";
import type { SearchMode } from "../lib/i18n/store-query";
import type { Ctx } from "../broker/context";

export interface TranslatableOptions {
  /** Record type in the i18n service: `event`, `venue`, `organizer` or `term` (lib/i18n/types.ts). */
  type: string;
  /** Stored field names that have a value per language. */
  fields: readonly string[];
  /** Inline fields computed from a translatable one (`{ name_key: "name" }`): left alone by a translated write. */
  derived?: Readonly<Record<string, string>>;
}

/** Indexes the record service's store needs for the language queries. */
export const TRANSLATION_INDEXES: IndexSpec[] = [{ field: "lang" }, { field: "translations", array: true }];

export interface SearchQueryOptions {
  /** Fields searched in the i18n service (default: every translatable field). */
  fields?: readonly string[];
  /** `any-field` (default: every term in some field) or `one-field` (one field holds every term). */
  mode?: SearchMode;
  /**
   * Condition on fields that are NOT translated (slug, phone, zip…), applied to records translated into
   * the asked language as an alternative to their translated text (`one-field` and single-term searches).
   */
  shared?: (terms: SearchTerm[]) => Query | undefined;
  /**
   * Records NOT matching `unless` may match only through `fields` (D34: a protected event the caller may
   * not read matches through its title only).
   */
  limited?: { fields: readonly string[]; unless: Query };
}

export interface NameQueryOptions {
  /** Match the name in any language (term names used as filters); default: the asked language. */
  anyLanguage?: boolean;
}

export interface WriteSplit {
  /** What the record service stores on the record (on create: plus `lang` and `translations`). */
  inline: Record<string, unknown>;
  /** What went to the i18n service (empty on create and in the original language). */
  translated: FieldValues;
  /** The record's languages after the write, spec order. */
  translations: Language[];
}

/** A call, or none (work of a site outside any request). */
type CallOrNone = Ctx<unknown> | undefined;
type RecordDoc = Doc & LanguageFields;

const I18N = "i18n";

/** Records with no values in `language` (no element of `translations` equals it). */
function lacks(language: string): Query {
  return { $not: { translations: language } };
}

/** The i18n service is not there (not started, or gone): reads fall back to the original values. */
function isUnavailable(err: unknown): boolean {
  return err instanceof Errors.ServiceNotFoundError || err instanceof Errors.ServiceNotAvailableError;
}

/** The mixin's methods, for `type` and its translatable `fields`. */
function translatableMethods(opts: TranslatableOptions) {
  const { type, fields } = opts;
  const defaultLanguage = () => settings().defaultLanguage;

  return {
    languageOf(ctx: CallOrNone): Language {
      return resolveLanguage(ctx?.meta?.language, defaultLanguage());
    },

    /**
     * Calls the i18n service when it runs; `fallback` when it does not (or goes away meanwhile).
     * Calls without a context (internal bookkeeping) go through the broker.
     */
    async i18nCall<T>(ctx: CallOrNone, action: string, params: Record<string, unknown>, fallback: () => T): Promise<T> {
      if (!serviceRuns(this.broker, I18N)) return fallback();
      try {
        return await (ctx ? ctx.call(`${I18N}.${action}`, params) : this.broker.call(`${I18N}.${action}`, params));
      } catch (err) {
        if (isUnavailable(err)) return fallback();
        throw err;
      }
    },

    async localize(ctx: CallOrNone, docs: RecordDoc[]): Promise<Map<number, FieldValues>> {
      const language: Language = this.languageOf(ctx);
      const ids = [...new Set(docs.filter(d => needsValues(d, language, defaultLanguage())).map(d => d._id as number))].sort((a, b) => a - b);
      if (!ids.length) return new Map();
      const answer: Record<string, FieldValues> = await this.i18nCall(ctx, "values", { type, ids, language }, () => ({}));
      return new Map(Object.entries(answer ?? {}).map(([id, values]) => [Number(id), values]));
    },

    async localized<T extends RecordDoc>(ctx: CallOrNone, docs: T[]): Promise<T[]> {
      const values: Map<number, FieldValues> = await this.localize(ctx, docs);
      return values.size ? docs.map(d => mergeValues(d, values.get(d._id), fields)) : docs;
    },

    applyLanguage<T extends Record<string, unknown>>(record: T, doc: RecordDoc, ctx: CallOrNone): T & { i18n_language: string; translations: string[] } {
      return withLanguageKeys(record, this.languageOf(ctx), translationsOf(doc, defaultLanguage()));
    },

    /**
     * A create, or a write in the record's original language: everything stays inline (a create makes the
     * asked language the original; an original-language change of a translated record refreshes the
     * fallback copies the i18n service searches). Otherwise the translatable fields are stored by the i18n
     * service (before the record is written) and the rest stays inline, with the new `translations`.
     */
    async splitWrite(ctx: CallOrNone, doc: RecordDoc | undefined, params: Record<string, unknown>): Promise<WriteSplit> {
      const language: Language = this.languageOf(ctx);
      if (!doc) return { inline: { ...params, lang: language, translations: [language] }, translated: {}, translations: [language] };
      const original = originalLanguage(doc, defaultLanguage());
      const translations = translationsOf(doc, defaultLanguage());
      if (original === language) {
        const changed = pickFields(params, fields);
        if (Object.keys(changed).length && translations.length > 1) {
          await this.i18nCall(ctx, "originals", { type, id: doc._id, originals: changed }, () => 0);
        }
        return { inline: { ...params }, translated: {}, translations };
      }
      const { inline, translated } = splitFields(params, fields, opts.derived);
      if (!Object.keys(translated).length) return { inline, translated, translations };
      // No fallback: a write in another language cannot be kept without the i18n service (503).
      const writeParams = { type, id: doc._id, language, fields: translated, originals: pickFields(doc, fields), original };
      const next = (await (ctx ? ctx.call(`${I18N}.write`, writeParams) : this.broker.call(`${I18N}.write`, writeParams))) as Language[];
      return { inline: { ...inline, translations: next }, translated, translations: next };
    },

    /**
     * `{ $or: [ original text of records in L, ids whose text in L matches, original text of records with
     * no values in L ] }`. No i18n call at all while no record of this service has values in L other than
     * its original ones (the default case).
     */
    async searchQuery(ctx: CallOrNone, terms: SearchTerm[], originalCondition: (terms: SearchTerm[]) => Query, o: SearchQueryOptions = {}): Promise<Query> {
      const original = originalCondition(terms);
      if (!terms.length) return original;
      const language: Language = this.languageOf(ctx);
      const translatedHere: Query = { translations: language, lang: { $ne: language } };
      if ((await this.translatedInto(language)) === 0) return original;
      const search = (searchFields: readonly string[]) =>
        this.i18nCall(ctx, "search", { type, language, terms, fields: [...searchFields], mode: o.mode ?? "any-field" }, () => undefined) as Promise<number[] | undefined>;
      const [full, limited] = await Promise.all([search(o.fields ?? fields), o.limited ? search(o.limited.fields) : undefined]);
      let matched: Query;
      if (!full) {
        matched = original; // the i18n service is not running: the original text
      } else {
        const ids: Query = o.limited ? { $or: [{ $and: [o.limited.unless, { _id: { $in: full } }] }, { _id: { $in: limited ?? [] } }] } : { _id: { $in: full } };
        const shared = o.shared?.(terms);
        matched = shared ? { $or: [ids, shared] } : ids;
      }
      return {
        $or: [
          { $and: [{ lang: language }, original] },
          { $and: [translatedHere, matched] },
          { $and: [lacks(language), original] }
        ]
      };
    },

    /**
     * Records whose name equals `name` (case-insensitively): in the asked language with the same fallback
     * (duplicate checks, C9: the i18n fields), or in any language. `originalCondition` matches the inline (original) name.
     */
    async nameQuery(ctx: CallOrNone, name: string, originalCondition: Query, o: NameQueryOptions = {}): Promise<Query> {
      if (o.anyLanguage) {
        if ((await this.translatedRecords()) === 0) return originalCondition;
        const ids: number[] | undefined = await this.i18nCall<number[] | undefined>(ctx, "findByName", { type, name }, () => undefined);
        return ids?.length ? { $or: [originalCondition, { _id: { $in: ids } }] } : originalCondition;
      }
      const language: Language = this.languageOf(ctx);
      const translatedHere: Query = { translations: language, lang: { $ne: language } };
      if ((await this.translatedInto(language)) === 0) return originalCondition;
      const ids: number[] | undefined = await this.i18nCall<number[] | undefined>(ctx, "findByName", { type, name, language }, () => undefined);
      return {
        $or: [
          { $and: [{ lang: language }, originalCondition] },
          { $and: [translatedHere, ids ? { _id: { $in: ids } } : originalCondition] },
          { $and: [lacks(language), originalCondition] }
        ]
      };
    },

    /** Records with values in `language` besides their original. */
    async translatedInto(language: Language): Promise<number> {
      return this.store.count({ translations: language, lang: { $ne: language } });
    },
    /** Records with values in more than one language. */
    async translatedRecords(): Promise<number> {
      return this.store.count({ "translations.1": { $exists: true } });
    },

    async dropTranslations(ctx: CallOrNone, id: number): Promise<void> {
      await this.i18nCall(ctx, "remove", { type, id }, () => 0);
    }
  } satisfies ThisType<TranslatableSelf>;
}

/** What the mixin adds to a service (for services that type `this`). */
export type TranslatableMethods = ReturnType<typeof translatableMethods>;
/** The mixin's methods on a service with the store mixin's collection. */
interface TranslatableSelf extends Service, TranslatableMethods, Pick<StoreFace, "store"> {}

export function TranslatableMixin(opts: TranslatableOptions): ServiceSchema {
  return { name: "translatable", methods: translatableMethods(opts) };
}
