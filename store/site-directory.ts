/**
 * Which site a host or an id names, and who a site's key is (docs/sites.md). Each answer is checked
 * against the store's sites version (store/sites.ts) before it is used: one indexed read per lookup, or
 * one per lease where the store gives one (a version read is then trusted for `leaseMs` from when the
 * read began, and every change waits that long before it is answered), so a site changed or deleted
 * through any node is seen by every node at its next request (C50: a deleted site's host answers 404 as
 * soon as the delete is answered). Entries are kept only for sites asked for
 * (an idle site costs nothing here) and all dropped when the version moves.
 */
import type { Store } from "./index";
import type { SiteRow, SiteStore } from "./sites";
import { DEFAULT_SITE_ID, SiteConfig } from "../lib/sites/scope";
import { hashApiKey, keyMatches } from "../lib/sites/keys";
import type { Caller, Role } from "../lib/access/callers";

/** What a host names: a site, the default site, or nothing (404). */
export type HostAnswer = { kind: "site"; site: SiteConfig } | { kind: "default" } | { kind: "unknown" };

/** Kept entries at most (unknown hosts included), then all are dropped. */
const MAX_ENTRIES = 20_000;

export class SiteDirectory {
  private seen = -1;
  /** When the last successful version read began (performance.now()). */
  private readAt = -Infinity;
  private hosts = new Map<string, SiteConfig | null>();
  private ids = new Map<number, SiteConfig | null>();
  private others: boolean | undefined;

  constructor(private readonly sites: SiteStore | undefined) {}

  /** Whether this store can hold sites at all (every store does; a directory without one answers the default site). */
  get enabled(): boolean {
    return this.sites !== undefined;
  }

  private async current(): Promise<SiteStore | undefined> {
    if (!this.sites) return undefined;
    const began = performance.now();
    if (began - this.readAt < this.sites.leaseMs) return this.sites;
    let version: number;
    try {
      version = await this.sites.version();
      this.readAt = began;
    } catch (err) {
      // The store cannot be read: a deployment known to have no site but the default one goes on
      // answering as the default site (kept answers still served); otherwise the failure stands.
      if (this.others === false) return undefined;
      throw err;
    }
    if (version !== this.seen || this.hosts.size + this.ids.size > MAX_ENTRIES) {
      this.seen = version;
      this.hosts.clear();
      this.ids.clear();
      this.others = undefined;
    }
    return this.sites;
  }

  private async config(sites: SiteStore, row: SiteRow | undefined): Promise<SiteConfig | null> {
    if (!row || row.deleting) return null;
    const config: SiteConfig = {
      id: row.id, host: row.host, name: row.name, baseUrl: row.base_url, timezone: row.timezone, geolocation: row.geolocation,
      userIds: await sites.userIds(row.id)
    };
    this.ids.set(row.id, config);
    return config;
  }

  /** The site of a request's host; `defaultHost` is the host of BASE_URL (C49: hosts choose the site). */
  async forHost(host: string | undefined, defaultHost: string | undefined): Promise<HostAnswer> {
    const sites = await this.current();
    if (!sites || (host !== undefined && host === defaultHost)) return { kind: "default" };
    if (host !== undefined) {
      let site = this.hosts.get(host);
      if (site === undefined) {
        site = await this.config(sites, await sites.byHost(host));
        this.hosts.set(host, site);
      }
      if (site) return { kind: "site", site };
    }
    // While no other site exists, the default site answers for every host (the contract unchanged).
    this.others ??= await sites.any();
    return this.others ? { kind: "unknown" } : { kind: "default" };
  }

  /** The site of an id (`ctx.meta.site`); undefined for the default site; null when there is no such live site. */
  async forId(id: number): Promise<SiteConfig | undefined | null> {
    if (id === DEFAULT_SITE_ID) return undefined;
    const sites = await this.current();
    if (!sites) return null;
    let site = this.ids.get(id);
    if (site === undefined) {
      site = await this.config(sites, await sites.byId(id));
      this.ids.set(id, site);
    }
    return site;
  }

  /** The caller a key names on a site: a key of another site (or none) is undefined. */
  async callerFor(siteId: number, key: string): Promise<Caller | undefined> {
    if (!this.sites) return undefined;
    const row = await this.sites.keyByHash(hashApiKey(key));
    if (!row || row.site !== siteId || !keyMatches(key, row.hash)) return undefined;
    return { id: row.user_id, role: row.role as Role };
  }
}

const directories = new WeakMap<Store, SiteDirectory>();

/** The process's directory over `store`. */
export function siteDirectory(store: Store): SiteDirectory {
  let d = directories.get(store);
  if (!d) directories.set(store, (d = new SiteDirectory(store.sites)));
  return d;
}
