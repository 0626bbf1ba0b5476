/**
 * The geolocation service deployed on its own, across processes over a real NATS server: absent → the
 * `geoloc*` filters answer 400; started in another process (`node dist/server.js` with
 * SERVICES=geolocation) → results, without restarting anything; stopped → 400 again.
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as net from "net";
import * as path from "path";
import { freePort, startService, Running } from "../helpers/harness";
import { createFakeVenues, FakeVenues } from "../helpers/fake-venues";
import type { Json } from "../helpers/json";

const ROOT = path.resolve(__dirname, "../..");

function findNatsServer(): string | undefined {
  if (fs.existsSync("/usr/sbin/nats-server")) return "/usr/sbin/nats-server";
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, "nats-server");
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

const NATS = findNatsServer();
if (!NATS) console.warn("geolocation-nats.test.ts skipped: no nats-server binary (/usr/sbin/nats-server or on PATH).");
const describeWithNats = NATS ? describe : describe.skip;

async function until(ok: () => boolean | Promise<boolean>, ms: number, what: string | (() => string)): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise(r => setTimeout(r, 100));
  }
}

const accepts = (port: number) =>
  new Promise<boolean>(resolve => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });

const exited = (child: ChildProcess) =>
  new Promise<void>(resolve => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));

describeWithNats("geolocation in its own process over NATS", () => {
  let nats: ChildProcess;
  let geo: ChildProcess | undefined;
  let geoOutput = "";
  let svc: Running;
  let venues: FakeVenues;
  let env: Record<string, string>;
  const titles = (res: { body: Json }) => (res.body.events as Json[]).map(e => e.title);
  const geolocationPresent = () => (svc.broker.registry as unknown as { hasService(name: string): boolean }).hasService("geolocation");
  const radiusQuery = "/events?geoloc_lat=48.8566&geoloc_lng=2.3522&geoloc_radius=1000&geoloc_unit=km&orderby=distance";

  beforeAll(async () => {
    // the process under test runs the built service, as `npm start` does; test/global-setup.js built dist/
    // once before any test: rebuilding it here would rewrite files other tests' nodes are loading
    const natsPort = await freePort();
    nats = spawn(NATS!, ["-a", "127.0.0.1", "-p", String(natsPort)], { stdio: "ignore" });
    await until(() => accepts(natsPort), 10_000, "nats-server");
    env = { TRANSPORTER: `nats://127.0.0.1:${natsPort}`, NAMESPACE: `geo-nats-${process.pid}-${natsPort}` };
    svc = await startService({ ...env, SERVICES: "api,events,i18n,taxonomy" });
    venues = await createFakeVenues(svc.broker);
  }, 60_000);

  afterAll(async () => {
    if (geo && geo.exitCode === null) {
      geo.kill("SIGKILL");
      await exited(geo);
    }
    await svc?.stop();
    if (nats) {
      nats.kill("SIGTERM");
      await exited(nats);
    }
  });

  test("absent → 400, started elsewhere → results (with a catch-up and live events), stopped → 400", async () => {
    const paris = await venues.create({ venue: "Paris Hall", geo_lat: 48.8566, geo_lng: 2.3522 });
    const lyon = await venues.create({ venue: "Lyon Hall", city: "Lyon", country: "France" });
    for (const [title, hour, venue] of [["Paris event", 10, paris.id], ["Lyon event", 11, lyon.id]] as const) {
      const res = await svc.request("POST", "/events", { as: "admin", body: { title, start_date: `tomorrow ${hour}:00`, end_date: `tomorrow ${hour}:30`, status: "publish", venue } });
      expect(res.status).toBe(201);
    }

    const absent = await svc.get(radiusQuery);
    expect(absent.status).toBe(400);
    expect(absent.body.code).toBe("geoloc-not-available");

    geo = spawn(process.execPath, ["dist/server.js"], {
      cwd: ROOT,
      env: { ...process.env, ...env, SERVICES: "geolocation", DATA_DIR: ":memory:", METRICS_PORT: "0", LOG_LEVEL: "warn", NODE_ID: `geo-${process.pid}` },
      stdio: ["ignore", "pipe", "pipe"]
    });
    geo.stdout!.on("data", d => (geoOutput += d));
    geo.stderr!.on("data", d => (geoOutput += d));
    await until(geolocationPresent, 20_000, () => `the geolocation process (its output: ${geoOutput})`);

    // it caught up with the venues created before it ran (Lyon geocoded from city and country)
    const present = await svc.get(radiusQuery);
    expect(present.status).toBe(200);
    expect(titles(present)).toEqual(["Paris event", "Lyon event"]);
    expect(present.body.events[1].distance).toBeGreaterThan(380);
    expect(venues.table.get(lyon.id)!.geo_lat).toBeDefined();

    // and follows venue events over the bus
    const lille = await venues.create({ venue: "Lille Hall", geo_lat: 50.6292, geo_lng: 3.0573 });
    const res = await svc.request("POST", "/events", { as: "admin", body: { title: "Lille event", start_date: "tomorrow 12:00", end_date: "tomorrow 12:30", status: "publish", venue: lille.id } });
    expect(res.status).toBe(201);
    await until(async () => titles(await svc.get(radiusQuery)).includes("Lille event"), 10_000, "the Lille venue event");
    expect(titles(await svc.get(radiusQuery))).toEqual(["Paris event", "Lille event", "Lyon event"]);

    geo.kill("SIGTERM");
    await exited(geo);
    expect(geo.exitCode).toBe(0);
    await until(() => !geolocationPresent(), 10_000, "the geolocation service to leave");
    const gone = await svc.get(radiusQuery);
    expect(gone.status).toBe(400);
    expect(gone.body.code).toBe("geoloc-not-available");
    // everything else still works
    expect((await svc.get("/events")).status).toBe(200);
  }, 60_000);
});
