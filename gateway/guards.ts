/**
 * What the gateway does to every HTTP request before moleculer-web routes it, whatever the route (API,
 * health, /docs, no route at all): security headers on every answer (error answers included), the rate
 * limit (gateway/rate-limit.ts), and the HTTP server's own time limits. After them the gateway may answer
 * at once (`answerEarly`: a kept answer of the response cache), before any routing.
 *
 * The gateway hooks it in once, in front of moleculer-web on Node's own HTTP server: the gateway hands
 * moleculer-web that server (its public `server` setting) and answers the server's requests with
 * `frontDoor`, which passes on to moleculer-web's public middleware handler (`express()`); see
 * docs/gateway.md. moleculer-web's own `rateLimit` cannot stand here (C58: `modified` in site time): it counts only routed
 * requests, after routing and so behind the kept answers, in one window for all callers, and names its
 * headers `X-Rate-Limit-*` without `Retry-After`.
 */
import { IncomingMessage, Server, ServerResponse, STATUS_CODES } from "http";
import type { Socket } from "net";
import { ApiError } from "../lib/errors";
import { renderError } from "./error-render";
import type { RateLimiter } from "./rate-limit";
import { clientKey } from "./rate-limit";

/** A request may not take longer than this to arrive whole (headers and body). */
export const HTTP_REQUEST_TIMEOUT_MS = 30_000;
/** … and its headers no longer than this. */
export const HTTP_HEADERS_TIMEOUT_MS = 20_000;

const COMMON_HEADERS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Resource-Policy": "cross-origin",
  "X-Permitted-Cross-Domain-Policies": "none"
};

/** JSON answers: nothing may be loaded or framed from them. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The Swagger UI page: its own scripts and styles, the document from the site's base URL. */
function docsCsp(baseUrl: string): string {
  let origin = "";
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    origin = "";
  }
  return `default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'${origin ? ` ${origin}` : ""}; ` +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'";
}

export function applySecurityHeaders(req: IncomingMessage, res: ServerResponse, baseUrl: string): void {
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(COMMON_HEADERS)) res.setHeader(name, value);
  const path = String(req.url ?? "");
  res.setHeader("Content-Security-Policy", path === "/docs" || path.startsWith("/docs/") || path.startsWith("/docs?") ? docsCsp(baseUrl) : API_CSP);
}

/** What Node's HTTP parser refuses before any handler runs: status and REST code. */
function clientErrorCode(err: NodeJS.ErrnoException): [number, string] {
  if (err.code === "HPE_HEADER_OVERFLOW") return [431, "rest_request_header_too_large"];
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, "rest_request_timeout"];
  return [400, "rest_bad_request"];
}

/**
 * Node answers requests it cannot parse (URL or headers over 16 KB, broken HTTP, a request arriving too
 * slowly) with a bare status line; this answers them in the contract's JSON, with the security headers.
 * As Node does, nothing is written once an answer on that connection has started.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = answering.get(socket);
  if (err.code !== "ECONNRESET" && socket.writable && (!inFlight || !inFlight.headersSent)) {
    const [status, code] = clientErrorCode(err);
    const body = JSON.stringify(renderError(new ApiError(code, status), "en").body);
    const headers = { ...COMMON_HEADERS, "Content-Security-Policy": API_CSP, "Content-Type": "application/json; charset=utf-8", "Content-Length": String(Buffer.byteLength(body)), Connection: "close" };
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n${body}`);
  }
  socket.destroy();
}

/** The answer in progress on each connection (seen by `frontDoor`), until it is finished. */
const answering = new WeakMap<Socket, ServerResponse>();

function track(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket;
  answering.set(socket, res);
  res.once("close", () => {
    if (answering.get(socket) === res) answering.delete(socket);
  });
}

/** The HTTP server's limits on slow clients and its parse errors. */
export function hardenServer(server: Server): void {
  server.requestTimeout = HTTP_REQUEST_TIMEOUT_MS;
  server.headersTimeout = HTTP_HEADERS_TIMEOUT_MS;
  if (!server.listeners("clientError").includes(answerClientError)) server.on("clientError", answerClientError);
}

/** Requests the rate limit counts: all but the health probes and CORS preflights. */
export function isCounted(req: IncomingMessage): boolean {
  if (req.method === "OPTIONS") return false;
  const path = String(req.url ?? "");
  return !(path === "/health" || path.startsWith("/health/") || path.startsWith("/health?"));
}

export interface GuardContext {
  baseUrl(): string;
  limiter(): RateLimiter | undefined;
  isKnownKey(key: string): boolean;
  /** Whether the rate limit counts this request (`isCounted` unless the gateway says otherwise). */
  counted?(req: IncomingMessage): boolean;
  /** The rate-limit bucket of a client key (a site's own, say); the key itself by default. */
  bucketOf?(key: string): string;
  /** Renders an error as the gateway does (the contract's JSON). */
  renderError(req: IncomingMessage, res: ServerResponse, err: unknown): void;
  warn(msg: string, err?: unknown): void;
  /** Answers the request now (a kept answer) and says so, or says it goes on to the routes. */
  answerEarly?(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * The server's request handler: the guards, then `next` (moleculer-web). `guards` is read for each request
 * from the gateway that owns the server, so each gateway keeps its own limiter.
 */
export function frontDoor(next: () => Handler, guards: () => GuardContext): (req: IncomingMessage, res: ServerResponse) => Promise<unknown> {
  return async function (req, res) {
    track(req, res);
    const g = guards();
    applySecurityHeaders(req, res, g.baseUrl());
    const limiter = g.limiter();
    if (limiter && (g.counted ? g.counted(req) : isCounted(req))) {
      try {
        const client = clientKey(req, key => g.isKnownKey(key));
        const decision = await limiter.check(g.bucketOf ? g.bucketOf(client) : client);
        for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
        if (!decision.allowed) {
          // The body is not read: close the connection rather than drain an upload we refuse.
          if (req.headers["content-length"] && Number(req.headers["content-length"]) > 0) res.setHeader("Connection", "close");
          return g.renderError(req, res, new ApiError("rest_too_many_requests", 429));
        }
      } catch (err) {
        g.warn("The rate limit check failed; the request goes through.", err);
      }
    }
    try {
      if (g.answerEarly && (await g.answerEarly(req, res))) return;
    } catch (err) {
      g.warn("A kept answer could not be read; the request goes on.", err);
    }
    return next()(req, res);
  };
}
