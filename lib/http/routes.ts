/**
 * The route table: every path of the interface specification, under `{api_root}/calendar/events/v1`,
 * and the action it maps to. The gateway mounts exactly these (nothing else is reachable); the namespace
 * index and the /doc document are generated from the same table and the actions' params schemas.
 */
import { memoByKey } from "../memo";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface Endpoint {
  methods: Method[];
  action: string;
  /**
   * Whether a write of this endpoint may be sent inside `POST {api_root}/batch/v1` (WordPress's
   * `allow_batch`): every write endpoint does unless it says `false` (docs/api-policy.md#batch-requests).
   */
  batch?: false;
}

export interface RouteDef {
  /** WordPress route pattern, as the namespace index prints it. */
  pattern: string;
  /** moleculer-web alias path (relative to the namespace root). */
  path: string;
  /** Handlers of the route in the order the index lists them. */
  endpoints: Endpoint[];
  /**
   * Outside v1's promise (docs/api-policy.md#experimental-routes): answered only to requests that send
   * `X-Calendar-Experimental: 1`, marked `x-experimental` in /doc, left out of the breaking-change check.
   */
  experimental?: true;
}

const UPDATE: Method[] = ["POST", "PUT", "PATCH"];

/** Item routes of a post type: by id and by slug (events, venues, organizers). */
function postRoutes(type: string, service: string): RouteDef[] {
  return [
    { pattern: `/${type}`, path: type, endpoints: [
      { methods: ["GET"], action: `${service}.list` },
      { methods: ["POST"], action: `${service}.create` }] },
    { pattern: `/${type}/(?P<id>\\d+)`, path: `${type}/:id`, endpoints: [
      { methods: ["GET"], action: `${service}.get` },
      { methods: ["DELETE"], action: `${service}.remove` },
      { methods: UPDATE, action: `${service}.update` }] },
    { pattern: `/${type}/by-slug/(?P<slug>[^/]+)`, path: `${type}/by-slug/:slug`, endpoints: [
      { methods: ["GET"], action: `${service}.getBySlug` },
      { methods: ["DELETE"], action: `${service}.removeBySlug` },
      { methods: UPDATE, action: `${service}.updateBySlug` }] }
  ];
}

/** Term routes (categories, tags): no by-slug. */
function termRoutes(taxonomy: string): RouteDef[] {
  return [
    { pattern: `/${taxonomy}`, path: taxonomy, endpoints: [
      { methods: ["GET"], action: `taxonomy.${taxonomy}.list` },
      { methods: ["POST"], action: `taxonomy.${taxonomy}.create` }] },
    { pattern: `/${taxonomy}/(?P<id>\\d+)`, path: `${taxonomy}/:id`, endpoints: [
      { methods: ["GET"], action: `taxonomy.${taxonomy}.get` },
      { methods: UPDATE, action: `taxonomy.${taxonomy}.update` },
      { methods: ["DELETE"], action: `taxonomy.${taxonomy}.remove` }] }
  ];
}

/** A site's webhook endpoints and their deliveries (docs/webhooks.md). */
function webhookRoutes(): RouteDef[] {
  return [
    { pattern: "/webhooks", path: "webhooks", endpoints: [
      { methods: ["GET"], action: "webhooks.list" },
      { methods: ["POST"], action: "webhooks.create" }] },
    { pattern: "/webhooks/(?P<id>\\d+)", path: "webhooks/:id", endpoints: [
      { methods: ["GET"], action: "webhooks.get" },
      { methods: ["DELETE"], action: "webhooks.remove" },
      { methods: ["POST"], action: "webhooks.update" }] },
    { pattern: "/webhooks/(?P<id>\\d+)/secret", path: "webhooks/:id/secret", endpoints: [{ methods: ["POST"], action: "webhooks.rotateSecret" }] },
    { pattern: "/webhooks/(?P<id>\\d+)/deliveries", path: "webhooks/:id/deliveries", endpoints: [{ methods: ["GET"], action: "webhooks.deliveries" }] },
    { pattern: "/webhooks/(?P<id>\\d+)/ping", path: "webhooks/:id/ping", endpoints: [{ methods: ["POST"], action: "webhooks.ping" }] },
    { pattern: "/webhooks/(?P<id>\\d+)/replay", path: "webhooks/:id/replay", endpoints: [{ methods: ["POST"], action: "webhooks.replay" }] },
    { pattern: "/webhooks/(?P<id>\\d+)/deliveries/(?P<delivery_id>[^/]+)/retry", path: "webhooks/:id/deliveries/:delivery_id/retry",
      endpoints: [{ methods: ["POST"], action: "webhooks.retry" }] }
  ];
}

/** A site's custom field definitions (docs/records.md#custom-fields): the taxonomy service's. */
function fieldRoutes(): RouteDef[] {
  return [
    { pattern: "/fields", path: "fields", endpoints: [
      { methods: ["GET"], action: "taxonomy.fields.list" },
      { methods: ["POST"], action: "taxonomy.fields.create" }] },
    { pattern: "/fields/(?P<id>\\d+)", path: "fields/:id", endpoints: [
      { methods: ["GET"], action: "taxonomy.fields.get" },
      { methods: ["DELETE"], action: "taxonomy.fields.remove" },
      { methods: ["POST"], action: "taxonomy.fields.update" }] }
  ];
}

export const ROUTES: RouteDef[] = [
  { pattern: "", path: "", endpoints: [{ methods: ["GET"], action: "api.index" }] },
  { pattern: "/doc", path: "doc", endpoints: [{ methods: ["GET"], action: "api.doc" }] },
  ...postRoutes("events", "events"),
  ...postRoutes("venues", "venues"),
  ...postRoutes("organizers", "organizers"),
  ...termRoutes("categories"),
  ...termRoutes("tags"),
  // The change feed (sync issue, C20): services/changes.service.ts.
  { pattern: "/changes", path: "changes", endpoints: [{ methods: ["GET"], action: "changes.list" }] },
  // A series' occurrences (C54: occurrence slugs and route): services/events.service.ts with domain/events/series-planner.ts.
  { pattern: "/events/(?P<id>\\d+)/occurrences", path: "events/:id/occurrences", endpoints: [{ methods: ["GET"], action: "events.occurrences" }] },
  // Webhooks: the optional services/webhooks.service.ts.
  // Their answers carry signing secrets, which a batch's answer (kept for its Idempotency-Key) must not hold.
  ...webhookRoutes().map(notBatched),
  // Imports (docs/imports.md#routes): services/imports.service.ts.
  { pattern: "/imports", path: "imports", endpoints: [
    { methods: ["GET"], action: "imports.list" },
    { methods: ["POST"], action: "imports.create" }] },
  { pattern: "/imports/(?P<id>\\d+)", path: "imports/:id", endpoints: [
    { methods: ["GET"], action: "imports.get" },
    { methods: ["DELETE"], action: "imports.remove" }] },
  { pattern: "/imports/(?P<id>\\d+)/run", path: "imports/:id/run", endpoints: [{ methods: ["POST"], action: "imports.run" }] },
  { pattern: "/imports/(?P<id>\\d+)/runs", path: "imports/:id/runs", endpoints: [{ methods: ["GET"], action: "imports.runs" }] },
  // Custom fields (docs/records.md#custom-fields): the taxonomy service's definitions.
  ...fieldRoutes(),
  // The deprecation registry as data (lib/api-policy/deprecations.ts): new, so experimental (docs/api-policy.md#experimental-routes).
  { pattern: "/deprecations", path: "deprecations", experimental: true, endpoints: [{ methods: ["GET"], action: "api.deprecations" }] }
];

/** A route whose write endpoints do not take part in batches. */
function notBatched(route: RouteDef): RouteDef {
  return { ...route, endpoints: route.endpoints.map(e => ({ ...e, batch: false as const })) };
}

const WRITES: ReadonlySet<Method> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Whether the endpoint takes part in batches (WordPress's `allow_batch: {v1: true}`): its writes, unless it opts out. */
export function allowsBatch(endpoint: Endpoint): boolean {
  return endpoint.batch !== false && endpoint.methods.some(m => WRITES.has(m));
}

/** A route pattern as a regular expression over the path below the namespace (`/events/12`). */
const regexOf = memoByKey((pattern: string) => pattern, (pattern: string) => new RegExp(`^${pattern.replace(/\(\?P</g, "(?<")}$`), 256);

/**
 * The route and endpoint a method and a path below the namespace (`/events/12`, no query) name, as
 * WordPress's `match_request_to_handler` finds them: undefined when no route has that path and method.
 */
export function matchRoute(path: string, method: string): { route: RouteDef; endpoint: Endpoint } | undefined {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path === "/" ? "" : path;
  for (const route of ROUTES) {
    if (!regexOf(route.pattern).test(trimmed)) continue;
    const endpoint = route.endpoints.find(e => (e.methods as string[]).includes(method));
    if (endpoint) return { route, endpoint };
  }
  return undefined;
}

/**
 * The services the gateway routes to (readiness needs all but geolocation, C24). The `changes` service (the
 * change feed and idempotency keys, README "Beyond the reference") is optional like geolocation: without it
 * `/changes` and keyed creates answer 503 and writes are not recorded in the feed (with a warning).
 */
export const ROUTED_SERVICES = ["events", "venues", "organizers", "taxonomy", "i18n"];

/** moleculer-web aliases (`"GET events/:id": "events.get"`), by-slug paths before id paths. */
export function aliases(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const route of ROUTES) {
    for (const ep of route.endpoints) {
      for (const m of ep.methods) out[`${m} /${route.path}`.replace(/\/$/, "/")] = ep.action;
    }
  }
  return out;
}
