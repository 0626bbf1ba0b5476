/**
 * The gateway's response cache: a GET answered 200 is kept, serialised, under its method, URL, caller
 * (Authorization) and Accept header, in the broker's cacher, and answered from there (with its ETag, so
 * `If-None-Match` still gives 304) until a write makes it stale (cache/staleness.ts). Only where every
 * write cleans the cache this gateway reads: one process (one cacher for all), a shared Redis cacher, or
 * the writers' clean broadcast.
 */
import { createHash } from "crypto";
import type { IncomingMessage } from "http";
import { currentSiteId } from "../lib/sites/scope";
import { dependencyOfUrl, keyPrefix } from "./staleness";
import { NAMESPACE_PATH } from "../lib/settings";

const NAMESPACE = `/${NAMESPACE_PATH}`;
/**
 * Routes whose answers are never kept: a site's webhooks and their deliveries (docs/webhooks.md), its
 * imports (docs/imports.md): both change in the background, with no write that would clean them.
 */
const NEVER_KEPT = new RegExp(`${NAMESPACE}/(?:webhooks|imports)(?:[/?]|$)`);

/** Headers of a kept answer that are replayed with it. */
const KEPT_HEADERS = ["content-type", "etag", "last-modified", "vary", "link", "x-tec-total", "x-tec-totalpages", "x-wp-total",
  "x-wp-totalpages", "content-disposition"];

export interface KeptResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What a plain list page's key holds: the key of its body (cache/staleness.ts, `L` and `B`). */
export interface KeptRef {
  ref: string;
}

export function isKeptRef(kept: KeptResponse | KeptRef | null | undefined): kept is KeptRef {
  return !!kept && typeof (kept as KeptRef).ref === "string";
}

/**
 * The ids of the events a list answer shows, in order: its records' (`events`), or those the action named
 * for the page it answered as text (lib/http/call-meta.ts `$answerIds`); undefined for any other answer.
 */
export function shownIds(data: unknown, textIds: readonly number[] | undefined): unknown[] | undefined {
  if (typeof data === "string") return textIds ? [...textIds] : undefined;
  const events = data && typeof data === "object" ? (data as { events?: unknown }).events : undefined;
  return Array.isArray(events) ? events.map(e => (e && typeof e === "object" ? (e as { id?: unknown }).id : undefined)) : undefined;
}

/**
 * What a list page's body is kept by: the ids of the events it shows (`shownIds`) and its total
 * (`X-WP-Total`), or undefined when the answer is no events list (it is then not kept).
 */
export function listPageOf(ids: readonly unknown[] | undefined, headers: Record<string, string>): { total: number; ids: number[] } | undefined {
  const total = Number(headers["x-wp-total"]);
  if (!ids || headers["x-wp-total"] === undefined || !Number.isInteger(total)) return undefined;
  return ids.every(id => Number.isInteger(id)) ? { total, ids: ids as number[] } : undefined;
}

const encoded = new WeakMap<KeptResponse, Buffer>();

/**
 * The bytes of a kept body, encoded once per kept answer: a memory cacher hands out the same object on
 * every hit (a shared cacher a new one, encoded then).
 */
export function keptBytes(kept: KeptResponse): Buffer {
  let bytes = encoded.get(kept);
  if (!bytes) encoded.set(kept, (bytes = Buffer.from(kept.body, "utf8")));
  return bytes;
}

/** Keys computed lately, by what they hash (a repeated request is not hashed again); dropped when full. */
const recentKeys = new Map<string, string>();
const RECENT_KEYS_MAX = 10_000;

/**
 * The key of a request, or undefined when its answer is not kept (not a plain GET). The request's parts
 * are hashed, so no URL or credential appears in a shared cacher's key names.
 */
export function responseKey(req: IncomingMessage & { originalUrl?: string }): string | undefined {
  if (req.method !== "GET") return undefined;
  // Answers that move without a write through the API (deliveries made in the background) are never kept.
  if (NEVER_KEPT.test(req.originalUrl ?? req.url ?? "")) return undefined;
  if (req.headers["if-match"] !== undefined) return undefined;
  // The site is part of the key: two sites answer the same URL differently (docs/sites.md).
  const site = currentSiteId();
  const url = req.originalUrl ?? req.url ?? "";
  const text = `${site}\u0000${url}\u0000${req.headers.authorization ?? ""}\u0000${req.headers.accept ?? ""}`;
  let key = recentKeys.get(text);
  if (key === undefined) {
    if (recentKeys.size >= RECENT_KEYS_MAX) recentKeys.clear();
    // what the answer depends on leads the key, so a write cleans only what it made stale (cache/staleness.ts)
    key = keyPrefix("RESP", site, dependencyOfUrl(url, NAMESPACE)) + createHash("sha1").update(text).digest("base64url");
    recentKeys.set(text, key);
  }
  return key;
}

/** The headers worth replaying, taken from an answer about to be sent. */
export function keptHeaders(get: (name: string) => unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const v = get(name);
    if (v !== undefined && v !== null) out[name] = Array.isArray(v) ? v.join(", ") : String(v);
  }
  return out;
}

/** Does an `If-None-Match` header name this ETag (or `*`)? */
export function etagMatches(ifNoneMatch: string | undefined, etag: string | undefined): boolean {
  if (!ifNoneMatch || !etag) return false;
  return ifNoneMatch.split(",").map(t => t.trim()).some(t => t === "*" || t === etag || t === `W/${etag}`);
}
