/**
 * The hosted platform's deployment files agree with the code (no Docker engine here, so they are read,
 * not run): docker-compose.yml has one container per service of services/index.ts, two gateway replicas
 * on the published port, geolocation in its own profile, the contract's settings from docker.env, a
 * MongoDB version the bundled driver supports (C28), dependencies that exist; the Dockerfile is
 * multi-stage on a current Node LTS, copies everything the entry point imports and runs dist/server.js.
 */
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { SERVICE_SCHEMAS, checkTopology } from "../../services";
import { readSettings } from "../../lib/settings";

const ROOT = path.resolve(__dirname, "..", "..");
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

interface ComposeService {
  image?: string;
  build?: unknown;
  env_file?: string | string[];
  environment?: Record<string, string> | string[];
  depends_on?: string[] | Record<string, unknown>;
  deploy?: { replicas?: number };
  ports?: Array<string | { target: number; published?: string | number }>;
  profiles?: string[];
  command?: unknown;
}

const compose = parse(read("docker-compose.yml"), { merge: true }) as { services: Record<string, ComposeService> };
const services = compose.services;

function environment(svc: ComposeService): Record<string, string> {
  const env = svc.environment ?? {};
  if (!Array.isArray(env)) return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
  return Object.fromEntries(env.map(line => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
}

function envFiles(svc: ComposeService): string[] {
  return svc.env_file === undefined ? [] : Array.isArray(svc.env_file) ? svc.env_file : [svc.env_file];
}

function parseEnvFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of read(file).split("\n")) {
    const m = /^\s*([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) out[m[1]] = m[2].trim();
  }
  return out;
}

/** What a container's process sees: its env files, then its own environment (compose's precedence). */
function containerEnv(svc: ComposeService): Record<string, string> {
  return Object.assign({}, ...envFiles(svc).map(parseEnvFile), environment(svc));
}

/** Every application container (the ones that run the image with SERVICES set), of every profile. */
const allAppContainers = Object.entries(services).filter(([, svc]) => containerEnv(svc).SERVICES !== undefined);
/** The PostgreSQL platform's containers (profile "postgres"), checked on their own below. */
const pgContainers = allAppContainers.filter(([, svc]) => svc.profiles?.includes("postgres"));
/** The default (MongoDB) platform's containers. */
const appContainers = allAppContainers.filter(([, svc]) => !svc.profiles?.includes("postgres"));
const containerOf = (service: string) => appContainers.filter(([, svc]) => containerEnv(svc).SERVICES.split(",").map(s => s.trim()).includes(service));
const dependsOn = (svc: ComposeService) => (Array.isArray(svc.depends_on) ? svc.depends_on : Object.keys(svc.depends_on ?? {}));

/** The variables of README's configuration table (the contract's settings and this project's own). */
const documentedVariables = new Set([...read("README.md").matchAll(/^\| `([A-Z_]+)`(?: \/ `([A-Z_]+)`)? \|/gm)].flatMap(m => [m[1], m[2]].filter(Boolean)));

describe("docker-compose.yml", () => {
  test("every service of the code has its own container, SERVICES naming only known services", () => {
    for (const name of Object.keys(SERVICE_SCHEMAS)) {
      const containers = containerOf(name);
      expect({ service: name, containers: containers.map(([c]) => c) }).toEqual({ service: name, containers: [expect.any(String)] });
      expect(containerEnv(containers[0][1]).SERVICES).toBe(name);
    }
    for (const [name, svc] of appContainers) {
      expect({ container: name, unknown: containerEnv(svc).SERVICES.split(",").filter(s => !SERVICE_SCHEMAS[s.trim()]) }).toEqual({ container: name, unknown: [] });
    }
  });

  test("every application container runs the one image built from the Dockerfile", () => {
    const images = new Set(appContainers.map(([, svc]) => svc.image));
    expect(images.size).toBe(1);
    for (const [, svc] of appContainers) expect(svc.build).toBeDefined();
  });

  test("the gateway: two replicas, each on the published port", () => {
    const [[, api]] = containerOf("api");
    expect(api.deploy?.replicas).toBe(2);
    const port = containerEnv(api).PORT ?? "3000";
    const mappings = (api.ports ?? []).map(p => (typeof p === "string" ? p : `${p.published ?? ""}:${p.target}`));
    const published = mappings.find(m => m.split(":").pop() === port);
    expect(published).toBeDefined();
    // a host port range with a port for each replica (a single fixed host port would clash)
    const host = published!.split(":").slice(0, -1).join(":");
    const range = /^(?:[\d.]+:)?(\d+)-(\d+)$/.exec(host);
    expect(range).not.toBeNull();
    expect(Number(range![2]) - Number(range![1]) + 1).toBeGreaterThanOrEqual(2);
    expect(Number(range![1])).toBe(3000);
  });

  test("geolocation is optional: its own profile, nothing else needs it, everything else starts by default", () => {
    const [[geoName, geo]] = containerOf("geolocation");
    expect(geo.profiles).toEqual(["geolocation"]);
    for (const [name, svc] of Object.entries(services)) {
      if (name === geoName || svc.profiles?.includes("postgres")) continue;
      expect({ name, profiles: svc.profiles }).toEqual({ name, profiles: undefined });
      expect(dependsOn(svc)).not.toContain(geoName);
    }
  });

  test("every depends_on names a service of the file, and the gateway waits for the routed services", () => {
    for (const [name, svc] of Object.entries(services)) {
      for (const dep of dependsOn(svc)) expect({ name, dep, exists: dep in services }).toEqual({ name, dep, exists: true });
    }
    const [[, api]] = containerOf("api");
    for (const routed of ["events", "venues", "organizers", "taxonomy", "i18n"]) expect(dependsOn(api)).toContain(containerOf(routed)[0][0]);
  });

  test("docker.env: the deployment's settings, pointing at the file's own NATS, Redis and MongoDB", () => {
    for (const [, svc] of appContainers) expect(envFiles(svc)).toContain("docker.env");
    const env = parseEnvFile("docker.env");
    for (const key of Object.keys(env)) expect({ key, documented: documentedVariables.has(key) }).toEqual({ key, documented: true });
    for (const key of ["NAMESPACE", "TRANSPORTER", "CACHER", "MONGO_URI", "BASE_URL", "METRICS_PORT", "SITE_TIMEZONE"]) expect({ key, value: env[key] }).toEqual({ key, value: expect.stringMatching(/\S/) });
    const hostOf = (url: string) => new URL(url).hostname;
    expect(env.TRANSPORTER).toMatch(/^nats:\/\//);
    expect(services[hostOf(env.TRANSPORTER)]?.image).toMatch(/^nats:/);
    expect(env.CACHER).toMatch(/^redis:\/\//);
    expect(services[hostOf(env.CACHER)]?.image).toMatch(/^redis:/);
    expect(env.MONGO_URI).toMatch(/^mongodb:\/\//);
    expect(services[hostOf(env.MONGO_URI)]?.image).toMatch(/^mongo:/);
    expect(Number(env.METRICS_PORT)).toBeGreaterThan(0);
  });

  test("the postgres profile: PostgreSQL and every routed service on DATABASE_URL (not MONGO_URI), record services on several nodes", () => {
    expect(services.postgres?.image).toMatch(/^postgres:/);
    expect(services.postgres?.profiles).toEqual(["postgres"]);
    for (const name of Object.keys(SERVICE_SCHEMAS).filter(n => n !== "geolocation")) {
      const containers = pgContainers.filter(([, svc]) => containerEnv(svc).SERVICES === name);
      expect({ name, containers: containers.length }).toEqual({ name, containers: 1 });
      const env = containerEnv(containers[0][1]);
      const settings = readSettings(env);
      expect({ name, databaseUrl: settings.databaseUrl?.startsWith("postgres://"), mongo: settings.mongoUri }).toEqual({ name, databaseUrl: true, mongo: undefined });
      expect({ name, problem: checkTopology(settings) }).toEqual({ name, problem: undefined });
      expect(new URL(settings.databaseUrl!).hostname).toBe("postgres");
      expect(dependsOn(containers[0][1])).toContain("postgres");
    }
    for (const name of ["events", "taxonomy"]) {
      const [[, svc]] = pgContainers.filter(([, c]) => containerEnv(c).SERVICES === name);
      expect(svc.deploy?.replicas).toBeGreaterThanOrEqual(2);
    }
  });

  test("the postgres profile's connections fit the server's max_connections (every node at DATABASE_POOL_MAX plus its locks and its lookups)", () => {
    const command = (services.postgres?.command ?? []) as string[];
    const setting = command.map(arg => /^max_connections=(\d+)$/.exec(arg)).find(m => m);
    // PostgreSQL's default, less the 3 connections it keeps for superusers
    const room = (setting ? Number(setting[1]) : 100) - 3;
    const wanted = pgContainers.reduce((sum, [, svc]) => {
      const { databasePoolMax: pool, databaseLookupPoolMax: lookups } = readSettings(containerEnv(svc));
      return sum + (svc.deploy?.replicas ?? 1) * (pool + Math.min(4, pool) + lookups);
    }, 0);
    expect(wanted).toBeGreaterThan(0);
    expect(wanted).toBeLessThanOrEqual(room);
  });

  test("each container's settings pass the start-up checks (C23 (topology by store) topology) and the key holders get API_KEYS", () => {
    for (const [name, svc] of appContainers) {
      const env = containerEnv(svc);
      expect({ name, problem: checkTopology(readSettings(env)) }).toEqual({ name, problem: undefined });
      for (const key of Object.keys(env)) expect({ name, key, documented: documentedVariables.has(key) }).toEqual({ name, key, documented: true });
    }
    // the gateway resolves keys; events, venues and organizers check author ids against them
    for (const service of ["api", "events", "venues", "organizers"]) expect(containerEnv(containerOf(service)[0][1]).API_KEYS).toMatch(/^\$\{API_KEYS[:?}]/);
  });

  test("MongoDB runs as a one-node replica set the file itself initiates, named in MONGO_URI; the platform waits for its primary", () => {
    const [name, mongo] = Object.entries(services).find(([, svc]) => svc.image?.startsWith("mongo:"))!;
    const command = (mongo.command as string[]).join(" ");
    const set = /--replSet (\S+)/.exec(command)?.[1];
    expect(set).toBe("rs0");
    const check = ((mongo as { healthcheck?: { test?: string[] } }).healthcheck?.test ?? []).join(" ");
    expect(check).toContain(`rs.initiate({ _id: '${set}', members: [{ _id: 0, host: '${name}:27017' }] })`);
    expect(check).toMatch(/quit\(db\.isMaster\(\)\.ismaster \? 0 : 1\)/);
    const uri = new URL(parseEnvFile("docker.env").MONGO_URI);
    expect([uri.hostname, uri.searchParams.get("replicaSet")]).toEqual([name, set]);
    for (const [container, svc] of appContainers) {
      if (!dependsOn(svc).includes(name)) continue;
      expect({ container, condition: (svc.depends_on as Record<string, { condition?: string }>)[name]?.condition }).toEqual({ container, condition: "service_healthy" });
    }
  });

  test("MongoDB is pinned to a server version the driver bundled by moleculer-db-adapter-mongo fully supports (C28)", () => {
    const adapterDir = path.dirname(require.resolve("moleculer-db-adapter-mongo/package.json"));
    const driverVersion: string = JSON.parse(fs.readFileSync(require.resolve("mongodb/package.json", { paths: [adapterDir] }), "utf8")).version;
    // MongoDB's compatibility table for the Node.js driver: newest server version with every feature supported
    const newestFullySupported: Record<string, string> = { "3.3": "4.2", "3.4": "4.2", "3.5": "4.2", "3.6": "5.0", "3.7": "6.0" };
    const driver = driverVersion.split(".").slice(0, 2).join(".");
    expect(newestFullySupported[driver]).toBeDefined();
    const mongo = Object.values(services).find(svc => svc.image?.startsWith("mongo:"))!;
    const tag = /^mongo:(\d+)\.(\d+)(?:\.\d+)?$/.exec(mongo.image!);
    expect(tag).not.toBeNull(); // major.minor at least: never `latest` or a bare major
    const [maxMajor, maxMinor] = newestFullySupported[driver].split(".").map(Number);
    const [major, minor] = [Number(tag![1]), Number(tag![2])];
    expect(major < maxMajor || (major === maxMajor && minor <= maxMinor)).toBe(true);
    expect(read("README.md")).toContain(`MongoDB ${major}.${minor}`);
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const stages = dockerfile.split(/^FROM /m).slice(1).map(s => "FROM " + s);

  test("multi-stage on a current Node LTS image, the runtime stage taking the build's output", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const images = stages.map(s => /^FROM\s+(\S+)/.exec(s)![1]);
    const engines = Number(/(\d+)/.exec(JSON.parse(read("package.json")).engines.node)![1]);
    for (const image of images) {
      const m = /^node:(\d+)(?:[.-]|$)/.exec(image);
      expect(m).not.toBeNull();
      const major = Number(m![1]);
      expect(major % 2).toBe(0); // LTS lines are the even majors
      expect(major).toBeGreaterThanOrEqual(Math.max(20, engines));
    }
    const buildName = /^FROM\s+\S+\s+AS\s+(\S+)/i.exec(stages[0])![1];
    expect(stages[stages.length - 1]).toMatch(new RegExp(`COPY --from=${buildName} \\S*dist`));
    expect(stages[stages.length - 1]).toMatch(/npm ci[^\n]*--omit=dev/);
  });

  test("CMD runs the compiled entry point as `npm start` does (node execs it, with the HEAP_MB heap limit)", () => {
    const cmd = /^CMD\s+(.*)$/m.exec(stages[stages.length - 1])![1];
    const start = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
    expect(JSON.parse(cmd)).toEqual(["sh", "-c", `exec ${start}`]);
    expect(start).toBe("node --max-old-space-size=${HEAP_MB:-512} dist/server.js");
  });

  test("the build stage copies every source the entry point imports, the runtime stage the locales", () => {
    // walk the relative imports from server.ts
    const seen = new Set<string>();
    const queue = [path.join(ROOT, "server.ts")];
    while (queue.length) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const m of fs.readFileSync(file, "utf8").matchAll(/(?:from|import|require\()\s*["'](\.{1,2}\/[^"']+)["']/g)) {
        const base = path.resolve(path.dirname(file), m[1]);
        const target = [`${base}.ts`, path.join(base, "index.ts"), base].find(f => fs.existsSync(f) && fs.statSync(f).isFile());
        if (target?.endsWith(".ts")) queue.push(target);
      }
    }
    const topLevel = new Set([...seen].map(f => path.relative(ROOT, f).split(path.sep)[0]));
    const copied = [...stages[0].matchAll(/^COPY\s+(?!--from)(.+)$/gm)].flatMap(m => m[1].trim().split(/\s+/).slice(0, -1));
    for (const entry of topLevel) expect({ entry, copied: copied.includes(entry) }).toEqual({ entry, copied: true });
    expect(stages[stages.length - 1]).toMatch(/^COPY\s+(?:--from=\S+\s+)?(?:\S*\/)?locales\s/m);
  });
});

describe("start-up topology checks on an in-memory store (C38: store misconfiguration)", () => {
  const problem = (env: Record<string, string>) => checkTopology(readSettings({ API_KEYS: "k:administrator:1", ...env }));
  test("the post services together, the change feed's reader with its writers, taxonomy with the events", () => {
    expect(problem({ DATA_DIR: ":memory:", SERVICES: "events,venues,organizers,changes" })).toBeUndefined();
    expect(problem({ DATA_DIR: ":memory:", SERVICES: "events,venues" })).toMatch(/one id sequence/);
    expect(problem({ DATA_DIR: ":memory:", SERVICES: "changes" })).toMatch(/changes service reads the feed/);
    expect(problem({ DATA_DIR: ":memory:", SERVICES: "api,i18n" })).toBeUndefined();
    // the events' writes keep the terms' counts in their own database (store/sql/term-counts.ts)
    expect(problem({ DATA_DIR: ":memory:", SERVICES: "api,taxonomy,i18n" })).toMatch(/keep the terms' counts/);
    expect(problem({ DATA_DIR: ":memory:", SERVICES: "events,venues,organizers,taxonomy" })).toBeUndefined();
    // a shared database: any split works
    expect(problem({ DATA_DIR: "/tmp/calendar-data", SERVICES: "changes" })).toBeUndefined();
    expect(problem({ DATABASE_URL: "postgres://db/calendar", DATA_DIR: ":memory:", SERVICES: "changes" })).toBeUndefined();
  });
});
