/**
 * The API gateway: maps the v1 REST paths (under the default root and each language root) onto service
 * actions, resolves the caller and the language into `ctx.meta`, and renders every error as the
 * contract's JSON. Only the routes of lib/http/routes.ts are reachable (restricted mapping).
 */
import type { IncomingMessage, ServerResponse } from "http";
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import ApiGateway from "moleculer-web";
import { serviceSchema } from "../broker/service-schema";
import { ApiError } from "../lib/errors";
import { renderError, toApiError } from "../gateway/error-render";
import { aliases, ROUTED_SERVICES } from "../lib/http/routes";
import { inMatchOrder } from "../gateway/alias-order";
import { PATH_LANGUAGES, NAMESPACE_PATH, settings, cacheKind, deploymentSettings } from "../lib/settings";
import { callerForKey } from "../lib/sites/site-callers";
import { currentSiteId } from "../lib/sites/scope";
import { isSiteless } from "../lib/sites/host";
import { isPlatformKey, PLATFORM_PATH } from "../lib/platform/present";
import { carriesOperator } from "../lib/http/query";
import { isLanguage, DEFAULT_LANGUAGE } from "../lib/i18n/messages";
import type { Caller } from "../lib/access/callers";
import { CallMeta } from "../lib/http/call-meta";
import { API_PARAMS, namespaceIndex, openApiDocument } from "../lib/discovery";
import { docsAliases, docsOnError, docUrl, DOCS_PATH, policyUrl } from "../gateway/docs-page";
import { apiLinkHeader, restIndex, siteHome, SiteFacts } from "../lib/discovery/rest-index";
import { HttpDrainMixin } from "../mixins/http-drain.mixin";
import { keptHeaders, KeptResponse, responseKey, shownIds } from "../cache/response-cache";
import { KeptAnswers, type KeyedRequest } from "../cache/kept-answers";
import { CACHE_CLEAN_EVENT, type CleanMessage } from "../mixins/cache.mixin";
import { EVERYTHING } from "../cache/staleness";
import { HTTP_REQUEST_TIMEOUT_MS } from "../gateway/guards";
import { HttpGuardsMixin } from "../mixins/http-guards.mixin";
import { HttpFeaturesMixin, type HttpFeaturesFace } from "../mixins/http-features.mixin";
import { serviceRuns } from "../broker/bus";
import type { Ctx } from "../broker/context";
import type { StoredAnswer } from "../lib/http/idempotency";
import { QuietError, ReplayAnswer } from "../lib/http/answers";
import { cleanLogOf } from "../cache/cachers";
import { withSiteFields } from "../lib/fields/openapi";
import type { FieldDef } from "../lib/fields/definition";
import { readBatch } from "../lib/batch/requests";
import { BATCH_NAMESPACE, batchNamespaceIndex, batchRouteData } from "../lib/batch/envelope";
import { runBatch, type BatchOrigin } from "../gateway/batch";
import { answerInside, isValidationPass } from "../gateway/loopback";
import { Deprecation, DEPRECATIONS, deprecationHeaders, deprecationList, deprecationsUsed, isSunset } from "../lib/api-policy/deprecations";
import { EXPERIMENTAL_HEADER, experimentalActions } from "../lib/api-policy/experimental";
import { parseFields } from "../lib/http/fields";
import { DeprecationCounter } from "../gateway/deprecation-counter";
import { callerScope } from "../lib/http/etag";
import { type ClaimResult, IDEMPOTENCY_HEADER, isValidKey, keyId, leaseMs, requestFingerprint } from "../lib/http/idempotency";

type Req = IncomingMessage & { $ctx?: Ctx; $params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown; originalUrl?: string; parsedUrl?: string;
  /** The deprecated things the request uses (lib/api-policy/deprecations.ts), answered with its headers. */
  $deprecations?: Deprecation[] };
/** A GET whose answer may be kept (cache/kept-answers.ts). */
type KeyedReq = Req & KeyedRequest;
/** A node as the registry and `$node.connected` describe it. */
interface GatewayNode { id: string; services?: Array<{ name?: unknown }> }
type Res = ServerResponse & { $ctx?: Ctx };
/** What moleculer-web tells the route hooks of the alias a request matched. */
interface Alias { action?: string; path?: string; keys?: Array<{ name: string }> }

/** The gateway: moleculer-web's service, with the HTTP-feature methods and its own. */
interface ApiSelf extends Service, HttpFeaturesFace {
  /** The kept GET answers, when a cacher is configured. */
  keptAnswers?: KeptAnswers;
  /** Whether the routed services have started once (the namespace index's readiness wait). */
  routesStarted?: boolean;
  /** The HTTP server's own request handler (mixins/http-guards.mixin.ts): a batch's requests are answered through it. */
  answerHttp?: (req: IncomingMessage, res: ServerResponse) => unknown;
  /** The deprecation registry the gateway answers by (lib/api-policy/deprecations.ts; tests give their own). */
  deprecations: readonly Deprecation[];
  /** The time deprecations are judged at (tests set it to see a sunset pass). */
  clock: () => Date;
  /** Uses of deprecated things, counted per site (gateway/deprecation-counter.ts). */
  deprecationCounter?: DeprecationCounter;
  /** The experimental header and the deprecations a request's route and parameters call for, before the action runs. */
  checkPolicy(ctx: Ctx, req: Req, alias: Alias | undefined): void;
  /** A batch's own Idempotency-Key: claimed (undefined: no key, or nothing to repeat), or answered by a ReplayAnswer. */
  claimBatch(ctx: Ctx, key: string | undefined, params: Record<string, unknown>, count: number): Promise<{ id: string; fingerprint: string } | undefined>;
  answerKept(req: KeyedReq, res: Res): Promise<boolean>;
  keepResponse(ctx: Ctx, req: KeyedReq, res: Res, out: unknown, data: unknown): Promise<unknown>;
  refuseSecondGateway(node: GatewayNode | undefined): void;
}

const EXPOSED_HEADERS = "X-TEC-Total, X-TEC-TotalPages, X-WP-Total, X-WP-TotalPages, Link, ETag, Last-Modified, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Idempotent-Replayed";

/** The caller named by the Authorization header; throws 401 for an unknown key or another scheme. */
function resolveCaller(req: Req): Caller | null {
  const header = req.headers.authorization;
  if (header === undefined) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const caller = m ? callerForKey(m[1]) : undefined;
  if (!caller) throw new ApiError("rest_invalid_api_key", 401);
  return caller;
}

/** Path language of a URL (`/fr/wp-json/…` → fr), if any. */
function pathLanguage(url: string): string | undefined {
  const seg = url.split("/")[1];
  return (PATH_LANGUAGES as readonly string[]).includes(seg) ? seg : undefined;
}

function requestLanguage(req: Req): string {
  const q = req.query?.i18n_language ?? (req.body as Record<string, unknown> | undefined)?.i18n_language;
  if (isLanguage(q)) return q;
  return pathLanguage(req.originalUrl ?? req.url ?? "") ?? settings().defaultLanguage ?? DEFAULT_LANGUAGE;
}

/** The headers every API answer carries beyond the guards' security headers (gateway/guards.ts, set on every request). */
function securityHeaders(res: Res): void {
  if (res.headersSent) return;
  res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
}

/** A repeated create's kept answer, sent again as it was first sent (C21: idempotency keys). */
function replay(res: Res, answer: StoredAnswer): void {
  if (res.headersSent) return;
  securityHeaders(res);
  res.setHeader("Idempotent-Replayed", "true");
  if (answer.location) res.setHeader("Location", answer.location);
  res.setHeader("Content-Type", answer.contentType ?? "application/json; charset=utf-8");
  res.writeHead(answer.status);
  res.end(answer.body);
}

/** `__proto__` when a parsed object carries that own key or no longer has a plain prototype. */
function prototypeKeyOf(v: unknown): string | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const proto = Object.getPrototypeOf(v);
  return Object.prototype.hasOwnProperty.call(v, "__proto__") || (proto !== Object.prototype && proto !== null) ? "__proto__" : undefined;
}

/**
 * A GET whose answer is kept (cache/kept-answers.ts) is answered from the cache, conditional requests
 * included, before moleculer-web routes it (the guards have run: security headers, rate limit). Answers
 * false when the request must go on; then it carries its key for `keepResponse`.
 */
async function answerKept(this: ApiSelf, req: KeyedReq, res: Res): Promise<boolean> {
  // While a routed service is away, answers come from the services (503), not from what was kept.
  const key = this.keptAnswers && ROUTED_SERVICES.every(name => serviceRuns(this.broker, name)) ? responseKey(req) : undefined;
  if (!key) return false;
  const kept = await this.keptAnswers!.find(req, res, key);
  if (!kept) return false;
  // what moleculer-web adds to a routed answer: the request id
  res.setHeader("X-Request-ID", req.headers["x-correlation-id"] ?? req.headers["x-request-id"] ?? this.broker.generateUid());
  securityHeaders(res);
  KeptAnswers.send(req, res, kept);
  return true;
}

/**
 * Everything the gateway does before an action runs but the caller (moleculer-web's `authenticate` hook,
 * below): language, roots, hostile input.
 */
function beforeCall(lang: string | undefined) {
  return function (ctx: Ctx, _route: unknown, req: Req, _res: Res, alias: Alias | undefined): void {
    const params = req.$params ?? {};
    // A `__proto__` key in a body (JSON or form) re-parents the objects it is merged into: refuse it first.
    const pollutedBy = prototypeKeyOf(req.body) ?? prototypeKeyOf(params);
    if (pollutedBy) throw ApiError.invalidParam(pollutedBy, "param.operator");
    // moleculer-web lets the query string override the body; the body wins, path parameters win over both (README, D4: the path selects the record).
    if (typeof req.body === "string" && /(^|\/)imports$/.test(String(alias?.path)) && req.method === "POST") ctx.meta.icsBody = req.body;
    if (req.body && typeof req.body === "object" && !Array.isArray(req.body)) {
      const pathNames = new Set<string>((alias?.keys ?? []).map((k: { name: string }) => k.name));
      for (const [name, value] of Object.entries(req.body as Record<string, unknown>)) if (!pathNames.has(name)) params[name] = value;
    }
    for (const [name, value] of Object.entries(params)) {
      if (name.startsWith("$") || carriesOperator(value) || carriesOperator({ [name]: null })) throw ApiError.invalidParam(name, "param.operator");
    }
    if ("id" in params && alias?.path?.includes(":id") && !/^\d+$/.test(String(params.id))) throw ApiError.noRoute();
    if (params.i18n_language !== undefined && !isLanguage(params.i18n_language)) throw ApiError.invalidParam("i18n_language", "param.language");
    const s = settings();
    const language = params.i18n_language ?? lang ?? s.defaultLanguage;
    const site = s.baseUrl + (lang ? `/${lang}` : "");
    ctx.meta.language = language;
    ctx.meta.languageParam = params.i18n_language !== undefined;
    ctx.meta.siteUrl = site;
    ctx.meta.apiRoot = `${site}/${s.restPrefix}`;
    // Lists carry the parameters as sent in their links (D10: list links carry what the caller sent); by-slug updates rename with a body slug (D4: the path selects the record).
    if (req.method === "GET") ctx.meta.query = { ...(req.query ?? {}) };
    const bodySlug = req.body && typeof req.body === "object" ? (req.body as Record<string, unknown>).slug : undefined;
    if (alias?.path?.includes(":slug") && typeof bodySlug === "string") ctx.meta.bodySlug = bodySlug;
    delete params.i18n_language;
    // a batch's check of this request (require-all-validate): the action validates and does not run
    if (isValidationPass(req) && alias?.action) ctx.meta.$validateOnly = alias.action;
  };
}

/** What a batch's requests take from the batch's own request (gateway/batch.ts): caller, site, address. */
interface BatchMeta {
  method: string;
  headers: Record<string, string>;
  remoteAddress?: string;
  idempotencyKey?: string;
  rootLanguage?: string;
}

/**
 * `{api_root}/batch/v1` on each root (docs/api-policy.md#batch-requests): POST runs a batch, GET answers the
 * batch namespace's index and a plain OPTIONS the route's description (moleculer-web hands an OPTIONS
 * without `Access-Control-Request-Method` to the GET alias). The batch itself resolves no caller: each of
 * its requests does, as it would alone.
 */
function batchRoute(lang: string | undefined) {
  const s = settings();
  return {
    name: `batch-${lang ?? "default"}`,
    path: `${lang ? `/${lang}` : ""}/${s.restPrefix}/${BATCH_NAMESPACE}`,
    mappingPolicy: "restrict",
    autoAliases: false,
    aliases: inMatchOrder({ "POST /": "api.batch", "GET /": "api.batchIndex" }),
    bodyParsers: { json: { limit: "1mb", strict: false } },
    mergeParams: true,
    // each request of the batch has the request timeout; the batch, as many as it may carry
    callOptions: { timeout: s.requestTimeout > 0 ? s.requestTimeout * (s.batchMax + 1) : 0 },
    onBeforeCall(ctx: Ctx, _route: unknown, req: Req, _res: Res): void {
      const pollutedBy = prototypeKeyOf(req.body) ?? prototypeKeyOf(req.$params);
      if (pollutedBy) throw ApiError.invalidParam(pollutedBy, "param.operator");
      const params = req.$params ?? {};
      if (params.i18n_language !== undefined && !isLanguage(params.i18n_language)) throw ApiError.invalidParam("i18n_language", "param.language");
      const site = s.baseUrl + (lang ? `/${lang}` : "");
      ctx.meta.language = (params.i18n_language as string | undefined) ?? lang ?? settings().defaultLanguage;
      ctx.meta.siteUrl = settings().baseUrl + (lang ? `/${lang}` : "");
      ctx.meta.apiRoot = `${ctx.meta.siteUrl ?? site}/${s.restPrefix}`;
      delete params.i18n_language;
      const headers: Record<string, string> = {};
      for (const name of ["authorization", "host", "x-forwarded-host"]) {
        const value = req.headers[name];
        if (typeof value === "string") headers[name] = value;
      }
      const key = req.headers[IDEMPOTENCY_HEADER];
      const batch: BatchMeta = { method: String(req.method), headers, remoteAddress: req.socket?.remoteAddress, rootLanguage: lang, ...(typeof key === "string" ? { idempotencyKey: key } : {}) };
      ctx.meta.batch = batch;
    },
    async onAfterCall(this: ApiSelf, ctx: Ctx, _route: unknown, _req: Req, res: Res, data: unknown) {
      securityHeaders(res);
      return data;
    }
  };
}

function namespaceRoute(lang: string | undefined) {
  const s = settings();
  return {
    name: `rest-${lang ?? "default"}`,
    path: `${lang ? `/${lang}` : ""}/${s.restPrefix}/${NAMESPACE_PATH}`,
    mappingPolicy: "restrict",
    autoAliases: false,
    aliases: inMatchOrder(aliases()),
    // an iCalendar body is an import's text (docs/imports.md#routes), up to 10 MB (lib/imports/params.ts ICS_MAX_BYTES)
    bodyParsers: { json: { limit: "1mb", strict: false }, urlencoded: { extended: true, limit: "1mb" }, text: { type: "text/calendar", limit: "10mb" } },
    mergeParams: true,
    onBeforeCall: beforeCall(lang),
    // the caller (`authenticate`), then what it asks of this call (`authorize`)
    authentication: true,
    authorization: true,
    async onAfterCall(this: ApiSelf, ctx: Ctx, _route: unknown, req: Req, res: Res, data: unknown) {
      securityHeaders(res);
      if (req.$deprecations?.length) {
        const headers = ctx.meta.$responseHeaders ?? {};
        ctx.meta.$responseHeaders = { ...headers, ...deprecationHeaders(req.$deprecations, settings().baseUrl, headers.Link) };
        this.deprecationCounter?.count(currentSiteId(), req.$deprecations.map(d => d.id));
      }
      const out = await this.keepResponse(ctx, req, res, await this.httpAfter(ctx, req, res, data), data);
      // a claimed create keeps its answer before it is sent (C21: idempotency keys)
      return this.settleSuccess(ctx, req, out);
    }
  };
}

/**
 * WordPress discovery (lib/discovery/rest-index.ts): the REST index at `{site}/{REST_PREFIX}/` of each root,
 * and the site's home at `{base_url}/` (GET and HEAD) with the `Link` header that points at it.
 */
function discoveryRoutes() {
  const s = settings();
  const after = async function (_ctx: unknown, _route: unknown, _req: Req, res: Res, data: unknown) {
    securityHeaders(res);
    return data;
  };
  const indexRoute = (lang: string | undefined) => ({
    name: `rest-index-${lang ?? "default"}`,
    path: `${lang ? `/${lang}` : ""}/${s.restPrefix}`,
    mappingPolicy: "restrict",
    autoAliases: false,
    bodyParsers: false,
    aliases: inMatchOrder({ "GET /": "api.restIndex", "HEAD /": "api.restIndex" }),
    onBeforeCall: beforeCall(lang),
    authentication: true,
    onAfterCall: after
  });
  return [
    indexRoute(undefined),
    ...PATH_LANGUAGES.map(lang => indexRoute(lang)),
    {
      name: "home",
      path: "/",
      mappingPolicy: "restrict",
      autoAliases: false,
      bodyParsers: false,
      aliases: inMatchOrder({ "GET /": "api.home", "HEAD /": "api.home" }),
      onBeforeCall: beforeCall(undefined),
      authentication: true,
      onAfterCall: after
    }
  ];
}

/** What the discovery answers say about the site, for the root the request came in on. */
function siteFacts(meta: CallMeta): SiteFacts {
  const s = settings();
  const site = meta.siteUrl ?? s.baseUrl;
  return { name: s.siteName, site, apiRoot: meta.apiRoot ?? `${site}/${s.restPrefix}`, language: meta.language ?? DEFAULT_LANGUAGE, siteZone: s.siteTimezone };
}

type ApiSettings = ServiceSettingSchema & Record<string, unknown>;

/**
 * The platform API (docs/sites.md): on any host, only with PLATFORM_KEY (else 404), every operation but its
 * document behind `Bearer <PLATFORM_KEY>`. Its callers are not a site's: the caller stays anonymous.
 */
function platformRoute() {
  return {
    name: "platform",
    path: PLATFORM_PATH,
    mappingPolicy: "restrict",
    autoAliases: false,
    aliases: inMatchOrder({
      "GET doc": "platform.doc",
      "GET sites": "platform.list",
      "POST sites": "platform.create",
      "GET sites/:id": "platform.get",
      "POST sites/:id": "platform.update",
      "DELETE sites/:id": "platform.remove",
      "GET sites/:id/deprecations": "platform.deprecations",
      "POST sites/:id/keys": "platform.createKey",
      "DELETE sites/:id/keys/:key_id": "platform.removeKey"
    }),
    bodyParsers: { json: { limit: "1mb", strict: false } },
    mergeParams: true,
    onBeforeCall(ctx: Ctx, _route: unknown, req: Req, _res: Res, alias: Alias | undefined): void {
      ctx.meta.caller = null;
      const key = settings().platformKey;
      if (!key) throw ApiError.noRoute();
      if (alias?.action !== "platform.doc" && !isPlatformKey(req.headers.authorization, key)) throw new ApiError("rest_invalid_api_key", 401);
    },
    async onAfterCall(_ctx: unknown, _route: unknown, _req: Req, res: Res, data: unknown) {
      securityHeaders(res);
      return data;
    }
  };
}

/** Built when the broker creates it, so the port, host and prefix come from the current settings. */
export default function apiService(): ServiceSchema {
  const schema: ServiceSchema<ApiSettings, Record<string, unknown>, object, ApiSelf> = {
  name: "api",
  // HttpGuardsMixin: the HTTP server moleculer-web listens on, its requests through the guards first.
  mixins: [HttpGuardsMixin, ApiGateway as Partial<ServiceSchema>, HttpDrainMixin, HttpFeaturesMixin],
  settings: {
    port: settings().port,
    ip: settings().host,
    // request logging is noise at this rate; failures are logged by onError
    logRequest: null,
    logRouteRegistration: "debug",
    logResponse: null,
    log4XXResponses: false,
    // The request's site, as the site door decided it (gateway/site-door.ts), on the context moleculer-web
    // handles the request in: the one place the gateway writes `meta.site`; the calls made from that
    // context carry it on (middlewares/site-scope.middleware.ts).
    rootCallOptions(options: { meta?: Record<string, unknown> }) {
      options.meta = { ...(options.meta ?? {}), site: currentSiteId() };
    },
    // Node's HTTP server limits on slow clients (gateway/guards.ts sets the headers limit on start).
    requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
    cors: { origin: settings().corsOrigins, methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"], exposedHeaders: EXPOSED_HEADERS.split(", ") },
    // Tried in this order, each route's aliases in the order moleculer-web's own sorting gave them
    // (gateway/alias-order.ts): the probes and the API's roots first, the site's home ("/") last.
    optimizeOrder: false,
    routes: [
      {
        name: "health",
        path: "/health",
        mappingPolicy: "restrict",
        autoAliases: false,
        aliases: inMatchOrder({ "GET live": "api.live", "GET ready": "api.ready" }),
        bodyParsers: false
      },
      namespaceRoute(undefined),
      ...PATH_LANGUAGES.map(lang => namespaceRoute(lang)),
      batchRoute(undefined),
      ...PATH_LANGUAGES.map(lang => batchRoute(lang)),
      platformRoute(),
      {
        // Swagger UI on the /doc document (C19: the Authorization header is not read here).
        name: "docs",
        path: DOCS_PATH,
        mappingPolicy: "restrict",
        autoAliases: false,
        bodyParsers: false,
        aliases: inMatchOrder(docsAliases(() => docUrl(settings().baseUrl, settings().restPrefix))),
        onError: docsOnError
      },
      ...discoveryRoutes()
    ],
    async onError(this: ApiSelf, req: Req, res: Res, err: unknown) {
      if (err instanceof ReplayAnswer) return replay(res, err.answer);
      let lang = DEFAULT_LANGUAGE as string;
      // an answer, not a failure: the 503 while the services start (lib/http/answers.ts)
      let thrown = err instanceof QuietError ? err.error : err;
      try {
        lang = requestLanguage(req);
        // An unknown key is answered 401 whatever else went wrong (contract: "at once"): checked here
        // when the error came before `authenticate` resolved the caller.
        if (!isSiteless(String(req.url ?? "")) && req.$ctx?.meta?.caller === undefined) resolveCaller(req);
      } catch (authError) {
        thrown = authError;
      }
      const { error, unexpected } = toApiError(thrown);
      const requestId = req.$ctx?.requestID;
      if (unexpected) this.logger.error(`Request ${requestId ?? "-"} ${req.method} ${req.originalUrl ?? req.url} failed:`, err);
      const { status, body } = renderError(error, lang);
      const text = JSON.stringify(body);
      // a claimed create keeps its error answer (or frees its key) before it is sent (C21: idempotency keys)
      await this.settleAnswer(req, { status, body: text, contentType: "application/json; charset=utf-8" });
      if (res.headersSent) return;
      securityHeaders(res);
      if (status === 429 && !res.getHeader("Retry-After")) res.setHeader("Retry-After", "1");
      res.setHeader("Content-Type", "application/json; charset=utf-8");
      res.writeHead(status);
      res.end(text);
    }
  },
  methods: {
    /** moleculer-web's `authenticate` hook: the caller named by the Authorization header, once per request. */
    authenticate(ctx: Ctx, _route: unknown, req: Req): Caller | null {
      const caller = resolveCaller(req);
      ctx.meta.caller = caller;
      return caller;
    },
    /**
     * moleculer-web's `authorize` hook (namespace routes): what the caller asks of the call beyond the
     * reference — _fields, If-Match, Idempotency-Key, iCalendar (mixins/http-features.mixin.ts). What the
     * caller may do is each action's business (lib/access/capabilities.ts).
     */
    async authorize(ctx: Ctx, _route: unknown, req: Req, res: Res, alias: Alias | undefined): Promise<void> {
      this.checkPolicy(ctx, req, alias);
      await this.httpBefore(ctx, req, res, alias);
    },
    /**
     * The change policy's part of a request (docs/api-policy.md): an experimental route answers only with
     * `X-Calendar-Experimental: 1`; a deprecated route, parameter or field past its sunset is 410
     * `rest_gone` naming its replacement, and before it the answer carries the deprecation headers
     * (onAfterCall) and is never kept by the response cache (its uses are counted when answered).
     */
    checkPolicy(ctx: Ctx, req: Req, alias: Alias | undefined): void {
      const action = alias?.action;
      if (!action) return;
      if (experimentalActions().has(action) && String(req.headers[EXPERIMENTAL_HEADER] ?? "").trim() !== "1") throw ApiError.invalidParam("X-Calendar-Experimental", "param.experimental");
      const fields = parseFields(req.query?._fields ?? req.$params?._fields);
      const used = deprecationsUsed({ action, method: String(req.method), params: req.$params ?? {}, fields: fields ? Object.keys(fields) : undefined }, this.deprecations);
      if (!used.length) return;
      const now = this.clock();
      const gone = used.find(d => isSunset(d, now));
      if (gone) {
        this.deprecationCounter?.count(currentSiteId(), [gone.id]);
        throw new ApiError("rest_gone", 410, { replacement: gone.replacement }, { replacement: gone.replacement, deprecation: gone.id });
      }
      req.$deprecations = used;
      ctx.meta.$notKept = true;
    },
    answerKept,
    async claimBatch(ctx: Ctx, key: string | undefined, params: Record<string, unknown>, count: number) {
      if (key === undefined) return undefined;
      if (!isValidKey(key)) throw ApiError.invalidParam("Idempotency-Key", "param.idempotency_key");
      const auth = (ctx.meta.batch as BatchMeta | undefined)?.headers.authorization;
      const m = auth === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(auth);
      const caller = m ? callerForKey(m[1]) : undefined;
      // anonymous or unknown callers write nothing a repeat could double: each request answers 401
      if (!caller) return undefined;
      const id = keyId(callerScope(caller), "batch.v1", key);
      const fingerprint = requestFingerprint({ route: "batch.v1", params: { validation: params.validation ?? "normal", requests: params.requests }, language: ctx.meta.language, apiRoot: ctx.meta.apiRoot });
      const claim: ClaimResult = await this.broker.call("changes.claimKey", { id, fingerprint, leaseMs: leaseMs(settings().requestTimeout * (count + 1)) }, { parentCtx: ctx, meta: {} });
      if (claim.state === "mismatch") throw new ApiError("rest_idempotency_mismatch", 422);
      if (claim.state === "in_progress" || claim.state === "produced") throw new ApiError("rest_idempotency_in_progress", 409);
      if (claim.state === "done") {
        const { state: _state, ...answer } = claim;
        throw new ReplayAnswer(answer);
      }
      return { id, fingerprint };
    },
    /**
     * Two gateways each keeping answers in their own memory cannot promise read-your-writes (C16, C45: caches and many gateways):
     * of two such gateways that meet on the bus, the one whose node id sorts last stops, naming CACHER
     * (a shared Redis cacher, or none, keeps the promise; README "Scaling out").
     */
    refuseSecondGateway(node: GatewayNode | undefined) {
      if (!node || !this.broker.transit || cacheKind(deploymentSettings()) !== "memory") return;
      if (node.id === this.broker.nodeID || !(node.services ?? []).some(svc => svc.name === "api")) return;
      if (this.broker.nodeID < node.id) return;
      this.broker.fatal(`Another gateway (node ${node.id}) serves this deployment and CACHER is the in-process cache (the default): a page kept by one gateway ` +
        "could be answered after a write answered through the other (C16). Set CACHER=redis://host:port to share kept answers between gateways, or CACHER=off.", undefined, true);
    },
    /** Keeps a GET's 200 answer `out` (serialised once, here), computed from the action's result `data`, for answerKept. */
    async keepResponse(ctx: Ctx, req: KeyedReq, res: Res, out: unknown, data: unknown): Promise<unknown> {
      const key = req.$responseKey;
      const status = ctx.meta.$statusCode ?? 200;
      if (!key || status !== 200 || out === null || out === undefined || ctx.meta.$notKept) return out;
      const meta = ctx.meta as CallMeta & { $responseType?: string };
      const body = typeof out === "string" ? out : JSON.stringify(out);
      if (typeof out !== "string") meta.$responseType = "application/json; charset=utf-8";
      const extra: Record<string, string> = {};
      for (const [k, v] of Object.entries(meta.$responseHeaders ?? {})) extra[k.toLowerCase()] = String(v);
      const headers = keptHeaders(name => res.getHeader(name) ?? extra[name]);
      headers["content-type"] = meta.$responseType ?? "application/json; charset=utf-8";
      const kept: KeptResponse = { status, headers, body };
      await this.keptAnswers?.keep(req, kept, shownIds(data, ctx.meta.$answerIds));
      return body;
    }
  },
  created() {
    this.deprecations = DEPRECATIONS;
    this.clock = () => new Date();
  },
  started() {
    this.deprecationCounter = new DeprecationCounter(this.broker, msg => this.logger.warn(msg));
    // Kept answers are cleaned by every write: at once in one process or in a shared Redis; on a gateway
    // of its own with a memory cache, by the writer's `cache.clean.calendar` broadcast, which reaches this
    // node before the write's answer does (one NATS connection delivers a publisher's messages in order).
    this.keptAnswers = this.broker.cacher ? new KeptAnswers(this.broker.cacher, cleanLogOf(this.broker.cacher)) : undefined;
    // ...but with two gateways, the clean reaches the other one on another path than the write's answer
    // reaches its client: that one could answer a kept, stale page after the write was answered (C16: read your writes; C45: caches and many gateways).
    for (const node of this.broker.registry.getNodeList({ onlyAvailable: true, withServices: true })) this.refuseSecondGateway(node);
  },
  async stopped() {
    await this.deprecationCounter?.close();
  },
  events: {
    "$node.connected"(ctx: Context<{ node: GatewayNode }>) {
      this.refuseSecondGateway(ctx.params.node);
    },
    [CACHE_CLEAN_EVENT](ctx: Context<CleanMessage | undefined>) {
      if (this.broker.transit && cacheKind(deploymentSettings()) !== "redis") return this.broker.cacher?.clean(ctx.params?.patterns ?? EVERYTHING);
    }
  },
  actions: {
    live: {
      handler() {
        return { status: "ok" };
      }
    },
    ready: {
      handler(ctx: Ctx) {
        const missing = ROUTED_SERVICES.filter(name => !serviceRuns(this.broker, name));
        if (missing.length) throw new QuietError(new ApiError("rest_not_ready", 503, { services: missing.join(", ") }, { services: missing }));
        ctx.meta.$statusCode = 200;
        return { status: "ready", services: ROUTED_SERVICES };
      }
    },
    index: {
      params: API_PARAMS["api.index"],
      async handler(ctx: Ctx<{ namespace?: string }>) {
        if (ctx.params.namespace !== undefined && ctx.params.namespace !== NAMESPACE_PATH) throw new ApiError("rest_invalid_namespace", 404);
        // The contract's readiness probe: until the routed services that can come have started once (a
        // large embedded store takes seconds to load), the root waits for them a while and then answers 503
        // rest_not_ready, so a 200 means the routes answer. Without a transporter only this process's own
        // services can come. After that, outages are /health/ready's business.
        const s = settings();
        if (!this.routesStarted) {
          const expected = s.transporter ? ROUTED_SERVICES : ROUTED_SERVICES.filter(name => s.services.includes(name));
          const waitMs = s.requestTimeout > 0 ? Math.max(500, Math.min(8000, s.requestTimeout - 2000)) : 8000;
          this.routesStarted = await this.broker.waitForServices(expected, waitMs).then(() => true, () => false);
          const missing = expected.filter(name => !serviceRuns(this.broker, name));
          if (!this.routesStarted) throw new QuietError(new ApiError("rest_not_ready", 503, { services: missing.join(", ") }, { services: missing }));
        }
        return namespaceIndex(ctx.meta.apiRoot ?? `${s.baseUrl}/${s.restPrefix}`, { siteZone: s.siteTimezone, language: ctx.meta.language, policyUrl: policyUrl(s.baseUrl) });
      }
    },
    restIndex: {
      params: API_PARAMS["api.restIndex"],
      handler(ctx: Ctx) {
        return restIndex(siteFacts(ctx.meta));
      }
    },
    home: {
      params: API_PARAMS["api.home"],
      handler(ctx: Ctx) {
        const facts = siteFacts(ctx.meta);
        ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), Link: apiLinkHeader(facts.apiRoot) };
        return siteHome(facts);
      }
    },
    batch: {
      params: API_PARAMS["api.batch"],
      async handler(ctx: Ctx<Record<string, unknown>>) {
        const s = settings();
        const batch = readBatch(ctx.params, s.batchMax);
        const meta = ctx.meta.batch as BatchMeta;
        const claim = await this.claimBatch(ctx, meta.idempotencyKey, ctx.params, batch.requests.length);
        const origin: BatchOrigin = {
          headers: meta.headers, remoteAddress: meta.remoteAddress, restPrefix: s.restPrefix, rootLanguage: meta.rootLanguage,
          language: ctx.meta.language ?? DEFAULT_LANGUAGE, ...(meta.idempotencyKey ? { idempotencyKey: meta.idempotencyKey } : {})
        };
        const answerHttp = this.answerHttp;
        if (!answerHttp) throw new ApiError("rest_service_unavailable", 503);
        let answer;
        try {
          answer = await runBatch(batch, origin, request => answerInside(answerHttp, request));
        } catch (err) {
          if (claim) await this.broker.call("changes.releaseKey", claim).catch(() => undefined);
          throw err;
        }
        const body = JSON.stringify(answer);
        if (claim) {
          await this.broker.call("changes.settleKey", { ...claim, answer: { status: 207, body, contentType: "application/json; charset=utf-8" } })
            .catch((err: Error) => this.logger.warn(`Idempotency key not settled: ${err.message}`));
        }
        ctx.meta.$statusCode = 207;
        (ctx.meta as CallMeta & { $responseType?: string }).$responseType = "application/json; charset=utf-8";
        return body;
      }
    },
    batchIndex: {
      params: API_PARAMS["api.batchIndex"],
      handler(ctx: Ctx) {
        const s = settings();
        const apiRoot = ctx.meta.apiRoot ?? `${s.baseUrl}/${s.restPrefix}`;
        return (ctx.meta.batch as BatchMeta | undefined)?.method === "OPTIONS" ? batchRouteData(apiRoot, s.batchMax) : batchNamespaceIndex(apiRoot, s.batchMax);
      }
    },
    doc: {
      params: API_PARAMS["api.doc"],
      async handler(ctx: Ctx) {
        const language = ctx.meta.language ?? DEFAULT_LANGUAGE;
        const doc = openApiDocument(ctx.meta.apiRoot ?? `${settings().baseUrl}/${settings().restPrefix}`, language, this.deprecations);
        // the site's own custom fields under its records' `meta` (none while the taxonomy service is away)
        const defs = await ctx.call<FieldDef[], object>("taxonomy.fields.definitions", {}).catch(() => []);
        return withSiteFields(doc, defs, language, settings().defaultLanguage);
      }
    },
    deprecations: {
      params: API_PARAMS["api.deprecations"],
      handler() {
        return deprecationList(settings().baseUrl, this.deprecations);
      }
    },
    /** A site's counts of uses of deprecated things (the platform API's `GET /sites/{id}/deprecations`). */
    deprecationUses: {
      visibility: "public",
      async handler(ctx: Ctx) {
        await this.deprecationCounter?.flush();
        return ctx.call("changes.deprecationUses", {});
      }
    }
  }
  };
  return serviceSchema(schema);
}
