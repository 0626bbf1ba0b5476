/**
 * Languages of records (the i18n issue, D19): the spec's order, the language a request is served in,
 * and which languages a stored record has values in.
 */
import { DEFAULT_LANGUAGE, isLanguage, Language, LANGUAGES } from "./messages";

export { LANGUAGES, isLanguage };
export type { Language };

/** What a record stores about its languages: the original (`lang`) and every language with values. */
export interface LanguageFields {
  lang?: string;
  translations?: readonly string[];
}

/** `list` without duplicates and unknown values, in the spec's order (`bg, zh-hans, en, fr, de, ja, pt-br, es`). */
export function orderLanguages(list: Iterable<string>): Language[] {
  const wanted = new Set(list);
  return LANGUAGES.filter(lang => wanted.has(lang));
}

/** A configured default language, `en` when the setting names none of the eight. */
export function defaultLanguageOf(setting: string | undefined): Language {
  return isLanguage(setting) ? setting : DEFAULT_LANGUAGE;
}

/** The language a request is served in: the one asked for when valid, else the default. */
export function resolveLanguage(asked: unknown, defaultLanguage: string | undefined): Language {
  return isLanguage(asked) ? asked : defaultLanguageOf(defaultLanguage);
}

/** The record's original language (records written before languages were kept: the default). */
export function originalLanguage(doc: LanguageFields, defaultLanguage: string | undefined): Language {
  return resolveLanguage(doc.lang, defaultLanguage);
}

/** Languages the record has values in, spec order; always includes its original language. */
export function translationsOf(doc: LanguageFields, defaultLanguage: string | undefined): Language[] {
  return orderLanguages([originalLanguage(doc, defaultLanguage), ...(doc.translations ?? [])]);
}

/** Whether serving `doc` in `language` needs values from the i18n service. */
export function needsValues(doc: LanguageFields, language: string, defaultLanguage: string | undefined): boolean {
  return originalLanguage(doc, defaultLanguage) !== language && (doc.translations ?? []).includes(language);
}
