/**
 * The gateway's guards (lib/http/guards.ts) in front of moleculer-web, whatever the route: security headers
 * and the rate limit (C18, C58), then a kept answer of the response cache, then moleculer-web.
 *
 * Only public hooks: the mixin makes the HTTP server itself (Node's `http.createServer`) and hands it to
 * moleculer-web through its `server` setting, which then listens on it and closes it; the server's
 * requests go to `frontDoor`, which passes them on to moleculer-web's middleware handler (`express()`).
 * The server is a secure setting (`$secureSettings`): it is not announced to the other nodes. The
 * limiter is made from the settings when the gateway is created and closed when it stops.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from "http";
import type { ServiceSchema } from "moleculer";
import { settings } from "../lib/settings";
import { loadApiKeys } from "../lib/api-keys";
import { docsOnError, DOCS_PATH } from "../lib/discovery";
import { frontDoor, GuardContext, hardenServer } from "../lib/http/guards";
import { createRateLimiter, RateLimiter } from "../lib/http/rate-limit";

const isDocs = (url: string | undefined) => url === DOCS_PATH || String(url ?? "").startsWith(`${DOCS_PATH}/`);

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

interface GuardedGateway {
  settings: { server?: Server; onError(req: IncomingMessage, res: ServerResponse, err: unknown): unknown };
  logger: { warn(...args: unknown[]): void };
  rateLimiter?: RateLimiter;
  express(): Handler;
  answerKept?(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

/** Moleculer's `merged` lifecycle hook (called with the schema once the mixins are merged) is not in its typings. */
type MergedHook = { merged(schema: ServiceSchema): void };

export const HttpGuardsMixin: ServiceSchema & MergedHook = {
  name: "http-guards",
  merged(schema: ServiceSchema) {
    const server = createServer();
    hardenServer(server);
    const secure = (schema.settings?.$secureSettings as string[] | undefined) ?? [];
    schema.settings = { ...(schema.settings ?? {}), ...{ server, $secureSettings: [...secure, "server"] } };
  },
  created() {
    const gw = this as unknown as GuardedGateway;
    gw.rateLimiter = createRateLimiter(settings(), msg => gw.logger.warn(msg));
    const guards: GuardContext = {
      baseUrl: () => settings().baseUrl,
      limiter: () => gw.rateLimiter,
      isKnownKey: key => loadApiKeys(settings()).has(key),
      // /docs answers its own errors and ignores the Authorization header (C19).
      renderError: (req, res, err) => void (isDocs(req.url) ? docsOnError(req, res, err) : gw.settings.onError.call(gw, req, res, err)),
      warn: (msg, err) => gw.logger.warn(msg, err ?? ""),
      answerEarly: (req, res) => (gw.answerKept ? gw.answerKept(req, res) : Promise.resolve(false))
    };
    let gateway: Handler | undefined;
    gw.settings.server?.on("request", frontDoor(() => (gateway ??= gw.express()), () => guards));
  },
  async started() {
    await (this as unknown as GuardedGateway).rateLimiter?.ready();
  },
  async stopped() {
    await (this as unknown as GuardedGateway).rateLimiter?.close();
  }
};
