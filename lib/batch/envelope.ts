/**
 * What a batch answers (docs/api-policy.md#batch-requests), in WordPress's shapes: each request's answer
 * enveloped as `{body, status, headers}` (`envelope_response`), the batch's 207 `{responses}` or, when
 * `require-all-validate` found a failure, `{failed: "validation", responses}`; and the route's own
 * description (`OPTIONS` and `GET {api_root}/batch/v1`), which tells the most requests a batch takes.
 */
import { BATCH_METHODS } from "./requests";

export const BATCH_NAMESPACE = "batch/v1";

export interface Envelope {
  body: unknown;
  status: number;
  headers: Record<string, string>;
}

/**
 * Headers of an answer that belong to the HTTP exchange, not to the answer (framing, the security and CORS
 * headers every answer carries, the request id): left out of a request's envelope, as WordPress's envelope
 * holds only the answer's own headers.
 */
const EXCHANGE_HEADERS = new Set([
  "content-length", "content-type", "transfer-encoding", "connection", "keep-alive", "date", "x-request-id",
  "x-content-type-options", "x-frame-options", "referrer-policy", "cross-origin-resource-policy", "x-permitted-cross-domain-policies",
  "content-security-policy", "vary", "access-control-expose-headers", "access-control-allow-origin", "access-control-allow-credentials"
]);

/** The answer's own headers, by the names it set them with. */
export function envelopeHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!EXCHANGE_HEADERS.has(name.toLowerCase())) out[name] = value;
  return out;
}

/** An answer's body as the envelope holds it: JSON parsed, other text as it is, nothing as null. */
export function envelopeBody(text: string, contentType: string | undefined): unknown {
  if (text === "") return null;
  if (!contentType || /json/i.test(contentType)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** The batch route as WordPress describes a route (`OPTIONS` / the batch namespace's index). */
export function batchRouteData(apiRoot: string, max: number): Record<string, unknown> {
  const route = {
    namespace: BATCH_NAMESPACE,
    methods: ["POST"],
    endpoints: [{
      methods: ["POST"],
      args: {
        validation: { type: "string", enum: ["require-all-validate", "normal"], default: "normal", required: false },
        requests: {
          type: "array",
          maxItems: max,
          items: {
            type: "object",
            properties: {
              method: { type: "string", enum: [...BATCH_METHODS], default: "POST" },
              path: { type: "string", required: true },
              body: { type: "object", properties: [], additionalProperties: true },
              headers: { type: "object", properties: [], additionalProperties: { type: ["string", "array"], items: { type: "string" } } }
            }
          },
          required: true
        }
      }
    }],
    _links: { self: [{ href: `${apiRoot}/${BATCH_NAMESPACE}` }] }
  };
  return route;
}

/** `GET {api_root}/batch/v1`: the batch namespace's index, as WordPress serves each namespace's. */
export function batchNamespaceIndex(apiRoot: string, max: number): Record<string, unknown> {
  return { namespace: BATCH_NAMESPACE, routes: { [`/${BATCH_NAMESPACE}`]: batchRouteData(apiRoot, max) }, _links: { up: [{ href: `${apiRoot}/` }] } };
}
