/**
 * Broker options for every node, from the settings: one process without a transporter, or any subset of
 * services per process over NATS. Same code either way.
 */
import { createServer } from "net";
import { BrokerOptions } from "moleculer";
import { Settings } from "./lib/settings";
import { cacherFor } from "./cache/cachers";
import { FailoverDiscoverer, FailoverMiddleware } from "./middlewares/failover.middleware";
import { SiteScopeMiddleware } from "./middlewares/site-scope.middleware";
import { AfterCommitMiddleware } from "./middlewares/after-commit.middleware";
import { TextInputMiddleware } from "./middlewares/text-input.middleware";
import { ValidateOnlyMiddleware } from "./middlewares/validate-only.middleware";
import { SERVICE_SCHEMAS } from "./services";

/**
 * Whether the metrics port can be listened on. Moleculer's Prometheus reporter stops the process when its
 * port is in use; server.ts asks first and, when it is taken, logs it and runs without metrics (C27: crash safety).
 */
export function metricsPortFree(port: number): Promise<boolean> {
  return new Promise(resolve => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

export function brokerOptions(s: Settings, overrides: Partial<BrokerOptions> = {}): BrokerOptions {
  const discoverer = new FailoverDiscoverer();
  return {
    namespace: s.namespace,
    nodeID: process.env.NODE_ID || undefined,
    transporter: (s.transporter ?? null) as BrokerOptions["transporter"],
    // JSON on every node: dates travel as strings in every message (records keep them as DB strings).
    serializer: "JSON",
    requestTimeout: s.requestTimeout,
    retryPolicy: { enabled: false },
    // Short heartbeats: a node killed without a goodbye leaves the registry within seconds.
    heartbeatInterval: 2,
    heartbeatTimeout: 6,
    // CACHER: in the process (bounded), a shared Redis, or none (cache/cachers.ts)
    cacher: cacherFor(s) as BrokerOptions["cacher"],
    circuitBreaker: { enabled: false },
    tracking: { enabled: true, shutdownTimeout: 10000 },
    // server.ts handles SIGTERM/SIGINT (drain the gateway, then stop): the broker must not stop on its own first.
    skipProcessEventRegistration: true,
    // A node that times out a call and misses a ping leaves the registry at once (middlewares/failover.middleware.ts).
    registry: { discoverer },
    // Each handler runs as work of the site its context names; calls and events carry it on (docs/sites.md).
    // Text no store keeps alike is refused where input enters the services (docs/errors.md#text-every-store-keeps).
    // A batch's check of a request stops right before the action's handler (first: the innermost wrapper).
    // What a write in a shared transaction tells others leaves after its commit (innermost: with its site named).
    middlewares: [AfterCommitMiddleware(), ValidateOnlyMiddleware(), FailoverMiddleware(discoverer), SiteScopeMiddleware(), TextInputMiddleware(Object.keys(SERVICE_SCHEMAS))],
    logger: { type: "Console", options: { level: s.logLevel, formatter: "short", colors: false } },
    metrics: s.metricsPort > 0
      ? { enabled: true, reporter: [{ type: "Prometheus", options: { port: s.metricsPort, path: "/metrics" } }] }
      : { enabled: false },
    ...overrides
  };
}
