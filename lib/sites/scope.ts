/**
 * The site a piece of work belongs to (docs/sites.md). A request's site travels on the bus in
 * `ctx.meta.site` (a site id, C48: the platform API); inside one process it is held for the work's whole asynchronous
 * chain by Node's AsyncLocalStorage, entered where the site becomes known (the gateway's front door, the
 * broker middleware that runs each action and event handler). Work outside any scope belongs to the
 * default site (id 1), configured by the environment, as before sites existed.
 */
import { AsyncLocalStorage } from "async_hooks";

export const DEFAULT_SITE_ID = 1;

/** What a site changes of the deployment's settings, and who may call it. */
export interface SiteConfig {
  id: number;
  host: string;
  name: string;
  baseUrl: string;
  timezone: string;
  geolocation: boolean;
  /** The user ids its API keys name (the `author` parameter must name one, D15: users come from the API keys). */
  userIds: readonly number[];
}

/** A caller's key as the front door resolved it for this request's site (a key of another site is none). */
export interface ResolvedKey {
  key: string;
  caller: { id: number; role: string } | undefined;
}

interface Scope {
  /** The site; undefined: the default site, from the environment. */
  site: SiteConfig | undefined;
  /** The Bearer key of the request, resolved against the site's keys (non-default sites only). */
  bearer?: ResolvedKey;
}

const storage = new AsyncLocalStorage<Scope>();

/**
 * Runs `fn` as work of `site` (undefined: the default site). The default site's work is work outside any
 * scope, so it enters one only to leave another site's: until some other site's work runs, the storage is
 * never entered and Node keeps its async hooks off (with them on, every promise of every request pays for
 * the scope's propagation: docs/benchmarks.md "The request path").
 */
export function runInSite<T>(site: SiteConfig | undefined, fn: () => T, bearer?: ResolvedKey): T {
  if (site && site.id !== DEFAULT_SITE_ID) return storage.run({ site, bearer }, fn);
  return storage.getStore()?.site === undefined ? fn() : storage.run({ site: undefined }, fn);
}

/** The site of the current work; undefined for the default site. */
export function currentSite(): SiteConfig | undefined {
  return storage.getStore()?.site;
}

export function currentSiteId(): number {
  return storage.getStore()?.site?.id ?? DEFAULT_SITE_ID;
}

/** The request's key as resolved against its (non-default) site, when the front door resolved one. */
export function currentBearer(): ResolvedKey | undefined {
  return storage.getStore()?.bearer;
}

/** One value per site, made when a site first needs it (a process's in-memory state that must not mix sites). */
export class SiteLocal<T> {
  private readonly bySite = new Map<number, T>();

  constructor(private readonly make: () => T) {}

  /** The current site's value. */
  current(): T {
    const site = currentSiteId();
    let value = this.bySite.get(site);
    if (value === undefined) this.bySite.set(site, (value = this.make()));
    return value;
  }

  /** The current site's value, replaced. */
  set(value: T): void {
    this.bySite.set(currentSiteId(), value);
  }
}
