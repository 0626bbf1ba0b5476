/**
 * gateway/guards.ts `frontDoor`, the gateway's one middleware in front of moleculer-web (docs/gateway.md):
 * security headers on every answer, the rate limit with `X-RateLimit-*` and `Retry-After` (C18: limits; C58: `modified` in site time) in
 * front of the kept answers, then a kept answer or the next handler. Served by a plain Node server.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from "http";
import type { AddressInfo } from "net";
import { frontDoor, GuardContext } from "../../gateway/guards";
import { createRateLimiter } from "../../gateway/rate-limit";

let server: Server;
let base = "";
const limiter = createRateLimiter({ rateLimit: { limit: 2, windowMs: 60_000 }, namespace: "test" })!;
const calls: string[] = [];

beforeAll(async () => {
  const guards: GuardContext = {
    baseUrl: () => "http://example.test",
    limiter: () => limiter,
    isKnownKey: () => false,
    renderError: (_req, res) => {
      res.writeHead(429, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ code: "rest_too_many_requests" }));
    },
    warn: () => undefined,
    answerEarly: async (req: IncomingMessage, res: ServerResponse) => {
      if (req.url !== "/kept") return false;
      res.end("kept");
      return true;
    }
  };
  server = createServer(frontDoor(() => (req, res) => {
    calls.push(String(req.url));
    res.end("routed");
  }, () => guards));
  await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await limiter.close();
  await new Promise(resolve => server.close(resolve));
});

describe("the front door", () => {
  test("security headers and rate-limit headers on every counted answer; a kept answer goes no further", async () => {
    const kept = await fetch(`${base}/kept`);
    expect(await kept.text()).toBe("kept");
    expect(kept.headers.get("x-content-type-options")).toBe("nosniff");
    expect(kept.headers.get("x-ratelimit-limit")).toBe("2");
    expect(kept.headers.get("x-ratelimit-remaining")).toBe("1");
    const routed = await fetch(`${base}/events`);
    expect(await routed.text()).toBe("routed");
    expect(routed.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(calls).toEqual(["/events"]);
  });

  test("over the limit: 429 with Retry-After, before any kept answer; health probes are not counted", async () => {
    const refused = await fetch(`${base}/kept`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    const health = await fetch(`${base}/health/live`);
    expect(await health.text()).toBe("routed");
    expect(health.headers.get("x-ratelimit-limit")).toBeNull();
  });
});
