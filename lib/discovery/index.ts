/**
 * Discovery and documentation, generated from the route table (lib/http/routes.ts) and the actions' params
 * schemas (lib/http/action-schemas.ts):
 * - the namespace index, `GET {api_root}/calendar/events/v1` (lib/discovery/namespace-index.ts);
 * - the OpenAPI document, `GET {api_root}/calendar/events/v1/doc` (lib/discovery/openapi.ts);
 * - the Swagger UI page, `GET {base_url}/docs` (gateway/docs-page.ts);
 * - docs/action-api.md (lib/discovery/action-api.ts, written by scripts/action-api.ts).
 */
export { API_PARAMS } from "./api-params";
export { openApiType } from "./args";
export { namespaceIndex, endpointArgs } from "./namespace-index";
export { openApiDocument, openApiPath, verbOf } from "./openapi";
export { actionApiMarkdown, ACTION_API_PATH } from "./action-api";
