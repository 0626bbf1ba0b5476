/**
 * `POST {api_root}/batch/v1` (docs/api-policy.md#batch-requests): the batch's body read into the requests it
 * carries, as WordPress core's `serve_batch_request_v1` reads it (wp-includes/rest-api/class-wp-rest-server.php):
 * `validation` (`normal` default, or `require-all-validate`), `requests` (at most the configured number),
 * each `{method (POST default, PUT, PATCH, DELETE), path, body?, headers?}`. What does not fit refuses the
 * whole batch (400 naming `validation` or `requests`); each request's own route is judged later, one by one.
 */
import { ApiError } from "../errors";
import { NAMESPACE_PATH, PATH_LANGUAGES } from "../settings";

export const BATCH_METHODS = ["POST", "PUT", "PATCH", "DELETE"] as const;
export type BatchMethod = (typeof BATCH_METHODS)[number];
export type Validation = "normal" | "require-all-validate";

/** One request of a batch, as sent. */
export interface BatchItem {
  method: BatchMethod;
  /** As sent: `/calendar/events/v1/events?x=1`, or with a language first (`/fr/calendar/events/v1/…`). */
  path: string;
  body?: Record<string, unknown>;
  headers: Record<string, string>;
}

export interface BatchBody {
  validation: Validation;
  requests: BatchItem[];
}

/** Headers a request of a batch may not set: the batch's own caller, site and framing stand for them. */
const BATCH_OWNED_HEADERS = new Set(["authorization", "host", "x-forwarded-host", "x-forwarded-for", "content-length", "transfer-encoding", "connection", "content-type", "cookie"]);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** A request's headers: string values (a list joined as HTTP joins repeated headers), the batch-owned ones left out. */
function itemHeaders(raw: unknown, index: number): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw ApiError.invalidParam("requests", "param.batch_item", { index, field: "headers" });
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    const text = Array.isArray(value) && value.every(v => typeof v === "string") ? value.join(", ") : value;
    if (typeof text !== "string" || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(text)) {
      throw ApiError.invalidParam("requests", "param.batch_item", { index, field: "headers" });
    }
    if (!BATCH_OWNED_HEADERS.has(name.toLowerCase())) out[name.toLowerCase()] = text;
  }
  return out;
}

/** Reads and checks a batch's body; `max` is the most requests it may carry. */
export function readBatch(params: Record<string, unknown>, max: number): BatchBody {
  const validation = params.validation ?? "normal";
  if (validation !== "normal" && validation !== "require-all-validate") throw ApiError.invalidParam("validation", "param.invalid");
  const requests = params.requests;
  if (requests === undefined || requests === null) throw ApiError.missingParams(["requests"]);
  if (!Array.isArray(requests)) throw ApiError.invalidParam("requests", "param.type", { type: "array" });
  if (requests.length > max) throw ApiError.invalidParam("requests", "param.batch_size", { max });
  const items = requests.map((raw, index): BatchItem => {
    if (!isObject(raw)) throw ApiError.invalidParam("requests", "param.batch_item", { index, field: "requests" });
    const method = raw.method === undefined ? "POST" : typeof raw.method === "string" ? raw.method.toUpperCase() : raw.method;
    if (!(BATCH_METHODS as readonly unknown[]).includes(method)) throw ApiError.invalidParam("requests", "param.batch_item", { index, field: "method" });
    if (typeof raw.path !== "string" || !raw.path.startsWith("/") || raw.path.length > 2048 || /[\s\0]/.test(raw.path)) {
      throw ApiError.invalidParam("requests", "param.batch_item", { index, field: "path" });
    }
    if (raw.body !== undefined && raw.body !== null && !isObject(raw.body)) throw ApiError.invalidParam("requests", "param.batch_item", { index, field: "body" });
    return { method: method as BatchMethod, path: raw.path, ...(isObject(raw.body) ? { body: raw.body } : {}), headers: itemHeaders(raw.headers, index) };
  });
  return { validation, requests: items };
}

/** Where a request of a batch goes: the URL the gateway is asked, and the route path below the namespace. */
export interface BatchTarget {
  /** `/{lang}/{prefix}/calendar/events/v1/events?x=1`: the request as a client would send it alone. */
  url: string;
  /** `/events`: the path below the namespace (no query), or undefined when it is not under the namespace. */
  routePath?: string;
}

/**
 * A request's URL from its path: relative to the batch's own root (`rootLanguage`, the language of the
 * root the batch was sent to), a language segment first choosing another root, as a client alone would.
 */
export function targetOf(path: string, restPrefix: string, rootLanguage: string | undefined): BatchTarget {
  const q = path.indexOf("?");
  const pathOnly = q < 0 ? path : path.slice(0, q);
  const query = q < 0 ? "" : path.slice(q);
  const first = pathOnly.split("/")[1];
  const pathLanguage = (PATH_LANGUAGES as readonly string[]).includes(first) ? first : undefined;
  const rest = pathLanguage ? pathOnly.slice(first.length + 1) : pathOnly;
  const lang = pathLanguage ?? rootLanguage;
  const url = `${lang ? `/${lang}` : ""}/${restPrefix}${rest}${query}`;
  const ns = `/${NAMESPACE_PATH}`;
  const routePath = rest === ns || rest === `${ns}/` ? "" : rest.startsWith(`${ns}/`) ? rest.slice(ns.length) : undefined;
  return { url, ...(routePath !== undefined ? { routePath } : {}) };
}

/** Whether a request URL is a batch's own (`/{lang}/{prefix}/batch/v1`, any root). */
export function isBatchUrl(url: string, restPrefix: string): boolean {
  const path = url.split("?")[0].replace(/\/+$/, "");
  const langs = PATH_LANGUAGES.map(l => l.replace(/[-]/g, "\\-")).join("|");
  const prefix = restPrefix.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return new RegExp(`^(?:/(?:${langs}))?/${prefix}/batch/v1$`).test(path);
}
