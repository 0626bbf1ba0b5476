/**
 * Types every service and mixin shares: the context of a call (its params, and the meta the gateway
 * sets, lib/meta.ts).
 */
import type { Context, ServiceBroker } from "moleculer";
import type { CallMeta } from "../lib/meta";

/** A call's context: params `P`, the gateway's meta. */
export type Ctx<P = Record<string, unknown>> = Context<P, CallMeta>;

/** A read method a service runs by name (the action cache, mixins/cache.mixin.ts). */
export type ReadMethod = (ctx: Ctx<object>) => Promise<unknown>;

/**
 * Whether some node runs the service `name`. Moleculer's registry reads a missing node id as "any node";
 * its typings ask for one.
 */
export function serviceRuns(broker: ServiceBroker, name: string): boolean {
  return (broker.registry as unknown as { hasService(fullName: string, nodeID?: string): boolean }).hasService(name);
}
