/**
 * middlewares/failover.middleware.ts: a node that timed out a call is pinged, and taken out of the registry (through the
 * discoverer's `remoteNodeDisconnected`) only when it does not answer; the middleware's `call` hook hands
 * it the node of every RequestTimeoutError. The broker is a stand-in: only the public calls the discoverer
 * makes (`registry.getNodeList`, `ping`) are given.
 */
import { Errors } from "moleculer";
import { FailoverDiscoverer, FailoverMiddleware } from "../../middlewares/failover.middleware";

function setup(pong: unknown, nodes = ["me", "n1"]) {
  const discoverer = new FailoverDiscoverer(50);
  const ping = jest.fn(async () => pong);
  const broker = {
    nodeID: "me",
    transit: {},
    registry: { getNodeList: () => nodes.map(id => ({ id })) },
    ping,
    logger: { warn: () => undefined }
  };
  Object.defineProperty(discoverer, "broker", { value: broker });
  const gone = jest.spyOn(discoverer, "remoteNodeDisconnected").mockImplementation(() => undefined);
  return { discoverer, ping, gone };
}

const settle = () => new Promise(resolve => setImmediate(resolve));

describe("failover", () => {
  test("a node that does not answer the ping leaves the registry, once", async () => {
    const { discoverer, ping, gone } = setup(null);
    discoverer.suspect("n1");
    discoverer.suspect("n1");
    await settle();
    expect(ping).toHaveBeenCalledTimes(1);
    expect(ping).toHaveBeenCalledWith("n1", 50);
    expect(gone).toHaveBeenCalledWith("n1", true);
  });

  test("a node that answers stays; the own node and unknown nodes are not pinged", async () => {
    const { discoverer, ping, gone } = setup({ nodeID: "n1", elapsedTime: 1 });
    discoverer.suspect("n1");
    discoverer.suspect("me");
    discoverer.suspect("n9");
    discoverer.suspect(undefined);
    await settle();
    expect(ping).toHaveBeenCalledTimes(1);
    expect(gone).not.toHaveBeenCalled();
  });

  test("the middleware hands the node of a timed-out call to the discoverer, and rethrows", async () => {
    const { discoverer } = setup(null);
    const suspect = jest.spyOn(discoverer, "suspect").mockImplementation(() => undefined);
    const mw = FailoverMiddleware(discoverer) as unknown as { call(next: () => Promise<unknown>): () => Promise<unknown> };
    const timeout = new Errors.RequestTimeoutError({ action: "events.list", nodeID: "n1" });
    await expect(mw.call(() => Promise.reject(timeout))()).rejects.toBe(timeout);
    expect(suspect).toHaveBeenCalledWith("n1");
    await expect(mw.call(() => Promise.reject(new Error("other")))()).rejects.toThrow("other");
    expect(suspect).toHaveBeenCalledTimes(1);
  });
});
