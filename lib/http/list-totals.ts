/**
 * The totals every list answer carries in its headers (WordPress's `X-WP-Total`, `X-WP-TotalPages`;
 * docs/lists.md): written here once, for the record lists (lib/posts/paging.ts), the terms
 * (lib/terms/term-query.ts) and the administrative lists (webhooks, imports, field definitions, sites).
 */
import type { CallMeta } from "./call-meta";

/** `X-WP-Total` and `X-WP-TotalPages` of a list of `total` records in `pages` pages. */
export function totalHeaders(total: number, pages: number | string): Record<string, string> {
  return { "X-WP-Total": String(total), "X-WP-TotalPages": String(pages) };
}

/** Adds a list's totals to the headers its answer already has. */
export function answerTotals(meta: CallMeta, total: number, pages: number): void {
  meta.$responseHeaders = { ...(meta.$responseHeaders ?? {}), ...totalHeaders(total, pages) };
}
