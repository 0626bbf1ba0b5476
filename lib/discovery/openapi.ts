/**
 * The OpenAPI 3.1 document, `GET {api_root}/calendar/events/v1/doc`, built from the route table (one path
 * per route, one operation per method), the params table (lib/http/action-schemas.ts: parameters and request bodies) and
 * lib/http/response-schemas.ts (what each answer holds). Human-readable texts come from the message catalogs
 * (`doc.*`); parameter descriptions are the schemas' own, in the request's language where the catalogs
 * have them (lib/discovery/args.ts).
 */
import { ROUTES, RouteDef } from "../http/routes";
import { NAMESPACE_PATH, PATH_LANGUAGES } from "../settings";
import { hasMessage, LANGUAGES, translate } from "../i18n/messages";
import { changesPage, componentSchemas, importDryRun, importRecord, importRun, errorBody, icalendar, listEnvelope, openApiObject, RESOURCE_COMPONENTS } from "../http/response-schemas";
import { componentRef, type JsonSchema } from "../records/schema-parts";
import { argDescription, DocumentedArg, documentedArgs, I18N_PARAM, openApiType } from "./args";
import { deliverySchema, endpointSchema, listOfSchema, replayAnswerSchema, webhooksDocument } from "../webhooks/schemas";
import { fieldDefinitionSchema } from "../fields/openapi";
import { DEPRECATIONS, type Deprecation } from "../api-policy/deprecations";

export const OPENAPI_VERSION = "3.1.0";

export type Verb = "get" | "post" | "put" | "patch" | "delete";

/** What an operation does, which decides its responses. */
export type OperationKind = "list" | "create" | "read" | "update" | "remove" | "accept";

/** `/events/(?P<id>\d+)` → `/events/{id}`. */
export function openApiPath(pattern: string): string {
  return pattern.replace(/\(\?P<([A-Za-z_][A-Za-z0-9_]*)>[^)]*\)/g, "{$1}");
}

/** The verb a handler is listed under first: GET, DELETE, and POST for create and update. */
export function verbOf(methods: readonly string[]): "get" | "post" | "delete" | undefined {
  if (methods.includes("GET")) return "get";
  if (methods.includes("DELETE")) return "delete";
  if (methods.includes("POST")) return "post";
  return undefined;
}

const KIND_BY_OPERATION: Record<string, OperationKind> = {
  list: "list", occurrences: "list", create: "create", get: "read", getBySlug: "read", update: "update", updateBySlug: "update", remove: "remove", removeBySlug: "remove",
  // webhooks: the delivery log is a list; a manual retry, a ping and a replay are accepted (sent in the background)
  deliveries: "list", retry: "accept", ping: "accept", replay: "accept",
  // imports: a run asked for now is accepted (run in the background); the run history is a list
  runs: "list", run: "accept"
};
const KIND_BY_VERB: Record<Verb, OperationKind> = { get: "read", post: "update", put: "update", patch: "update", delete: "remove" };

export function operationKind(action: string, verb: Verb): OperationKind {
  return KIND_BY_OPERATION[action.split(".").pop() ?? ""] ?? KIND_BY_VERB[verb];
}

/**
 * The failures any operation may answer: a bad parameter or an unreadable request (400), an unknown key or
 * an anonymous caller without the capability (401), a caller without it or a refused origin (403), no such
 * record or route (404), a request that took too long to arrive (408), the rate limit (429), a URL or
 * headers over 16 KB (431), a broken service (500), a service away (503), a timeout (504).
 */
const COMMON_ERRORS = ["400", "401", "403", "404", "408", "429", "431", "500", "503", "504"];

/** The statuses each kind of operation answers, beside COMMON_ERRORS. */
const RESPONSES: Record<OperationKind, string[]> = {
  list: ["200", "304"],
  read: ["200", "304"],
  create: ["201", "409", "413", "422"],
  update: ["200", "412", "413"],
  remove: ["200", "410", "412"],
  accept: ["202"]
};

/** The catalog key describing each status. */
const STATUS_TEXT: Record<string, string> = {
  "200": "doc.ok", "201": "doc.created", "202": "doc.accepted", "304": "doc.not_modified", "400": "doc.bad_request", "401": "doc.unauthorized",
  "403": "doc.forbidden", "404": "doc.not_found", "409": "doc.conflict", "410": "doc.gone", "412": "doc.precondition_failed",
  "408": "doc.request_timeout", "413": "doc.payload_too_large", "422": "doc.idempotency_mismatch", "429": "doc.too_many_requests",
  "431": "doc.header_too_large", "500": "doc.server_error",
  "503": "doc.unavailable", "504": "doc.gateway_timeout"
};

/**
 * Where the contract's error body is written out: /doc's first error answer. The component names are the
 * reference's, so the one shared shape outside them lives in a path and is referred to by JSON pointer.
 */
const ERROR_BODY_STATUS = "400";
const ERROR_BODY_REF = `#/paths/~1doc/get/responses/${ERROR_BODY_STATUS}/content/application~1json/schema`;

/** The first path segment names the resource (`/events/…` → events). */
function resourceOf(route: RouteDef): string {
  return route.pattern.split("/")[1] ?? "";
}

const json = (schema: JsonSchema) => ({ "application/json": { schema } });

/** What a successful answer of the route holds. */
function successContent(route: RouteDef, kind: OperationKind): Record<string, unknown> | undefined {
  const resource = resourceOf(route);
  if (resource === "changes") return json(changesPage());
  if (resource === "doc") return json(openApiObject());
  if (resource === "webhooks") return json(webhookAnswer(route, kind));
  if (resource === "deprecations") return json(deprecationListSchema());
  if (resource === "imports") return json(route.pattern.endsWith("/runs") ? { type: "array", items: importRun() } : kind === "list" ? { type: "array", items: importRecord() } : importRecord());
  if (resource === "fields") return json(kind === "list" ? listOfSchema(fieldDefinitionSchema(), "The site's custom fields") : fieldDefinitionSchema());
  const component = RESOURCE_COMPONENTS[resource];
  if (!component) return undefined;
  const content: Record<string, unknown> = json(kind === "list" ? listEnvelope(resource) : { $ref: componentRef(component) });
  // The events as iCalendar: `format=ics` or `Accept: text/calendar` on the list and on one event.
  if (resource === "events" && (kind === "list" || kind === "read")) content["text/calendar"] = { schema: icalendar() };
  return content;
}

/** What a webhooks route answers (lib/webhooks/schemas.ts). */
function webhookAnswer(route: RouteDef, kind: OperationKind): JsonSchema {
  if (route.pattern.endsWith("/deliveries")) return listOfSchema(deliverySchema(), "The endpoint's deliveries, newest first");
  if (route.pattern.endsWith("/retry") || route.pattern.endsWith("/ping")) return deliverySchema();
  if (route.pattern.endsWith("/replay")) return replayAnswerSchema();
  if (route.pattern === "/webhooks") return kind === "list" ? listOfSchema(endpointSchema(false), "The site's webhook endpoints") : endpointSchema(true);
  return endpointSchema(route.pattern.endsWith("/secret"));
}

/** A status's description: the catalogs' text, or English where they have none (202). */
function statusText(status: string, lang: string): string {
  const key = STATUS_TEXT[status];
  return hasMessage(key) ? translate(key, lang) : status === "202" ? "Accepted: the work is done in the background." : key;
}

function responses(route: RouteDef, kind: OperationKind, lang: string): Record<string, unknown> {
  // an import is created queued: 202; a dry run answers 200 (docs/imports.md#routes)
  const own = resourceOf(route) === "imports" && kind === "create" ? ["200", "202"] : RESPONSES[kind];
  const statuses = [...new Set([...own, ...COMMON_ERRORS])].sort();
  const out: Record<string, unknown> = {};
  for (const status of statuses) {
    const response: Record<string, unknown> = { description: statusText(status, lang) };
    if (status === "200" || status === "201" || status === "202") {
      const content = resourceOf(route) === "imports" && kind === "create" && status === "200" ? json(importDryRun()) : successContent(route, kind);
      if (content) response.content = content;
    } else if (status !== "304") {
      response.content = json({ $ref: ERROR_BODY_REF });
    }
    out[status] = response;
  }
  return out;
}

/** `{ type, items? }` of an argument. */
export function argSchema(arg: DocumentedArg): Record<string, unknown> {
  const schema: Record<string, unknown> = { type: openApiType(arg.doc) };
  if (arg.doc.items) schema.items = { ...arg.doc.items };
  if (arg.doc.enum) schema.enum = [...arg.doc.enum];
  if (arg.doc.maxLength !== undefined) schema.maxLength = arg.doc.maxLength;
  if (arg.doc.example !== undefined) schema.example = structuredClone(arg.doc.example);
  return schema;
}

/** Where an argument travels: only a route placeholder is a path parameter. */
function inPath(arg: DocumentedArg, placeholders: Set<string>): boolean {
  return placeholders.has(arg.name);
}

export function parameterOf(arg: DocumentedArg, placeholders: Set<string>, lang = "en"): Record<string, unknown> {
  const path = inPath(arg, placeholders);
  const parameter: Record<string, unknown> = {
    in: path ? "path" : "query",
    schema: argSchema(arg),
    description: argDescription(arg.doc.description, lang),
    // A path parameter is always required (it is part of the path).
    required: path || arg.required,
    name: arg.name
  };
  // A list parameter is sent as one comma-separated value (`categories=1,2`).
  if (!path && arg.doc.items) Object.assign(parameter, { style: "form", explode: false });
  return parameter;
}

/** Parameters every operation takes beside its action's own: the language and response shaping. */
function commonParameters(lang: string): Record<string, unknown>[] {
  return [
    { in: "query", schema: { type: "string", enum: [...LANGUAGES] }, description: translate("doc.param.i18n_language", lang), required: false, name: I18N_PARAM },
    { in: "query", schema: { type: "string" }, description: translate("doc.param.fields", lang), required: false, name: "_fields" }
  ];
}

/** Request headers an operation of this kind reads. */
function headerParameters(kind: OperationKind, lang: string): Record<string, unknown>[] {
  const header = (name: string, key: string) => ({ in: "header", schema: { type: "string" }, description: translate(key, lang), required: false, name });
  if (kind === "list" || kind === "read") return [header("If-None-Match", "doc.header.if_none_match"), header("If-Modified-Since", "doc.header.if_modified_since")];
  if (kind === "create") return [header("Idempotency-Key", "doc.header.idempotency_key")];
  return [header("If-Match", "doc.header.if_match")];
}

function requestBody(args: DocumentedArg[], lang: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const arg of args) properties[arg.name] = { description: argDescription(arg.doc.description, lang), ...argSchema(arg) };
  const required = args.filter(a => a.required).map(a => a.name);
  const schema: Record<string, unknown> = { type: "object", properties };
  if (required.length) schema.required = required;
  return { content: { "application/json": { schema }, "application/x-www-form-urlencoded": { schema: structuredClone(schema) } } };
}

/** The placeholders of a route pattern (`id`, `slug`). */
export function placeholdersOf(pattern: string): Set<string> {
  return new Set([...pattern.matchAll(/\(\?P<([A-Za-z_][A-Za-z0-9_]*)>/g)].map(m => m[1]));
}

/** `events.updateBySlug` + put → `eventsUpdateBySlugPut` (unique per operation). */
function operationId(action: string, verb: Verb, firstVerb: Verb): string {
  const words = action.split(".");
  if (verb !== firstVerb) words.push(verb);
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join("");
}

/**
 * One operation. GET and DELETE take every argument as a parameter (path or query); POST, PUT and PATCH
 * take the route's placeholders in the path and the other arguments in the body (JSON or form).
 */
export function operation(route: RouteDef, action: string, verb: Verb, lang: string, firstVerb: Verb = verb): Record<string, unknown> {
  const args = documentedArgs(action);
  const placeholders = placeholdersOf(route.pattern);
  const kind = operationKind(action, verb);
  const op: Record<string, unknown> = { tags: [resourceOf(route)], operationId: operationId(action, verb, firstVerb) };
  const write = verb === "post" || verb === "put" || verb === "patch";
  const pathArgs = args.filter(a => inPath(a, placeholders));
  // A placeholder the action does not declare is still a path parameter.
  const undeclared = [...placeholders].filter(name => !args.some(a => a.name === name))
    .map(name => ({ name, doc: { description: name, type: "string" as const }, required: true }));
  const parameters = [...undeclared, ...(write ? pathArgs : args)].map(a => parameterOf(a, placeholders, lang));
  op.parameters = [...parameters, ...commonParameters(lang), ...headerParameters(kind, lang)];
  if (write) {
    // The body: every argument but the placeholders, and a placeholder the action takes as optional too (a
    // by-slug update renames with a body slug).
    const body = args.filter(a => !inPath(a, placeholders) || !a.required);
    if (body.length) op.requestBody = requestBody(body, lang);
  }
  op.responses = responses(route, kind, lang);
  return op;
}

/** The routes the document lists: every route but the namespace index itself. */
export function documentedRoutes(): RouteDef[] {
  return ROUTES.filter(r => r.pattern !== "");
}

function docPath(lang: string): Record<string, unknown> {
  return {
    get: {
      tags: ["doc"],
      operationId: "apiDoc",
      parameters: commonParameters(lang),
      responses: {
        "200": { description: translate("doc.ok", lang), content: json(openApiObject()) },
        "304": { description: translate("doc.not_modified", lang) },
        // The error body is written out once, here (the first path), and referred to everywhere else.
        ...Object.fromEntries(COMMON_ERRORS.map(status => [status, {
          description: translate(STATUS_TEXT[status], lang),
          content: json(status === ERROR_BODY_STATUS ? errorBody() : { $ref: ERROR_BODY_REF })
        }]))
      }
    }
  };
}

const METHOD_VERB: Record<string, Verb> = { GET: "get", POST: "post", PUT: "put", PATCH: "patch", DELETE: "delete" };

/** The served change policy (`{base_url}/docs/api-policy.md`) from an API root (`{base_url}[/{lang}]/{prefix}`). */
function policyUrlOf(apiRoot: string): string {
  const site = apiRoot.replace(/\/[^/]+$/, "");
  const lang = PATH_LANGUAGES.find(l => site.endsWith(`/${l}`));
  const base = lang ? site.slice(0, -(lang.length + 1)) : site;
  return `${base}/docs/api-policy.md`;
}

/**
 * The change policy in the document (docs/api-policy.md): a deprecated route's operations, a deprecated
 * parameter (query or body) and a deprecated field of a resource's component say `deprecated: true` with
 * their sunset (`x-sunset`); an experimental route's operations say `x-experimental: true` and take the
 * opt-in header.
 */
function markPolicy(paths: Record<string, Record<string, Record<string, unknown>>>, components: Record<string, Record<string, unknown>>, registry: readonly Deprecation[], lang: string): void {
  for (const route of documentedRoutes()) {
    const item = paths[openApiPath(route.pattern)];
    if (!item) continue;
    for (const endpoint of route.endpoints) {
      for (const method of endpoint.methods) {
        const op = item[METHOD_VERB[method]];
        if (!op) continue;
        if (route.experimental) {
          op["x-experimental"] = true;
          (op.parameters as Record<string, unknown>[]).push({ in: "header", name: "X-Calendar-Experimental", required: true, schema: { type: "string", enum: ["1"] },
            description: "This route is experimental (outside v1's promise): send 1 to call it." });
        }
        const entries = registry.filter(d => d.action === endpoint.action && (d.methods as string[]).includes(method));
        // after a sunset the operation answers 410 rest_gone to a request using it
        const responses = op.responses as Record<string, unknown>;
        if (entries.length && !responses["410"]) op.responses = Object.fromEntries(Object.entries({ ...responses, "410": { description: statusText("410", lang), content: json({ $ref: ERROR_BODY_REF }) } }).sort(([a], [b]) => a.localeCompare(b)));
        for (const entry of entries) {
          if (entry.what === "route") Object.assign(op, { deprecated: true, "x-sunset": entry.sunset });
          if (entry.what === "parameter") {
            const parameter = (op.parameters as Record<string, unknown>[]).find(p => p.name === entry.name && p.in !== "header");
            if (parameter) Object.assign(parameter, { deprecated: true, "x-sunset": entry.sunset });
            const body = ((op.requestBody as Record<string, Record<string, Record<string, Record<string, Record<string, Record<string, unknown>>>>>> | undefined)?.content ?? {});
            for (const media of Object.values(body)) {
              const property = media.schema?.properties?.[entry.name ?? ""];
              if (property) Object.assign(property, { deprecated: true, "x-sunset": entry.sunset });
            }
          }
          if (entry.what === "field") {
            const component = components[RESOURCE_COMPONENTS[resourceOf(route)] ?? ""] as { properties?: Record<string, Record<string, unknown>> } | undefined;
            const property = component?.properties?.[entry.name ?? ""];
            if (property) Object.assign(property, { deprecated: true, "x-sunset": entry.sunset });
          }
        }
      }
    }
  }
}

export function openApiDocument(apiRoot: string, lang: string, registry: readonly Deprecation[] = DEPRECATIONS): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const route of documentedRoutes()) {
    const path = openApiPath(route.pattern);
    if (route.endpoints.some(e => e.action === "api.doc")) {
      paths[path] = docPath(lang);
      continue;
    }
    const item: Record<string, unknown> = {};
    for (const endpoint of route.endpoints) {
      const first = verbOf(endpoint.methods);
      for (const method of endpoint.methods) {
        const verb = METHOD_VERB[method];
        if (verb && first && !(verb in item)) item[verb] = operation(route, endpoint.action, verb, lang, first);
      }
    }
    paths[path] = item;
  }
  const schemas = componentSchemas();
  markPolicy(paths as Record<string, Record<string, Record<string, unknown>>>, schemas as Record<string, Record<string, unknown>>, registry, lang);
  return {
    openapi: OPENAPI_VERSION,
    // what v1 promises and how a client is told of a change (docs/api-policy.md, served beside /docs)
    info: { version: "1.0.0", title: translate("doc.title", lang), description: translate("doc.description", lang), "x-api-policy": policyUrlOf(apiRoot) },
    components: { schemas },
    servers: [{ url: `${apiRoot}/${NAMESPACE_PATH}/` }],
    paths,
    // what the webhooks POST to their endpoints (docs/webhooks.md#payload)
    webhooks: webhooksDocument()
  };
}

/** The deprecation registry as `GET {ns}/deprecations` answers it (lib/api-policy/deprecations.ts `deprecationList`). */
function deprecationListSchema(): JsonSchema {
  const text = (description: string): JsonSchema => ({ type: "string", description });
  return {
    type: "array",
    items: {
      type: "object",
      required: ["id", "what", "action", "methods", "since", "sunset", "replacement", "doc"],
      properties: {
        id: text("The deprecation's id."),
        what: { type: "string", enum: ["route", "parameter", "field"], description: "What is deprecated." },
        action: text("The action of the route concerned."),
        methods: { type: "array", items: { type: "string" }, description: "The HTTP methods concerned." },
        name: text("The parameter's or response field's name."),
        since: text("The day it was deprecated (Y-m-d)."),
        sunset: text("The day after which it answers 410 rest_gone (Y-m-d)."),
        replacement: text("What to use instead."),
        doc: text("Where the deprecation is explained.")
      }
    }
  };
}
