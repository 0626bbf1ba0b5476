/**
 * Query-string and body conventions shared by every route: booleans, integers, integer lists and the
 * refusal of objects or operators where a scalar belongs. Pure functions; the params rules (lib/http/params.ts)
 * turn them into validator rules.
 */

const TRUE_WORDS = new Set(["true", "1", "yes"]);
const FALSE_WORDS = new Set(["false", "0", "no"]);

/** Typed boolean parameters (C5: the boolean words): true/false, 1/0, yes/no, case-insensitive. undefined when not a boolean. */
export function parseBoolean(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v !== "string") return undefined;
  const s = v.trim().toLowerCase();
  if (TRUE_WORDS.has(s)) return true;
  if (FALSE_WORDS.has(s)) return false;
  return undefined;
}

/** The plugin's loose truthiness for untyped flags (has_events, only_with_upcoming, strict_dates…). */
export function isLooseTruthy(v: unknown): boolean {
  if (v === true || v === 1) return true;
  if (typeof v !== "string") return false;
  return ["1", "true", "yes", "y", "on", "enable", "enabled"].includes(v.trim().toLowerCase());
}

/** An integer given as a JSON integer or an integer-like string (`"2"`, `"2.0"`). */
export function parseInteger(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  if (!/^-?\d+(\.0+)?$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

export function parsePositiveInteger(v: unknown): number | undefined {
  const n = parseInteger(v);
  return n !== undefined && n > 0 ? n : undefined;
}

/** A list given as an array (`x[]=1&x[]=2`, JSON array) or a comma-separated string; blanks dropped. */
export function parseList(v: unknown): string[] | undefined {
  if (Array.isArray(v)) {
    const out: string[] = [];
    for (const item of v) {
      if (typeof item === "number" && Number.isFinite(item)) out.push(String(item));
      else if (typeof item === "string") out.push(...item.split(",").map(s => s.trim()).filter(Boolean));
      else return undefined;
    }
    return out;
  }
  if (typeof v === "number" && Number.isFinite(v)) return [String(v)];
  if (typeof v === "string") return v.split(",").map(s => s.trim()).filter(Boolean);
  return undefined;
}

/** A list of positive integers; undefined when any item is not one. */
export function parseIdList(v: unknown): number[] | undefined {
  const items = parseList(v);
  if (!items) return undefined;
  const ids: number[] = [];
  for (const item of items) {
    const n = parsePositiveInteger(item);
    if (n === undefined) return undefined;
    if (!ids.includes(n)) ids.push(n);
  }
  return ids;
}

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * True when a value carries a query operator or a prototype key at any depth (`{"$gt": 1}`,
 * `search[$where]=…`, `{"__proto__": …}`): such input is refused before it can reach a query.
 */
export function carriesOperator(v: unknown, depth = 0): boolean {
  if (depth > 20) return true;
  if (Array.isArray(v)) return v.some(item => carriesOperator(item, depth + 1));
  if (v && typeof v === "object") {
    for (const key of Object.keys(v)) {
      if (key.startsWith("$") || FORBIDDEN_KEYS.has(key)) return true;
      if (carriesOperator((v as Record<string, unknown>)[key], depth + 1)) return true;
    }
  }
  return false;
}
