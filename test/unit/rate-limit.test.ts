import type { IncomingMessage } from "http";
import { clientKey, createRateLimiter, MemoryRateLimitStore, RateLimiter, RateLimitStore } from "../../gateway/rate-limit";

const req = (authorization?: string, address = "10.0.0.7") =>
  ({ headers: authorization ? { authorization } : {}, socket: { remoteAddress: address } }) as unknown as IncomingMessage;

describe("rate limiting (gateway/rate-limit.ts)", () => {
  test("a fixed window per key, opened by its first request; the count starts over when it ends", async () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore(60_000, () => now);
    const limiter = new RateLimiter({ limit: 2, windowMs: 1000 }, store);
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(await limiter.check("k"));
    expect(seen.map(d => [d.allowed, d.headers["X-RateLimit-Remaining"]])).toEqual([[true, "1"], [true, "0"], [false, "0"]]);
    expect(seen[2].headers["Retry-After"]).toBe("1");
    expect(seen[0].headers["X-RateLimit-Reset"]).toBe(String(Math.ceil((1_000_000 + 1000) / 1000)));
    expect((await limiter.check("other")).allowed).toBe(true);
    now += 1000;
    expect((await limiter.check("k")).headers["X-RateLimit-Remaining"]).toBe("1");
    await limiter.close();
  });

  test("when the shared store fails, the local one counts and a warning is given once", async () => {
    const failing: RateLimitStore = { hit: async () => { throw new Error("down"); }, close: async () => undefined };
    const warnings: string[] = [];
    const limiter = new RateLimiter({ limit: 1, windowMs: 1000 }, failing, new MemoryRateLimitStore(), msg => warnings.push(msg));
    expect((await limiter.check("k")).allowed).toBe(true);
    expect((await limiter.check("k")).allowed).toBe(false);
    expect(warnings).toHaveLength(1);
    await limiter.close();
  });

  test("the bucket is the hashed key when it is known, else the address", () => {
    const known = (k: string) => k === "secret";
    expect(clientKey(req("Bearer secret"), known)).toMatch(/^key:[0-9a-f]{32}$/);
    expect(clientKey(req("Bearer secret"), known)).not.toContain("secret");
    expect(clientKey(req("Bearer guess"), known)).toBe("addr:10.0.0.7");
    expect(clientKey(req(), known)).toBe("addr:10.0.0.7");
    expect(clientKey(req("Basic abc"), known)).toBe("addr:10.0.0.7");
  });

  test("off unless RATE_LIMIT is set", async () => {
    expect(createRateLimiter({ namespace: "" })).toBeUndefined();
    const limiter = createRateLimiter({ namespace: "", rateLimit: { limit: 3, windowMs: 1000 } });
    expect(limiter?.options).toEqual({ limit: 3, windowMs: 1000 });
    await limiter?.close();
  });
});
