/**
 * Failover after a crash. A node killed without a goodbye (SIGKILL, OOM, lost host) stays in the registry
 * until its heartbeats are missed (heartbeatTimeout, checked every heartbeatTimeout: 6–12 s), and every
 * call routed to it meanwhile waits the whole request timeout (504). This middleware shortens that: when a
 * call to a remote node times out, the node is pinged; no pong within `pingTimeoutMs` → it is taken out of
 * the registry at once (its other pending calls are rejected, later calls answer 503 or go to another
 * node). A node that was only slow is back with its next heartbeat (Moleculer asks it for its INFO again).
 */
import { Errors } from "moleculer";
import type { Middleware, ServiceBroker } from "moleculer";

type CallHandler = (actionName: unknown, params?: unknown, opts?: unknown) => Promise<unknown>;

export function FailoverMiddleware(pingTimeoutMs = 1000): Middleware {
  let broker: ServiceBroker;
  const probing = new Set<string>();

  function probe(nodeID: string): void {
    if (!nodeID || nodeID === broker.nodeID || probing.has(nodeID) || !broker.transit) return;
    const node = broker.registry.nodes.get(nodeID);
    if (!node || !node.available) return;
    probing.add(nodeID);
    broker.ping(nodeID, pingTimeoutMs)
      .then(pong => {
        if (pong || !broker.registry.nodes.get(nodeID)?.available) return;
        broker.logger.warn(`Node '${nodeID}' timed out a request and does not answer a ping within ${pingTimeoutMs} ms: taking it out of the registry.`);
        broker.registry.nodes.disconnected(nodeID, true);
      })
      .catch(err => broker.logger.warn(`Could not ping node '${nodeID}':`, err))
      .finally(() => probing.delete(nodeID));
  }

  return {
    name: "Failover",
    created(b: ServiceBroker) {
      broker = b;
    },
    call(next: CallHandler): CallHandler {
      return (actionName, params, opts) =>
        next(actionName, params, opts).catch((err: any) => {
          if (err instanceof Errors.RequestTimeoutError || err?.name === "RequestTimeoutError") probe(err.data?.nodeID);
          throw err;
        });
    }
  } as unknown as Middleware;
}
