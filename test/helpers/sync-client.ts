/**
 * A sync client of the change feed (`GET {ns}/changes`), as an outside client would write one: it replays
 * the feed page by page (`next_token`) into a local copy keyed by type and id, and compares that copy with
 * the full lists. Used by test/integration/sync-*.test.ts.
 */
import type { KeyName, Running } from "./harness";
import type { Json } from "./json";

export type Copy = Map<string, Record<string, unknown>>;

export interface Change {
  type: string;
  id: number;
  action: "created" | "updated" | "deleted";
  modified_utc: string;
  record?: Record<string, unknown>;
}

export interface FeedPage {
  changes: Change[];
  next_token: string;
  has_more: boolean;
}

export const keyOf = (type: string, id: number): string => `${type}:${id}`;

/** GET {ns}/changes with these query parameters. */
export async function feedPage(svc: Running, query: Record<string, string | number>, as?: KeyName, headers: Record<string, string> = {}) {
  const qs = new URLSearchParams(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)]))).toString();
  // an error answer has the contract's shape instead
  return svc.request<FeedPage & { code?: string; message?: string; data?: Json }>("GET", `${svc.ns}/changes${qs ? `?${qs}` : ""}`, { as, headers });
}

/**
 * Applies the feed from `token` (none: from the beginning) to `copy` until `has_more` is false. Answers the
 * last token, the number of pages and every change read.
 */
export async function syncFeed(svc: Running, copy: Copy, opts: { as?: KeyName; token?: string; perPage?: number; query?: Record<string, string> } = {}) {
  let token = opts.token;
  let pages = 0;
  const seen: Change[] = [];
  for (;;) {
    const res = await feedPage(svc, { ...(token ? { since: token } : {}), per_page: opts.perPage ?? 3, ...(opts.query ?? {}) }, opts.as);
    if (res.status !== 200) throw new Error(`feed answered ${res.status}: ${res.text}`);
    pages += 1;
    for (const change of res.body.changes) {
      seen.push(change);
      if (change.action === "deleted") copy.delete(keyOf(change.type, change.id));
      else copy.set(keyOf(change.type, change.id), change.record!);
    }
    token = res.body.next_token;
    if (!res.body.has_more) break;
    if (pages > 1000) throw new Error("the feed does not end");
  }
  return { token: token!, pages, seen };
}

const LISTS: Array<{ type: string; path: string; key: string; query: string }> = [
  { type: "event", path: "/events", key: "events", query: "start_date=2000-01-01&end_date=2100-12-31" },
  { type: "venue", path: "/venues", key: "venues", query: "" },
  { type: "organizer", path: "/organizers", key: "organizers", query: "" },
  { type: "category", path: "/categories", key: "categories", query: "hide_empty=false" },
  { type: "tag", path: "/tags", key: "tags", query: "hide_empty=false" }
];

/** Every record the five lists show this caller (all pages), keyed as the copy is. */
export async function fullLists(svc: Running, as?: KeyName, extra = ""): Promise<Copy> {
  const out: Copy = new Map();
  for (const list of LISTS) {
    for (let page = 1; ; page++) {
      const q = [list.query, `per_page=50&page=${page}`, extra].filter(Boolean).join("&");
      const res = await svc.request("GET", `${list.path}?${q}`, { as });
      if (res.status === 404 && page > 1) break;
      if (res.status !== 200) throw new Error(`${list.path} answered ${res.status}: ${res.text}`);
      const items: Array<Record<string, unknown>> = res.body[list.key];
      for (const item of items) out.set(keyOf(list.type, item.id as number), item);
      if (items.length < 50) break;
    }
  }
  return out;
}

/** The copy as a plain object sorted by key (readable diffs in failures). */
export function sorted(copy: Copy): Record<string, unknown> {
  return Object.fromEntries([...copy.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
}
