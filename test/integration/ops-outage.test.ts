/**
 * The record services' process dies under load (SIGKILL: no goodbye; SIGTERM: a graceful stop) while the
 * gateway, in its own process over a real nats-server, keeps answering:
 * - during the outage every answer is 503 `rest_service_unavailable`, except calls already sent to the
 *   dead process before the gateway learned it was gone (504 `rest_gateway_timeout` at the request
 *   timeout; none after a SIGTERM, whose in-flight calls complete); nothing waits past the timeout;
 * - `/health/live` stays 200 and `/health/ready` answers 503 in the contract's error JSON;
 * - a new record process on the same DATA_DIR brings everything back without restarting the gateway,
 *   and every write answered 201 before the crash is there.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { startNats, startNode, waitForHttp, Nats, Node } from "../helpers/processes";
import { call, duration, mapLimit, sleep, startLoad, tally, Timed, until } from "../helpers/ops";

const REQUEST_TIMEOUT = 2000;
const RECORD_SERVICES = "events,venues,organizers,taxonomy,i18n";
const WORKERS = 6;
/** How long a call may take to reach the record process through the gateway and NATS under this load. */
const IN_TRANSIT_MS = 100;

describe("the record services' process stops under load", () => {
  let nats: Nats;
  let gateway: Node;
  let records: Node;
  let dataDir: string;
  let bus: Record<string, string>;
  let known: number;
  const created = new Map<number, string>();
  const figures: Record<string, unknown> = {};

  const startRecords = () => startNode({ ...bus, SERVICES: RECORD_SERVICES, DATA_DIR: dataDir });

  beforeAll(async () => {
    nats = await startNats();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ops-outage-"));
    bus = { TRANSPORTER: nats.url, NAMESPACE: `ops-outage-${process.pid}`, REQUEST_TIMEOUT: String(REQUEST_TIMEOUT), BASE_URL: "http://calendar.test" };
    records = await startRecords();
    gateway = await startNode({ ...bus, SERVICES: "api" }, { http: true });
    // geolocation runs nowhere: it is optional, so the gateway is ready without it (C24: readiness)
    await waitForHttp(`${gateway.base}/health/ready`, 200, 30000);
    const first = await call(gateway.base!, "POST", "/events", { title: "Known event", start_date: "tomorrow 10:00", end_date: "tomorrow 11:00" });
    expect(first.status).toBe(201);
    known = first.body.id;
  }, 60000);

  afterAll(async () => {
    await Promise.all([gateway, records].filter(Boolean).map(n => n.stop("SIGKILL")));
    await nats?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    // the figures of the runs, for the record
    console.log(`ops-outage figures: ${JSON.stringify(figures, null, 1)}`);
  });

  /** Creates, reads by id and lists, from WORKERS loops. */
  function load(tag: string) {
    return startLoad(WORKERS, (w, i) => {
      if (w < 3) return call(gateway.base!, "POST", "/events", { title: `${tag} ${w}-${i}`, start_date: "tomorrow 12:00", end_date: "tomorrow 13:00" });
      if (w < 5) return call(gateway.base!, "GET", `/events/${known}`);
      return call(gateway.base!, "GET", "/events?per_page=5");
    }, { pauseMs: 10, maxMs: 40000 });
  }

  async function outage(signal: NodeJS.Signals) {
    const running = load(signal);
    await sleep(800);
    const killedAt = Date.now();
    records.proc.kill(signal);
    const first503 = (await until(() => running.answers.find(a => a.start >= killedAt && a.status === 503), 15000, "the gateway to answer 503"))!;
    const detectedAt = first503.end;
    const live = await call(gateway.base!, "GET", "/health/live", undefined, null);
    const ready = await call(gateway.base!, "GET", "/health/ready", undefined, null);
    await sleep(1500); // an outage under load
    const restartedAt = Date.now();
    records = await startRecords();
    await waitForHttp(`${gateway.base}/health/ready`, 200, 30000);
    const backAt = Date.now();
    await sleep(800);
    await running.stop();
    const answers = running.answers;
    for (const a of answers) if (a.status === 201) created.set(a.body.id, a.body.title);

    const during = answers.filter(a => a.start >= detectedAt && a.end <= restartedAt);
    const after = answers.filter(a => a.start >= backAt);
    const timeouts = answers.filter(a => a.status === 504);
    figures[signal] = {
      answers: tally(answers),
      detectedAfterMs: detectedAt - killedAt,
      outageAnswers: tally(during),
      slowestMs: Math.max(...answers.map(duration)),
      slowest503Ms: Math.max(0, ...answers.filter(a => a.status === 503).map(duration)),
      timeoutsMs: timeouts.map(duration),
      recoveredAfterRestartMs: backAt - restartedAt
    };

    expect(live.status).toBe(200);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ code: "rest_not_ready", message: expect.any(String), data: { status: 503, services: expect.arrayContaining(["events", "venues", "organizers", "taxonomy", "i18n"]) } });

    // only these answers, each in the contract's JSON
    for (const a of answers) {
      expect({ kind: a.kind, status: a.status, expected: [200, 201, 503, 504].includes(a.status) }).toEqual({ kind: a.kind, status: a.status, expected: true });
      if (a.status === 503) expect(a.body).toEqual({ code: "rest_service_unavailable", message: expect.any(String), data: { status: 503 } });
      if (a.status === 504) expect(a.body).toEqual({ code: "rest_gateway_timeout", message: expect.any(String), data: { status: 504 } });
      // none waits past the request timeout (plus the dead-node ping of middlewares/failover.middleware.ts and scheduling slack)
      expect(duration(a)).toBeLessThan(REQUEST_TIMEOUT + 1500);
    }
    // once the gateway knows, the outage is 503 at once
    expect(during.length).toBeGreaterThan(10);
    for (const a of during) expect({ status: a.status, fast: duration(a) < 500 }).toEqual({ status: 503, fast: true });
    // 504 only for calls sent to the process before the gateway learned it was gone, after the full timeout
    for (const a of timeouts) {
      expect(a.start).toBeLessThan(detectedAt);
      expect(duration(a)).toBeGreaterThanOrEqual(REQUEST_TIMEOUT - 50);
    }
    if (signal === "SIGTERM") {
      // a graceful stop finishes what it was sent and says goodbye: every call the process had before the
      // signal succeeds. A call the client sent in the last moments before it may still be on its way
      // through the gateway and NATS when the process stops taking calls (then 503, as any call after):
      // those of the last IN_TRANSIT_MS are not counted as sent to it.
      expect(answers.filter(a => a.start < killedAt - IN_TRANSIT_MS && a.status >= 300)).toEqual([]);
      expect(timeouts).toEqual([]);
    } else {
      expect(timeouts.length).toBeLessThanOrEqual(WORKERS * 2);
    }
    // back without restarting the gateway
    expect(after.length).toBeGreaterThan(10);
    expect(after.filter(a => a.status >= 300)).toEqual([]);
  }

  test("SIGKILL: 503 once the gateway knows (504 only for calls already sent), back after a restart", async () => {
    await outage("SIGKILL");
  }, 60000);

  test("SIGTERM: in-flight calls complete, then 503, back after a restart", async () => {
    await outage("SIGTERM");
  }, 60000);

  test("every write answered 201 is there after the restarts, on the same DATA_DIR", async () => {
    expect(created.size).toBeGreaterThan(50);
    const missing: Array<{ id: number; got: Timed["status"] }> = [];
    await mapLimit([...created], 16, async ([id, title]) => {
      const res = await call(gateway.base!, "GET", `/events/${id}`);
      if (res.status !== 200 || res.body.title !== title) missing.push({ id, got: res.status });
    });
    expect(missing).toEqual([]);
    figures.createdAndFound = created.size;
  }, 60000);
});
