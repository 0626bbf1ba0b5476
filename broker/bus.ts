/**
 * What a service may ask of the bus about the others (which actions and services run), through the
 * broker's registry.
 */
import type { ServiceBroker } from "moleculer";

/** Whether some node serves that action now (a service without it, or no service, is "not running"). */
export function actionAvailable(broker: ServiceBroker, action: string): boolean {
  const endpoints = (broker.registry as unknown as { getActionEndpoints?: (name: string) => { hasAvailable(): boolean } | undefined })
    .getActionEndpoints?.(action);
  return !!endpoints && endpoints.hasAvailable();
}

/**
 * Whether some node runs the service `name`. Moleculer's registry reads a missing node id as "any node";
 * its typings ask for one.
 */
export function serviceRuns(broker: ServiceBroker, name: string): boolean {
  return (broker.registry as unknown as { hasService(fullName: string, nodeID?: string): boolean }).hasService(name);
}
