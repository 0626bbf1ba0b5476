/**
 * The deprecation registry (docs/api-policy.md#deprecations): one table, beside the route table
 * (lib/http/routes.ts), of what v1 still serves but will stop serving — a route, a parameter or a response
 * field —, since when, from when not (its sunset), what to use instead and where that is written. The
 * gateway reads it to answer a request that uses one (RFC 9745 `Deprecation`, RFC 8594 `Sunset`, `Link`
 * rel="deprecation"; after the sunset 410 `rest_gone`), /doc to mark it `deprecated: true`, and
 * `GET {ns}/deprecations` answers it as data.
 */
import type { Method } from "../http/routes";

export interface Deprecation {
  /** Stable name, counted per site under it: `<action>` for a route, `<action>.<name>` otherwise. */
  id: string;
  what: "route" | "parameter" | "field";
  /** The routed action (lib/http/routes.ts) and the methods of it concerned. */
  action: string;
  methods: Method[];
  /** The parameter or response field (not for a route). */
  name?: string;
  /** ISO 8601 dates (UTC midnight). */
  since: string;
  sunset: string;
  /** What to use instead, in words a client's developer acts on. */
  replacement: string;
  /** Where it is explained: a path below `{base_url}` (the served change policy, `/docs/api-policy.md#…`). */
  doc: string;
}

/**
 * The registry. Each entry is kept at least 12 months between `since` and `sunset` (the policy's floor);
 * test/unit/deprecations.test.ts checks it.
 */
export const DEPRECATIONS: readonly Deprecation[] = [
  {
    // docs/api-policy.md#the-first-deprecation-json_ld-on-event-lists says why this one.
    id: "events.list.json_ld",
    what: "parameter",
    action: "events.list",
    methods: ["GET"],
    name: "json_ld",
    since: "2026-12-01",
    sunset: "2028-01-01",
    replacement: "GET /events/{id}, whose answer carries json_ld",
    doc: "/docs/api-policy.md#the-first-deprecation-json_ld-on-event-lists"
  }
];

const DAY_MS = 86_400_000;
/** The least time between a deprecation and its sunset (docs/api-policy.md). */
export const MIN_NOTICE_DAYS = 365;

/** Seconds since the epoch of an entry's date. */
export function epochSeconds(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / 1000);
}

export function noticeDays(entry: Deprecation): number {
  return (Date.parse(`${entry.sunset}T00:00:00Z`) - Date.parse(`${entry.since}T00:00:00Z`)) / DAY_MS;
}

/** What a request does that a deprecation may concern. */
export interface RequestUse {
  action: string;
  method: string;
  /** The parameters it sent (query and body), by name. */
  params: Record<string, unknown>;
  /** `_fields` as asked (undefined: every field is answered). */
  fields?: readonly string[];
}

/**
 * The entries a request uses: its route; a parameter it sends; a field its answer holds (every field,
 * unless `_fields` leaves that one out).
 */
export function deprecationsUsed(use: RequestUse, registry: readonly Deprecation[] = DEPRECATIONS): Deprecation[] {
  return registry.filter(entry => {
    if (entry.action !== use.action || !(entry.methods as string[]).includes(use.method)) return false;
    if (entry.what === "route") return true;
    if (entry.what === "parameter") return entry.name !== undefined && use.params[entry.name] !== undefined;
    return use.fields === undefined || use.fields.some(f => f === entry.name || f.split(".")[0] === entry.name);
  });
}

/** Whether an entry's sunset has come at `now`. */
export function isSunset(entry: Deprecation, now: Date): boolean {
  return now.getTime() >= Date.parse(`${entry.sunset}T00:00:00Z`);
}

/**
 * The headers of an answer that used `entries` (none sunset): `Deprecation: @<seconds>` (the earliest),
 * `Sunset` (the earliest, an HTTP-date) and one `Link` rel="deprecation" per entry, after `link` (the
 * answer's own Link header, when it has one).
 */
export function deprecationHeaders(entries: readonly Deprecation[], baseUrl: string, link?: string): Record<string, string> {
  if (!entries.length) return {};
  const since = Math.min(...entries.map(e => epochSeconds(e.since)));
  const sunset = Math.min(...entries.map(e => epochSeconds(e.sunset)));
  const links = [...new Set(entries.map(e => `<${baseUrl}${e.doc}>; rel="deprecation"; type="text/html"`))];
  return {
    Deprecation: `@${since}`,
    Sunset: new Date(sunset * 1000).toUTCString(),
    Link: [...(link ? [link] : []), ...links].join(", ")
  };
}

/** The registry as `GET {ns}/deprecations` answers it. */
export function deprecationList(baseUrl: string, registry: readonly Deprecation[] = DEPRECATIONS): Array<Record<string, unknown>> {
  return registry.map(e => ({
    id: e.id, what: e.what, action: e.action, methods: [...e.methods], ...(e.name !== undefined ? { name: e.name } : {}),
    since: e.since, sunset: e.sunset, replacement: e.replacement, doc: `${baseUrl}${e.doc}`
  }));
}
