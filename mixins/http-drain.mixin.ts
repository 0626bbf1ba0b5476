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
import type { ServiceSchema } from "moleculer";

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

const serverOf = (self: DrainState): Server | undefined => (self.settings.server instanceof Server ? self.settings.server : undefined);

const tick = (ms: number) => new Promise(resolve => setTimeout(resolve, ms)).then(() => new Promise(resolve => setImmediate(resolve)));

export const HttpDrainMixin: ServiceSchema = {
  name: "http-drain",
  methods: {
    async drain(this: any, timeoutMs: number): Promise<void> {
      const self = this as DrainState;
      self.draining = true;
      const server = serverOf(self);
      if (!server) return;
      const started = Date.now();
      for (const res of self.httpActive) if (!res.headersSent) res.setHeader("Connection", "close");
      // setImmediate after the timer: the check runs after a poll phase, which accepts what is queued
      do await tick(10);
      while (server.listening && Date.now() - Math.max(self.lastAcceptAt, started) < QUIET_MS && Date.now() - started < GRACE_MS);
      if (server.listening) server.close();
      (this as any).logger.info(`No longer accepting HTTP connections; answering the ${self.httpActive.size} request(s) in progress.`);
      const until = started + timeoutMs;
      const busy = () => self.httpActive.size > 0 || [...self.httpFresh.values()].some(at => Date.now() - at < FRESH_MS);
      while (busy() && Date.now() < until) await tick(10);
      server.closeIdleConnections();
    }
  },
  created(this: any) {
    const self = this as DrainState;
    self.httpActive = new Set();
    self.httpFresh = new Map();
    self.draining = false;
    self.lastAcceptAt = 0;
  },
  started(this: any) {
    const self = this as DrainState;
    const server = serverOf(self);
    if (!server) return;
    server.on("connection", (socket: Socket) => {
      self.lastAcceptAt = Date.now();
      self.httpFresh.set(socket, self.lastAcceptAt);
      socket.once("close", () => self.httpFresh.delete(socket));
    });
    server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
      self.httpFresh.delete(req.socket);
      self.httpActive.add(res);
      if (self.draining) res.setHeader("Connection", "close");
      res.once("close", () => self.httpActive.delete(res));
    });
  }
};
