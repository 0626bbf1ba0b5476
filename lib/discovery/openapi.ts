/**
 * The OpenAPI 3.0.0 document, `GET {api_root}/calendar/events/v1/doc` (docs/discovery.md#the-openapi-document), built
 * from the route table and the registered params schemas. Human-readable texts come from the message
 * catalogs (`doc.*`); parameter descriptions are the schemas' own (English).
 */
import { ROUTES, RouteDef } from "../routes";
import { NAMESPACE_PATH } from "../settings";
import { translate } from "../messages";
import { DocumentedArg, documentedArgs, openApiType } from "./args";
import { componentRef, componentSchemas, RESOURCE_COMPONENTS } from "./components";

export type Verb = "get" | "post" | "delete";

/** What an operation does, which decides its responses. */
export type OperationKind = "list" | "create" | "read" | "update" | "remove";

/** `/events/(?P<id>\d+)` → `/events/{id}`. */
export function openApiPath(pattern: string): string {
  return pattern.replace(/\(\?P<([A-Za-z_][A-Za-z0-9_]*)>[^)]*\)/g, "{$1}");
}

/** The documented verb of a handler: GET, DELETE, and POST for create and update (PUT/PATCH are the same handler). */
export function verbOf(methods: readonly string[]): Verb | undefined {
  if (methods.includes("GET")) return "get";
  if (methods.includes("DELETE")) return "delete";
  if (methods.includes("POST")) return "post";
  return undefined;
}

const KIND_BY_OPERATION: Record<string, OperationKind> = {
  list: "list", create: "create", get: "read", getBySlug: "read", update: "update", updateBySlug: "update", remove: "remove", removeBySlug: "remove"
};
const KIND_BY_VERB: Record<Verb, OperationKind> = { get: "read", post: "update", delete: "remove" };

export function operationKind(action: string, verb: Verb): OperationKind {
  return KIND_BY_OPERATION[action.split(".").pop() ?? ""] ?? KIND_BY_VERB[verb];
}

/** Status codes each kind of operation documents (the plugin's lists). */
const RESPONSES: Record<OperationKind, string[]> = {
  list: ["200", "400", "404"],
  create: ["201", "400", "403"],
  read: ["200", "400", "403", "404"],
  update: ["200", "201", "400", "403"],
  remove: ["200", "400", "403", "410", "500"]
};
/** The plugin documents its organizer update with the create responses; reproduced (docs/discovery.md#the-openapi-document). */
const RESPONSE_OVERRIDES: Record<string, string[]> = {
  "organizers.update": RESPONSES.create,
  "organizers.updateBySlug": RESPONSES.create
};

const STATUS_TEXT: Record<string, string> = {
  "200": "doc.ok", "201": "doc.created", "400": "doc.bad_request", "403": "doc.forbidden", "404": "doc.not_found", "410": "doc.gone", "500": "doc.server_error"
};

/** The first path segment names the resource (`/events/…` → events). */
function resourceOf(route: RouteDef): string {
  return route.pattern.split("/")[1] ?? "";
}

function responses(route: RouteDef, action: string, kind: OperationKind, lang: string): Record<string, unknown> {
  const resource = resourceOf(route);
  const component = RESOURCE_COMPONENTS[resource];
  const out: Record<string, unknown> = {};
  for (const status of RESPONSE_OVERRIDES[action] ?? RESPONSES[kind]) {
    const response: Record<string, unknown> = { description: translate(STATUS_TEXT[status], lang) };
    if (component && (status === "200" || status === "201")) {
      const schema = kind === "list"
        ? { title: resource, type: "array", items: { $ref: componentRef(component) } }
        : { $ref: componentRef(component) };
      response.content = { "application/json": { schema } };
    }
    out[status] = response;
  }
  return out;
}

/** `{ type, items? }` of an argument. */
export function argSchema(arg: DocumentedArg): Record<string, unknown> {
  const schema: Record<string, unknown> = { type: openApiType(arg.doc) };
  if (arg.doc.items) schema.items = { ...arg.doc.items };
  return schema;
}

/** Where an argument travels: a path placeholder or a declared path parameter → path, else query. */
function locationOf(arg: DocumentedArg, placeholders: Set<string>): "path" | "query" {
  return placeholders.has(arg.name) || arg.doc.in === "path" ? "path" : "query";
}

export function parameterOf(arg: DocumentedArg, placeholders: Set<string>): Record<string, unknown> {
  const location = locationOf(arg, placeholders);
  const parameter: Record<string, unknown> = {
    in: location,
    schema: argSchema(arg),
    description: arg.doc.description,
    required: arg.required,
    name: arg.name
  };
  // A list parameter is sent as one comma-separated value (`categories=1,2`).
  if (location === "query" && arg.doc.items) Object.assign(parameter, { style: "form", explode: false });
  return parameter;
}

function requestBody(args: DocumentedArg[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const arg of args) properties[arg.name] = { description: arg.doc.description, ...argSchema(arg) };
  const required = args.filter(a => a.required).map(a => a.name);
  const schema: Record<string, unknown> = { type: "object", properties };
  if (required.length) schema.required = required;
  return { content: { "application/x-www-form-urlencoded": { schema } } };
}

/** The placeholders of a route pattern (`id`, `slug`). */
export function placeholdersOf(pattern: string): Set<string> {
  return new Set([...pattern.matchAll(/\(\?P<([A-Za-z_][A-Za-z0-9_]*)>/g)].map(m => m[1]));
}

/**
 * One operation. GET and DELETE take every argument as a parameter; POST takes its path arguments as
 * parameters and the others in a form body.
 */
export function operation(route: RouteDef, action: string, verb: Verb, lang: string): Record<string, unknown> {
  const args = documentedArgs(action);
  const placeholders = placeholdersOf(route.pattern);
  const inPath = (a: DocumentedArg) => locationOf(a, placeholders) === "path";
  const op: Record<string, unknown> = {};
  if (verb === "post") {
    op.parameters = args.filter(inPath).map(a => parameterOf(a, placeholders));
    const body = args.filter(a => !inPath(a));
    if (body.length) op.requestBody = requestBody(body);
  } else {
    op.parameters = args.map(a => parameterOf(a, placeholders));
  }
  op.responses = responses(route, action, operationKind(action, verb), lang);
  return op;
}

/** The routes the document lists: every route but the namespace index itself. */
export function documentedRoutes(): RouteDef[] {
  return ROUTES.filter(r => r.pattern !== "");
}

function docPath(lang: string): Record<string, unknown> {
  return { get: { responses: { "200": { description: translate("doc.ok", lang) } } } };
}

export function openApiDocument(apiRoot: string, lang: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const route of documentedRoutes()) {
    const path = openApiPath(route.pattern);
    if (route.endpoints.some(e => e.action === "api.doc")) {
      paths[path] = docPath(lang);
      continue;
    }
    const item: Record<string, unknown> = {};
    for (const endpoint of route.endpoints) {
      const verb = verbOf(endpoint.methods);
      if (verb && !(verb in item)) item[verb] = operation(route, endpoint.action, verb, lang);
    }
    paths[path] = item;
  }
  return {
    openapi: "3.0.0",
    info: { version: "1.0.0", title: translate("doc.title", lang), description: translate("doc.description", lang) },
    components: { schemas: componentSchemas() },
    servers: [{ url: `${apiRoot}/${NAMESPACE_PATH}/` }],
    paths
  };
}
