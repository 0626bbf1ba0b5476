/**
 * Read-your-writes through any gateway (C16, C45: caches and many gateways): two gateways that each keep answers in their
 * own memory cannot promise it (the clean reaches the other gateway on another path than the write's
 * answer reaches its client), so that configuration is refused: of two such gateways on one bus, one
 * stops with a message naming CACHER (services/api.service.ts `refuseSecondGateway`). Without kept
 * answers (CACHER=off) both serve, and a write through A is read through B at once, 200 times in a row.
 */
import { startNats, startNode, waitForHttp, Nats, Node } from "../helpers/processes";
import { KEYS } from "../helpers/harness";

const NS = "/wp-json/calendar/events/v1";
const exited = (n: Node) => n.proc.exitCode !== null || n.proc.signalCode !== null;

describe("two gateways without Redis", () => {
  let nats: Nats;
  const nodes: Node[] = [];

  beforeAll(async () => { nats = await startNats(); });
  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop("SIGKILL")));
    await nats?.stop();
  });

  test("with the in-process cache: one of them refuses to run, naming CACHER", async () => {
    const bus = { TRANSPORTER: nats.url, NAMESPACE: `gw-mem-${process.pid}`, BASE_URL: "http://calendar.test" };
    nodes.push(await startNode({ ...bus, SERVICES: "events,venues,organizers,taxonomy,i18n" }));
    const [a, b] = await Promise.all([startNode({ ...bus, SERVICES: "api" }, { http: true }), startNode({ ...bus, SERVICES: "api" }, { http: true })]);
    nodes.push(a, b);
    const until = Date.now() + 60_000;
    while (!exited(a) && !exited(b) && Date.now() < until) await new Promise(r => setTimeout(r, 200));
    const [stopped, running] = exited(a) ? [a, b] : [b, a];
    expect(exited(stopped)).toBe(true);
    expect(stopped.proc.exitCode).not.toBe(0);
    expect(stopped.output()).toMatch(/CACHER=redis:\/\/host:port[^]*CACHER=off/);
    await waitForHttp(`${running.base}/health/ready`, 200, 60_000);
    expect(exited(running)).toBe(false);
  }, 120_000);

  test("without kept answers (CACHER=off): a write through A is read through B at once, 200 times", async () => {
    const bus = { TRANSPORTER: nats.url, NAMESPACE: `gw-off-${process.pid}`, BASE_URL: "http://calendar.test" };
    nodes.push(await startNode({ ...bus, SERVICES: "events,venues,organizers,taxonomy,i18n" }));
    const [a, b] = await Promise.all([startNode({ ...bus, SERVICES: "api", CACHER: "off" }, { http: true }), startNode({ ...bus, SERVICES: "api", CACHER: "off" }, { http: true })]);
    nodes.push(a, b);
    await Promise.all([a, b].map(n => waitForHttp(`${n.base}/health/ready`, 200, 60_000)));
    const headers = { Authorization: `Bearer ${KEYS.admin}`, "Content-Type": "application/json" };
    const tag = await (await fetch(`${a.base}${NS}/tags`, { method: "POST", headers, body: JSON.stringify({ name: "Both gateways" }) })).json() as { id: number };
    let stale = 0;
    for (let i = 0; i < 200; i++) {
      const wrote = await fetch(`${a.base}${NS}/tags/${tag.id}`, { method: "POST", headers, body: JSON.stringify({ description: `v${i}` }) });
      expect(wrote.status).toBe(200);
      const read = await (await fetch(`${b.base}${NS}/tags/${tag.id}`)).json() as { description: string };
      if (read.description !== `v${i}`) stale++;
    }
    expect(stale).toBe(0);
    expect([a, b].some(exited)).toBe(false);
  }, 180_000);
});
