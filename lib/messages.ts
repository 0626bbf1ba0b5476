/**
 * Message catalogs: every error message and human-readable text of the service, in the eight languages
 * of D19. The catalogs are data files, `locales/<lang>.json`, each a flat `{ key: text }` object with
 * `{name}` placeholders. English is the reference catalog and the fallback.
 */
import fs from "fs";
import path from "path";

export const LANGUAGES = ["bg", "zh-hans", "en", "fr", "de", "ja", "pt-br", "es"] as const;
export type Language = typeof LANGUAGES[number];
export const DEFAULT_LANGUAGE: Language = "en";

type Catalog = Record<string, string>;

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

export function isLanguage(v: unknown): v is Language {
  return typeof v === "string" && (LANGUAGES as readonly string[]).includes(v);
}

/**
 * The locales directory: `<root>/locales`. Compiled files live in dist/lib, two levels below the root;
 * the TypeScript sources live in lib, one level below it.
 */
function localesDir(): string {
  const fromDist = path.join(__dirname, "..", "..", "locales");
  if (fs.existsSync(path.join(fromDist, `${DEFAULT_LANGUAGE}.json`))) return fromDist;
  return path.join(__dirname, "..", "locales");
}

let catalogs: Record<Language, Catalog> | undefined;

function load(): Record<Language, Catalog> {
  if (catalogs) return catalogs;
  const dir = localesDir();
  const loaded = {} as Record<Language, Catalog>;
  for (const lang of LANGUAGES) loaded[lang] = require(path.join(dir, `${lang}.json`)) as Catalog;
  catalogs = loaded;
  return loaded;
}

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
  const all = load();
  const wanted = typeof lang === "string" ? lang.toLowerCase() : undefined;
  const catalog = isLanguage(wanted) ? all[wanted] : all[DEFAULT_LANGUAGE];
  const text = hasOwn(catalog, key) ? catalog[key] : hasOwn(all[DEFAULT_LANGUAGE], key) ? all[DEFAULT_LANGUAGE][key] : key;
  return substitute(text, params);
}

/** Whether `key` is a message of the (reference) English catalog. */
export function hasMessage(key: string): boolean {
  return hasOwn(load()[DEFAULT_LANGUAGE], key);
}
