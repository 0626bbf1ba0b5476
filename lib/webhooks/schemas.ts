/**
 * What the webhooks routes answer and what a delivery's body holds, as JSON Schema for /doc
 * (lib/discovery/openapi.ts): the answers under `paths`, the bodies under OpenAPI 3.1's top-level
 * `webhooks`, one entry per event type.
 */
import { CHANGE_TYPES } from "../changes/feed";
import { WEBHOOK_ACTIONS } from "./events";
import { PING_TYPE } from "./payload";

type JsonSchema = Record<string, unknown>;

const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: "string", description, ...extra });
const int = (description: string): JsonSchema => ({ type: "integer", description });
const nullable = (type: string, description: string): JsonSchema => ({ type: [type, "null"], description });

/** An endpoint; `withSecret`: as created, or with a new secret. */
export function endpointSchema(withSecret: boolean): JsonSchema {
  const properties: JsonSchema = {
    id: int("The endpoint's id"),
    url: str("Where the deliveries are POSTed"),
    events: { type: "array", description: "The changes delivered (`<type>.<action>`, `<type>.*` or `*`)", items: { type: "string" } },
    description: str("A note for the site's administrators"),
    active: { type: "boolean", description: "Whether changes are delivered to it" },
    ...(withSecret ? { secret: str("The signing secret (`whsec_` + base64); answered only here", { pattern: "^whsec_" }) } : {}),
    created_utc: str("When it was made, in UTC"),
    failure_reason: str("Why the service made it inactive (410, failing too long)"),
    deleted: { type: "boolean", description: "Present on the answer of a delete" }
  };
  const required = ["id", "url", "events", "description", "active", ...(withSecret ? ["secret"] : []), "created_utc"];
  return { title: "webhook", type: "object", required, properties, additionalProperties: false };
}

export function deliverySchema(): JsonSchema {
  return {
    title: "delivery",
    type: "object",
    required: ["id", "type", "record_id", "status", "attempts", "last_status_code", "next_attempt_utc", "delivered_utc"],
    properties: {
      id: str("The delivery's id (its `webhook-id` header)"),
      type: str("The event type (`event.created`)"),
      record_id: int("The changed record's id"),
      status: str("Where it stands", { enum: ["pending", "delivered", "failed"] }),
      attempts: int("Attempts made"),
      last_status_code: nullable("integer", "The last attempt's HTTP status (null: none yet, or no answer)"),
      next_attempt_utc: nullable("string", "When the next attempt is due, in UTC (pending only)"),
      delivered_utc: nullable("string", "When it was delivered, in UTC"),
      replay: { type: "boolean", const: true, description: "Present on a delivery queued by the replay route" }
    },
    additionalProperties: false
  };
}

/** The replay route's answer. */
export function replayAnswerSchema(): JsonSchema {
  return { type: "object", required: ["queued"], properties: { queued: int("Fresh deliveries queued, one per matching change of the period") }, additionalProperties: false };
}

/** The body of a test delivery (`POST {ns}/webhooks/{id}/ping`). */
function pingPayloadSchema(): JsonSchema {
  return {
    type: "object",
    required: ["type", "timestamp", "data"],
    properties: {
      type: str("The event type", { const: PING_TYPE }),
      timestamp: str("When the ping was asked for (ISO 8601, UTC)", { format: "date-time" }),
      data: { type: "object", required: ["webhook_id"], properties: { webhook_id: int("The endpoint's id") } }
    }
  };
}

export const listOfSchema = (items: JsonSchema, description: string): JsonSchema => ({ type: "array", description, items });

/** The body POSTed to an endpoint for one change. */
export function payloadSchema(type?: string): JsonSchema {
  return {
    type: "object",
    required: ["type", "timestamp", "data"],
    properties: {
      type: str("The event type", type ? { const: type } : {}),
      timestamp: str("When the change happened (ISO 8601, UTC)", { format: "date-time" }),
      data: {
        type: "object",
        required: ["id", "sequence", "rest_url"],
        properties: {
          id: int("The record's id"),
          sequence: int("The change's position in the site's change feed (increasing, gaps allowed)"),
          rest_url: str("The record's REST URL"),
          record: { type: "object", description: "The record as an administrator reads it right after the change (absent for deleted)" },
          replay: { type: "boolean", const: true, description: "Present on a delivery queued by the replay route" }
        }
      }
    }
  };
}

/** OpenAPI 3.1 `webhooks`: one entry per event type, with the Standard Webhooks headers. */
export function webhooksDocument(): Record<string, unknown> {
  const header = (name: string, description: string) => ({ in: "header", name, required: true, schema: { type: "string" }, description });
  const out: Record<string, unknown> = {};
  const entry = (operationId: string, summary: string, schema: JsonSchema) => ({
    post: {
      operationId,
      summary,
      parameters: [
        header("webhook-id", "The delivery's id, the same on every attempt"),
        header("webhook-timestamp", "The attempt's time, Unix seconds"),
        header("webhook-signature", "`v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` under the endpoint's secret; during a rotation's overlap two of them, space-separated (the new secret's, then the old one's)")
      ],
      requestBody: { required: true, content: { "application/json": { schema } } },
      responses: {
        "200": { description: "Any 2xx within WEBHOOK_TIMEOUT_MS: delivered (the answer's body is not read)" },
        "410": { description: "The endpoint is made inactive" },
        default: { description: "Anything else: tried again on the retry schedule (Retry-After honoured on 429 and 503)" }
      }
    }
  });
  out[PING_TYPE] = entry("webhookPing", "A test delivery asked for by `POST {ns}/webhooks/{id}/ping`", pingPayloadSchema());
  for (const type of CHANGE_TYPES) {
    for (const action of WEBHOOK_ACTIONS) {
      const name = `${type}.${action}`;
      out[name] = entry(`webhook${type[0].toUpperCase()}${type.slice(1)}${action[0].toUpperCase()}${action.slice(1)}`, `A ${type} was ${action} (Standard Webhooks 1.0)`, payloadSchema(name));
    }
  }
  return out;
}
