/**
 * The interactive documentation page, `GET {base_url}/docs`: Swagger UI from the installed
 * `swagger-ui-dist` package (no CDN), pointed at the `/doc` document. The gateway mounts these aliases on
 * a `/docs` route; the page ignores the Authorization header (C19).
 */
import fs from "fs";
import path from "path";
import type { IncomingMessage, ServerResponse } from "http";
import { renderError, toApiError } from "./error-render";
import { ApiError } from "../lib/errors";
import { DEFAULT_LANGUAGE, translate } from "../lib/i18n/messages";

export const DOCS_PATH = "/docs";
/** The change policy (docs/api-policy.md), served as written at `{base_url}/docs/api-policy.md`. */
export const POLICY_FILE = "api-policy.md";

/** The policy's URL for a base URL: what the namespace index, /doc and the deprecation links point at. */
export function policyUrl(baseUrl: string): string {
  return `${baseUrl}${DOCS_PATH}/${POLICY_FILE}`;
}

/** The policy's text: `<root>/docs/api-policy.md` (compiled files live in dist/gateway, two levels below the root). */
function policyText(): string {
  for (const root of [path.join(__dirname, "..", ".."), path.join(__dirname, "..")]) {
    const file = path.join(root, "docs", POLICY_FILE);
    if (fs.existsSync(file)) return fs.readFileSync(file, "utf8");
  }
  throw ApiError.noRoute();
}
const INIT_SCRIPT = "docs-init.js";

const CONTENT_TYPES: Record<string, string> = {
  ".js": "application/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
  ".html": "text/html; charset=utf-8",
  ".map": "application/json; charset=utf-8"
};

let distDir: string | undefined;
let assets: Set<string> | undefined;

/** The files of swagger-ui-dist the page may load (its own index.html and initializer excepted). */
function assetNames(): Set<string> {
  if (!assets) {
    distDir = path.dirname(require.resolve("swagger-ui-dist/package.json"));
    assets = new Set(fs.readdirSync(distDir).filter(name =>
      CONTENT_TYPES[path.extname(name)] !== undefined && name !== "index.html" && name !== "swagger-initializer.js"));
  }
  return assets;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c] as string);

/** The URL of the OpenAPI document the page renders: `{base_url}/{REST_PREFIX}/calendar/events/v1/doc`. */
export function docUrl(baseUrl: string, restPrefix: string): string {
  return `${baseUrl}/${restPrefix}/calendar/events/v1/doc`;
}

export function docsPageHtml(specUrl: string, lang: string = DEFAULT_LANGUAGE): string {
  return [
    "<!DOCTYPE html>",
    `<html lang="${escapeHtml(lang)}">`,
    "<head>",
    "  <meta charset=\"utf-8\">",
    "  <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
    `  <title>${escapeHtml(translate("doc.title", lang))}</title>`,
    `  <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">`,
    `  <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32">`,
    "</head>",
    "<body>",
    `  <div id="swagger-ui" data-spec-url="${escapeHtml(specUrl)}"></div>`,
    `  <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>`,
    `  <script src="${DOCS_PATH}/${INIT_SCRIPT}"></script>`,
    "</body>",
    "</html>",
    ""
  ].join("\n");
}

/** Starts Swagger UI on the document named by the page (no inline script, no validator call-out). */
export const DOCS_INIT_JS = `window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-spec-url"),
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
});
`;

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.statusCode = status;
  res.setHeader("Content-Type", type);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Cache-Control", "no-cache");
  res.end(body);
}

function sendError(res: ServerResponse, err: unknown): void {
  if (res.headersSent) return;
  const { status, body } = renderError(toApiError(err).error, DEFAULT_LANGUAGE);
  send(res, status, "application/json; charset=utf-8", JSON.stringify(body));
}

/** Serves `/docs/<name>` from swagger-ui-dist (only its known files) or the page's initializer. */
export function sendDocsAsset(res: ServerResponse, name: unknown): void {
  if (name === INIT_SCRIPT) return send(res, 200, CONTENT_TYPES[".js"], DOCS_INIT_JS);
  if (name === POLICY_FILE) {
    try {
      return send(res, 200, "text/markdown; charset=utf-8", policyText());
    } catch (err) {
      return sendError(res, err);
    }
  }
  if (typeof name !== "string" || !assetNames().has(name)) return sendError(res, ApiError.noRoute());
  const stream = fs.createReadStream(path.join(distDir as string, name));
  res.statusCode = 200;
  res.setHeader("Content-Type", CONTENT_TYPES[path.extname(name)]);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Cache-Control", "public, max-age=3600");
  stream.on("error", err => sendError(res, err));
  stream.pipe(res);
}

type Req = IncomingMessage & { $params?: Record<string, unknown> };

/**
 * moleculer-web aliases of the `/docs` route: the page (with or without a trailing slash) and its
 * assets. `specUrl` is read per request so the settings in force are used.
 */
export function docsAliases(specUrl: () => string): Record<string, (req: Req, res: ServerResponse) => void> {
  return {
    "GET /": (_req, res) => send(res, 200, CONTENT_TYPES[".html"], docsPageHtml(specUrl())),
    "GET /:file": (req, res) => sendDocsAsset(res, req.$params?.file)
  };
}

/** The route's own error handler: the contract's JSON, without looking at the Authorization header (C19). */
export function docsOnError(_req: IncomingMessage, res: ServerResponse, err: unknown): void {
  sendError(res, err);
}
