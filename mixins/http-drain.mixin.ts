/**
 * Graceful stop of the HTTP gateway. `drain(timeoutMs)`:
 * 1. from now on every answer carries `Connection: close` (keep-alive connections end after their answer);
 * 2. stops listening once no connection has been accepted for QUIET_MS since SIGTERM (those already waiting
 *    in the kernel's accept queue are taken first, so a request that reached the host is answered, not
 *    reset), at the latest after GRACE_MS;
 * 3. resolves once every request in progress has been answered (or after `timeoutMs`), waiting also for
 *    connections accepted without a request read yet (up to FRESH_MS).
 * server.ts calls it on SIGTERM before stopping the broker, which then finishes the action calls still in
 * flight (broker `tracking`) and leaves the bus.
 */
import { IncomingMessage, Server, ServerResponse } from "http";
import type { Socket } from "net";
import type { Service, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { serviceSchema } from "../broker/service-schema";

/** How long a connection without a request yet counts as one about to send it. */
const FRESH_MS = 1000;
/** Listening stops after this long without a new connection… */
const QUIET_MS = 100;
/** …or after this long in any case. */
const GRACE_MS = 2000;

interface DrainState {
  /** The gateway's HTTP server: the one it hands moleculer-web as its `server` setting (mixins/http-guards.mixin.ts). */
  settings: { server?: unknown };
  httpActive: Set<ServerResponse>;
  /** Accepted connections that have not sent a request yet, with when they were accepted. */
  httpFresh: Map<Socket, number>;
  draining: boolean;
  lastAcceptAt: number;
}

/** What the gateway answers SIGTERM with (server.ts). */
export interface Drainable {
  drain(timeoutMs: number): Promise<void>;
}

type DrainSelf = Service & DrainState & Drainable;

/** Whether `service` (the local "api" service, when this process runs it) has this mixin's `drain`. */
export function isDrainable(service: unknown): service is Drainable {
  return typeof service === "object" && service !== null && "drain" in service && typeof service.drain === "function";
}

const serverOf = (self: DrainState): Server | undefined => (self.settings.server instanceof Server ? self.settings.server : undefined);

const tick = (ms: number) => new Promise(resolve => setTimeout(resolve, ms)).then(() => new Promise(resolve => setImmediate(resolve)));

const httpDrain: ServiceSchema<ServiceSettingSchema, Drainable, DrainState, DrainSelf> = {
  name: "http-drain",
  methods: {
    async drain(timeoutMs: number): Promise<void> {
      this.draining = true;
      const server = serverOf(this);
      if (!server) return;
      const started = Date.now();
      for (const res of this.httpActive) if (!res.headersSent) res.setHeader("Connection", "close");
      // setImmediate after the timer: the check runs after a poll phase, which accepts what is queued
      do await tick(10);
      while (server.listening && Date.now() - Math.max(this.lastAcceptAt, started) < QUIET_MS && Date.now() - started < GRACE_MS);
      if (server.listening) server.close();
      this.logger.info(`No longer accepting HTTP connections; answering the ${this.httpActive.size} request(s) in progress.`);
      const until = started + timeoutMs;
      const busy = () => this.httpActive.size > 0 || [...this.httpFresh.values()].some(at => Date.now() - at < FRESH_MS);
      while (busy() && Date.now() < until) await tick(10);
      server.closeIdleConnections();
    }
  },
  created() {
    this.httpActive = new Set();
    this.httpFresh = new Map();
    this.draining = false;
    this.lastAcceptAt = 0;
  },
  started() {
    const server = serverOf(this);
    if (!server) return;
    server.on("connection", (socket: Socket) => {
      this.lastAcceptAt = Date.now();
      this.httpFresh.set(socket, this.lastAcceptAt);
      socket.once("close", () => this.httpFresh.delete(socket));
    });
    server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
      this.httpFresh.delete(req.socket);
      this.httpActive.add(res);
      if (this.draining) res.setHeader("Connection", "close");
      res.once("close", () => this.httpActive.delete(res));
    });
  }
};

export const HttpDrainMixin = serviceSchema(httpDrain);
