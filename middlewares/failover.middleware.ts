/**
 * Failover after a crash. A node killed without a goodbye (SIGKILL, OOM, lost host) stays in the registry
 * until its heartbeats are missed (heartbeatTimeout, checked every heartbeatTimeout: 6–12 s), and every
 * call routed to it meanwhile waits the whole request timeout (504). This shortens that: when a call to a
 * remote node times out, the node is pinged; no pong within `pingTimeoutMs` → it is taken out of the
 * registry at once (its other pending calls are rejected, later calls answer 503 or go to another node).
 * A node that was only slow is back with its next heartbeat (Moleculer asks it for its INFO again).
 *
 * Only Moleculer's public extension points are used: a discoverer of our own (the registry's `discoverer`
 * option takes an instance) that, as every discoverer does, reports a node gone through its base class's
 * `remoteNodeDisconnected`; the node list from `broker.registry.getNodeList`; `broker.ping`; and a broker
 * middleware's `call` hook to see the timeouts.
 */
import { Discoverers, Errors } from "moleculer";
import type { Middleware, ServiceBroker } from "moleculer";
import { brokerMiddleware, type BrokerSend } from "../broker/middleware";


/** Moleculer's local discoverer (heartbeats over the transporter), able to take a silent node out. */
export class FailoverDiscoverer extends Discoverers.Local {
  private readonly probing = new Set<string>();

  constructor(private readonly pingTimeoutMs = 1000) {
    super();
  }

  private isAvailable(broker: ServiceBroker, nodeID: string): boolean {
    return broker.registry.getNodeList({ onlyAvailable: true, withServices: false }).some((node: { id: string }) => node.id === nodeID);
  }

  /** A call to `nodeID` timed out: ping it, and take it out of the registry when it does not answer. */
  suspect(nodeID: unknown): void {
    const broker = this.broker as ServiceBroker | undefined;
    if (typeof nodeID !== "string" || !nodeID || !broker?.transit || nodeID === broker.nodeID || this.probing.has(nodeID)) return;
    if (!this.isAvailable(broker, nodeID)) return;
    this.probing.add(nodeID);
    broker.ping(nodeID, this.pingTimeoutMs)
      .then(pong => {
        if (pong || !this.isAvailable(broker, nodeID)) return;
        broker.logger.warn(`Node '${nodeID}' timed out a request and does not answer a ping within ${this.pingTimeoutMs} ms: taking it out of the registry.`);
        this.remoteNodeDisconnected(nodeID, true);
      })
      .catch(err => broker.logger.warn(`Could not ping node '${nodeID}':`, err))
      .finally(() => this.probing.delete(nodeID));
  }
}

/** Sees every call that timed out on a remote node and hands the node to the discoverer. */
export function FailoverMiddleware(discoverer: FailoverDiscoverer): Middleware {
  return brokerMiddleware({
    name: "Failover",
    call(next: BrokerSend): BrokerSend {
      return (actionName, params, opts) =>
        next(actionName, params, opts).catch((err: { name?: string; data?: { nodeID?: unknown } }) => {
          if (err instanceof Errors.RequestTimeoutError || err?.name === "RequestTimeoutError") discoverer.suspect(err.data?.nodeID);
          throw err;
        });
    }
  });
}
