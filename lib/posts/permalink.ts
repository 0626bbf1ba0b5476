/**
 * Permalinks of posts (D20, C7: which records get a query-string permalink) and the global id of a record.
 */
import { memoOfText } from "../memo";

export type PostTypeName = "tribe_events" | "tribe_venue" | "tribe_organizer";

const URL_SEGMENT: Record<PostTypeName, string> = { tribe_events: "event", tribe_venue: "venue", tribe_organizer: "organizer" };
const QUERY_STATUSES = new Set(["draft", "pending", "auto-draft", "future"]);

/** `{site}/event/{slug}/`, or `{site}/?post_type=…&p={id}` for drafts, pending, future and empty slugs. */
export function permalink(site: string, type: PostTypeName, record: { _id: number; slug: string; status: string }): string {
  if (!record.slug || QUERY_STATUSES.has(record.status)) return `${site}/?post_type=${type}&p=${record._id}`;
  return `${site}/${URL_SEGMENT[type]}/${record.slug}/`;
}

/** `{host}{path}` of a base URL (no scheme, no port), or the text itself when it is not a URL. */
const globalBase = memoOfText(baseUrl => {
  try {
    const u = new URL(baseUrl);
    return `${u.hostname}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return baseUrl;
  }
});

/** `{host}{path}?id={id}`: host and path of the base URL, no scheme, no port. */
export function globalId(baseUrl: string, id: number): string {
  return `${globalBase(baseUrl)}?id=${id}`;
}
