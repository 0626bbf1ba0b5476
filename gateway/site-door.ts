/**
 * The gateway's site door (docs/sites.md, C49: hosts choose the site): before the guards, each request is tied to the site its
 * host names (`X-Forwarded-Host` only with TRUST_PROXY=1), and the rest of its handling runs as that
 * site's work (lib/sites/scope.ts): the guards' rate-limit bucket, kept answers, the caller's key, the
 * links and dates of the answers. A host no site has answers 404 `rest_site_not_found` once sites exist;
 * `/health/*`, `/metrics` and `/platform/v1/*` answer on any host, as the default site.
 *
 * This is the one place a request's site is decided; everything after reads it: the scope here, the
 * gateway's root context (`meta.site`, set from it in services/api.service.ts `rootCallOptions`), and the
 * calls made from there (middlewares/site-scope.middleware.ts carries it on every hop).
 */
import type { IncomingMessage, ServerResponse } from "http";
import { ApiError } from "../lib/errors";
import { renderError, toApiError } from "./error-render";
import { applySecurityHeaders } from "./guards";
import { hostOfUrl, isSiteless, requestHost } from "../lib/sites/host";
import { ResolvedKey, runInSite } from "../lib/sites/scope";
import { deploymentSettings } from "../lib/settings";
import type { SiteDirectory } from "../store/site-directory";

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

function answer(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  if (res.headersSent) return;
  const { status, body } = renderError(toApiError(err).error, deploymentSettings().defaultLanguage);
  applySecurityHeaders(req, res, deploymentSettings().baseUrl);
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.writeHead(status);
  res.end(JSON.stringify(body));
}

/** The Bearer key of a request, if it sends one in that scheme. */
function bearerOf(req: IncomingMessage): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  return m ? m[1] : undefined;
}

export function siteDoor(next: Handler, directory: () => Promise<SiteDirectory>): (req: IncomingMessage, res: ServerResponse) => Promise<unknown> {
  return async (req, res) => {
    const s = deploymentSettings();
    if (isSiteless(String(req.url ?? ""))) return runInSite(undefined, () => next(req, res));
    let found;
    let bearer: ResolvedKey | undefined;
    try {
      const dir = await directory();
      found = await dir.forHost(requestHost(req.headers, s.trustProxy), hostOfUrl(s.baseUrl));
      const key = found.kind === "site" ? bearerOf(req) : undefined;
      if (found.kind === "site" && key !== undefined) bearer = { key, caller: await dir.callerFor(found.site.id, key) };
    } catch (err) {
      return answer(req, res, err);
    }
    if (found.kind === "unknown") return answer(req, res, new ApiError("rest_site_not_found", 404));
    return runInSite(found.kind === "site" ? found.site : undefined, () => next(req, res), bearer);
  };
}
