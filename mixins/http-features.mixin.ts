/**
 * The gateway's HTTP features beyond the reference (the sync issue), hooked into the namespace routes'
 * `onBeforeCall` / `onAfterCall` (services/api.service.ts):
 *
 * - `_fields` response shaping on every route (lib/http/fields.ts, C22: caching headers and shaping);
 * - strong per-caller, per-language ETags and `Last-Modified` on every GET (lib/http/etag.ts; moleculer-web
 *   answers 304 to a matching `If-None-Match` / `If-Modified-Since`), and `If-Match` on updates and deletes
 *   (412 `rest_precondition_failed` when the record as the caller would GET it has another ETag);
 * - `Idempotency-Key` on creates (lib/http/idempotency.ts, C21: idempotency keys), the keys kept by the `changes` service: a
 *   repeated create is answered by the gateway's `onError` from a `ReplayAnswer` thrown before the call, and
 *   a claimed create's answer is kept before it is sent (`settleAnswer`, from `onAfterCall` or `onError`);
 * - the events list as iCalendar (`format=ics` or `Accept: text/calendar`, lib/events/ics-answer.ts, C22: caching headers and shaping), and one event
 *   (`GET /events/{id}` or `/events/by-slug/{slug}`) the same way; failures stay the contract's error JSON.
 */
import type { IncomingMessage, ServerResponse } from "http";
import type { Service } from "moleculer";
import { serviceSchema } from "../broker/service-schema";
import type { Ctx } from "../broker/context";
import { ApiError } from "../lib/errors";
import type { CallMeta } from "../lib/http/call-meta";
import { settings } from "../lib/settings";
import { FieldMask, parseFields, shapeBody } from "../lib/http/fields";
import { bodyModified, callerScope, etagOf, httpDate, ifMatchPasses, newestModified, notModified, strongEtag } from "../lib/http/etag";
import {
  ClaimResult, IDEMPOTENCY_HEADER, isCreateAction, isValidKey, keyId, leaseMs, ProducedRecord, readActionOfCreate, requestFingerprint, settlement, StoredAnswer
} from "../lib/http/idempotency";
import { ReplayAnswer } from "../lib/http/answers";
import { eventsCalendar, ICS_CONTENT_TYPE, ICS_MAX_EVENTS, wantsIcs } from "../lib/events/ics-answer";
import { seriesCalendar, SeriesCalendarInfo } from "../lib/recurrence/calendar";


interface HttpState {
  action: string;
  fields?: FieldMask;
  /** `_fields` as sent (part of an idempotent request's identity). */
  fieldsRaw?: unknown;
  /** iCalendar: the list params as sent, for the pages after the first. */
  ics?: Record<string, unknown>;
  /** iCalendar of the one event the action answers. */
  icsOne?: boolean;
  /** The idempotency key this create claimed, until its answer is kept (or the key released). */
  claim?: { id: string; fingerprint: string };
  /** The action was asked for its answer as JSON text (`$answerText`, lib/http/call-meta.ts). */
  text?: boolean;
}

type Req = IncomingMessage & {
  $http?: HttpState;
  $params?: Record<string, unknown>;
  query?: Record<string, unknown>;
};

/** Events per list call when collecting an iCalendar answer (the lists' maximum page). */
const ICS_PAGE = 50;

/** The reads of one event that may answer iCalendar. */
const SINGLE_EVENT_READS = new Set(["events.get", "events.getBySlug"]);

/** The reads that may answer a record as JSON text, the bytes to send (`$answerText`, lib/http/call-meta.ts). */
const TEXT_READS = new Set(["events.get", "events.list"]);

/** The calendar's name and the host of event UIDs (lib/events/ics-answer.ts). */
function calendarOptions(): { name: string; hostname: string } {
  const s = settings();
  return { name: s.siteName, hostname: new URL(s.baseUrl).hostname };
}

/** Updates and deletes whose `If-Match` is checked, and the read that gives the record's current ETag. */
function readActionOf(action: string): string | undefined {
  const m = /^(.*)\.(update|updateBySlug|remove|removeBySlug)$/.exec(action);
  if (!m) return undefined;
  return `${m[1]}.${m[2].endsWith("BySlug") ? "getBySlug" : "get"}`;
}

/** The meta of a side call made for a request: its caller, language and roots, none of its answer. */
function sideMeta(meta: CallMeta): CallMeta {
  const { $statusCode: _s, $responseHeaders: _h, $location: _l, $responseType: _t, $answerText: _a, $answerModified: _m, $answerTag: _g, $answerIds: _i, ...rest } = meta as CallMeta & { $responseType?: string };
  return { ...rest };
}

function appendVary(current: unknown, names: string[]): string {
  const have = String(current ?? "").split(",").map(v => v.trim()).filter(Boolean);
  for (const n of names) if (!have.some(h => h.toLowerCase() === n.toLowerCase())) have.push(n);
  return have.join(", ");
}

const headerText = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(", ") : v);

const httpFeatures = {
  name: "http-features",

  methods: {
    /** After the gateway's own checks (caller, language, input), before the action runs. */
    async httpBefore(ctx: Ctx, req: Req, res: ServerResponse, alias: { action?: string } | undefined): Promise<void> {
      const action = alias?.action;
      if (!action) return;
      const params = req.$params ?? {};
      const fieldsRaw = req.query?._fields ?? params._fields;
      delete params._fields;
      const state: HttpState = { action, fields: parseFields(fieldsRaw), fieldsRaw };
      req.$http = state;
      if (SINGLE_EVENT_READS.has(action) && req.method === "GET" && wantsIcs(params.format, headerText(req.headers.accept))) state.icsOne = true;
      if (action === "events.list" && req.method === "GET" && wantsIcs(params.format, headerText(req.headers.accept))) {
        state.ics = { ...params };
        delete state.ics.page;
        delete state.ics.per_page;
        params.page = 1;
        params.per_page = ICS_PAGE;
      }
      const ifMatch = headerText(req.headers["if-match"]);
      if (ifMatch !== undefined && readActionOf(action)) await this.checkIfMatch(ctx, action, params, ifMatch);
      const key = headerText(req.headers[IDEMPOTENCY_HEADER]);
      if (key !== undefined && isCreateAction(action, req.method)) {
        // a batch's check of the request (require-all-validate) claims nothing: the request has not run
        if (ctx.meta.$validateOnly !== undefined) {
          if (!isValidKey(key)) throw ApiError.invalidParam("Idempotency-Key", "param.idempotency_key");
        } else await this.claimIdempotency(ctx, req, res, action, params, key);
      }
      // an answer sent as it is: no `_fields` to shape it, no iCalendar to make from it
      if (TEXT_READS.has(action) && req.method === "GET" && !state.fields && !state.icsOne && !state.ics && ctx.meta.$validateOnly === undefined) {
        state.text = true;
        ctx.meta.$answerText = true;
      }
    },

    /** After the action answered: iCalendar, `_fields`, ETag and Last-Modified, Location of creates. */
    async httpAfter(ctx: Ctx, req: Req, res: ServerResponse, data: unknown): Promise<unknown> {
      const state = req.$http;
      if (!state) return data;
      let out = data;
      let modified: string | undefined;
      // the record's JSON text as the action kept it (`$answerText`): the bytes sent, with the hash of them
      const sentAsText = state.text === true && typeof data === "string";
      if (state.ics && data && typeof data === "object") {
        const events = await this.icsEvents(ctx, state.ics, data as Record<string, unknown>);
        modified = newestModified(events.map((e: Record<string, unknown>) => e.modified_utc));
        out = await this.eventsIcs(ctx, events, state.ics);
        (ctx.meta as CallMeta & { $responseType?: string }).$responseType = ICS_CONTENT_TYPE;
        const { Link: _link, ...headers } = ctx.meta.$responseHeaders ?? {};
        ctx.meta.$responseHeaders = { ...headers, "Content-Disposition": "inline; filename=\"events.ics\"" };
      } else if (state.icsOne && data && typeof data === "object" && !Array.isArray(data)) {
        const event = data as Record<string, unknown>;
        modified = bodyModified(state.action, event);
        out = await this.eventsIcs(ctx, [event], undefined);
        (ctx.meta as CallMeta & { $responseType?: string }).$responseType = ICS_CONTENT_TYPE;
        const id = Number.isSafeInteger(event.id) ? event.id : "event";
        ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), "Content-Disposition": `inline; filename="event-${id}.ics"` };
      } else if (sentAsText) {
        modified = newestModified([ctx.meta.$answerModified]);
        (ctx.meta as CallMeta & { $responseType?: string }).$responseType = "application/json; charset=utf-8";
      } else {
        modified = bodyModified(state.action, data);
        if (state.fields) out = shapeBody(state.action, data, state.fields);
      }
      const status = ctx.meta.$statusCode ?? 200;
      if (isCreateAction(state.action, req.method) && status === 201 && !ctx.meta.$location && !ctx.meta.$responseHeaders?.Location) {
        const self = (data as Record<string, unknown> | null)?.rest_url;
        if (typeof self === "string") ctx.meta.$location = self;
      }
      if (req.method === "GET" && status >= 200 && status < 300 && out !== undefined && out !== null) {
        const payload = typeof out === "string" ? out : JSON.stringify(out);
        if (typeof out !== "string") {
          // The bytes the ETag is of are the bytes sent: moleculer-web writes a string with its type as is.
          (ctx.meta as CallMeta & { $responseType?: string }).$responseType ??= "application/json; charset=utf-8";
          out = payload;
        }
        const tag = sentAsText ? ctx.meta.$answerTag : undefined;
        const etag = tag ? etagOf(tag, ctx.meta.caller, ctx.meta.language) : strongEtag(payload, ctx.meta.caller, ctx.meta.language);
        const lastModified = ctx.meta.$responseHeaders?.["Last-Modified"] ?? (modified ? httpDate(modified) : undefined);
        res.setHeader("ETag", etag);
        if (lastModified) res.setHeader("Last-Modified", lastModified);
        res.setHeader("Vary", appendVary(res.getHeader("Vary"), ["Authorization", "Accept"]));
        if (notModified({ ifNoneMatch: headerText(req.headers["if-none-match"]), ifModifiedSince: headerText(req.headers["if-modified-since"]) }, etag, lastModified)) {
          ctx.meta.$statusCode = 304;
          return null;
        }
      }
      return out;
    },

    /**
     * The iCalendar text of event records: series as series (C55: horizon and ICS; lib/recurrence/calendar.ts) when some
     * record belongs to one; `listParams` are the list query's (its window), undefined for one event (a
     * series' first event is then the whole series, another occurrence itself alone).
     */
    async eventsIcs(ctx: Ctx, listed: Array<Record<string, unknown>>, listParams: Record<string, unknown> | undefined): Promise<string> {
      let events = listed;
      const single = listParams === undefined;
      const members = events.filter(e => (single ? Array.isArray(e.recurrence) : Array.isArray(e.recurrence) || typeof e.post_parent === "number"));
      if (!members.length) return eventsCalendar(events, calendarOptions());
      const ask = (ids: unknown[]): Promise<SeriesCalendarInfo> => this.broker.call("events.seriesCalendar",
        { ...(single ? { whole: true } : listParams), ids }, { parentCtx: ctx, meta: sideMeta(ctx.meta) });
      let info = await ask(members.map(e => e.id));
      if (info.more?.length) {
        // exceptions past the answer's records: their own VEVENTs, so the series expands right there too
        const pages = await Promise.all(Array.from({ length: Math.ceil(info.more.length / ICS_PAGE) }, (_, i) =>
          this.broker.call("events.list", { include: info.more!.slice(i * ICS_PAGE, (i + 1) * ICS_PAGE), per_page: ICS_PAGE, page: 1 },
            { parentCtx: ctx, meta: sideMeta(ctx.meta) }) as Promise<{ events?: Array<Record<string, unknown>> }>));
        const extra = pages.flatMap(p => p.events ?? []);
        events = [...events, ...extra];
        info = await ask([...members, ...extra].map(e => e.id));
      }
      return seriesCalendar(events, info, calendarOptions());
    },

    /** Every event of an iCalendar answer: the first page's, then the following pages (up to 1 000). */
    async icsEvents(ctx: Ctx, params: Record<string, unknown>, first: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
      const wanted = Math.min(Number(first.total) || 0, ICS_MAX_EVENTS);
      const pages = Math.ceil(wanted / ICS_PAGE);
      const rest: Array<Record<string, unknown>> = await Promise.all(Array.from({ length: Math.max(0, pages - 1) }, (_, i) =>
        this.broker.call<Record<string, unknown>, Record<string, unknown>>("events.list", { ...params, page: i + 2, per_page: ICS_PAGE }, { parentCtx: ctx, meta: sideMeta(ctx.meta) })));
      return [first, ...rest].flatMap(p => (Array.isArray(p?.events) ? p.events : [])).slice(0, ICS_MAX_EVENTS);
    },

    /** 412 unless the record, read as this caller would GET it, still has an ETag `If-Match` names. */
    async checkIfMatch(ctx: Ctx, action: string, params: Record<string, unknown>, header: string): Promise<void> {
      const read = readActionOf(action)!;
      const readParams: Record<string, unknown> = params.slug !== undefined && read.endsWith("BySlug") ? { slug: params.slug } : { id: params.id };
      if (typeof params.password === "string") readParams.password = params.password;
      let current: unknown;
      try {
        current = await this.broker.call(read, readParams, { parentCtx: ctx, meta: sideMeta(ctx.meta) });
      } catch {
        return; // nothing this caller may read there: the action answers (404, 403, 410…)
      }
      if (!ifMatchPasses(header, strongEtag(JSON.stringify(current), ctx.meta.caller, ctx.meta.language))) throw new ApiError("rest_precondition_failed", 412);
    },

    /**
     * Claims the key of a create, or answers for it: 422 (another request had it), 409 (still running), the
     * kept answer (a `ReplayAnswer`, written by the gateway's `onError`). A claimed request keeps its answer
     * before it is sent (`settleAnswer`).
     */
    async claimIdempotency(ctx: Ctx, req: Req, res: ServerResponse, action: string, params: Record<string, unknown>, key: string): Promise<void> {
      if (!isValidKey(key)) throw ApiError.invalidParam("Idempotency-Key", "param.idempotency_key");
      const caller = ctx.meta.caller;
      if (!caller) return; // anonymous creates are refused (401): nothing to repeat
      const id = keyId(callerScope(caller), action, key);
      const request = Object.fromEntries(Object.entries(params).filter(([k]) => !k.startsWith("$")));
      const fingerprint = requestFingerprint({ route: action, params: request, language: ctx.meta.language, apiRoot: ctx.meta.apiRoot, fields: req.$http?.fieldsRaw });
      const claim: ClaimResult = await this.broker.call("changes.claimKey", { id, fingerprint, leaseMs: leaseMs(settings().requestTimeout) }, { parentCtx: ctx, meta: {} });
      if (claim.state === "mismatch") throw new ApiError("rest_idempotency_mismatch", 422);
      if (claim.state === "in_progress") throw new ApiError("rest_idempotency_in_progress", 409);
      if (claim.state === "done") {
        const { state: _state, refill, ...answer } = claim;
        // a body not kept (it held a secret): read again from the action that answers it
        if (refill) {
          const data = await this.broker.call<Record<string, unknown>, { id: number }>(refill.read, { id: refill.id }, { parentCtx: ctx, meta: sideMeta(ctx.meta) });
          answer.body = JSON.stringify(req.$http?.fields ? shapeBody(action, data, req.$http.fields) : data);
        }
        throw new ReplayAnswer(answer);
      }
      if (claim.state === "produced") throw new ReplayAnswer(await this.producedAnswer(ctx, req, action, claim.record, { id, fingerprint }));
      req.$http!.claim = { id, fingerprint };
      // the create marks the claim with its record in its own transaction (store/key-store.ts)
      ctx.meta.idempotencyClaim = id;
      ctx.meta.idempotencyRead = readActionOfCreate(action);
    },

    /**
     * The answer of a create whose record was stored but whose answer was never kept (its node died after
     * the commit): the record as the create would have answered it (201, `Location`), kept now for the
     * repeats that follow.
     */
    async producedAnswer(ctx: Ctx, req: Req, action: string, record: ProducedRecord, claim: { id: string; fingerprint: string }): Promise<StoredAnswer> {
      const data = await this.broker.call<Record<string, unknown>, { id: number }>(record.read, { id: record.id }, { parentCtx: ctx, meta: sideMeta(ctx.meta) });
      const shaped = req.$http?.fields ? shapeBody(action, data, req.$http.fields) : data;
      const self = (data.rest_url ?? (data.urls as Record<string, unknown> | undefined)?.self) as string | undefined;
      const answer: StoredAnswer = { status: 201, body: JSON.stringify(shaped), contentType: "application/json; charset=utf-8", ...(self ? { location: self } : {}) };
      await this.broker.call("changes.settleKey", { ...claim, answer }).catch((err: Error) => this.logger.warn(`Idempotency key not settled: ${err.message}`));
      return answer;
    },

    /**
     * Keeps the answer of a claimed create (or releases its key) before it is sent: from `onAfterCall` with
     * the body about to be written, or from `onError` with the error's. Once per request.
     */
    async settleAnswer(req: Req, answer: StoredAnswer): Promise<void> {
      const claim = req.$http?.claim;
      if (!claim) return;
      delete req.$http!.claim;
      const { id, fingerprint } = claim;
      const outcome = settlement(answer.status);
      try {
        if (outcome === "store") await this.broker.call("changes.settleKey", { id, fingerprint, answer });
        else if (outcome === "release") await this.broker.call("changes.releaseKey", { id, fingerprint });
      } catch (err) {
        this.logger.warn(`Idempotency key not settled: ${(err as Error).message}`);
      }
    },

    /**
     * The body a claimed create is about to send, as moleculer-web would write it, kept first; answers the
     * body (a string, with its type in `$responseType`, so the bytes sent are the bytes kept).
     */
    async settleSuccess(ctx: Ctx, req: Req, out: unknown): Promise<unknown> {
      if (!req.$http?.claim) return out;
      const meta = ctx.meta as CallMeta & { $responseType?: string };
      const status = meta.$statusCode ?? 200;
      // moleculer-web writes a string with a type as is, anything else as JSON
      const body = out === undefined || out === null ? "" : typeof out === "string" && meta.$responseType ? out : JSON.stringify(out);
      const contentType = meta.$responseType ?? "application/json; charset=utf-8";
      const location = (status === 201 || (status >= 300 && status < 400) ? meta.$location : undefined) ?? meta.$responseHeaders?.Location;
      // an answer holding a secret is kept without its body (StoredAnswer.refill)
      const refill = meta.$answerRefill;
      await this.settleAnswer(req, { status, body: refill ? "" : body, contentType, ...(location ? { location: String(location) } : {}), ...(refill ? { refill } : {}) });
      if (out === undefined || out === null) return out;
      meta.$responseType = contentType;
      return body;
    }
  }
} satisfies { name: string; methods: ThisType<HttpFeaturesSelf> };

/** The gateway's HTTP-feature methods (services/api.service.ts calls them from its route hooks). */
export type HttpFeaturesFace = typeof httpFeatures.methods;
interface HttpFeaturesSelf extends Service, HttpFeaturesFace {}

export const HttpFeaturesMixin = serviceSchema<HttpFeaturesFace, object, HttpFeaturesSelf>(httpFeatures);
