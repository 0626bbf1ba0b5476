/**
 * The namespace index, `GET {api_root}/calendar/events/v1` (docs/discovery.md#namespace-index): WordPress's
 * `get_namespace_index` / `get_data_for_route` shape, built from the route table and the registered
 * params schemas.
 */
import { allowsBatch, ROUTES } from "../http/routes";
import { NAMESPACE_PATH } from "../settings";
import { argDescription, Clock, DocumentedArg, documentedArgs, i18nArg, I18N_PARAM, printedDefault } from "./args";

/** The keys an index arg keeps, in this order; `required` follows. The `in` marker is never printed. */
export const INDEX_ARG_KEYS = ["description", "type", "default", "format", "enum", "items"] as const;

export type IndexArgs = Record<string, Record<string, unknown>> | [];

/** One arg as the index prints it, its description in `lang`. */
export function indexArg(arg: DocumentedArg, clock: Clock, lang = "en"): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of INDEX_ARG_KEYS) {
    if (key === "description" && !arg.doc.description) continue;
    if (key === "description") {
      out.description = argDescription(arg.doc.description, lang);
      continue;
    }
    if (key === "default") {
      if (arg.doc.default !== undefined) out.default = printedDefault(arg.doc, clock);
      continue;
    }
    const value = arg.doc[key];
    if (value !== undefined) out[key] = Array.isArray(value) ? [...value] : typeof value === "object" && value !== null ? { ...value } : value;
  }
  out.required = arg.required;
  return out;
}

/**
 * The args of an endpoint: the action's documented args in declaration order, then `i18n_language`
 * (D19: the `i18n_language` argument) unless `withI18n` is false. An endpoint with no args prints `[]` (an empty PHP array).
 */
export function endpointArgs(args: DocumentedArg[], clock: Clock, withI18n = true, lang = "en"): IndexArgs {
  const out: Record<string, Record<string, unknown>> = {};
  for (const arg of args) out[arg.name] = indexArg(arg, clock, lang);
  if (withI18n) out[I18N_PARAM] = i18nArg();
  return Object.keys(out).length ? out : [];
}

export interface IndexOptions {
  now?: Date;
  siteZone?: string;
  /** The language of the args' descriptions (the request's: `i18n_language`, else the path language). */
  language?: string;
  /** Where the change policy is served (`_links.help`). */
  policyUrl?: string;
}

export function namespaceIndex(apiRoot: string, opts: IndexOptions = {}): Record<string, unknown> {
  const clock: Clock = { now: opts.now ?? new Date(), siteZone: opts.siteZone ?? "UTC" };
  const routes: Record<string, unknown> = {};
  for (const route of ROUTES) {
    const key = `/${NAMESPACE_PATH}${route.pattern}`;
    const entry: Record<string, unknown> = {
      namespace: NAMESPACE_PATH,
      methods: route.endpoints.flatMap(e => e.methods),
      // WordPress prints `allow_batch` between an endpoint's methods and its args (docs/api-policy.md#batch-requests)
      endpoints: route.endpoints.map(e => ({ methods: [...e.methods], ...(allowsBatch(e) ? { allow_batch: { v1: true } } : {}), args: endpointArgs(documentedArgs(e.action), clock, true, opts.language) }))
    };
    if (!route.pattern.includes("(?P<")) entry._links = { self: [{ href: `${apiRoot}${key}` }] };
    routes[key] = entry;
  }
  // `help`: the change policy (docs/api-policy.md), served beside the interactive documentation
  const links: Record<string, unknown> = { up: [{ href: `${apiRoot}/` }] };
  if (opts.policyUrl) links.help = [{ href: opts.policyUrl }];
  return { namespace: NAMESPACE_PATH, routes, _links: links };
}
