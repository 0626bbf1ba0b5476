/**
 * Broker options for every node, from the settings: one process without a transporter, or any subset of
 * services per process over NATS. Same code either way.
 */
import type { BrokerOptions } from "moleculer";
import { Settings } from "./lib/settings";

export function brokerOptions(s: Settings, overrides: Partial<BrokerOptions> = {}): BrokerOptions {
  const redis = s.cacher && /^redis(s)?:\/\//.test(s.cacher);
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
    cacher: (redis
      ? { type: "Redis", options: { redis: s.cacher, prefix: `MOL-${s.namespace || "calendar"}`, ttl: 300 } }
      : { type: "Memory", options: { ttl: 300, maxParamsLength: 200 } }) as BrokerOptions["cacher"],
    circuitBreaker: { enabled: false },
    tracking: { enabled: true, shutdownTimeout: 10000 },
    logger: { type: "Console", options: { level: s.logLevel, formatter: "short", colors: false } },
    metrics: s.metricsPort > 0
      ? { enabled: true, reporter: [{ type: "Prometheus", options: { port: s.metricsPort, path: "/metrics" } }] }
      : { enabled: false },
    ...overrides
  };
}

export default brokerOptions;
