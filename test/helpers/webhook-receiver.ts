/**
 * A webhook receiver for tests, built on the `standardwebhooks` package (an implementation of Standard
 * Webhooks 1.0 independent of the service's): every request to a path with a known secret is verified
 * (signature and timestamp) and kept; the path's `answer` decides the status it gets.
 */
import * as http from "http";
import { AddressInfo } from "net";
import { Webhook } from "standardwebhooks";

export interface Received {
  path: string;
  id: string;
  timestamp: number;
  /** When it arrived (ms since the epoch). */
  at: number;
  body: { type: string; timestamp: string; data: { id: number; sequence: number; rest_url: string; record?: Record<string, unknown> } };
  raw: string;
  headers: http.IncomingHttpHeaders;
  status: number;
}

export type Answerer = (req: { path: string; n: number; id: string }) => number | { status: number; headers?: Record<string, string>; delayMs?: number; body?: string };

export interface Receiver {
  url(path: string): string;
  /** Registers a path: its secret and how it answers (default 200). */
  expect(path: string, secret: string, answer?: Answerer): void;
  answer(path: string, answer: Answerer): void;
  received(path?: string): Received[];
  /** Requests that failed verification (must stay empty). */
  rejected: string[];
  waitFor(pred: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const secrets = new Map<string, Webhook>();
  const answers = new Map<string, Answerer>();
  const counts = new Map<string, number>();
  const received: Received[] = [];
  const rejected: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", c => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0];
      const raw = Buffer.concat(chunks).toString("utf8");
      const hook = secrets.get(path);
      if (!hook) {
        rejected.push(`${path}: no secret registered`);
        res.writeHead(404).end();
        return;
      }
      try {
        hook.verify(raw, req.headers as Record<string, string>);
      } catch (err) {
        rejected.push(`${path}: ${(err as Error).message}`);
        res.writeHead(400).end();
        return;
      }
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      const id = String(req.headers["webhook-id"]);
      const a = (answers.get(path) ?? (() => 200))({ path, n, id });
      const spec = typeof a === "number" ? { status: a } : a;
      received.push({ path, id, timestamp: Number(req.headers["webhook-timestamp"]), at: Date.now(), body: JSON.parse(raw), raw, headers: req.headers, status: spec.status });
      const send = () => res.writeHead(spec.status, spec.headers ?? {}).end(spec.body ?? "ok");
      if (spec.delayMs) setTimeout(send, spec.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: path => `http://127.0.0.1:${port}${path}`,
    expect(path, secret, answer) {
      secrets.set(path, new Webhook(secret));
      if (answer) answers.set(path, answer);
    },
    answer(path, answer) {
      answers.set(path, answer);
    },
    received: path => (path === undefined ? received : received.filter(r => r.path === path)),
    rejected,
    async waitFor(pred, timeoutMs = 20_000, what = "the deliveries") {
      const until = Date.now() + timeoutMs;
      while (!pred()) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
        await new Promise(r => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>(resolve => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    })
  };
}

/** A secret of the contract's form (`whsec_` + base64 of 32 random bytes). */
export function testSecret(): string {
  return `whsec_${require("crypto").randomBytes(32).toString("base64")}`;
}
