/**
 * The platform API's own OpenAPI document, `GET {base_url}/platform/v1/doc` (C33: sites and the default site; C48): not part of a
 * site's /doc. Written out here, beside the answers it describes (lib/platform/present.ts).
 */
const error = { $ref: "#/components/schemas/Error" };
const errors = (...codes: string[]) => Object.fromEntries(codes.map(code => [code, { description: ERROR_TEXT[code], content: { "application/json": { schema: error } } }]));
const ERROR_TEXT: Record<string, string> = {
  "400": "rest_invalid_param: a field is missing or invalid (data.params names it)",
  "401": "rest_invalid_api_key: no or another key than PLATFORM_KEY",
  "404": "rest_site_not_found: no such site (or key)",
  "409": "rest_site_exists (the host is taken) or rest_site_default (the default site cannot be changed here)"
};
const json = (schema: unknown, description: string) => ({ description, content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } };
const siteInput = (required: string[]) => ({
  required: true,
  content: { "application/json": { schema: { type: "object", ...(required.length ? { required } : {}), properties: {
    host: { type: "string", description: "Host (and port) the site answers for, matched case-insensitively (`cal.example.org`, `a.example:8080`)" },
    name: { type: "string", description: "The calendar's name (default: the host)" },
    base_url: { type: "string", format: "uri", description: "Base URL of the site's links (default: http://{host})" },
    timezone: { type: "string", description: "Site time zone, an IANA name (default: UTC)" },
    geolocation: { type: "boolean", description: "Whether the geolocation add-on is on (default: false)" }
  } } } }
});

export function platformDocument(baseUrl: string): Record<string, unknown> {
  return {
    openapi: "3.0.3",
    info: { title: "Calendar platform API", version: "1", description: "Sites (many calendars in one deployment) and their API keys. Every operation needs `Authorization: Bearer <PLATFORM_KEY>`." },
    servers: [{ url: `${baseUrl}/platform/v1` }],
    tags: [{ name: "sites", description: "Sites and their API keys" }],
    security: [{ platformKey: [] }],
    paths: {
      "/sites": {
        get: {
          tags: ["sites"], summary: "List the sites (the default site first, as id 1)",
          parameters: [
            { name: "page", in: "query", schema: { type: "integer", minimum: 1, default: 1 } },
            { name: "per_page", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } }
          ],
          responses: { "200": json({ type: "object", properties: { sites: { type: "array", items: { $ref: "#/components/schemas/Site" } }, total: { type: "integer" }, total_pages: { type: "integer" } } }, "A page of sites"), ...errors("400", "401") }
        },
        post: {
          tags: ["sites"], summary: "Create a site and its first administrator key (shown once)",
          requestBody: siteInput(["host"]),
          responses: { "201": json({ $ref: "#/components/schemas/NewSite" }, "The site, with its new administrator key"), ...errors("400", "401", "409") }
        }
      },
      "/sites/{id}": {
        parameters: [idParam],
        get: { tags: ["sites"], summary: "One site", responses: { "200": json({ $ref: "#/components/schemas/Site" }, "The site"), ...errors("401", "404") } },
        post: {
          tags: ["sites"], summary: "Change a site (the fields sent)", requestBody: siteInput([]),
          responses: { "200": json({ $ref: "#/components/schemas/Site" }, "The site as changed"), ...errors("400", "401", "404", "409") }
        },
        delete: {
          tags: ["sites"], summary: "Delete a site and all its records",
          description: "Answered once the site's host answers 404; its records are removed in the background, and its host can be used again once they are gone (409 until then).",
          responses: { "200": json({ type: "object", properties: { id: { type: "integer" }, deleted: { type: "boolean" } } }, "The site is deleted"), ...errors("401", "404", "409") }
        }
      },
      "/sites/{id}/keys": {
        parameters: [idParam],
        post: {
          tags: ["sites"], summary: "A new API key of the site (shown once)",
          requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["role"], properties: {
            role: { type: "string", enum: ["administrator", "editor", "author", "contributor", "subscriber"] },
            user_id: { type: "integer", minimum: 1, description: "The user the key names (default: the smallest id no key of the site names)" }
          } } } } },
          responses: { "201": json({ $ref: "#/components/schemas/Key" }, "The key"), ...errors("400", "401", "404", "409") }
        }
      },
      "/sites/{id}/keys/{key_id}": {
        parameters: [idParam, { name: "key_id", in: "path", required: true, schema: { type: "integer", minimum: 1 } }],
        delete: {
          tags: ["sites"], summary: "Revoke a key (401 at once on every node)",
          responses: { "200": json({ type: "object", properties: { id: { type: "integer" }, deleted: { type: "boolean" } } }, "The key is revoked"), ...errors("401", "404", "409") }
        }
      },
      "/sites/{id}/deprecations": {
        parameters: [idParam],
        get: {
          tags: ["sites"], summary: "How often the site's clients used each deprecated route, parameter or field (docs/api-policy.md)",
          responses: { "200": json({ type: "object", additionalProperties: { type: "object", required: ["count", "last_used_utc"], properties: { count: { type: "integer" }, last_used_utc: { type: "string" } } } }, "Uses by deprecation id"), ...errors("401", "404") }
        }
      },
      "/doc": { get: { tags: ["sites"], summary: "This document", security: [], responses: { "200": { description: "OpenAPI document", content: { "application/json": { schema: { type: "object" } } } } } } }
    },
    components: {
      securitySchemes: { platformKey: { type: "http", scheme: "bearer" } },
      schemas: {
        Site: { type: "object", required: ["id", "host", "name", "base_url", "timezone", "geolocation"], properties: {
          id: { type: "integer" }, host: { type: "string" }, name: { type: "string" }, base_url: { type: "string" }, timezone: { type: "string" }, geolocation: { type: "boolean" }
        } },
        NewSite: { allOf: [{ $ref: "#/components/schemas/Site" }, { type: "object", required: ["api_key"], properties: { api_key: { type: "string", description: "An administrator key of the site (user id 1), shown once" } } }] },
        Key: { type: "object", required: ["id", "key", "role", "user_id"], properties: { id: { type: "integer" }, key: { type: "string", description: "Shown once; stored only as a hash" }, role: { type: "string" }, user_id: { type: "integer" } } },
        Error: { type: "object", required: ["code", "message", "data"], properties: { code: { type: "string" }, message: { type: "string" }, data: { type: "object", properties: { status: { type: "integer" } } } } }
      }
    }
  };
}
