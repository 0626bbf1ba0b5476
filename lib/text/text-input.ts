/**
 * Text every store can keep (docs/errors.md#text-every-store-keeps): well-formed Unicode without U+0000.
 * PostgreSQL keeps neither a NUL character nor an unpaired surrogate in its text and JSON columns; SQLite
 * and MongoDB would keep both. So that a write or a search is answered alike on every store, such text is
 * refused at the door of every action (middlewares/text-input.middleware.ts), the parameter named.
 */

/** A surrogate half without its other half (NUL is looked for on its own). */
const UNPAIRED = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Nesting followed at most: deeper input is refused (the gateway refuses it too, lib/http/query.ts `carriesOperator`). */
const MAX_DEPTH = 32;

/** Whether a text has more than `max` characters, counted as the stores count them (an emoji is one). */
export function longerThan(text: string, max: number): boolean {
  return text.length > max && Array.from(text).length > max;
}

export function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && !UNPAIRED.test(text);
}

/** Whether a value holds, at any depth, a string or an object key that is not storable text. */
export function carriesUnstorableText(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return !isStorableText(value);
  if (value === null || typeof value !== "object") return false;
  if (depth >= MAX_DEPTH) return true;
  if (Array.isArray(value)) return value.some(item => carriesUnstorableText(item, depth + 1));
  for (const [key, item] of Object.entries(value)) {
    if (!isStorableText(key) || carriesUnstorableText(item, depth + 1)) return true;
  }
  return false;
}

/**
 * The first of `names` (every key of `params` when no names are given) whose value is not storable text,
 * else undefined.
 */
export function unstorableParam(params: unknown, names?: readonly string[]): string | undefined {
  if (params === null || typeof params !== "object" || Array.isArray(params)) return undefined;
  const record = params as Record<string, unknown>;
  for (const name of names ?? Object.keys(record)) {
    if (Object.prototype.hasOwnProperty.call(record, name) && carriesUnstorableText(record[name])) return name;
  }
  return undefined;
}
