/**
 * Discovery and documentation, generated from the route table (lib/routes.ts) and the actions' params
 * schemas (lib/schemas.ts):
 * - the namespace index, `GET {api_root}/calendar/events/v1` (discovery/namespace-index.ts);
 * - the OpenAPI document, `GET {api_root}/calendar/events/v1/doc` (discovery/openapi.ts);
 * - the Swagger UI page, `GET {base_url}/docs` (gateway/docs-page.ts);
 * - docs/action-api.md (discovery/action-api.ts, written by scripts/action-api.ts).
 */
export { API_PARAMS } from "./discovery/api-params";
export { openApiType } from "./discovery/args";
export { namespaceIndex, endpointArgs } from "./discovery/namespace-index";
export { openApiDocument, openApiPath, verbOf } from "./discovery/openapi";
export { actionApiMarkdown, ACTION_API_PATH } from "./discovery/action-api";
