/**
 * Paging of the post lists (events, venues, organizers): page/per_page rules, the envelope links of D10 (list links carry what the caller sent)
 * (every recognised parameter the caller sent, in a fixed order) and the paging headers (D35).
 */
import { totalHeaders } from "../http/list-totals";

export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 50;

export interface Page {
  page: number;
  perPage: number;
  skip: number;
}

export function pageOf(params: { page?: number; per_page?: number }): Page {
  const page = params.page ?? 1;
  const perPage = Math.min(params.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, skip: (page - 1) * perPage };
}

/**
 * The total a page settles on its own, without counting: a page with room left ends the list, so the
 * total is what came before it plus what it holds. A page past the end (empty, not the first) settles
 * nothing: how far the list goes is then unknown. Undefined: count.
 */
export function totalFromPage(page: Page, found: number): number | undefined {
  if (found >= page.perPage) return undefined;
  if (found === 0 && page.skip > 0) return undefined;
  return page.skip + found;
}

export function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

/** Query-string value of a sent parameter: arrays as comma lists, the rest as sent. */
function linkValue(v: unknown): string {
  return Array.isArray(v) ? v.join(",") : String(v);
}

/**
 * `rest_url`, `next_rest_url`, `previous_rest_url` of a post list. `sent` holds the raw parameters the
 * caller sent; `order` the recognised ones in link order (page and per_page first, always present).
 */
export function listLinks(base: string, order: readonly string[], sent: Record<string, unknown>, page: Page, total: number) {
  const pairs: Array<[string, string]> = [];
  for (const name of order) {
    if (name === "page" || name === "per_page") continue;
    const v = sent[name];
    // an object parameter (`meta[stage]=main`) is carried as it was sent, one bracketed key each
    if (v && typeof v === "object" && !Array.isArray(v)) for (const [key, item] of Object.entries(v)) pairs.push([`${name}[${key}]`, linkValue(item)]);
    else if (v !== undefined && v !== null) pairs.push([name, linkValue(v)]);
  }
  const qs = (items: Array<[string, string]>) => items.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
  const withoutPage: Array<[string, string]> = [["per_page", String(page.perPage)], ...pairs];
  const pages = totalPages(total, page.perPage);
  const links: { rest_url: string; next_rest_url?: string; previous_rest_url?: string } = {
    rest_url: `${base}?${qs([["page", String(page.page)], ...withoutPage])}`
  };
  if (page.page < pages) links.next_rest_url = `${base}?${qs([...withoutPage, ["page", String(page.page + 1)]])}`;
  if (page.page > 1 && page.page - 1 <= pages) {
    links.previous_rest_url = page.page - 1 === 1 ? `${base}?${qs(withoutPage)}` : `${base}?${qs([...withoutPage, ["page", String(page.page - 1)]])}`;
  }
  return links;
}

/** The paging headers of every list (X-TEC-*, X-WP-*, Link). */
export function pagingHeaders(total: number, perPage: number, links: { next_rest_url?: string; previous_rest_url?: string }): Record<string, string> {
  const pages = String(totalPages(total, perPage));
  const headers: Record<string, string> = {
    "X-TEC-Total": String(total),
    "X-TEC-TotalPages": pages,
    ...totalHeaders(total, pages)
  };
  const link: string[] = [];
  if (links.previous_rest_url) link.push(`<${links.previous_rest_url}>; rel="prev"`);
  if (links.next_rest_url) link.push(`<${links.next_rest_url}>; rel="next"`);
  if (link.length) headers.Link = link.join(", ");
  return headers;
}
