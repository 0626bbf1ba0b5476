/**
 * Boots the whole service in-process (every service, the real HTTP gateway on a free port, the embedded
 * store in memory unless told otherwise) and speaks HTTP to it, as an outside client would.
 */
import { createTestDatabase, TestDatabase } from "./postgres";
import * as net from "net";
import type { ServiceBroker } from "moleculer";
import { ContractChecker, servedDocument } from "./contract";
import type { Json } from "./json";

export const KEYS = {
  admin: "k-admin",
  editor: "k-editor",
  author: "k-author",
  author2: "k-author2",
  contributor: "k-contributor",
  contributor2: "k-contributor2",
  subscriber: "k-subscriber"
} as const;
export type KeyName = keyof typeof KEYS;

export const USER_IDS: Record<KeyName, number> = { admin: 1, editor: 2, author: 3, author2: 4, contributor: 5, contributor2: 6, subscriber: 7 };

export const TEST_API_KEYS = (Object.keys(KEYS) as KeyName[])
  .map(name => `${KEYS[name]}:${name.replace(/\d$/, "").replace("admin", "administrator")}:${USER_IDS[name]}`)
  .join(",");

/** The ports of that range fetch refuses to reach (the Fetch standard's "bad ports"): a run drew 10080 once. */
const FETCH_BAD_PORTS = new Set([10080]);
/** The test ports: below the kernel's ephemeral range (32768 and up here), so no listen(0) or outgoing connection takes one. */
const PORTS_FROM = 10_000;
const PORTS_TO = 32_000;
/** Slices of that range, one per jest worker (JEST_WORKER_ID; the workers beyond this many share). */
const SLICES = 8;
/** The ports this process has handed out: none is handed out twice while its slice has others. */
const handedOut = new Set<number>();

/**
 * A port that is free now for a server a test starts, drawn from this jest worker's own slice of the
 * range and never one this process handed out before. A child process binds its port a second or two
 * later: two workers drawing from one range, or one worker drawing twice, could hand the same free port
 * to two nodes, and the one that lost the race exited while its tests spoke to the winner. That is the one
 * way found for what a CI run showed: a differential run's first site refused as existing on a fresh node.
 */
export async function freePort(): Promise<number> {
  const width = Math.floor((PORTS_TO - PORTS_FROM) / SLICES);
  const worker = Number(process.env.JEST_WORKER_ID ?? 1);
  const from = PORTS_FROM + ((Number.isInteger(worker) && worker > 0 ? worker - 1 : 0) % SLICES) * width;
  for (let tries = 0; ; tries++) {
    const port = from + Math.floor(Math.random() * width);
    if (FETCH_BAD_PORTS.has(port)) continue;
    // a slice whose ports are nearly all used up lets an old one come again
    if (handedOut.has(port) && tries < width) continue;
    const free = await new Promise<boolean>(resolve => {
      const srv = net.createServer();
      srv.once("error", () => resolve(false));
      srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
    });
    if (free) {
      handedOut.add(port);
      return port;
    }
  }
}

export interface Answer<T = Json> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  form?: Record<string, string>;
  as?: KeyName;
  headers?: Record<string, string>;
}

export interface Running {
  port: number;
  base: string;
  ns: string;
  broker: ServiceBroker;
  request<T = Json>(method: string, path: string, opts?: RequestOptions): Promise<Answer<T>>;
  get<T = Json>(path: string, as?: KeyName): Promise<Answer<T>>;
  stop(): Promise<void>;
}

/** An administrator's call that must answer one of `status`; answers its body, else throws with the answer. */
export async function succeed(svc: Running, method: string, path: string, body?: Record<string, unknown>, status = [200, 201]): Promise<Json> {
  const res = await svc.request(method, path, { as: "admin", body });
  if (!status.includes(res.status)) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

/** Starts every service (or SERVICES from env) with the given environment on a free port. */
export async function startService(env: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  // TEST_STORE=postgres: the same tests on a PostgreSQL database of their own (README "Tests").
  const pg: TestDatabase | undefined = process.env.TEST_STORE === "postgres" && !env.DATABASE_URL && !env.MONGO_URI ? await createTestDatabase("http") : undefined;
  const fullEnv: Record<string, string> = {
    PORT: String(port), HOST: "127.0.0.1", DATA_DIR: ":memory:", METRICS_PORT: "0", API_KEYS: TEST_API_KEYS, LOG_LEVEL: "warn",
    DATABASE_URL: pg?.url ?? "", ...env
  };
  Object.assign(process.env, fullEnv);
  const { readSettings, useSettings } = require("../../lib/settings");
  const { brokerOptions } = require("../../moleculer.config");
  const { createServices } = require("../../services");
  const { ServiceBroker } = require("moleculer");
  const s = readSettings(process.env);
  useSettings(s);
  const broker: ServiceBroker = new ServiceBroker(brokerOptions(s, { logger: false, nodeID: `test-${port}` }));
  createServices(broker, s);
  await broker.start();
  const base = `http://127.0.0.1:${port}`;
  const ns = `${base}/wp-json/calendar/events/v1`;
  // Every answer under the document is checked against it (test/helpers/contract.ts).
  const contract = new ContractChecker(() => servedDocument(base, s.restPrefix), s.restPrefix);

  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.as) headers.Authorization = `Bearer ${KEYS[opts.as]}`;
    let body: string | undefined;
    if (opts.form) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(opts.form).toString();
    } else if (opts.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    }
    const url = /^https?:/.test(path) ? path : path.startsWith("/") && !path.startsWith("/events") && !path.startsWith("/venues") && !path.startsWith("/organizers") && !path.startsWith("/categories") && !path.startsWith("/tags") && !path.startsWith("/doc") ? base + path : ns + path;
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: Json = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON */ }
    await contract.check({ method, url, status: res.status, contentType: res.headers.get("content-type"), text });
    return { status: res.status, body: parsed, headers: res.headers, text };
  }

  return {
    port, base, ns, broker,
    request,
    get: (path, as) => request("GET", path, { as }),
    async stop() {
      await broker.stop();
      await pg?.drop();
    }
  };
}
