/**
 * The walk of one uncached `GET /events/{id}` (README.md "How a request travels"): the project's files whose
 * code runs for it, and the action calls it makes, read from V8's own coverage counters around the request
 * (no code of the service is changed to count). The walk is the files two uncached reads of two events
 * both ran, so a timer that fires during one of them is not counted. The bounds below are the walk README.md
 * lists: a change that makes the read walk more files or make more calls fails here, and one that makes
 * it walk fewer lowers them (and the list).
 */
import * as http from "http";
import * as inspector from "inspector";
import * as path from "path";
import type { ServiceBroker } from "moleculer";
import { startService, Running } from "../helpers/harness";
import { createEvent } from "../helpers/events";

const ROOT = path.resolve(__dirname, "..", "..");
/** The files README.md lists for the walk (71, and store/sites.ts when the site directory's lease has run out), and the action calls. */
const MAX_FILES = 72;
const MAX_ACTION_CALLS = 2;

interface FunctionCoverage { functionName: string; ranges: Array<{ count: number }> }
interface Coverage { result: Array<{ url: string; functions: FunctionCoverage[] }> }

function post<T>(session: inspector.Session, method: string, params: object = {}): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params, (err, out) => (err ? reject(err) : resolve(out as T))));
}

/** The project's files (not the tests' own) with a function that ran since the last take. */
async function filesRun(session: inspector.Session): Promise<Set<string>> {
  const coverage = await post<Coverage>(session, "Profiler.takePreciseCoverage");
  const files = new Set<string>();
  for (const script of coverage.result) {
    const file = script.url.startsWith("file://") ? script.url.slice("file://".length) : script.url;
    if (!file.startsWith(ROOT + path.sep) || file.includes(`${path.sep}node_modules${path.sep}`)) continue;
    const rel = path.relative(ROOT, file).split(path.sep).join("/");
    if (!rel.startsWith("test/") && script.functions.some(f => f.ranges[0].count > 0)) files.add(rel);
  }
  return files;
}

/**
 * A GET on a connection of its own, its status once its body is read: no kept-alive connection is reused,
 * so a busy machine never has one closed by the server under the request (ECONNRESET).
 */
function getOnce(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false }, res => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    }).on("error", reject);
  });
}

/** Counts the action calls made through the broker while `work` runs (moleculer-web's and the services' own). */
async function actionCalls(broker: ServiceBroker, work: () => Promise<void>): Promise<number> {
  const original = broker.call;
  let calls = 0;
  broker.call = ((...args: Parameters<typeof original>) => { calls++; return original.apply(broker, args); }) as typeof original;
  try {
    await work();
  } finally {
    broker.call = original;
  }
  return calls;
}

describe("the read path of one event", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({}); });
  afterAll(async () => { await svc.stop(); });

  test(`one uncached GET /events/{id} runs at most ${MAX_FILES} of the project's files and ${MAX_ACTION_CALLS} action calls`, async () => {
    const warm = await createEvent(svc, { title: "Read first" });
    const measured = [await createEvent(svc, { title: "Measured" }), await createEvent(svc, { title: "Measured too" })];
    // what a process does once (loading modules, reading the route table) is not the read's walk
    for (const q of ["", "?x=1"]) await getOnce(`${svc.ns}/events/${warm.id}${q}`);
    const session = new inspector.Session();
    session.connect();
    try {
      await post(session, "Profiler.enable");
      await post(session, "Profiler.startPreciseCoverage", { callCount: true, detailed: false });
      await filesRun(session);
      const walks: Array<Set<string>> = [];
      let calls = 0;
      for (const ev of measured) {
        calls = await actionCalls(svc.broker, async () => {
          expect(await getOnce(`${svc.ns}/events/${ev.id}`)).toBe(200);
        });
        walks.push(await filesRun(session));
      }
      const walk = [...walks[0]].filter(f => walks[1].has(f)).sort();
      // the whole walk is shown when it grew, to compare with README.md's list
      expect(walk.length > MAX_FILES ? walk : []).toEqual([]);
      expect(calls).toBeLessThanOrEqual(MAX_ACTION_CALLS);
    } finally {
      await post(session, "Profiler.stopPreciseCoverage");
      session.disconnect();
    }
  });
});
