/**
 * The platform API's site fields (docs/sites.md): checks and defaults of `POST /sites` and
 * `POST /sites/{id}`. Errors are 400 `rest_invalid_param` naming each bad field (C48: the platform API).
 */
import moment from "moment-timezone";
import { ApiError, ParamReason } from "../errors";
import { isRole } from "../access/callers";
import { isValidHost, normalizeHost } from "./host";

export interface SiteFields {
  host: string;
  name: string;
  base_url: string;
  timezone: string;
  geolocation: boolean;
}

export interface SiteInput {
  host?: unknown;
  name?: unknown;
  base_url?: unknown;
  timezone?: unknown;
  geolocation?: unknown;
}

const BOOLEAN: Record<string, boolean> = { true: true, false: false, "1": true, "0": false, yes: true, no: false };

function bool(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (typeof v === "number" && (v === 0 || v === 1)) return v === 1;
  return typeof v === "string" ? BOOLEAN[v.trim().toLowerCase()] : undefined;
}

function baseUrlOf(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  try {
    const u = new URL(v.trim());
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    if (u.search || u.hash || u.username || u.password) return undefined;
    return u.toString().replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

/** The fields of a new site (`creating`) or of an update over `current`; throws 400 naming each bad field. */
export function siteFields(input: SiteInput, current?: SiteFields): SiteFields {
  const bad: Record<string, ParamReason> = {};
  let host = current?.host;
  if (input.host !== undefined || !current) {
    const h = typeof input.host === "string" ? normalizeHost(input.host) : "";
    if (!isValidHost(h)) bad.host = { key: "param.invalid" };
    else host = h;
  }
  let name = current?.name;
  if (input.name !== undefined) {
    if (typeof input.name !== "string" || input.name.trim() === "" || input.name.length > 200) bad.name = { key: "param.invalid" };
    else name = input.name.trim();
  }
  let baseUrl = current?.base_url;
  if (input.base_url !== undefined) {
    const u = baseUrlOf(input.base_url);
    if (!u) bad.base_url = { key: "param.invalid" };
    else baseUrl = u;
  }
  let timezone = current?.timezone ?? "UTC";
  if (input.timezone !== undefined) {
    if (typeof input.timezone !== "string" || !moment.tz.zone(input.timezone)) bad.timezone = { key: "param.invalid" };
    else timezone = moment.tz.zone(input.timezone)!.name;
  }
  let geolocation = current?.geolocation ?? false;
  if (input.geolocation !== undefined) {
    const b = bool(input.geolocation);
    if (b === undefined) bad.geolocation = { key: "param.invalid" };
    else geolocation = b;
  }
  if (Object.keys(bad).length) throw ApiError.invalidParams(bad);
  return { host: host!, name: name ?? host!, base_url: baseUrl ?? `http://${host}`, timezone, geolocation };
}

/** `POST /sites/{id}/keys`: a role and an optional positive user id. */
export function keyFields(input: { role?: unknown; user_id?: unknown }): { role: string; userId?: number } {
  const bad: Record<string, ParamReason> = {};
  const role = typeof input.role === "string" ? input.role.trim() : "";
  if (!isRole(role)) bad.role = { key: "param.invalid" };
  let userId: number | undefined;
  if (input.user_id !== undefined && input.user_id !== null) {
    const n = typeof input.user_id === "string" && /^\d+$/.test(input.user_id) ? Number(input.user_id) : input.user_id;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) bad.user_id = { key: "param.invalid" };
    else userId = n;
  }
  if (Object.keys(bad).length) throw ApiError.invalidParams(bad);
  return { role, userId };
}
