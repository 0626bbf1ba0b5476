/**
 * HTTP caching (C22: caching headers and shaping): strong ETags that vary with the caller and the language, `Last-Modified` from the
 * records' `modified_utc`, and the `If-Match` precondition of updates and deletes (412
 * `rest_precondition_failed` when the record moved on). `If-None-Match` / `If-Modified-Since` → 304 is
 * moleculer-web's freshness check on the headers set here.
 */
import { createHash } from "crypto";
import type { Caller } from "../access/callers";
import { memoOfText } from "../memo";
import { fromDb } from "../time/dates";

/** Who an answer was made for: `anon`, a caller `id:role`, or `internal` (no caller in meta). */
export function callerScope(caller: Caller | null | undefined): string {
  if (caller === undefined) return "internal";
  if (caller === null) return "anon";
  return `${caller.id}:${caller.role}`;
}

/** The hash of an answer's bytes an ETag is made of (a stored answer keeps its own beside it). */
export function bodyTag(payload: string | Buffer): string {
  return createHash("sha256").update(payload).digest("base64url");
}

/**
 * The hash an ETag of a text made of parts is made of (a list page: its records' texts in the envelope's
 * text), from the parts' own tags (`bodyTag` of each) and the text around them: it changes whenever a
 * byte does, and the page is not hashed again whole.
 */
export function partsTag(tags: readonly string[], around: string): string {
  return createHash("sha256").update(tags.join(",")).update("\n").update(around).digest("base64url");
}

/** The part of an ETag that names the caller and the language: a few characters of their hash. */
const scopeTag = memoOfText(scope => createHash("sha256").update(scope).digest("base64url").slice(0, 6), 256);

/** A strong ETag of the bytes whose `bodyTag` is `tag`, for this caller and language. */
export function etagOf(tag: string, caller: Caller | null | undefined, language: string | undefined): string {
  return `"${tag.slice(0, 26)}${scopeTag(`${callerScope(caller)}\n${language ?? ""}`)}"`;
}

/** A strong ETag of exactly these bytes, for this caller and language. */
export function strongEtag(payload: string | Buffer, caller: Caller | null | undefined, language: string | undefined): string {
  return etagOf(bodyTag(payload), caller, language);
}

const DB_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const isDb = (v: unknown): v is string => typeof v === "string" && DB_RE.test(v) && !v.startsWith("0000");

/** The newest of some `modified_utc` values (DB strings), or undefined. */
export function newestModified(values: Iterable<unknown>): string | undefined {
  let newest: string | undefined;
  for (const v of values) if (isDb(v) && (newest === undefined || v > newest)) newest = v;
  return newest;
}

const LIST_KEYS = ["events", "venues", "organizers", "categories", "tags"];

/**
 * The `modified_utc` an answer is as new as: a record's own, or (a `.list` action) the newest among its
 * page's records. Undefined when the body carries none (terms, whose modified time is internal, set the
 * header themselves).
 */
export function bodyModified(action: string, body: unknown): string | undefined {
  if (!body || typeof body !== "object" || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (action.endsWith(".list")) {
    const key = LIST_KEYS.find(k => Array.isArray(b[k]));
    return key ? newestModified((b[key] as Array<Record<string, unknown>>).map(r => r?.modified_utc)) : undefined;
  }
  return isDb(b.modified_utc) ? b.modified_utc : undefined;
}

/** A DB string (UTC) as an HTTP date. */
export const httpDate = memoOfText((db: string) => fromDb(db).toUTCString(), 1024);

/** `Last-Modified` for the newest of some stored `modified_utc` values ({} when there is none). */
export function lastModifiedHeader(values: Iterable<unknown>): Record<string, string> {
  const newest = newestModified(values);
  return newest ? { "Last-Modified": httpDate(newest) } : {};
}

/** The entity tags of an `If-Match` / `If-None-Match` header; `["*"]` for the wildcard. */
export function parseEtags(header: string): string[] {
  const tags: string[] = [];
  const re = /\s*(\*|(?:W\/)?"[^"]*")\s*(?:,|$)/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(header)) !== null) {
    tags.push(m[1]);
    if (re.lastIndex >= header.length) break;
  }
  return tags;
}

/**
 * RFC 9110 §13.2.2 for a GET: whether the client's copy is current (answer 304). `If-None-Match` (weak
 * comparison, `*` matches) decides when sent; otherwise `If-Modified-Since` against `Last-Modified` (second
 * precision). The origin evaluates them whatever `Cache-Control` the request carries (fetch clients send
 * `no-cache` with every conditional request).
 */
export function notModified(headers: { ifNoneMatch?: string; ifModifiedSince?: string }, etag: string, lastModified: string | undefined): boolean {
  if (headers.ifNoneMatch !== undefined) {
    const tags = parseEtags(headers.ifNoneMatch);
    const bare = (t: string) => (t.startsWith("W/") ? t.slice(2) : t);
    return tags.includes("*") || tags.some(t => bare(t) === bare(etag));
  }
  if (headers.ifModifiedSince !== undefined && lastModified !== undefined) {
    const since = Date.parse(headers.ifModifiedSince);
    const modified = Date.parse(lastModified);
    return Number.isFinite(since) && Number.isFinite(modified) && modified <= since;
  }
  return false;
}

/**
 * RFC 9110 §13.1.1 with strong comparison: true when `*` (a current representation exists) or one listed
 * strong tag equals the current one. Weak tags never match.
 */
export function ifMatchPasses(header: string, current: string): boolean {
  const tags = parseEtags(header);
  if (tags.includes("*")) return true;
  return tags.some(t => !t.startsWith("W/") && t === current);
}
