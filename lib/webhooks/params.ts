/**
 * Params schemas of the webhooks routes (docs/webhooks.md), registered in lib/http/action-schemas.ts like every
 * routed action's, so the namespace index, /doc and docs/action-api.md document them.
 */
import { boolean, integer, number, ParamsSchema, schema, string, untyped } from "../http/params";
import { refine } from "../linked/params";
import { parseEventFilters } from "./events";
import { MAX_OVERLAP_HOURS, secretKey } from "./signing";
import { PING_TYPE } from "./payload";
import { isEventFilter } from "./events";

/** The most characters of an endpoint's URL and description. */
export const URL_MAX = 2048;
export const DESCRIPTION_MAX = 1000;
export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 50;

const id = () => integer({ description: "The webhook endpoint's id.", required: true, positive: true, in: "path" });
const url = (required: boolean) => refine(string({ description: "Where the deliveries are POSTed: an http or https URL (outbound address rules apply).", required, maxLength: URL_MAX, nonEmpty: true }),
  (v, fail) => {
    try {
      const u = new URL((v as string).trim());
      return u.protocol === "http:" || u.protocol === "https:" ? u.toString() : fail("param.url");
    } catch {
      return fail("param.url");
    }
  });
const events = () => refine(untyped({ description: "The changes delivered: `<type>.<action>` (type event, venue, organizer, category, tag; action created, updated, deleted), `<type>.*` or `*`.", items: { type: "string" } }),
  (v, fail) => parseEventFilters(v) ?? fail("param.invalid"));
const description = () => string({ description: "A note for the site's administrators.", maxLength: DESCRIPTION_MAX });

/** The most changes one replay queues (a longer period: replay it in parts). */
export const REPLAY_MAX = 10_000;

const ISO_INSTANT = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.\d{1,9})?)?(Z|[+-]\d\d:?\d\d)?)?$/i;

/** An ISO 8601 date or date-time as ms since the epoch (no zone: UTC), or undefined when it is none. */
export function isoInstantMs(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = ISO_INSTANT.exec(value.trim());
  if (!m) return undefined;
  const text = m[4] === undefined ? `${m[1]}-${m[2]}-${m[3]}T00:00:00Z` : m[7] === undefined ? `${value.trim().replace(" ", "T")}Z` : value.trim().replace(" ", "T");
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

const instant = (description: string, required = false) => refine(string({ description, format: "date-time", required }), (v, fail) => (isoInstantMs(v) === undefined ? fail("param.date") : v));

/** A delivery type the log may be filtered by: a change's (`event.updated`) or `webhook.ping`. */
const deliveryType = () => refine(string({ description: "Only deliveries of this type: `<type>.<action>` (e.g. `event.updated`) or `webhook.ping`." }),
  (v, fail) => (v === PING_TYPE || (isEventFilter(v) && !String(v).includes("*")) ? v : fail("param.invalid")));

export const WEBHOOK_PARAMS: Record<"list" | "create" | "get" | "update" | "remove" | "rotateSecret" | "deliveries" | "retry" | "ping" | "replay", ParamsSchema> = {
  list: schema({
    page: integer({ description: "Current page of the collection", default: 1, positive: true }),
    per_page: integer({ description: `Maximum number of items to be returned in result set (at most ${MAX_PER_PAGE})`, default: DEFAULT_PER_PAGE, positive: true })
  }),
  create: schema({
    url: url(true),
    events: events(),
    description: description(),
    secret: refine(string({ description: "`whsec_` + base64 of 24–64 random bytes; generated when absent. Answered only here and by the secret route." }),
      (v, fail) => (secretKey(v) ? v : fail("param.invalid")))
  }),
  get: schema({ id: id() }),
  update: schema({ id: id(), url: url(false), events: events(), description: description(), active: boolean({ description: "Whether changes are delivered to it (making it active again clears `failure_reason`)." }) }),
  remove: schema({ id: id() }),
  rotateSecret: schema({
    id: id(),
    overlap_hours: number({ description: `How long the old secret keeps signing beside the new one, in hours (0: not at all; at most ${MAX_OVERLAP_HOURS}). Default 24.`, min: 0, max: MAX_OVERLAP_HOURS })
  }),
  ping: schema({ id: id() }),
  replay: schema({
    id: id(),
    after: instant("Replay the changes recorded at or after this instant (ISO 8601; no zone: UTC).", true),
    before: instant(`Replay the changes recorded before this instant (ISO 8601; no zone: UTC). At most ${REPLAY_MAX} changes a call.`, true)
  }),
  deliveries: schema({
    id: id(),
    status: string({ description: "Only deliveries in this state.", enum: ["pending", "delivered", "failed"] }),
    type: deliveryType(),
    after: instant("Only deliveries made at or after this instant (ISO 8601; no zone: UTC)."),
    before: instant("Only deliveries made before this instant (ISO 8601; no zone: UTC)."),
    page: integer({ description: "Current page of the collection", default: 1, positive: true }),
    per_page: integer({ description: `Maximum number of items to be returned in result set (at most ${MAX_PER_PAGE})`, default: DEFAULT_PER_PAGE, positive: true })
  }),
  retry: schema({
    id: id(),
    // opaque (C63: what a webhook says): one that names no delivery is 404, as an unknown one is
    delivery_id: string({ description: "The delivery's id.", required: true, in: "path" })
  })
};
