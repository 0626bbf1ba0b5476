/**
 * The one error class of the service. It carries the REST code (WordPress-style slug), the HTTP status
 * and the contract's `data`, survives a trip over the bus (Moleculer rebuilds it from name, message,
 * code, type and data), and is rendered into the contract's JSON in one place: the gateway.
 *
 * `data.i18n` holds the message key and its variables so the gateway can localise the message into the
 * request's language; it is stripped before the answer goes out.
 *
 * A plain `Error` with the fields of Moleculer's errors (`code`, `type`, `data`, `retryable`; `name` and
 * `message` not enumerable), so that lib/ needs nothing of the framework: the bus carries those fields and
 * rebuilds a plain error from them either way, which isApiError recognises.
 */
import { translate } from "./i18n/messages";

/** A parameter problem: a message key of the catalogs (`param.*`) and its variables. */
export interface ParamReason {
  key: string;
  vars?: Record<string, string | number>;
}

export interface ApiErrorData {
  status: number;
  params?: Record<string, ParamReason> | string[];
  details?: Record<string, unknown>;
  i18n?: { key: string; vars?: Record<string, string | number> };
  [extra: string]: unknown;
}

export class ApiError extends Error {
  /** The HTTP status. */
  code: number;
  /** The REST code (`rest_invalid_param`). */
  type: string;
  data: ApiErrorData;
  /** Never retried by the bus. */
  retryable = false;

  constructor(code: string, status: number, vars: Record<string, string | number> = {}, extra: Record<string, unknown> = {}) {
    super(translate(code, "en", vars));
    Object.defineProperty(this, "name", { value: "ApiError", configurable: true, enumerable: false, writable: true });
    this.code = status || 500;
    this.type = code;
    this.data = { status, ...extra, i18n: { key: code, vars } };
  }

  /** 400 rest_invalid_param naming each bad parameter with its reason. */
  static invalidParams(reasons: Record<string, ParamReason | string>, details: Record<string, unknown> = {}): ApiError {
    const params: Record<string, ParamReason> = {};
    for (const [name, reason] of Object.entries(reasons)) params[name] = typeof reason === "string" ? { key: reason } : reason;
    return new ApiError("rest_invalid_param", 400, { params: Object.keys(params).join(", ") }, { params, details });
  }

  /** 400 rest_invalid_param for one parameter. */
  static invalidParam(name: string, key = "param.invalid", vars?: Record<string, string | number>): ApiError {
    return ApiError.invalidParams({ [name]: { key, vars } });
  }

  /** 400 rest_missing_callback_param listing every missing parameter. */
  static missingParams(names: string[]): ApiError {
    return new ApiError("rest_missing_callback_param", 400, { params: names.join(", ") }, { params: names });
  }

  /** 401 for anonymous callers, 403 for known ones: the caller lacks a capability. */
  static forbidden(anonymous: boolean): ApiError {
    return new ApiError("rest_forbidden", anonymous ? 401 : 403);
  }

  static noRoute(): ApiError {
    return new ApiError("rest_no_route", 404);
  }
}

/** One 400 `rest_invalid_param` naming every parameter in `reasons`, if any. */
export function throwIfInvalid(reasons: Record<string, ParamReason | string>): void {
  if (Object.keys(reasons).length) throw ApiError.invalidParams(reasons);
}

/** Duck-typed: an ApiError that crossed the bus is rebuilt by Moleculer as a plain error with the same fields. */
export function isApiError(err: unknown): err is ApiError {
  const e = err as { type?: unknown; code?: unknown; data?: { i18n?: unknown } } | null | undefined;
  return !!e && typeof e.type === "string" && typeof e.code === "number" && !!e.data?.i18n;
}

/**
 * Parameter checks run side by side, answered as if run one after the other: their values, or — when
 * some were refused for their parameters (400 `rest_invalid_param`) — one error naming every refused
 * parameter, in the order the checks are given, whichever finished first. Any other failure is thrown
 * as it is (the first in that order).
 */
export async function allChecks<T extends readonly unknown[]>(checks: readonly [...{ [K in keyof T]: T[K] | Promise<T[K]> }]): Promise<T> {
  const settled = await Promise.allSettled(checks);
  const reasons: Record<string, ParamReason> = {};
  for (const result of settled) {
    if (result.status === "fulfilled") continue;
    const err = result.reason as ApiError;
    const params = isApiError(err) && err.type === "rest_invalid_param" ? err.data.params : undefined;
    if (!params || Array.isArray(params)) throw err;
    Object.assign(reasons, params);
  }
  if (Object.keys(reasons).length) throw ApiError.invalidParams(reasons);
  // every check has settled fulfilled: this answers their values at once
  return Promise.all(checks);
}
