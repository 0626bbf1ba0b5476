/**
 * Broker options for every node, from the settings: one process without a transporter, or any subset of
 * services per process over NATS. Same code either way.
 */
import { createServer } from "net";
import { BrokerOptions } from "moleculer";
import { Settings } from "./lib/settings";
import { FailoverDiscoverer, FailoverMiddleware } from "./lib/failover";

/**
 * Whether the metrics port can be listened on. Moleculer's Prometheus reporter stops the process when its
 * port is in use; server.ts asks first and, when it is taken, logs it and runs without metrics (C27).
 */
export function metricsPortFree(port: number): Promise<boolean> {
  return new Promise(resolve => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

export function brokerOptions(s: Settings, overrides: Partial<BrokerOptions> = {}): BrokerOptions {
  const redis = s.cacher && /^redis(s)?:\/\//.test(s.cacher);
  const noCache = s.cacher === "off" || s.cacher === "none";
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
    cacher: noCache ? null : (redis
      ? { type: "Redis", options: { redis: s.cacher, prefix: `MOL-${s.namespace || "calendar"}`, ttl: 60 } }
      : { type: "Memory", options: { ttl: 60, maxParamsLength: 200 } }) as BrokerOptions["cacher"],
    circuitBreaker: { enabled: false },
    tracking: { enabled: true, shutdownTimeout: 10000 },
    // server.ts handles SIGTERM/SIGINT (drain the gateway, then stop): the broker must not stop on its own first.
    skipProcessEventRegistration: true,
    // A node that times out a call and misses a ping leaves the registry at once (lib/failover.ts).
    registry: { discoverer },
    middlewares: [FailoverMiddleware(discoverer)],
    logger: { type: "Console", options: { level: s.logLevel, formatter: "short", colors: false } },
    metrics: s.metricsPort > 0
      ? { enabled: true, reporter: [{ type: "Prometheus", options: { port: s.metricsPort, path: "/metrics" } }] }
      : { enabled: false },
    ...overrides
  };
}

export default brokerOptions;
