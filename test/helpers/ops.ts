/**
 * Helpers of the operations tests (test/integration/ops-*.test.ts): HTTP calls with their timing, a
 * bounded request load that records every answer, and polling.
 */
import { KEYS } from "./harness";
import { builtContract, Received } from "./contract";
import type { Json } from "./json";

export const NS_PATH = "/wp-json/calendar/events/v1";

export interface Timed {
  kind: string;
  start: number;
  end: number;
  status: number;
  body: Json;
  /** Network failure (no HTTP answer), if any. */
  error?: string;
}

export async function call(base: string, method: string, path: string, body?: unknown, key: string | null = KEYS.admin): Promise<Timed> {
  const headers: Record<string, string> = {};
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const start = Date.now();
  const url = path.startsWith("/health") ? base + path : `${base}${NS_PATH}${path}`;
  let answer: Timed;
  let received: Received;
  try {
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30000) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    answer = { kind: `${method} ${path}`, start, end: Date.now(), status: res.status, body: parsed };
    received = { method, url, status: res.status, contentType: res.headers.get("content-type"), text };
  } catch (err: Json) {
    return { kind: `${method} ${path}`, start, end: Date.now(), status: 0, body: undefined, error: String(err?.cause?.code ?? err?.name ?? err) };
  }
  // Every answer is checked against the document (test/helpers/contract.ts); a mismatch fails the caller.
  await builtContract.check(received);
  return answer;
}

export const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

export async function until<T>(probe: () => T | Promise<T>, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

export interface Load {
  answers: Timed[];
  /** Stops issuing requests and waits for the ones in flight. */
  stop(): Promise<void>;
}

/**
 * `workers` loops, each issuing `next(worker, i)` one after the other (with `pauseMs` between), until
 * stopped or `maxMs` passed (a bound, so a failing test cannot leave load running).
 */
export function startLoad(workers: number, next: (worker: number, i: number) => Promise<Timed>, opts: { pauseMs?: number; maxMs?: number } = {}): Load {
  const answers: Timed[] = [];
  let stopped = false;
  const deadline = Date.now() + (opts.maxMs ?? 60000);
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = 0; !stopped && Date.now() < deadline; i++) {
      answers.push(await next(w, i));
      if (opts.pauseMs) await sleep(opts.pauseMs);
    }
  });
  return {
    answers,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    }
  };
}

/** Counts by `status code` (e.g. `{"201": 40, "503 rest_service_unavailable": 12}`). */
export function tally(answers: Timed[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const key = a.status === 0 ? `network ${a.error}` : a.status < 400 ? String(a.status) : `${a.status} ${a.body?.code}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

export const duration = (a: Timed) => a.end - a.start;

/** Bounded-concurrency map. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  }));
  return out;
}
