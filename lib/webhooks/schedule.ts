/**
 * When a delivery is tried again (docs/webhooks.md#retries): after the delays of WEBHOOK_RETRY_SCHEDULE
 * (seconds), each with up to a tenth of jitter either way so that endpoints recovering together are not
 * hit at the same instant; a `Retry-After` on 429 or 503 wins. What an answer means for the delivery and
 * for its endpoint is decided here too.
 */

export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** The share of a delay the jitter may add or take away. */
export const JITTER = 0.1;
/** The longest `Retry-After` honoured (a day): an answer asking for more is read as that. */
export const MAX_RETRY_AFTER_S = 86_400;

/** WEBHOOK_RETRY_SCHEDULE: a comma list of non-negative seconds (decimals allowed); throws on anything else. */
export function parseRetrySchedule(value: string | undefined): number[] {
  if (value === undefined || value.trim() === "") return [...DEFAULT_RETRY_SCHEDULE];
  const parts = value.split(",").map(p => p.trim());
  const out = parts.map(Number);
  if (parts.some(p => p === "") || out.some(n => !Number.isFinite(n) || n < 0) || out.length > 100)
    throw new Error(`WEBHOOK_RETRY_SCHEDULE must be a comma list of seconds (e.g. 5,300,1800), got "${value}"`);
  return out;
}

/** The delay in ms before retry number `retry` (0: the first retry), jittered by `random` in [0, 1); undefined when the schedule is spent. */
export function retryDelayMs(schedule: readonly number[], retry: number, random: number = Math.random()): number | undefined {
  if (retry < 0 || retry >= schedule.length) return undefined;
  const base = schedule[retry] * 1000;
  return Math.max(0, Math.round(base * (1 + JITTER * (2 * random - 1))));
}

/** `Retry-After` in ms (delay-seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, nowMs: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === "") return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  }
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_S * 1000);
}

export type AttemptOutcome =
  /** 2xx: delivered. */
  | { kind: "delivered" }
  /** 410: the receiver wants no more; the endpoint is made inactive. */
  | { kind: "gone" }
  /** Anything else: tried again at `retryInMs`, or failed when the schedule is spent. */
  | { kind: "retry"; retryInMs: number }
  | { kind: "failed" };

/**
 * What an attempt's answer means. `status` undefined: no answer (timeout, connection, refused address);
 * `refused`: the outbound address rules refused the address the name resolved to (failed at once).
 * `retries` is how many retries this delivery already had (attempts since it was last queued, less one).
 */
export function attemptOutcome(o: { status?: number; retryAfter?: string | string[]; retries: number; schedule: readonly number[]; nowMs: number; random?: number; refused?: boolean }): AttemptOutcome {
  if (o.status !== undefined && o.status >= 200 && o.status < 300) return { kind: "delivered" };
  if (o.status === 410) return { kind: "gone" };
  // an address the outbound rules refuse (seen only once its name resolved) stays refused: no retry schedule
  if (o.refused) return { kind: "failed" };
  const scheduled = retryDelayMs(o.schedule, o.retries, o.random);
  if (scheduled === undefined) return { kind: "failed" };
  const asked = o.status === 429 || o.status === 503 ? retryAfterMs(o.retryAfter, o.nowMs) : undefined;
  return { kind: "retry", retryInMs: asked ?? scheduled };
}

/** Whether an endpoint failing since `failingSinceMs` (no success since) is now made inactive. */
export function shouldDisable(failingSinceMs: number | undefined, nowMs: number, disableAfterHours: number): boolean {
  return failingSinceMs !== undefined && nowMs - failingSinceMs >= disableAfterHours * 3_600_000;
}
