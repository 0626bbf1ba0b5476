/**
 * The contract's readiness probe, the namespace root: while a routed service has not started yet (a
 * large embedded store loads for seconds), it answers 503 rest_not_ready instead of a 200 the routes
 * could not keep; once they have started, 200 and the routes answer.
 */
import { startNats, startNode, waitForHttp, Nats, Node } from "../helpers/processes";

const NS = "/wp-json/calendar/events/v1";

describe("readiness of the namespace root", () => {
  let nats: Nats;
  let gateway: Node;
  let records: Node | undefined;
  const bus = () => ({ TRANSPORTER: nats.url, NAMESPACE: `ops-ready-${process.pid}`, REQUEST_TIMEOUT: "3000" });

  beforeAll(async () => {
    nats = await startNats();
    gateway = await startNode({ ...bus(), SERVICES: "api" }, { http: true });
    await waitForHttp(`${gateway.base}/health/live`);
  });
  afterAll(async () => {
    await records?.stop();
    await gateway?.stop();
    await nats?.stop();
  });

  test("503 rest_not_ready (after a short wait) until the routed services started, then 200 and the routes answer", async () => {
    const before = Date.now();
    const early = await fetch(`${gateway.base}${NS}`);
    expect(early.status).toBe(503);
    expect(await early.json()).toMatchObject({ code: "rest_not_ready", data: { status: 503, services: expect.arrayContaining(["events", "i18n"]) } });
    // it waited for them a while (REQUEST_TIMEOUT 3 s: 1 s) before saying so
    expect(Date.now() - before).toBeGreaterThanOrEqual(900);

    records = await startNode({ ...bus(), SERVICES: "events,venues,organizers,taxonomy,i18n,changes" });
    await waitForHttp(`${gateway.base}${NS}`, 200, 30000);
    const events = await fetch(`${gateway.base}${NS}/events`);
    expect(events.status).toBe(200);
    expect(await events.json()).toMatchObject({ events: [], total: 0 });
  });
});
