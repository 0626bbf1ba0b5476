/**
 * Holding a service's method mid-call: a read in flight waits at a chosen point while a write lands
 * (the crossing reads of docs/caching.md#a-read-that-crosses-a-write).
 */
import type { Service, ServiceBroker } from "moleculer";

export interface Hold {
  /** Settles when the held call reached its hold. */
  reached: Promise<void>;
  /** Lets the held call go on. */
  release(): void;
  /** Puts the method back (and releases a held call). */
  restore(): void;
}

/**
 * Holds the next call of `service`'s `method` until released: before the method runs, or (`after`) with
 * its answer, once it has read the store.
 */
export function holdNext(broker: ServiceBroker, service: string, method: string, o: { after?: boolean } = {}): Hold {
  return holdNextOn(broker.getLocalService(service), method, o);
}

/** `holdNext` on any object's method: a part a service holds (its linked records' presenter, say). */
export function holdNextOn(target: object, method: string, o: { after?: boolean } = {}): Hold {
  const svc = target as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const own = svc[method];
  let release!: () => void;
  const released = new Promise<void>(resolve => { release = resolve; });
  let reached!: () => void;
  const reachedP = new Promise<void>(resolve => { reached = resolve; });
  let held = false;
  svc[method] = async function (this: unknown, ...args: unknown[]) {
    if (held) return own.apply(this, args);
    held = true;
    const answer = o.after ? await own.apply(this, args) : undefined;
    reached();
    await released;
    return o.after ? answer : own.apply(this, args);
  };
  return { reached: reachedP, release: () => release(), restore: () => { svc[method] = own; release(); } };
}

/** The linked records' parts a venues or organizers service holds (built in created(), mixins/linked-post.mixin.ts). */
export function linkedOf(broker: ServiceBroker, service: "venues" | "organizers"): { presenter: object; reader: object; writer: object } {
  return (broker.getLocalService(service) as Service & { linked: { presenter: object; reader: object; writer: object } }).linked;
}
