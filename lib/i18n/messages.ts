/**
 * Message catalogs: every error message and human-readable text of the service, in the eight languages
 * of D19. The catalogs are data files, `locales/<lang>.json`, each a flat `{ key: text }` object with
 * `{name}` placeholders. English is the reference catalog and the fallback.
 */
import bg from "../../locales/bg.json";
import de from "../../locales/de.json";
import en from "../../locales/en.json";
import es from "../../locales/es.json";
import fr from "../../locales/fr.json";
import ja from "../../locales/ja.json";
import ptBr from "../../locales/pt-br.json";
import zhHans from "../../locales/zh-hans.json";

export const LANGUAGES = ["bg", "zh-hans", "en", "fr", "de", "ja", "pt-br", "es"] as const;
export type Language = typeof LANGUAGES[number];
export const DEFAULT_LANGUAGE: Language = "en";

type Catalog = Record<string, string>;

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

export function isLanguage(v: unknown): v is Language {
  return typeof v === "string" && (LANGUAGES as readonly string[]).includes(v);
}

/** The catalogs, imported with the code (the compiler copies them beside it). */
const CATALOGS: Readonly<Record<Language, Catalog>> = { bg, "zh-hans": zhHans, en, fr, de, ja, "pt-br": ptBr, es };

/** Replaces each `{name}` whose name is in `params`; unknown placeholders are left as they are. */
function substitute(text: string, params?: Record<string, string | number>): string {
  if (!params) return text;
  return text.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => (hasOwn(params, name) ? String(params[name]) : whole));
}

/**
 * The text of `key` in `lang` with its placeholders filled from `params`. An unknown or missing language
 * reads English; a key missing from the language's catalog falls back to English, then to the key itself.
 */
export function translate(key: string, lang: string | undefined, params?: Record<string, string | number>): string {
  const all = CATALOGS;
  const wanted = typeof lang === "string" ? lang.toLowerCase() : undefined;
  const catalog = isLanguage(wanted) ? all[wanted] : all[DEFAULT_LANGUAGE];
  const text = hasOwn(catalog, key) ? catalog[key] : hasOwn(all[DEFAULT_LANGUAGE], key) ? all[DEFAULT_LANGUAGE][key] : key;
  return substitute(text, params);
}

/** Whether `key` is a message of the (reference) English catalog. */
export function hasMessage(key: string): boolean {
  return hasOwn(CATALOGS[DEFAULT_LANGUAGE], key);
}
