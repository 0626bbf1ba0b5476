/**
 * What a service may ask of the bus about the others (which actions and services run), through the
 * broker's registry.
 */
import type { ServiceBroker } from "moleculer";

/** Whether some node serves that action now (a service without it, or no service, is "not running"). */
export function actionAvailable(broker: ServiceBroker, action: string): boolean {
  // undefined when no node has declared the action (its typings promise a list)
  const endpoints: { hasAvailable(): boolean } | undefined = broker.registry.getActionEndpoints(action);
  return !!endpoints && endpoints.hasAvailable();
}

/** The registry's `hasService` as it runs: without a node id, any node. */
interface ServiceLookup {
  hasService(fullName: string, nodeID?: string): boolean;
}

/**
 * Whether some node runs the service `name`. Moleculer's registry reads a missing node id as "any node";
 * its typings ask for one.
 */
export function serviceRuns(broker: ServiceBroker, name: string): boolean {
  const registry: ServiceLookup = broker.registry;
  return registry.hasService(name);
}
