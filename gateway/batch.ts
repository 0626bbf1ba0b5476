/**
 * `POST {api_root}/batch/v1` run as WordPress core's `serve_batch_request_v1` runs it
 * (docs/api-policy.md#batch-requests): each request is matched to its route first (no route: 404
 * `rest_no_route`; a route that does not allow batching: 400 `rest_batch_not_allowed`); with
 * `require-all-validate` each is then checked without running (its params against its action's schema, the
 * caller's key, the gateway's own checks) and, if any fails, nothing runs; then the requests run one after
 * another, in order, each through the gateway's own HTTP handler as if sent alone (gateway/loopback.ts):
 * the batch's `Authorization` and `Host`, its own headers (`Idempotency-Key`…), the rate limit counting it.
 * A batch is not a transaction (C70): each request commits on its own.
 */
import { createHash } from "crypto";
import { ApiError } from "../lib/errors";
import { allowsBatch, matchRoute } from "../lib/http/routes";
import { BatchBody, BatchItem, targetOf } from "../lib/batch/requests";
import { Envelope, envelopeBody, envelopeHeaders, BATCH_NAMESPACE } from "../lib/batch/envelope";
import { isCreateAction, IDEMPOTENCY_HEADER } from "../lib/http/idempotency";
import { PATH_LANGUAGES } from "../lib/settings";
import { renderError } from "./error-render";
import type { LoopbackAnswer, LoopbackRequest } from "./loopback";

/** What a batch's requests take from the batch's own HTTP request. */
export interface BatchOrigin {
  /** The batch's `Authorization`, `Host` and (for TRUST_PROXY) `X-Forwarded-Host` headers, as sent. */
  headers: Record<string, string>;
  remoteAddress?: string;
  /** The REST prefix and the language of the root the batch was sent to (undefined: the default root). */
  restPrefix: string;
  rootLanguage?: string;
  /** The language errors found before a request runs are written in. */
  language: string;
  /** The batch's own Idempotency-Key: each create without one of its own gets one made from it. */
  idempotencyKey?: string;
}

export type Dispatch = (request: LoopbackRequest) => Promise<LoopbackAnswer>;

/** The 207 body: `{responses}`, or `{failed: "validation", responses}` when require-all-validate refused. */
export type BatchAnswer = { responses: Envelope[] } | { failed: "validation"; responses: Array<Envelope | null> };

interface Planned {
  item: BatchItem;
  url: string;
  /** Found before the request ran: no route, or a route that does not allow batching. */
  refused?: ApiError;
  /** The routed action (for the key a create gets from the batch's). */
  action?: string;
}

function plan(item: BatchItem, origin: BatchOrigin): Planned {
  const target = targetOf(item.path, origin.restPrefix, origin.rootLanguage);
  const routePath = target.routePath;
  if (routePath === undefined) {
    // the batch route itself is a route, but not one that allows batching (as WordPress answers it)
    const own = target.url.split("?")[0].replace(/\/+$/, "").endsWith(`/${origin.restPrefix}/${BATCH_NAMESPACE}`);
    return { item, url: target.url, refused: own ? new ApiError("rest_batch_not_allowed", 400) : ApiError.noRoute() };
  }
  const match = matchRoute(routePath, item.method);
  if (!match) return { item, url: target.url, refused: ApiError.noRoute() };
  if (!allowsBatch(match.endpoint)) return { item, url: target.url, refused: new ApiError("rest_batch_not_allowed", 400) };
  return { item, url: target.url, action: match.endpoint.action };
}

/** A refusal found before the request ran, in the request's language (its path's, else the batch's). */
function refusal(error: ApiError, p: Planned, origin: BatchOrigin): Envelope {
  const first = p.url.split("/")[1];
  const language = (PATH_LANGUAGES as readonly string[]).includes(first) && first !== origin.rootLanguage ? first : origin.language;
  const { status, body } = renderError(error, language);
  return { body, status, headers: {} };
}

function envelopeOf(answer: LoopbackAnswer): Envelope {
  const contentType = Object.entries(answer.headers).find(([k]) => k.toLowerCase() === "content-type")?.[1];
  return { body: envelopeBody(answer.body, contentType), status: answer.status, headers: envelopeHeaders(answer.headers) };
}

/** The key a create of the batch gets from the batch's own, so a batch sent again never creates twice. */
function derivedKey(batchKey: string, index: number): string {
  return `batch-${createHash("sha256").update(batchKey).digest("hex").slice(0, 40)}-${index}`;
}

function loopbackRequest(p: Planned, index: number, origin: BatchOrigin, validateOnly: boolean): LoopbackRequest {
  const headers: Record<string, string> = { ...p.item.headers, ...origin.headers };
  if (origin.idempotencyKey && headers[IDEMPOTENCY_HEADER] === undefined && isCreateAction(p.action, p.item.method)) headers[IDEMPOTENCY_HEADER] = derivedKey(origin.idempotencyKey, index);
  let body: Buffer | undefined;
  if (p.item.body !== undefined) {
    body = Buffer.from(JSON.stringify(p.item.body));
    headers["content-type"] = "application/json";
  }
  return { method: p.item.method, url: p.url, headers, ...(body ? { body } : {}), ...(origin.remoteAddress ? { remoteAddress: origin.remoteAddress } : {}), validateOnly };
}

/** Runs a batch (already read by lib/batch/requests.ts `readBatch`) and answers its 207 body. */
export async function runBatch(batch: BatchBody, origin: BatchOrigin, dispatch: Dispatch): Promise<BatchAnswer> {
  const planned = batch.requests.map(item => plan(item, origin));
  if (batch.validation === "require-all-validate") {
    const checks: Array<Envelope | null> = [];
    for (const [i, p] of planned.entries()) {
      if (p.refused) {
        checks.push(refusal(p.refused, p, origin));
        continue;
      }
      const answer = await dispatch(loopbackRequest(p, i, origin, true));
      checks.push(answer.status >= 400 ? envelopeOf(answer) : null);
    }
    if (checks.some(c => c !== null)) return { failed: "validation", responses: checks };
  }
  const responses: Envelope[] = [];
  for (const [i, p] of planned.entries()) {
    responses.push(p.refused ? refusal(p.refused, p, origin) : envelopeOf(await dispatch(loopbackRequest(p, i, origin, false))));
  }
  return { responses };
}
