/**
 * The gateway's guards (gateway/guards.ts) in front of moleculer-web, whatever the route: security headers
 * and the rate limit (C18: limits; C58: `modified` in site time), then a kept answer of the response cache, then moleculer-web.
 *
 * Only public hooks: the mixin makes the HTTP server itself (Node's `http.createServer`) and hands it to
 * moleculer-web through its `server` setting, which then listens on it and closes it; the server's
 * requests go to `frontDoor`, which passes them on to moleculer-web's middleware handler (`express()`).
 * The server is a secure setting (`$secureSettings`): it is not announced to the other nodes. The
 * limiter is made from the settings when the gateway is created and closed when it stops. In front of
 * everything, the site door (gateway/site-door.ts) ties each request to its site.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from "http";
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { serviceSchema } from "../broker/service-schema";
import { deploymentSettings, settings } from "../lib/settings";
import { callerForKey } from "../lib/sites/site-callers";
import { currentSiteId, DEFAULT_SITE_ID } from "../lib/sites/scope";
import { acquireStore, releaseStore, Store } from "../store";
import { useStoredAdminKey } from "../lib/access/api-keys";
import { siteDirectory } from "../store/site-directory";
import { storeConfig } from "./store.mixin";
import { siteDoor } from "../gateway/site-door";
import { docsOnError, DOCS_PATH } from "../gateway/docs-page";
import { frontDoor, GuardContext, hardenServer, isCounted } from "../gateway/guards";
import { isValidationPass } from "../gateway/loopback";
import { isBatchUrl } from "../lib/batch/requests";
import { createRateLimiter, RateLimiter } from "../gateway/rate-limit";

const isDocs = (url: string | undefined) => url === DOCS_PATH || String(url ?? "").startsWith(`${DOCS_PATH}/`);

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** The gateway's settings this mixin reads: the server it made (`merged`) and moleculer-web's `onError`. */
interface GuardSettings extends ServiceSettingSchema {
  server?: Server;
  onError(req: IncomingMessage, res: ServerResponse, err: unknown): unknown;
}

interface GuardVars {
  rateLimiter?: RateLimiter;
  /** The HTTP server's request handler (site door, guards, moleculer-web): a batch answers its requests through it. */
  answerHttp?: Handler;
  siteStore?: Promise<Store>;
}

/** The gateway as this mixin sees it: moleculer-web's `express()` and the response cache's `answerKept` (services/api.service.ts). */
type GuardedGateway = Service<GuardSettings> & GuardVars & {
  express(): Handler;
  answerKept?(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
};

/** Moleculer's `merged` lifecycle hook (called with the schema once the mixins are merged) is not in its typings. */
type MergedHook = { merged(schema: ServiceSchema): void };

const httpGuards: ServiceSchema<GuardSettings, object, GuardVars, GuardedGateway> & MergedHook = {
  name: "http-guards",
  merged(schema: ServiceSchema) {
    const server = createServer();
    hardenServer(server);
    const secure = (schema.settings?.$secureSettings as string[] | undefined) ?? [];
    schema.settings = { ...(schema.settings ?? {}), ...{ server, $secureSettings: [...secure, "server"] } };
  },
  created() {
    this.rateLimiter = createRateLimiter(settings(), msg => this.logger.warn(msg));
    const guards: GuardContext = {
      baseUrl: () => settings().baseUrl,
      limiter: () => this.rateLimiter,
      isKnownKey: key => callerForKey(key) !== undefined,
      // A batch counts as the requests it carries, each when it runs (gateway/batch.ts), not as one more;
      // require-all-validate's check of a request runs nothing and is not counted either.
      counted: req => isCounted(req) && !isValidationPass(req) && !isBatchUrl(String(req.url ?? ""), settings().restPrefix),
      // Each site counts its callers apart (the default site's buckets as before).
      bucketOf: key => (currentSiteId() === DEFAULT_SITE_ID ? key : `site${currentSiteId()}:${key}`),
      // /docs answers its own errors and ignores the Authorization header (C19).
      renderError: (req, res, err) => void (isDocs(req.url) ? docsOnError(req, res, err) : this.settings.onError.call(this, req, res, err)),
      warn: (msg, err) => this.logger.warn(msg, err ?? ""),
      answerEarly: (req, res) => (this.answerKept ? this.answerKept(req, res) : Promise.resolve(false))
    };
    let gateway: Handler | undefined;
    const guarded = frontDoor(() => (gateway ??= this.express()), () => guards);
    const directory = async () => siteDirectory(await (this.siteStore ??= acquireStore(storeConfig())));
    this.answerHttp = siteDoor(guarded, directory);
    this.settings.server?.on("request", this.answerHttp);
  },
  async started() {
    await this.rateLimiter?.ready();
    // PostgreSQL or MongoDB without API_KEYS: the deployment's generated administrator key is the store's (C40)
    const s = deploymentSettings();
    if ((s.databaseUrl || s.mongoUri) && s.apiKeys === undefined) {
      const store = await (this.siteStore ??= acquireStore(storeConfig()));
      await useStoredAdminKey(store.sites!, s, msg => console.log(`\n  ${msg}\n`));
    }
  },
  async stopped() {
    await this.rateLimiter?.close();
    if (this.siteStore) {
      this.siteStore = undefined;
      await releaseStore(storeConfig());
    }
  }
};

export const HttpGuardsMixin = serviceSchema(httpGuards);
