/**
 * Entry point: `npm start`. Builds the broker from the environment, loads the services named by
 * SERVICES (all by default) and starts them; SIGTERM/SIGINT stop taking requests, finish what is in
 * flight and exit 0.
 */
// The process runs in UTC for speed alone, no answer depends on it: docs/decisions.md#the-process-runs-in-utc.
process.env.TZ = "UTC";
import { ServiceBroker } from "moleculer";
import { readSettings, useSettings } from "./lib/settings";
import { brokerOptions, metricsPortFree } from "./moleculer.config";
import { createServices, checkTopology } from "./services";
import { loadApiKeys } from "./lib/access/api-keys";
import { isDrainable } from "./mixins/http-drain.mixin";

/** How long SIGTERM waits for the HTTP requests in progress (the broker then waits as long for action calls). */
const SHUTDOWN_TIMEOUT_MS = 10000;

async function main(): Promise<void> {
  let s = readSettings();
  // A metrics port in use is logged, not fatal (C27: crash safety): the node runs without metrics.
  if (s.metricsPort > 0 && !(await metricsPortFree(s.metricsPort))) {
    console.warn(`Metrics are not served: port ${s.metricsPort} is in use.`);
    s = { ...s, metricsPort: 0 };
  }
  useSettings(s);
  const problem = checkTopology(s);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
  if (s.services.includes("api")) loadApiKeys(s, msg => console.log(`\n  ${msg}\n`));
  const broker = new ServiceBroker(brokerOptions(s));
  createServices(broker, s);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    broker.logger.info(`${signal} received: finishing requests in flight, then stopping.`);
    try {
      // The gateway first: no new connections, answer what it has (mixins/http-drain.mixin.ts).
      const api: unknown = broker.getLocalService("api");
      if (isDrainable(api)) await api.drain(SHUTDOWN_TIMEOUT_MS);
      await broker.stop();
      process.exit(0);
    } catch (err) {
      broker.logger.error("Stop failed", err);
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  await broker.start();
}

main().catch(err => {
  console.error("The service could not start:", err?.message ?? err);
  process.exit(1);
});
