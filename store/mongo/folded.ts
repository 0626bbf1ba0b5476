/**
 * Folded copies of the texts of MongoDB documents, so that a literal pattern with the `i` flag compares
 * case- and accent-insensitively there as on the SQL stores (C37: `cafe` finds `Café`;
 * docs/lists.md#search). Every stored document carries `_folded`: its string fields, nested objects'
 * included (arrays not: no service searches one), folded by lib/text/fold.ts `foldText`, at the same paths.
 * A query's `{field: /literal/i}` is asked of `_folded.field` with the literal folded; a pattern without
 * the flag, or one that is not a literal, stays on the field itself. Writes keep the copies with the
 * fields: a replacement gets them anew, `$set` and `$unset` of a field set or unset its copy in the
 * same operation.
 */
import { foldText } from "../../lib/text/fold";
import { escapeRegex } from "../../lib/text/search";
import { anchoredLiteral, type Doc, type Query } from "../../lib/documents/store-query";

export const FOLDED = "_folded";

const isPlain = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof RegExp) && !(v instanceof Date);

/** The folded copy of a value: strings folded, plain objects by their fields; undefined when nothing is text. */
function foldedCopy(value: unknown): unknown {
  if (typeof value === "string") return foldText(value);
  if (!isPlain(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const f = foldedCopy(v);
    if (f !== undefined) out[k] = f;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The document as stored: with the folded copies of its texts (not of its key, nor of the copies). */
export function withFolded(doc: Doc): Doc {
  const { [FOLDED]: _old, ...fields } = doc;
  const { _id: _key, site: _site, ...texts } = fields;
  return { ...fields, [FOLDED]: foldedCopy(texts) ?? {} };
}

/** The document as the services see it: without the folded copies. */
export function withoutFolded<T extends Doc | null>(doc: T): T {
  if (!doc || !(FOLDED in doc)) return doc;
  const { [FOLDED]: _copies, ...fields } = doc;
  return fields as T;
}

/** An update that keeps the folded copies with the fields it writes. */
export function foldedUpdate(update: Doc): Doc {
  if (!Object.keys(update).some(k => k.startsWith("$"))) return withFolded(update);
  const set: Doc = { ...(update.$set ?? {}) };
  const unset: Doc = { ...(update.$unset ?? {}) };
  for (const [path, value] of Object.entries((update.$set ?? {}) as Doc)) {
    const copy = foldedCopy(value);
    if (copy === undefined) unset[`${FOLDED}.${path}`] = "";
    else set[`${FOLDED}.${path}`] = copy;
  }
  for (const path of Object.keys((update.$unset ?? {}) as Doc)) unset[`${FOLDED}.${path}`] = "";
  const out: Doc = { ...update };
  if (Object.keys(set).length) out.$set = set;
  if (Object.keys(unset).length) out.$unset = unset;
  return out;
}

/** The pattern asked of a folded copy, or undefined when `re` is not a literal compared without case. */
function foldedPattern(re: unknown): RegExp | undefined {
  if (!(re instanceof RegExp) || re.flags !== "i") return undefined;
  const anchored = anchoredLiteral(re);
  if (!anchored) return undefined;
  return new RegExp(`${anchored.start ? "^" : ""}${escapeRegex(foldText(anchored.text))}${anchored.end ? "$" : ""}`);
}

/** The conditions of one field, with its literal patterns moved onto its folded copy. */
function fieldConditions(field: string, cond: unknown): Query[] {
  const direct = foldedPattern(cond);
  if (direct) return [{ [`${FOLDED}.${field}`]: direct }];
  if (!isPlain(cond) || !Object.keys(cond).some(k => k.startsWith("$"))) return [{ [field]: cond }];
  const onCopy: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [op, arg] of Object.entries(cond)) {
    const pattern = op === "$regex" || op === "$not" ? foldedPattern(arg) : undefined;
    if (pattern) onCopy[op] = pattern;
    else rest[op] = arg;
  }
  const out: Query[] = [];
  if (Object.keys(onCopy).length) out.push({ [`${FOLDED}.${field}`]: onCopy });
  if (Object.keys(rest).length) out.push({ [field]: rest });
  return out;
}

/** The query with every literal pattern compared without case asked of the folded copies. */
export function foldedQuery(query: Query): Query {
  if (!isPlain(query)) return query;
  const parts: Query[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (key === "$and" || key === "$or" || key === "$nor") parts.push({ [key]: (value as Query[]).map(foldedQuery) });
    else if (key === "$not" && isPlain(value)) parts.push({ $not: foldedQuery(value) });
    else if (key.startsWith("$")) parts.push({ [key]: value });
    else parts.push(...fieldConditions(key, value));
  }
  // one object when the keys stayed apart (the query as it came), else every part required
  const keys = parts.flatMap(p => Object.keys(p));
  if (new Set(keys).size === keys.length) return Object.assign({}, ...parts);
  return { $and: parts };
}
