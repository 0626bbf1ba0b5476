/**
 * Hosts of sites (C49): a request names its site by its `Host` header (or `X-Forwarded-Host` when the
 * deployment trusts its proxy), compared case-insensitively, port included.
 */
import { memoOfText } from "../memo";

/** The two headers read here, as Node's `http` hands a request's headers over (names in lower case). */
type HostHeaders = { host?: string; "x-forwarded-host"?: string | string[] };

/** A host as stored and compared: lower case, no trailing dot, `:port` kept (`a.example:8080`). */
export function normalizeHost(raw: string): string {
  const lower = raw.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[^:]+)(:\d+)?$/.exec(lower);
  if (!m) return lower;
  return m[1].replace(/\.$/, "") + (m[2] ?? "");
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Whether `host` (normalised) is a host name or IP address, with an optional port 1–65535. */
export function isValidHost(host: string): boolean {
  if (host.length === 0 || host.length > 260) return false;
  const m = /^(\[[0-9a-f:.]+\]|[^:/?#@\s]+)(?::(\d{1,5}))?$/.exec(host);
  if (!m) return false;
  if (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535)) return false;
  const name = m[1];
  if (name.startsWith("[")) return true;
  return name.length <= 253 && name.split(".").every(label => LABEL.test(label));
}

/** The host a request names: `X-Forwarded-Host` (its first value) when the proxy is trusted, else `Host`. */
export function requestHost(headers: HostHeaders, trustProxy: boolean): string | undefined {
  const forwarded = trustProxy ? headers["x-forwarded-host"] : undefined;
  const value = Array.isArray(forwarded) ? forwarded[0] : forwarded;
  const chosen = value?.split(",")[0]?.trim() || headers.host;
  return chosen ? normalizeHost(chosen) : undefined;
}

/** The host (with port when not the scheme's default) of a base URL; undefined when it is not a URL. */
export const hostOfUrl: (url: string) => string | undefined = memoOfText(url => {
  try {
    const host = new URL(url).host;
    return host ? normalizeHost(host) : undefined;
  } catch {
    return undefined;
  }
});

/** Paths answered on any host: health, metrics and the platform API (C49: hosts choose the site). */
export function isSiteless(path: string): boolean {
  return /^\/(health|metrics|platform\/v1)(\/|\?|$)/.test(path);
}
