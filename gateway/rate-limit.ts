/**
 * Rate limiting of the gateway (C18: limits): off unless `RATE_LIMIT=<requests>/<seconds>` is set. Each caller has
 * a fixed window of that many seconds, opened by its first request, in which it may send that many
 * requests; the next one is answered 429 `rest_too_many_requests` with `Retry-After`.
 *
 * - The caller is its API key (a Bearer key, hashed; an unknown key counts as its address) or, for
 *   anonymous callers, the socket's remote address.
 * - Counters live in this process, or in Redis when `CACHER=redis://…` is set, so every gateway node of a
 *   deployment shares them (keys `<prefix><caller>`, with the window as their TTL).
 * - Every counted answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (the
 *   Unix time, in seconds, at which the window ends).
 * - The limiter never fails a request: when Redis cannot be reached the process-local counters stand in.
 */
import * as crypto from "crypto";
import type { IncomingMessage } from "http";
import Redis, { type ClientContext, type Result } from "ioredis";
import { cacheKind } from "../lib/settings";

export interface RateLimitOptions {
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
}

export interface WindowHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Epoch ms at which the window ends. */
  resetAt: number;
}

export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<WindowHit>;
  /** Resolves once the store can count (at most after `timeoutMs`; the fallback counts meanwhile). */
  ready?(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface Decision {
  allowed: boolean;
  headers: Record<string, string>;
  /** Seconds to wait (only when refused). */
  retryAfter?: number;
}

/** Counters of this process. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, WindowHit>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepEveryMs = 60_000, private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, sweepEveryMs));
    this.sweeper.unref();
  }

  async hit(key: string, windowMs: number): Promise<WindowHit> {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= t) {
      w = { count: 0, resetAt: t + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return { ...w };
  }

  private sweep(): void {
    const t = this.now();
    for (const [key, w] of this.windows) if (w.resetAt <= t) this.windows.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.windows.clear();
  }
}

/** INCR with the window as TTL on the first hit; answers the count and the ms left. */
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;

/** The command `defineCommand("calendarRateHit", …)` adds to the client, in ioredis's typings. */
declare module "ioredis" {
  interface RedisCommander<Context extends ClientContext> {
    calendarRateHit(key: string, windowMs: string): Result<[number, number], Context>;
  }
}

/** Counters shared by every gateway node through Redis. */

export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;

  constructor(url: string, private readonly prefix: string) {
    // Fail fast while disconnected (the caller falls back to local counters) instead of queueing requests.
    this.redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000, lazyConnect: false });
    this.redis.on("error", () => undefined); // reported by the limiter when a hit fails
    this.redis.defineCommand("calendarRateHit", { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  ready(timeoutMs: number): Promise<void> {
    if (this.redis.status === "ready") return Promise.resolve();
    return new Promise(resolve => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off("ready", done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.redis.once("ready", done);
    });
  }

  async hit(key: string, windowMs: number): Promise<WindowHit> {
    const [count, ttl] = await this.redis.calendarRateHit(this.prefix + key, String(windowMs));
    return { count: Number(count), resetAt: Date.now() + Number(ttl) };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** The bucket of a request: its API key (hashed) when it names a known one, else its address. */
export function clientKey(req: IncomingMessage, isKnownKey: (key: string) => boolean): string {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  if (m && isKnownKey(m[1])) return `key:${crypto.createHash("sha256").update(m[1]).digest("hex").slice(0, 32)}`;
  return `addr:${req.socket?.remoteAddress ?? "unknown"}`;
}

export class RateLimiter {
  private warnedAt = 0;

  constructor(
    readonly options: RateLimitOptions,
    private readonly store: RateLimitStore,
    private readonly fallback: RateLimitStore = store,
    private readonly warn: (msg: string) => void = () => undefined
  ) {}

  async check(key: string): Promise<Decision> {
    const { limit, windowMs } = this.options;
    let hit: WindowHit;
    try {
      hit = await this.store.hit(key, windowMs);
    } catch (err) {
      if (Date.now() - this.warnedAt > 60_000) {
        this.warnedAt = Date.now();
        this.warn(`Rate limit counters are not reachable (${(err as Error)?.message ?? err}); counting in this process meanwhile.`);
      }
      hit = await this.fallback.hit(key, windowMs);
    }
    const headers: Record<string, string> = {
      "X-RateLimit-Limit": String(limit),
      "X-RateLimit-Remaining": String(Math.max(0, limit - hit.count)),
      "X-RateLimit-Reset": String(Math.ceil(hit.resetAt / 1000))
    };
    if (hit.count <= limit) return { allowed: true, headers };
    const retryAfter = Math.max(1, Math.ceil((hit.resetAt - Date.now()) / 1000));
    return { allowed: false, headers: { ...headers, "Retry-After": String(retryAfter) }, retryAfter };
  }

  /** Waits (at most `timeoutMs`) for shared counters to be reachable. */
  async ready(timeoutMs = 3000): Promise<void> {
    await this.store.ready?.(timeoutMs);
  }

  async close(): Promise<void> {
    await this.store.close();
    if (this.fallback !== this.store) await this.fallback.close();
  }
}

export interface LimiterSettings {
  rateLimit?: RateLimitOptions;
  cacher?: string;
  namespace: string;
}

/** The limiter the settings ask for (none when `RATE_LIMIT` is unset). */
export function createRateLimiter(s: LimiterSettings, warn: (msg: string) => void = () => undefined): RateLimiter | undefined {
  if (!s.rateLimit) return undefined;
  const local = new MemoryRateLimitStore(s.rateLimit.windowMs);
  if (cacheKind(s) === "redis") {
    const shared = new RedisRateLimitStore(s.cacher!, `RL-${s.namespace || "calendar"}:`);
    return new RateLimiter(s.rateLimit, shared, local, warn);
  }
  return new RateLimiter(s.rateLimit, local, local, warn);
}
