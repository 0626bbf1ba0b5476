/**
 * What the gateway puts in `ctx.meta` for every request. An action called directly on the bus may carry
 * none of it: `caller` undefined means a trusted internal call (see README, "Action API").
 */
import type { Caller } from "../access/callers";

export interface CallMeta {
  /** The caller: a known key's user, `null` for anonymous HTTP callers, undefined for internal calls. */
  caller?: Caller | null;
  /** Language the request is served in (path prefix or `i18n_language`, which wins). */
  language?: string;
  /** True when the language came from the `i18n_language` parameter (C8: kept in list links). */
  languageParam?: boolean;
  /** The site the request belongs to (docs/sites.md, C48: the platform API); absent: the default site (1). */
  site?: number;
  /** `{base_url}` plus the language path segment the request came in on. */
  siteUrl?: string;
  /** `{siteUrl}/{REST_PREFIX}`. */
  apiRoot?: string;
  /** The query string as sent (GET requests): list links repeat it (D10: list links carry what the caller sent). */
  query?: Record<string, unknown>;
  /** A `slug` sent in the body of a by-slug update: the new slug (D4: the path selects the record). */
  bodySlug?: string;
  /** An idempotent create's claim (lib/http/idempotency.ts `producedBy`): marked with its record in the create's transaction. */
  idempotencyClaim?: string;
  /** The action that reads the record that create makes (`events.get`…): only that create marks the claim. */
  idempotencyRead?: string;
  /**
   * An idempotent create whose answer holds a secret (a webhook endpoint's): the gateway keeps its answer
   * without the body, and a repeat reads the body again from this action (lib/http/idempotency.ts `StoredAnswer.refill`).
   */
  $answerRefill?: { read: string; id: number };
  /** The answer is not to be kept by the gateway's response cache (a change feed page held back, services/changes.service.ts). */
  $notKept?: boolean;
  /**
   * A batch's check of a request (require-all-validate): the routed action named here validates its params
   * and answers 204 without running (middlewares/validate-only.middleware.ts).
   */
  $validateOnly?: string;
  /**
   * The gateway sends the answer as it is (a GET of one event or of an events page, no `_fields`, no
   * iCalendar): the action may answer as JSON text, the bytes to send (an event's when it has them whole, a
   * stored answer; a page's always), and then names the newest `modified_utc` it holds in `$answerModified`.
   * Internal callers set neither and get records.
   */
  $answerText?: boolean;
  $answerModified?: string | null;
  /** The hash of the text an ETag is made of (lib/http/etag.ts `bodyTag`), with `$answerModified`. */
  $answerTag?: string;
  /** The ids of the events a page answered as text shows, in order (what the gateway keeps the page by). */
  $answerIds?: number[];
  $statusCode?: number;
  $responseHeaders?: Record<string, string>;
  $location?: string;
  [key: string]: unknown;
}
