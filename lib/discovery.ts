/**
 * The namespace index (WordPress shape) and the OpenAPI document, generated from the route table and
 * the actions' params schemas.
 */
import { ROUTES } from "./routes";
import { describeSchema } from "./params";
import { schemaOf } from "./schemas";
import { LANGUAGES, translate } from "./messages";
import { NAMESPACE_PATH } from "./settings";

const I18N_ARG = { type: "string", enum: LANGUAGES, required: false };
const ARG_KEYS = ["description", "type", "default", "format", "enum", "items"] as const;

function argsOf(action: string): Record<string, unknown> | unknown[] {
  const schema = schemaOf(action);
  const args: Record<string, unknown> = {};
  for (const { name, doc, required } of schema ? describeSchema(schema) : []) {
    const arg: Record<string, unknown> = {};
    for (const key of ARG_KEYS) if (doc[key] !== undefined) arg[key] = doc[key];
    arg.required = required;
    args[name] = arg;
  }
  args.i18n_language = I18N_ARG;
  return args;
}

export function namespaceIndex(apiRoot: string): Record<string, unknown> {
  const routes: Record<string, unknown> = {};
  for (const route of ROUTES) {
    const key = `/${NAMESPACE_PATH}${route.pattern}`;
    const entry: Record<string, unknown> = {
      namespace: NAMESPACE_PATH,
      methods: route.endpoints.flatMap(e => e.methods),
      endpoints: route.endpoints.map(e => ({ methods: e.methods, args: argsOf(e.action) }))
    };
    if (!route.pattern.includes("(?P<")) entry._links = { self: [{ href: `${apiRoot}${key}` }] };
    routes[key] = entry;
  }
  return { namespace: NAMESPACE_PATH, routes, _links: { up: [{ href: `${apiRoot}/` }] } };
}

export function openApiDocument(apiRoot: string, lang: string): Record<string, unknown> {
  return {
    openapi: "3.0.0",
    info: { version: "1.0.0", title: translate("doc.title", lang), description: translate("doc.description", lang) },
    components: { schemas: {} },
    servers: [{ url: `${apiRoot}/${NAMESPACE_PATH}/` }],
    paths: { "/doc": { get: { responses: { "200": { description: translate("doc.ok", lang) } } } } }
  };
}
