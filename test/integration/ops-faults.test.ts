/**
 * Bus faults become the contract's 503/504 (C17: codes for the remaining statuses): the Moleculer errors of a missing, stopping or
 * rejecting service → 503 `rest_service_unavailable`, a timed-out (or skipped for lack of time) call →
 * 504 `rest_gateway_timeout` — as thrown on this node and as rebuilt after crossing the transporter
 * (where a foreign error may keep only its name or type). And moleculer-web's own 503 for a route whose
 * service is gone is rendered as the contract's JSON.
 */
import { Errors, ServiceBroker } from "moleculer";
import ApiGateway from "moleculer-web";
import { renderError, toApiError } from "../../gateway/error-render";
import { startService, Running } from "../helpers/harness";
import type { Json } from "../helpers/json";

const WebErrors = (ApiGateway as Json).Errors;

const faults: Array<[string, () => Error, number, string]> = [
  ["ServiceNotFoundError", () => new Errors.ServiceNotFoundError({ action: "events.list" }), 503, "rest_service_unavailable"],
  ["ServiceNotAvailableError", () => new Errors.ServiceNotAvailableError({ action: "events.list", nodeID: "n1" }), 503, "rest_service_unavailable"],
  ["RequestRejectedError", () => new Errors.RequestRejectedError({ action: "events.list", nodeID: "n1" }), 503, "rest_service_unavailable"],
  ["BrokerDisconnectedError", () => new (Errors.BrokerDisconnectedError as unknown as new () => Error)(), 503, "rest_service_unavailable"],
  ["moleculer-web ServiceUnavailableError", () => new WebErrors.ServiceUnavailableError(), 503, "rest_service_unavailable"],
  ["RequestTimeoutError", () => new Errors.RequestTimeoutError({ action: "events.list", nodeID: "n1" }), 504, "rest_gateway_timeout"],
  ["RequestSkippedError", () => new Errors.RequestSkippedError({ action: "venues.embed", nodeID: "n1" }), 504, "rest_gateway_timeout"]
];

describe("bus faults → 503 / 504", () => {
  const broker = new ServiceBroker({ logger: false, nodeID: "gateway" });
  const regenerator = Errors.resolveRegenerator(undefined as Json);
  regenerator.init(broker);

  test.each(faults)("%s (thrown here)", (_name, make, status, code) => {
    const { error, unexpected } = toApiError(make());
    expect(unexpected).toBe(false);
    expect(renderError(error, "en")).toEqual({ status, body: { code, message: expect.any(String), data: { status } } });
  });

  test.each(faults)("%s (rebuilt after crossing the transporter)", (_name, make, status, code) => {
    const original = make() as Json;
    // what the sender puts in the packet, and what the receiver makes of it
    const plain = regenerator.extractPlainError(original, {});
    const rebuilt = regenerator.restore(JSON.parse(JSON.stringify(plain)), { sender: "records-1" });
    expect(toApiError(rebuilt).error.code).toBe(status);
    expect(toApiError(rebuilt).error.type).toBe(code);
    // a foreign error with only its name, or only its type
    expect(toApiError(Object.assign(new Error("x"), { name: original.name })).error.code).toBe(status);
    if (original.type && original.type !== "BAD_GATEWAY") expect(toApiError({ message: "x", type: original.type }).error.code).toBe(status);
  });

  test("the answers are localised like every error", () => {
    const en = renderError(toApiError(new Errors.ServiceNotAvailableError({ action: "events.list" })).error, "en");
    const fr = renderError(toApiError(new Errors.ServiceNotAvailableError({ action: "events.list" })).error, "fr");
    expect(fr.body.code).toBe(en.body.code);
    expect(fr.body.message).not.toBe(en.body.message);
    const timeout = renderError(toApiError(new Errors.RequestTimeoutError({ action: "events.list", nodeID: "n1" })).error, "de");
    expect(timeout.body.message).not.toBe(renderError(toApiError(new Errors.RequestTimeoutError({ action: "events.list", nodeID: "n1" })).error, "en").body.message);
  });

  test("other failures stay 500 rest_internal_error, reported as unexpected", () => {
    expect(toApiError(new Error("boom"))).toMatchObject({ unexpected: true, error: { code: 500, type: "rest_internal_error" } });
    expect(toApiError(new Errors.MaxCallLevelError({ nodeID: "n1", level: 100 }))).toMatchObject({ unexpected: true, error: { code: 500 } });
  });
});

describe("a routed service gone from a running gateway", () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  test("moleculer-web's 503 for its route is the contract's JSON; readiness says which service", async () => {
    expect((await svc.get("/events")).status).toBe(200);
    await svc.broker.destroyService(svc.broker.getLocalService("events")!);

    for (const [method, path, body] of [["GET", "/events"], ["GET", "/events/1"], ["POST", "/events", { title: "x" }], ["GET", "/fr/wp-json/calendar/events/v1/events"]] as const) {
      const res = await svc.request(method, path.startsWith("/fr") ? svc.base + path : path, { as: "admin", body });
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 503, body: { code: "rest_service_unavailable", message: expect.any(String), data: { status: 503 } } });
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    }
    const fr = await svc.request("GET", `${svc.base}/fr/wp-json/calendar/events/v1/events`);
    const en = await svc.get("/events");
    expect(fr.body.message).not.toBe(en.body.message);
    // an unknown key is still 401 at once (contract), whatever else is wrong
    expect((await svc.request("GET", "/events", { headers: { Authorization: "Bearer nope" } })).status).toBe(401);
    // the other routes still work
    expect((await svc.get("/venues")).status).toBe(200);

    expect((await svc.get("/health/live")).status).toBe(200);
    const ready = await svc.get("/health/ready");
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ code: "rest_not_ready", message: expect.any(String), data: { status: 503, services: ["events"] } });
  });
});
