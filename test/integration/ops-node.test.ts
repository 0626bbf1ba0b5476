/**
 * One node's operations: Prometheus metrics on METRICS_PORT, and the graceful stop on SIGTERM: the node
 * stops taking connections, answers every request it already has (2xx), keeps what it acknowledged, and
 * exits 0.
 */
import * as fs from "fs";
import * as http from "http";
import * as os from "os";
import * as path from "path";
import { freePort } from "../helpers/harness";
import { startNode, waitForHttp, Node } from "../helpers/processes";
import { call, mapLimit, sleep, tally, Timed } from "../helpers/ops";

/** A request on a connection of its own (no keep-alive pool): refused once the node stopped listening. */
function freshConnection(port: number): Promise<string> {
  return new Promise(resolve => {
    const req = http.request({ host: "127.0.0.1", port, path: "/health/live", agent: false }, res => {
      res.resume();
      res.on("end", () => resolve(String(res.statusCode)));
    });
    req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

const exited = (node: Node) =>
  new Promise<{ code: number | null; signal: string | null; at: number }>(resolve => {
    if (node.proc.exitCode !== null || node.proc.signalCode !== null) resolve({ code: node.proc.exitCode, signal: node.proc.signalCode, at: Date.now() });
    else node.proc.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() }));
  });

describe("a node's operations", () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(nodes.map(n => n.stop("SIGKILL")));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("Prometheus metrics on METRICS_PORT, request counts included", async () => {
    const metricsPort = await freePort();
    const node = await startNode({ METRICS_PORT: String(metricsPort) }, { http: true });
    nodes.push(node);
    await waitForHttp(`${node.base}/health/ready`);
    expect((await call(node.base!, "GET", "/events")).status).toBe(200);
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^# TYPE \w+ (counter|gauge|histogram)/m);
    expect(text).toMatch(/^moleculer_request_total\{[^}]*action="events\.list"[^}]*\} [1-9]/m);
    await node.stop();
    // every node, not only gateways: a node of record services alone
    const port2 = await freePort();
    const records = await startNode({ METRICS_PORT: String(port2), SERVICES: "events,venues,organizers,taxonomy,i18n" });
    nodes.push(records);
    await waitForHttp(`http://127.0.0.1:${port2}/metrics`);
    expect(await (await fetch(`http://127.0.0.1:${port2}/metrics`)).text()).toMatch(/^moleculer_registry_services_total\{[^}]*\} [1-9]/m);
    await records.stop();
  }, 30000);

  test("SIGTERM: no new connections, every request in progress answered 2xx and kept, exit code 0", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ops-node-"));
    dirs.push(dataDir);
    const node = await startNode({ DATA_DIR: dataDir, LOG_LEVEL: "info" }, { http: true });
    nodes.push(node);
    await waitForHttp(`${node.base}/health/ready`);
    // lists of 50 events with their venue: slow-ish requests
    const venue = await call(node.base!, "POST", "/venues", { venue: "Hall" });
    await mapLimit(Array.from({ length: 100 }, (_, i) => i), 10, i => call(node.base!, "POST", "/events", { title: `Seed ${i}`, start_date: "tomorrow 10:00", end_date: "tomorrow 11:00", venue: venue.body.id }));

    const exit = exited(node);
    const burst: Array<Promise<Timed>> = Array.from({ length: 60 }, (_, i) =>
      i % 2 ? call(node.base!, "GET", "/events?per_page=50") : call(node.base!, "POST", "/events", { title: `In flight ${i}`, start_date: "tomorrow 12:00", end_date: "tomorrow 13:00", venue: venue.body.id }));
    const answers: Timed[] = [];
    burst.forEach(p => p.then(a => answers.push(a)));
    await new Promise<void>(resolve => { const check = () => (answers.length > 0 ? resolve() : setTimeout(check, 1)); check(); });
    const signalledAt = Date.now();
    node.proc.kill("SIGTERM");
    // once the node says it stopped listening (or has exited), a new connection is refused
    const stoppedListening = (async () => {
      while (!node.output().includes("No longer accepting HTTP connections") && node.proc.exitCode === null && node.proc.signalCode === null && Date.now() - signalledAt < 10000) await sleep(5);
      return { at: Date.now() - signalledAt, probe: await freshConnection(node.port!) };
    })();
    const all = await Promise.all(burst);
    const { code, signal, at } = await exit;
    const probe = await stoppedListening;

    const inFlight = all.filter(a => a.end > signalledAt);
    expect(inFlight.length).toBeGreaterThan(0); // the signal came while requests were in progress
    expect(tally(all)).toEqual({ 200: 30, 201: 30 });
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(at - signalledAt).toBeLessThan(10000);
    expect(node.output()).toContain("SIGTERM received");
    // no longer accepting new connections while it finishes (the queued ones were taken first)
    expect(probe.probe).toBe("ECONNREFUSED");

    // everything acknowledged is on disk: a new node on the same DATA_DIR has every created event
    const again = await startNode({ DATA_DIR: dataDir }, { http: true });
    nodes.push(again);
    await waitForHttp(`${again.base}/health/ready`);
    const created = all.filter(a => a.status === 201);
    const found = await mapLimit(created, 10, a => call(again.base!, "GET", `/events/${a.body.id}`));
    // (what a failed read answered, to say why, then every read answered)
    expect(found.filter(f => f.status !== 200).map(f => ({ status: f.status, body: f.body, error: f.error })).slice(0, 3)).toEqual([]);
    expect(found.map(f => f.status)).toEqual(created.map(() => 200));
    console.log(`ops-node graceful stop: ${inFlight.length} of 60 requests answered after SIGTERM, exit ${at - signalledAt} ms after it, listener closed ${probe.at} ms after it`);
  }, 60000);
});
