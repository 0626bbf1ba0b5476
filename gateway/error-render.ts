/**
 * Turns any error into the contract's JSON (`{code, message, data: {status, …}}`), localised. The gateway
 * is the only caller: errors are thrown where they arise and rendered here, once.
 */
import { Errors } from "moleculer";
import { ApiError, ApiErrorData, ParamReason, isApiError } from "../lib/errors";
import { translate } from "../lib/i18n/messages";

export interface RenderedError {
  status: number;
  body: { code: string; message: string; data: Record<string, unknown> };
}

interface ValidationItem { type: string; field?: string; expected?: unknown; actual?: unknown; max?: unknown }

/** fastest-validator's error list → the WordPress pipeline's two 400s (missing first, then invalid). */
function fromValidation(items: ValidationItem[]): ApiError {
  const top = (field = "") => field.split(/[.[]/)[0] || field;
  const missing = [...new Set(items.filter(i => i.type === "required").map(i => top(i.field)))];
  if (missing.length) return ApiError.missingParams(missing);
  const reasons: Record<string, ParamReason> = {};
  const details: Record<string, unknown> = {};
  for (const item of items) {
    const name = top(item.field);
    if (reasons[name]) continue;
    const key = item.type.startsWith("param.") ? item.type : "param.invalid";
    const vars = { ...(item.expected !== undefined ? { type: String(item.expected) } : {}), ...(typeof item.max === "number" ? { max: item.max } : {}) };
    reasons[name] = { key, vars: Object.keys(vars).length ? vars : undefined };
    if (key === "param.type") details[name] = { code: "rest_invalid_type", i18n: { key: "param.type", vars: { type: String(item.expected) } }, data: { param: name } };
  }
  return ApiError.invalidParams(reasons, details);
}

/** Map any thrown thing onto an ApiError (unknown failures become 500 rest_internal_error). */
export function toApiError(err: unknown): { error: ApiError; unexpected: boolean } {
  if (isApiError(err)) return { error: err, unexpected: false };
  /** The fields thrown errors of moleculer, moleculer-web and body-parser carry, each maybe absent. */
  const e = err as { type?: unknown; status?: unknown; code?: unknown; name?: string; data?: unknown; expose?: unknown } | null | undefined;
  if (e instanceof Errors.ValidationError || e?.type === "VALIDATION_ERROR") return { error: fromValidation(Array.isArray(e.data) ? e.data : []), unexpected: false };
  // body-parser failures
  if (e?.type === "entity.too.large" || e?.status === 413 || e?.code === 413) return { error: new ApiError("rest_payload_too_large", 413), unexpected: false };
  if (e?.type === "entity.parse.failed" || e?.type === "INVALID_REQUEST_BODY")
    return { error: new ApiError("rest_invalid_json", 400, {}, { json_error_code: 4, json_error_message: "Syntax error" }), unexpected: false };
  if (e?.type === "charset.unsupported" || e?.type === "encoding.unsupported" || e?.status === 415) return { error: new ApiError("rest_invalid_json", 400), unexpected: false };
  if (e?.name === "RateLimitExceeded" || e?.code === 429) return { error: new ApiError("rest_too_many_requests", 429), unexpected: false };
  if (e?.name === "NotFoundError" && e?.type === "NOT_FOUND") return { error: ApiError.noRoute(), unexpected: false };
  // moleculer-web: a path segment with a malformed percent-escape (`/events/by-slug/%E0%A4%A`) names no route.
  if (e?.type === "UNABLE_DECODE_PARAM") return { error: ApiError.noRoute(), unexpected: false };
  // moleculer-web: an `Origin` outside CORS_ORIGINS.
  if (e?.type === "ORIGIN_NOT_ALLOWED") return { error: new ApiError("rest_forbidden", 403), unexpected: false };
  // Bus faults, by class or (errors rebuilt after crossing the transporter may carry only these) by name or type.
  // RequestSkippedError: the request's time budget ran out before a nested call was made.
  if (e instanceof Errors.RequestTimeoutError || e instanceof Errors.RequestSkippedError || ["RequestTimeoutError", "RequestSkippedError"].includes(String(e?.name))
    || ["REQUEST_TIMEOUT", "REQUEST_SKIPPED"].includes(String(e?.type)))
    return { error: new ApiError("rest_gateway_timeout", 504), unexpected: false };
  // BrokerDisconnectedError: this node lost the transporter (NATS down); ServiceUnavailableError: moleculer-web's own;
  // StoreUnavailableError: the database cannot be reached (store/errors.ts).
  if (e instanceof Errors.ServiceNotFoundError || e instanceof Errors.ServiceNotAvailableError || e instanceof Errors.RequestRejectedError
    || ["ServiceNotFoundError", "ServiceNotAvailableError", "RequestRejectedError", "ServiceUnavailableError", "QueueIsFullError", "BrokerDisconnectedError", "StoreUnavailableError"].includes(String(e?.name))
    || ["SERVICE_NOT_FOUND", "SERVICE_NOT_AVAILABLE", "REQUEST_REJECTED", "QUEUE_FULL", "STORE_UNAVAILABLE"].includes(String(e?.type)))
    return { error: new ApiError("rest_service_unavailable", 503), unexpected: false };
  // any other refusal of the body parser (a form body nested too deep, an aborted upload…), which moleculer-web
  // hands on as a MoleculerError with the parser's status: the request could not be read
  const clientStatus = Number.isInteger(e?.status) ? e?.status : e?.code;
  if (typeof clientStatus === "number" && Number.isInteger(clientStatus) && clientStatus >= 400 && clientStatus < 500 && (e?.expose === true || typeof e?.type === "string"))
    return { error: new ApiError("rest_bad_request", clientStatus), unexpected: false };
  return { error: new ApiError("rest_internal_error", 500), unexpected: true };
}

function localiseData(data: ApiErrorData, lang: string): Record<string, unknown> {
  const { i18n: _i18n, params, details, ...rest } = data;
  const out: Record<string, unknown> = { ...rest };
  if (Array.isArray(params)) out.params = params;
  else if (params) {
    const localised: Record<string, string> = {};
    for (const [name, reason] of Object.entries(params)) localised[name] = translate(reason.key, lang, { param: name, ...(reason.vars ?? {}) });
    out.params = localised;
    out.details = {};
  }
  if (details && Object.keys(details).length) {
    const d: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(details)) {
      const item = v as { i18n?: { key: string; vars?: Record<string, unknown> }; code?: unknown; data?: unknown } | null;
      d[name] = item?.i18n ? { code: item.code, message: translate(item.i18n.key, lang, { param: name, ...(item.i18n.vars ?? {}) }), data: item.data } : item;
    }
    out.details = d;
  }
  return out;
}

/** The contract's error JSON for `err`, in `lang`. */
export function renderError(error: ApiError, lang: string): RenderedError {
  const status = error.code || error.data?.status || 500;
  const data = error.data ?? { status };
  const message = data.i18n ? translate(data.i18n.key, lang, data.i18n.vars) : error.message;
  return { status, body: { code: String(error.type), message, data: { status, ...localiseData(data, lang) } } };
}
