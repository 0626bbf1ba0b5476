/**
 * The walk of one uncached `GET /events/{id}` (README.md "How a request travels"), an event's first read
 * (computed, its rendering kept) and a later one (answered from the stored rendering): the project's files
 * whose code runs for it, and the action calls it makes, read from V8's own coverage counters around the request
 * (no code of the service is changed to count). The walk is the files three uncached reads of three events
 * all ran, so a timer that fires during one or two of them is not counted. The bounds below are the walk README.md
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
/** The files README.md lists for an event's first read (74, and store/sites.ts when the site directory's lease has run out), and its action calls. */
const MAX_FILES = 75;
const MAX_ACTION_CALLS = 3;
/** The files README.md lists for a read answered from the event's stored rendering (50, and store/sites.ts as above). */
const MAX_STORED_FILES = 51;

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
  // no scheduled job (they visit every site) runs beside the measured reads
  beforeAll(async () => { svc = await startService({ SERIES_JOB_MS: "0", DUE_EVENTS_JOB_MS: "0" }); });
  afterAll(async () => { await svc.stop(); });

  /**
   * The files every read of `read` ran (one per measured event), and the fewest action calls a read made:
   * the count is of every call in the process while the read runs, so a call the service makes on a timer
   * of its own may fall into one read's window, never into all of them.
   */
  async function walkOf(read: (id: number) => Promise<void>, ids: readonly number[]): Promise<{ walk: string[]; calls: number }> {
    const session = new inspector.Session();
    session.connect();
    try {
      await post(session, "Profiler.enable");
      await post(session, "Profiler.startPreciseCoverage", { callCount: true, detailed: false });
      await filesRun(session);
      const walks: Array<Set<string>> = [];
      let calls = Infinity;
      for (const id of ids) {
        calls = Math.min(calls, await actionCalls(svc.broker, () => read(id)));
        walks.push(await filesRun(session));
      }
      return { walk: [...walks[0]].filter(f => walks.every(w => w.has(f))).sort(), calls };
    } finally {
      await post(session, "Profiler.stopPreciseCoverage");
      session.disconnect();
    }
  }

  test(`an event's first GET /events/{id} runs at most ${MAX_FILES} of the project's files and ${MAX_ACTION_CALLS} action calls; a stored one at most ${MAX_STORED_FILES} and 1`, async () => {
    const warm = await createEvent(svc, { title: "Read first" });
    const measured = [await createEvent(svc, { title: "Measured" }), await createEvent(svc, { title: "Measured too" }), await createEvent(svc, { title: "Measured third" })];
    // what a process does once (loading modules, reading the route table, a first stored read) is not the read's walk
    for (const q of ["", "?x=1"]) await getOnce(`${svc.ns}/events/${warm.id}${q}`);
    await svc.broker.cacher?.clean();
    await getOnce(`${svc.ns}/events/${warm.id}`);
    const read = async (id: number) => { expect(await getOnce(`${svc.ns}/events/${id}`)).toBe(200); };
    // the first read computes the answer and keeps its rendering (docs/caching.md#stored-renderings)
    const first = await walkOf(read, measured.map(e => e.id));
    // the whole walk is shown when it grew, to compare with README.md's list
    expect(first.walk.length > MAX_FILES ? first.walk : []).toEqual([]);
    expect(first.calls).toBeLessThanOrEqual(MAX_ACTION_CALLS);
    // a later read with nothing kept by the gateway answers the stored rendering: the route's own call alone
    await svc.broker.cacher?.clean();
    // as before the first walk: what the clean sets going (its broadcast, the marks it moves) done before the walk
    await getOnce(`${svc.ns}/events/${warm.id}`);
    const stored = await walkOf(read, measured.map(e => e.id));
    expect(stored.walk.length > MAX_STORED_FILES ? stored.walk : []).toEqual([]);
    expect(stored.calls).toBe(1);
  });
});
