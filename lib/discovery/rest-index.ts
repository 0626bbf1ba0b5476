/**
 * WordPress discovery: the REST index, `GET {base_url}/{REST_PREFIX}/` (and under each language root), and
 * the site's home, `GET`/`HEAD {base_url}/`, whose `Link` header points WordPress clients at the REST index
 * (`rel="https://api.w.org/"`), as every WordPress page does. The index has WordPress's shape: the site's
 * name, description and addresses, the namespaces it serves, the authentication it takes and its routes
 * (the namespace index's, with the index's own `/` first).
 */
import { NAMESPACE_PATH } from "../settings";
import { translate } from "../i18n/messages";
import { Clock, i18nArg } from "./args";
import { IndexOptions, namespaceIndex } from "./namespace-index";

/** The link relation WordPress clients look for. */
export const API_LINK_REL = "https://api.w.org/";

export interface SiteFacts {
  /** SITE_NAME */
  name: string;
  /** `{base_url}`, or `{base_url}/{lang}` under a language root. */
  site: string;
  /** `{site}/{REST_PREFIX}` */
  apiRoot: string;
  /** The language of the texts. */
  language: string;
  siteZone: string;
}

/** `Link: <{api_root}/>; rel="https://api.w.org/"`. */
export function apiLinkHeader(apiRoot: string): string {
  return `<${apiRoot}/>; rel="${API_LINK_REL}"`;
}

/** The site's home: its name, description, addresses and the REST root. */
export function siteHome(facts: SiteFacts): Record<string, unknown> {
  return {
    name: facts.name,
    description: translate("doc.description", facts.language),
    url: facts.site,
    home: facts.site,
    rest_url: `${facts.apiRoot}/`
  };
}

/** The WordPress REST index of the site. */
export function restIndex(facts: SiteFacts, opts: IndexOptions = {}): Record<string, unknown> {
  const clock: Clock = { now: opts.now ?? new Date(), siteZone: facts.siteZone };
  const namespace = namespaceIndex(facts.apiRoot, { now: clock.now, siteZone: clock.siteZone, language: facts.language }) as { routes: Record<string, unknown> };
  return {
    name: facts.name,
    description: translate("doc.description", facts.language),
    url: facts.site,
    home: facts.site,
    timezone_string: facts.siteZone,
    namespaces: [NAMESPACE_PATH],
    authentication: {
      "api-key": { header: "Authorization", scheme: "Bearer", description: translate("doc.authentication", facts.language) }
    },
    routes: {
      "/": {
        namespace: "",
        methods: ["GET"],
        endpoints: [{ methods: ["GET"], args: { context: { default: "view", required: false }, i18n_language: i18nArg() } }],
        _links: { self: [{ href: `${facts.apiRoot}/` }] }
      },
      ...namespace.routes
    },
    _links: { help: [{ href: `${facts.apiRoot}/${NAMESPACE_PATH}/doc` }] }
  };
}
