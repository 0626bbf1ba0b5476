/**
 * What a service may ask of the bus about the others, through the broker's registry.
 */
import type { ServiceBroker } from "moleculer";

/** Whether some node serves that action now (a service without it, or no service, is "not running"). */
export function actionAvailable(broker: ServiceBroker, action: string): boolean {
  const endpoints = (broker.registry as unknown as { getActionEndpoints?: (name: string) => { hasAvailable(): boolean } | undefined })
    .getActionEndpoints?.(action);
  return !!endpoints && endpoints.hasAvailable();
}
