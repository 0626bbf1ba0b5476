/**
 * Uses of deprecated things (lib/api-policy/deprecations.ts) as the gateway answers them, counted per site and
 * handed to the store in batches (docs/api-policy.md#deprecations): each use adds one to Moleculer's
 * metric `calendar.deprecation.uses.total` (labelled by deprecation, never by site, so the metric stays small
 * whatever the number of sites) at once, and to the site's count in the store within a second
 * (`changes.countDeprecations`, an atomic `$inc`). A node that dies loses at most that second's uses: a
 * count of uses is a signal for whoever plans a sunset, not a record any answer depends on.
 */
import type { ServiceBroker } from "moleculer";

export const DEPRECATION_METRIC = "calendar.deprecation.uses.total";
const FLUSH_MS = 1000;

export class DeprecationCounter {
  private pending = new Map<number, Map<string, number>>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly broker: ServiceBroker, private readonly warn: (msg: string) => void) {
    if (broker.isMetricsEnabled() && !broker.metrics.getMetric(DEPRECATION_METRIC)) {
      broker.metrics.register({ type: "counter", name: DEPRECATION_METRIC, labelNames: ["deprecation"], description: "Requests that used a deprecated route, parameter or field" });
    }
  }

  /** One use of each of `ids` on `site`. */
  count(site: number, ids: readonly string[]): void {
    let forSite = this.pending.get(site);
    if (!forSite) this.pending.set(site, (forSite = new Map()));
    for (const id of ids) {
      forSite.set(id, (forSite.get(id) ?? 0) + 1);
      if (this.broker.isMetricsEnabled()) this.broker.metrics.increment(DEPRECATION_METRIC, { deprecation: id });
    }
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref?.();
    }
  }

  /** Hands what was counted to the store (each site's uses in that site's scope). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.flushing.then(async () => {
      for (const [site, uses] of batch) {
        await this.broker.call("changes.countDeprecations", { uses: Object.fromEntries(uses) }, { meta: { site } })
          .catch((err: Error) => this.warn(`Uses of deprecated things not counted: ${err.message}`));
      }
    });
    return this.flushing;
  }

  close(): Promise<void> {
    return this.flush();
  }
}
