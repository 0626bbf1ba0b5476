/**
 * Discovery and documentation, generated from the route table (lib/routes.ts) and the actions' params
 * schemas (lib/schemas.ts):
 * - the namespace index, `GET {api_root}/calendar/events/v1` (discovery/namespace-index.ts);
 * - the OpenAPI document, `GET {api_root}/calendar/events/v1/doc` (discovery/openapi.ts);
 * - the Swagger UI page, `GET {base_url}/docs` (gateway/docs-page.ts);
 * - docs/action-api.md (discovery/action-api.ts, written by scripts/action-api.ts).
 */
export { API_PARAMS } from "./discovery/api-params";
export { documentedArgs, printedDefault, openApiType } from "./discovery/args";
export { namespaceIndex, endpointArgs, indexArg, INDEX_ARG_KEYS } from "./discovery/namespace-index";
export { openApiDocument, openApiPath, verbOf, documentedRoutes, OPENAPI_VERSION } from "./discovery/openapi";
export { componentSchemas, RESOURCE_COMPONENTS } from "./response-schemas";
export { actionApiMarkdown, ACTION_API_PATH } from "./discovery/action-api";
export { accessOf } from "./discovery/access";
