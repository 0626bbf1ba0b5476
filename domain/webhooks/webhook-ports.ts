/**
 * What the webhooks domain (domain/webhooks/) asks of the service that runs it (services/webhooks.service.ts):
 * the current site's records, the per-site passes on this node (their state, wake-ups and the endpoints
 * they read), and the rendering of changed records by the services that own them.
 */
import type { CallMeta } from "../../lib/http/call-meta";
import type { Batches } from "../../lib/webhooks/batches";
import type { EndpointDoc } from "../../lib/webhooks/present";
import type { Settlement, WebhookStore } from "../../store/webhooks";

/** A routed call: its params as their schema left them, and the gateway's meta (answer status and headers go there). */
export interface WebhookCall<P> {
  params: P;
  meta: CallMeta;
}

/** Per site, on this node: whether a pass runs, and whether another was asked for meanwhile. */
export interface SiteWork {
  running: boolean;
  again: boolean;
  /** Whether the next pass fans out too (new changes may be in the feed), or only sends. */
  fanOut: boolean;
  endpoints?: { at: number; list: EndpointDoc[] };
  /** Which endpoint the next pass shares the node's room out from. */
  turn: number;
  /** The attempts' results being recorded, in batches. */
  settlements?: Batches<Settlement, boolean>;
}

/** The passes of each site on this node, as the service runs them. */
export interface SitePasses {
  /** The current site's webhook records (503 while the store is not open). */
  store(): WebhookStore;
  work(site: number): SiteWork;
  /** The site's endpoints, kept a few seconds. */
  endpointsOf(site: number): Promise<EndpointDoc[]>;
  /** A pass for the site, now or right after the one running (`fanOut`: new changes may be in the feed). */
  wake(site: number, fanOut?: boolean): void;
  /** Another pass of the site in `ms`. */
  retryLater(site: number, ms: number): void;
  /** Every webhooks node forgets the current site's endpoints it kept and looks for work. */
  endpointsChanged(): void;
  /** Runs `fn` as work of the site (its records); undefined when the site is gone. */
  inSite<T>(site: number, fn: () => Promise<T>): Promise<T | undefined>;
}

/** The owning services' renderings of changed records (their `renderDocs` and `changeRecords` actions). */
export interface RecordRenderer {
  /** Each document as the owner answers it, in order (null where it answers none). */
  renderDocs(owner: string, docs: Array<Record<string, unknown>>, meta: CallMeta): Promise<Array<Record<string, unknown>> | undefined>;
  /** The records of these ids as they are now, by id. */
  changeRecords(owner: string, ids: number[], meta: CallMeta): Promise<Record<string, Record<string, unknown>> | undefined>;
}
