/**
 * The gateway's guards (lib/http/guards.ts) as a mixin placed before moleculer-web: its `httpHandler`
 * wraps moleculer-web's, so security headers and the rate limit apply to every request whatever the
 * route; the limiter is made from the settings when the gateway is created and closed when it stops.
 */
import type { IncomingMessage, ServerResponse } from "http";
import type { ServiceSchema } from "moleculer";
import ApiGateway from "moleculer-web";
import { settings } from "../lib/settings";
import { loadApiKeys } from "../lib/api-keys";
import { docsOnError, DOCS_PATH } from "../lib/discovery";
import { hardenServer, guardedHttpHandler } from "../lib/http/guards";
import { createRateLimiter, RateLimiter } from "../lib/http/rate-limit";

const original = (ApiGateway as any).methods.httpHandler;

const isDocs = (url: string | undefined) => url === DOCS_PATH || String(url ?? "").startsWith(`${DOCS_PATH}/`);

export const HttpGuardsMixin: ServiceSchema = {
  name: "http-guards",
  methods: {
    httpHandler: guardedHttpHandler(original, (service: any) => ({
      baseUrl: () => settings().baseUrl,
      limiter: () => service.rateLimiter as RateLimiter | undefined,
      isKnownKey: key => loadApiKeys(settings()).has(key),
      // /docs answers its own errors and ignores the Authorization header (C19).
      renderError: (req: IncomingMessage, res: ServerResponse, err: unknown) =>
        isDocs(req.url) ? docsOnError(req, res, err) : service.settings.onError.call(service, req, res, err),
      warn: (msg: string, err?: unknown) => service.logger.warn(msg, err ?? ""),
      answerEarly: (req: IncomingMessage, res: ServerResponse) => (service.answerKept ? service.answerKept(req, res) : Promise.resolve(false))
    }))
  },
  created(this: any) {
    this.rateLimiter = createRateLimiter(settings(), msg => this.logger.warn(msg));
  },
  async started(this: any) {
    hardenServer(this.server);
    await this.rateLimiter?.ready();
  },
  async stopped(this: any) {
    await this.rateLimiter?.close();
  }
};
