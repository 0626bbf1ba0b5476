/**
 * The platform API's answers (docs/sites.md, C48): sites as `{id, host, name, base_url, timezone,
 * geolocation}`, the default site (id 1) built from the environment, and the check of the platform key.
 */
import { timingSafeEqual, createHash } from "crypto";
import type { Settings } from "../settings";
import { hostOfUrl } from "../sites/host";
import type { SiteFields } from "../sites/site-input";
import { DEFAULT_SITE_ID } from "../sites/scope";

export const PLATFORM_PATH = "/platform/v1";

export interface SiteAnswer extends SiteFields {
  id: number;
}

/** The default site as the environment configures it. */
export function defaultSiteAnswer(s: Settings): SiteAnswer {
  return { id: DEFAULT_SITE_ID, host: hostOfUrl(s.baseUrl) ?? s.baseUrl, name: s.siteName, base_url: s.baseUrl, timezone: s.siteTimezone, geolocation: true };
}

export function siteAnswer(row: SiteAnswer): SiteAnswer {
  return { id: row.id, host: row.host, name: row.name, base_url: row.base_url, timezone: row.timezone, geolocation: row.geolocation };
}

/** Whether an Authorization header carries the platform key (compared in constant time). */
export function isPlatformKey(header: string | undefined, platformKey: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!m) return false;
  const a = createHash("sha256").update(m[1]).digest();
  const b = createHash("sha256").update(platformKey).digest();
  return timingSafeEqual(a, b);
}

/** `page`/`per_page` of `GET /sites` (1-based, 1–100, default 20); undefined when invalid. */
export function pageOf(q: { page?: unknown; per_page?: unknown }): { page: number; perPage: number } | { bad: string } {
  const num = (v: unknown, dflt: number) => (v === undefined ? dflt : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : typeof v === "number" ? v : NaN);
  const page = num(q.page, 1);
  const perPage = num(q.per_page, 20);
  // safe integers only: a page past them has no offset any store takes (PostgreSQL's bigint refused it, 500)
  if (!Number.isSafeInteger(page) || page < 1) return { bad: "page" };
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) return { bad: "per_page" };
  if (!Number.isSafeInteger((page - 1) * perPage)) return { bad: "page" };
  return { page, perPage };
}
