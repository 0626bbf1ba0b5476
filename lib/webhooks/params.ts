/**
 * Params schemas of the webhooks routes (docs/webhooks.md), registered in lib/schemas.ts like every
 * routed action's, so the namespace index, /doc and docs/action-api.md document them.
 */
import { boolean, integer, ParamsSchema, schema, string, untyped } from "../params";
import { refine } from "../linked/params";
import { parseEventFilters } from "./events";
import { secretKey } from "./signing";

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

export const WEBHOOK_PARAMS: Record<"list" | "create" | "get" | "update" | "remove" | "rotateSecret" | "deliveries" | "retry", ParamsSchema> = {
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
  rotateSecret: schema({ id: id() }),
  deliveries: schema({
    id: id(),
    page: integer({ description: "Current page of the collection", default: 1, positive: true }),
    per_page: integer({ description: `Maximum number of items to be returned in result set (at most ${MAX_PER_PAGE})`, default: DEFAULT_PER_PAGE, positive: true })
  }),
  retry: schema({
    id: id(),
    // opaque (C63): one that names no delivery is 404, as an unknown one is
    delivery_id: string({ description: "The delivery's id.", required: true, in: "path" })
  })
};
