/**
 * The gateway's kept answers in the broker's cacher (which GETs, under what key: cache/response-cache.ts):
 * a request is answered from them, conditional requests included, before moleculer-web routes it; a miss
 * computes the answer, which is kept unless a write cleaned its key meanwhile (cache/clean-mark.ts). On
 * this gateway one computation runs per stale key; the misses that arrive meanwhile wait for it
 * (cache/single-flight.ts). services/api.service.ts decides when the cache is used and adds its headers.
 */
import type { IncomingMessage, ServerResponse } from "http";
import { notModified } from "../lib/http/etag";
import { cleanMark, keepUnlessCleaned, type CleanLog, type CleanMark, type ReadingCacher } from "./clean-mark";
import { etagMatches, isKeptRef, keptBytes, listPageOf, type KeptRef, type KeptResponse } from "./response-cache";
import { Flights, MAX_WAITS, type Flight } from "./single-flight";
import { isListKey, listBodyKey } from "./staleness";

/** A GET whose answer may be kept: its key, and the cacher's clean count when it arrived. */
export type KeyedRequest = IncomingMessage & {
  $responseKey?: string;
  $cleanMark?: CleanMark;
  /** Ends this request's computation of its key, which other requests of that key wait for (cache/single-flight.ts). */
  $endFlight?: (outcome: Flight<void>) => void;
};

export class KeptAnswers {
  /** The kept answers being computed on this gateway, by key: a request that misses while one is computed waits for it. */
  private readonly flights = new Flights<void>();

  /** `cleanLog`: the log of the cacher's cleans, which decides whether an answer may be kept (cache/cachers.ts). */
  constructor(private readonly cacher: ReadingCacher, private readonly cleanLog: CleanLog | undefined) {}

  /** The answer kept under `key` (a plain list page's key names its body's, cache/staleness.ts), or null. */
  private async read(key: string): Promise<KeptResponse | null> {
    const kept = await this.cacher.get(key) as KeptResponse | KeptRef | null;
    if (!isKeptRef(kept)) return kept ?? null;
    const body = await this.cacher.get(kept.ref) as KeptResponse | KeptRef | null;
    return body && !isKeptRef(body) ? body : null;
  }

  /**
   * The answer kept under `key` for `req`, or null when the request must go on: then it carries its key for
   * `keep`. A request with an `Origin` goes on, kept answer or not: moleculer-web writes the CORS headers
   * there (and checks the origin), and its answer is the kept one.
   */
  async find(req: KeyedRequest, res: ServerResponse, key: string): Promise<KeptResponse | null> {
    // the computation running as the request arrives: it may end while the cache is read
    const runningAtArrival = this.flights.current(key);
    let kept = req.headers.origin === undefined ? await this.read(key) : null;
    // One computation per stale answer on this gateway: a miss while the key is computed waits for it and
    // reads what it kept (nothing kept, as when a write crossed it: this request computes; MAX_WAITS bounds it).
    for (let waits = 0; !kept && req.headers.origin === undefined && waits < MAX_WAITS; waits++) {
      const running = this.flights.current(key) ?? (waits === 0 ? runningAtArrival : undefined);
      if (!running) break;
      if ((await running).kept) kept = await this.read(key);
    }
    if (kept) return kept;
    req.$responseKey = key;
    // the check above and this start are one turn of the event loop: one computation starts
    if (req.headers.origin === undefined && !this.flights.current(key)) {
      const end = this.flights.start(key);
      req.$endFlight = end;
      // whatever becomes of the request (an error, another status, a closed connection), its waiters go on
      res.once("close", () => end({ kept: false }));
    }
    // taken before the store is read: an answer computed across a write's clean is not kept (cache/clean-mark.ts)
    req.$cleanMark = await cleanMark(this.cleanLog);
    return null;
  }

  /** Sends a kept answer (its headers set already by the caller): 304 when the request's conditions match it. */
  static send(req: IncomingMessage, res: ServerResponse, kept: KeptResponse): void {
    for (const [name, value] of Object.entries(kept.headers)) res.setHeader(name, value);
    const conditional = { ifNoneMatch: req.headers["if-none-match"], ifModifiedSince: req.headers["if-modified-since"] };
    if (etagMatches(conditional.ifNoneMatch, kept.headers.etag) || notModified(conditional, kept.headers.etag, kept.headers["last-modified"])) {
      res.writeHead(304);
      res.end();
      return;
    }
    const bytes = keptBytes(kept);
    res.setHeader("Content-Length", bytes.length);
    res.writeHead(kept.status);
    res.end(bytes);
  }

  /**
   * Keeps the 200 answer `kept` of a request that missed (`find` gave it its key); `shown`: the ids of the
   * events it shows, when it is a list (response-cache.ts `shownIds`). A plain list page keeps its body
   * under a key naming the events it shows, and the page's key names that body; a list answer that is no
   * events page is not kept.
   */
  async keep(req: KeyedRequest, kept: KeptResponse, shown: readonly unknown[] | undefined): Promise<void> {
    const key = req.$responseKey;
    if (!key) return;
    // not kept when a write cleaned its key since the request missed (cache/clean-mark.ts)
    const keep = (k: string, value: unknown) => keepUnlessCleaned(this.cacher, this.cleanLog, req.$cleanMark, k, value);
    if (!isListKey(key)) {
      req.$endFlight?.({ kept: await keep(key, kept) });
      return;
    }
    const page = kept.headers["content-type"].startsWith("application/json") ? listPageOf(shown, kept.headers) : undefined;
    if (!page) return;
    const bodyKey = listBodyKey(key, page.total, page.ids);
    req.$endFlight?.({ kept: (await keep(bodyKey, kept)) && (await keep(key, { ref: bodyKey } satisfies KeptRef)) });
  }
}
