/**
 * The service's settings, read once from the environment (docs/contract.md#settings). Everything that
 * depends on the deployment goes through here; nothing else reads process.env.
 */
import * as path from "path";
import { currentSite } from "./sites/scope";
import { parseRetrySchedule } from "./webhooks/schedule";

export interface Settings {
  port: number;
  host: string;
  baseUrl: string;
  restPrefix: string;
  dataDir: string;
  /** DATABASE_URL: PostgreSQL (postgres:// or postgresql://) instead of the embedded SQLite store. */
  databaseUrl?: string;
  mongoUri?: string;
  /** DATABASE_CONNECT_TIMEOUT (ms): how long start-up waits for PostgreSQL or MongoDB. */
  databaseConnectTimeout: number;
  /** DATABASE_POOL_MAX: the most PostgreSQL connections one process opens for its queries (default 10). */
  databasePoolMax: number;
  /** DATABASE_LOOKUP_POOL_MAX: PostgreSQL connections one process opens for lookups by key (default: half of DATABASE_POOL_MAX, rounded up; 0: none of their own). */
  databaseLookupPoolMax: number;
  /** SQLITE_CACHE_MB: the most megabytes of the SQLite store's pages one process keeps in memory (unset: the store's default, 128). */
  sqliteCacheMb?: number;
  transporter?: string;
  services: string[];
  cacher?: string;
  /** CACHE_MAX_MB: the most an in-process cache keeps (megabytes of kept JSON, default 32; cache/bounded-cacher.ts). */
  cacheMaxMb: number;
  namespace: string;
  metricsPort: number;
  siteTimezone: string;
  /** SITE_NAME: the calendar's name where the service names it (the iCalendar name); default BASE_URL's host name (C57: the site's home). */
  siteName: string;
  rateLimit?: { limit: number; windowMs: number };
  apiKeys?: string;
  requestTimeout: number;
  /** SERIES_JOB_MS: how often each node moves the recurring series' horizon forward (ms, default an hour; 0: never). */
  seriesJobMs: number;
  /** DUE_EVENTS_JOB_MS: how often each node publishes the `future` events whose date has passed (ms, default a minute; 0: never, writes still do). */
  dueEventsJobMs: number;
  defaultLanguage: string;
  /**
   * STORED_RENDERINGS (on by default; `0` or `false` turns it off): a single event, an events list page,
   * a venue or an organizer read anonymously in `view` context and the default language answers from the
   * stored renderings of the records (docs/caching.md#stored-renderings), and the reads that compute such an
   * answer keep them. The SQL stores keep them; MongoDB computes every answer.
   */
  storedRenderings: boolean;
  /** RENDERINGS_UNREAD_DAYS: the stored renderings of a variant nobody read for this many days are removed (default 7; 0: never). */
  renderingsUnreadDays: number;
  logLevel: string;
  /** CORS_ORIGINS: `*` (any origin) or the list of allowed origins. */
  corsOrigins: "*" | string[];
  /** PLATFORM_KEY: enables the platform API (sites, docs/sites.md); unset, it answers 404. */
  platformKey?: string;
  /** TRUST_PROXY=1: a request's site is named by `X-Forwarded-Host` when present (C49: hosts choose the site). */
  trustProxy: boolean;
  /** OUTBOUND_ALLOW_PRIVATE=1: webhook endpoints and import sources may be loopback or private addresses (lib/outbound/addresses.ts). */
  outboundAllowPrivate: boolean;
  /** Whether the geolocation add-on is on for the site (always for the default site: the service decides). */
  geolocation: boolean;
  /** The webhooks service's settings (docs/webhooks.md#settings). */
  webhooks: WebhookSettings;
  /** CUSTOM_FIELDS_MAX: the most custom field definitions one site may have, all object types together (default 100). */
  customFieldsMax: number;
  /** BATCH_MAX_REQUESTS: the most requests one `batch/v1` request may carry (WordPress's default, 25). */
  batchMax: number;
}

export interface WebhookSettings {
  /** WEBHOOK_RETRY_SCHEDULE: seconds before each retry. */
  retrySchedule: number[];
  /** WEBHOOK_TIMEOUT_MS: one attempt's deadline. */
  timeoutMs: number;
  /** WEBHOOK_DISABLE_AFTER_HOURS: an endpoint failing without a success this long is made inactive. */
  disableAfterHours: number;
  /** WEBHOOK_POLL_MS: how often each node looks for work besides the bus's wake-ups. */
  pollMs: number;
  /** WEBHOOK_CONCURRENCY / WEBHOOK_ENDPOINT_CONCURRENCY: attempts in flight per node, and per endpoint on a node. */
  concurrency: number;
  endpointConcurrency: number;
  /** WEBHOOK_SECRET_KEY: endpoints' secrets are kept encrypted under it (unset: kept as they are). */
  secretKey?: string;
  /** WEBHOOK_RETENTION_DAYS: deliveries and their payloads are removed this long after they were made. */
  retentionDays: number;
  /** WEBHOOK_RETENTION_JOB_MS: how often the removal runs (one node at a time per site). */
  retentionJobMs: number;
  /** WEBHOOK_DATABASE_POOL_MAX: PostgreSQL connections of the webhooks' own pool (deliveries never queue behind record writes). */
  poolMax: number;
}

export const ALL_SERVICES = ["api", "events", "venues", "organizers", "taxonomy", "geolocation", "i18n", "changes", "platform", "webhooks", "imports"] as const;
/** Path language segments that may precede the REST prefix (docs/contract.md#addresses, docs/i18n.md). */
export const PATH_LANGUAGES = ["pt-br", "zh-hans", "fr"] as const;
export const NAMESPACE_PATH = "calendar/events/v1";

function parseCacheMaxMb(v: string | undefined): number {
  if (v === undefined || v.trim() === "") return 32;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`CACHE_MAX_MB must be a positive number of megabytes, got "${v}"`);
  return n;
}

function parsePoolMax(v: string | undefined): number {
  if (v === undefined || v.trim() === "") return 10;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`DATABASE_POOL_MAX must be a whole number of connections, 1 or more, got "${v}"`);
  return n;
}

/** Unset: half the queries' connections (rounded up), so a process sized down for a tight budget opens fewer lookups too. */
function parseLookupPoolMax(v: string | undefined, poolMax: number): number {
  if (v === undefined || v.trim() === "") return Math.ceil(poolMax / 2);
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`DATABASE_LOOKUP_POOL_MAX must be a whole number of connections, 0 or more, got "${v}"`);
  return n;
}

function parseRateLimit(v: string | undefined): Settings["rateLimit"] {
  if (!v) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(v.trim());
  if (!m) throw new Error(`RATE_LIMIT must be <requests>/<seconds>, got "${v}"`);
  return { limit: Number(m[1]), windowMs: Number(m[2]) * 1000 };
}

/** `*` or a comma list of origins (`https://a.example,https://b.example`); blanks ignored. */
function parseCorsOrigins(v: string | undefined): Settings["corsOrigins"] {
  const list = (v ?? "*").split(",").map(o => o.trim().replace(/\/+$/, "")).filter(Boolean);
  return list.length === 0 || list.includes("*") ? "*" : list;
}

/** The store settings, refused at start-up when they contradict each other (C38: store misconfiguration). */
function storeSettings(env: NodeJS.ProcessEnv): Pick<Settings, "databaseUrl" | "mongoUri"> {
  const databaseUrl = env.DATABASE_URL || undefined;
  const mongoUri = env.MONGO_URI || undefined;
  if (databaseUrl && mongoUri) throw new Error("DATABASE_URL and MONGO_URI are both set: choose one store (PostgreSQL or MongoDB)");
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error(`DATABASE_URL must be a postgres:// or postgresql:// URL, got "${databaseUrl.replace(/\/\/[^@/]*@/, "//***@")}"`);
  return { databaseUrl, mongoUri };
}

function positiveSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v.trim() === "") return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${v}"`);
  return n;
}

/** The webhooks service's settings (docs/webhooks.md#settings). */
function webhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  return {
    retrySchedule: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
    timeoutMs: positiveSetting(env, "WEBHOOK_TIMEOUT_MS", 15_000),
    disableAfterHours: positiveSetting(env, "WEBHOOK_DISABLE_AFTER_HOURS", 120),
    pollMs: positiveSetting(env, "WEBHOOK_POLL_MS", 1000),
    concurrency: Math.floor(positiveSetting(env, "WEBHOOK_CONCURRENCY", 32)),
    endpointConcurrency: Math.floor(positiveSetting(env, "WEBHOOK_ENDPOINT_CONCURRENCY", 4)),
    secretKey: env.WEBHOOK_SECRET_KEY || undefined,
    retentionDays: positiveSetting(env, "WEBHOOK_RETENTION_DAYS", 30),
    retentionJobMs: positiveSetting(env, "WEBHOOK_RETENTION_JOB_MS", 3_600_000),
    poolMax: Math.floor(positiveSetting(env, "WEBHOOK_DATABASE_POOL_MAX", 4))
  };
}

/** BASE_URL's host name, without its port (C57: the site's home); the whole value when it is not a URL. */
function hostNameOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname || baseUrl;
  } catch {
    return baseUrl;
  }
}

/** A setting given as a number, or `fallback` when it is unset or empty (`0` stays 0). */
function numberOr(v: string | undefined, fallback: number): number {
  return v !== undefined && v !== "" ? Number(v) : fallback;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const port = Number(env.PORT || 3000);
  const baseUrl = (env.BASE_URL || `http://localhost:${port}`).replace(/\/+$/, "");
  const dataDir = env.DATA_DIR || "./data";
  const services = (env.SERVICES || "all").split(",").map(s => s.trim()).filter(Boolean);
  const databasePoolMax = parsePoolMax(env.DATABASE_POOL_MAX);
  return {
    port,
    host: env.HOST || "0.0.0.0",
    baseUrl,
    restPrefix: (env.REST_PREFIX || "wp-json").replace(/^\/+|\/+$/g, ""),
    dataDir: dataDir === ":memory:" ? dataDir : path.resolve(dataDir),
    ...storeSettings(env),
    databaseConnectTimeout: Number(env.DATABASE_CONNECT_TIMEOUT || env.MONGO_CONNECT_TIMEOUT || 30000),
    databasePoolMax,
    databaseLookupPoolMax: parseLookupPoolMax(env.DATABASE_LOOKUP_POOL_MAX, databasePoolMax),
    sqliteCacheMb: env.SQLITE_CACHE_MB?.trim() ? positiveSetting(env, "SQLITE_CACHE_MB", 0) : undefined,
    transporter: env.TRANSPORTER || undefined,
    services: services.includes("all") ? [...ALL_SERVICES] : services,
    cacher: env.CACHER || undefined,
    cacheMaxMb: parseCacheMaxMb(env.CACHE_MAX_MB),
    namespace: env.NAMESPACE || "",
    metricsPort: env.METRICS_PORT === undefined ? 3030 : Number(env.METRICS_PORT),
    siteTimezone: env.SITE_TIMEZONE || "UTC",
    siteName: env.SITE_NAME?.trim() || hostNameOf(baseUrl),
    rateLimit: parseRateLimit(env.RATE_LIMIT),
    apiKeys: env.API_KEYS || undefined,
    requestTimeout: Number(env.REQUEST_TIMEOUT || 10000),
    seriesJobMs: numberOr(env.SERIES_JOB_MS, 3_600_000),
    dueEventsJobMs: numberOr(env.DUE_EVENTS_JOB_MS, 60_000),
    defaultLanguage: env.DEFAULT_LANGUAGE || "en",
    storedRenderings: env.STORED_RENDERINGS !== "0" && env.STORED_RENDERINGS !== "false",
    renderingsUnreadDays: numberOr(env.RENDERINGS_UNREAD_DAYS, 7),
    logLevel: env.LOG_LEVEL || "info",
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS),
    platformKey: env.PLATFORM_KEY || undefined,
    trustProxy: env.TRUST_PROXY === "1" || env.TRUST_PROXY === "true",
    outboundAllowPrivate: env.OUTBOUND_ALLOW_PRIVATE === "1" || env.OUTBOUND_ALLOW_PRIVATE === "true",
    geolocation: true,
    webhooks: webhookSettings(env),
    customFieldsMax: Number(env.CUSTOM_FIELDS_MAX) > 0 ? Math.floor(Number(env.CUSTOM_FIELDS_MAX)) : 100,
    batchMax: Math.floor(positiveSetting(env, "BATCH_MAX_REQUESTS", 25))
  };
}

let current: Settings | undefined;
/** The settings as a site sees them, made once per site object (its row read again makes a new one). */
const bySite = new WeakMap<object, { base: Settings; merged: Settings }>();

/**
 * The settings (tests may replace them with `useSettings`). Inside the work of a site other than the
 * default one (lib/sites/scope.ts), the site's own base URL, time zone, name and geolocation switch
 * replace the environment's, so every per-request read (links, site-time dates, the iCalendar name, the
 * `geoloc*` check) is the site's.
 */
export function settings(): Settings {
  if (!current) current = readSettings();
  const site = currentSite();
  if (!site) return current;
  let seen = bySite.get(site);
  if (!seen || seen.base !== current) {
    seen = { base: current, merged: { ...current, baseUrl: site.baseUrl, siteTimezone: site.timezone, siteName: site.name, geolocation: site.geolocation } };
    bySite.set(site, seen);
  }
  return seen.merged;
}
/** Where kept answers live: nowhere (`CACHER=off` or `none`), in each process's memory, or in a Redis every node shares. */
export type CacheKind = "off" | "memory" | "redis";

export function cacheKind(s: Pick<Settings, "cacher">): CacheKind {
  if (s.cacher === "off" || s.cacher === "none") return "off";
  return s.cacher && /^rediss?:\/\//.test(s.cacher) ? "redis" : "memory";
}

/** The environment's settings, whatever site the current work belongs to. */
export function deploymentSettings(): Settings {
  if (!current) current = readSettings();
  return current;
}
export function useSettings(s: Settings): void {
  current = s;
}
