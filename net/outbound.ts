/**
 * The service's own outgoing HTTP requests (webhook deliveries, import fetches): one request that obeys
 * the outbound address rules (lib/outbound/addresses.ts; docs/contract.md#webhooks-outgoing-notifications, C65: outbound requests) on the address it
 * actually connects to. A name is resolved by the connection's own `lookup`, and only the resolved
 * addresses the rules allow are handed to the socket, so a name that resolves (or re-resolves later) to a
 * private address is refused. Built on node's `http`/`https` because `fetch` takes no lookup of its own.
 *
 * Redirects are not followed unless asked (`followRedirects`: at most that many hops, each target checked
 * like the first); an answer is read up to `maxBytes`; the whole request, redirects included, ends after
 * `timeoutMs`.
 */
import * as dns from "dns";
import * as http from "http";
import * as https from "https";
import type { LookupAddress } from "dns";
import type { LookupFunction } from "net";
import { checkOutboundUrl, refusedAddress, type UrlRefusal } from "../lib/outbound/addresses";
import { version } from "../package.json";

export const USER_AGENT = `calendar-events/${version}`;

/** A resolver with dns.lookup's `{ all: true }` shape (tests pass a stub answering loopback names). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface OutboundOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The whole request's deadline, redirects included. */
  timeoutMs: number;
  /** The most bytes of an answer's body read (default 10 MB); more ends the request with `too-large`. */
  maxBytes?: number;
  /** How many redirects to follow (default 0: a 3xx is answered as it came). */
  followRedirects?: number;
  /** OUTBOUND_ALLOW_PRIVATE: the address rules lifted. */
  allowPrivate: boolean;
  /** The resolver (default: the system's, `dns.lookup`). */
  resolve?: Resolver;
  /**
   * Answer as soon as the status and headers arrive, the body read and thrown away unjudged (a webhook
   * receiver's answer is not ours to judge): `body` is then empty, and a body still coming at the deadline
   * is cut off.
   */
  discardBody?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after any redirects followed). */
  url: string;
}

export type OutboundFailure = "refused" | "timeout" | "too-large" | "redirects" | "network";

/** Why an outgoing request gave no answer. */
export class OutboundError extends Error {
  constructor(readonly kind: OutboundFailure, message: string) {
    super(message);
    this.name = "OutboundError";
  }
}

/** The address rules refused the URL or every address its host resolved to. */
export class OutboundRefused extends OutboundError {
  constructor(readonly reason: UrlRefusal, readonly target: string) {
    super("refused", `${target}: refused outbound address (${reason})`);
    this.name = "OutboundRefused";
  }
}

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const systemResolver: Resolver = hostname => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * The socket's lookup: resolves with the given resolver and answers only the addresses the rules allow
 * (all of them with `allowPrivate`), in the shape the socket asked for.
 */
function checkedLookup(resolve: Resolver, allowPrivate: boolean): LookupFunction {
  // An error is answered with an empty address, which the socket does not read.
  return (hostname, options, callback) => {
    resolve(hostname).then(found => {
      const allowed = allowPrivate ? found : found.filter(a => refusedAddress(a.address) === undefined);
      if (!allowed.length) {
        const kind = found.length ? refusedAddress(found[0].address) ?? "unspecified" : "unspecified";
        callback(new OutboundRefused(kind, hostname), "");
        return;
      }
      if (options.all) callback(null, allowed);
      else callback(null, allowed[0].address, allowed[0].family);
    }, (err: Error) => callback(err, ""));
  };
}

/** One request (no redirect followed), settled by the deadline. */
function once(url: URL, opts: OutboundOptions, deadline: number): Promise<OutboundResponse> {
  const client = url.protocol === "https:" ? https : http;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const headers: Record<string, string> = { "user-agent": USER_AGENT, ...opts.headers };
  if (opts.body !== undefined) headers["content-length"] = String(Buffer.byteLength(opts.body));
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      reject(new OutboundError("timeout", `${url.origin}: no answer within the time allowed`));
      return;
    }
    const req = client.request(url, {
      method: opts.method ?? "GET",
      headers,
      lookup: checkedLookup(opts.resolve ?? systemResolver, opts.allowPrivate),
      // a fresh connection per request: a kept-alive socket would skip the address check of a new resolution
      agent: false
    });
    let settled = false;
    const settle = (err: Error | undefined, answer?: OutboundResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        req.destroy();
        reject(err instanceof OutboundError ? err : new OutboundError("network", `${url.origin}: ${err.message}`));
      } else resolve(answer!);
    };
    const timer = setTimeout(() => settle(new OutboundError("timeout", `${url.origin}: no answer within the time allowed`)), remaining);
    req.on("error", err => settle(err));
    req.on("response", res => {
      if (opts.discardBody) {
        settle(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0), url: url.toString() });
        const cut = setTimeout(() => req.destroy(), Math.max(0, deadline - Date.now()));
        cut.unref?.();
        res.on("close", () => clearTimeout(cut));
        res.on("error", () => undefined);
        res.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) settle(new OutboundError("too-large", `${url.origin}: answer larger than ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on("error", err => settle(err));
      res.on("end", () => settle(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url: url.toString() }));
    });
    req.end(opts.body);
  });
}

/** Sends a request under the outbound address rules; see the header. */
export async function outboundRequest(target: string, opts: OutboundOptions): Promise<OutboundResponse> {
  const deadline = Date.now() + opts.timeoutMs;
  let hops = opts.followRedirects ?? 0;
  let current = target;
  let request = opts;
  for (;;) {
    const checked = checkOutboundUrl(current, opts.allowPrivate);
    if (!checked.ok) throw new OutboundRefused(checked.reason, current);
    const res = await once(checked.url, request, deadline);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || !location || (opts.followRedirects ?? 0) === 0) return res;
    if (hops === 0) throw new OutboundError("redirects", `${target}: more than ${opts.followRedirects} redirects`);
    hops -= 1;
    const next = new URL(location, checked.url);
    // credentials go to the origin they were given for, never to where it redirects
    if (next.origin !== checked.url.origin && request.headers) {
      const { authorization: _dropped, ...rest } = request.headers;
      request = { ...request, headers: rest };
    }
    current = next.toString();
    // 303, and 301/302 after a POST, continue as a GET without a body (as browsers do)
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && (request.method ?? "GET") === "POST")) {
      const headers = { ...request.headers };
      delete headers["content-type"];
      request = { ...request, method: "GET", body: undefined, headers };
    }
  }
}
