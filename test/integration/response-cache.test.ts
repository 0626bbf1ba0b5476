/**
 * The gateway's kept answers (lib/http/response-cache.ts): a repeated GET is answered from the cache
 * with the same bytes, a Content-Length that counts bytes (not characters), the same ETag, and never
 * after a write made it stale.
 */
import { startService, succeed, Running } from "../helpers/harness";
import type { Json } from "../helpers/json";

describe("kept answers", () => {
  let svc: Running;
  beforeAll(async () => { svc = await startService({ RATE_LIMIT: "" }); });
  afterAll(async () => { await svc.stop(); });

  test("the second GET: same bytes and ETag, a byte-exact Content-Length; a write makes the next one fresh", async () => {
    const day = new Date(Date.now() + 5 * 86400000).toISOString().slice(0, 10);
    const created = await svc.request("POST", "/events", { as: "admin", body: { title: "Café Ünïcode ☕", start_date: `${day} 10:00`, end_date: `${day} 11:00` } });
    expect(created.status).toBe(201);
    const first = await svc.get("/events");
    const second = await svc.get("/events");
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(Number(second.headers.get("content-length"))).toBe(Buffer.byteLength(second.text, "utf8"));
    expect(second.text.length).toBeLessThan(Buffer.byteLength(second.text, "utf8"));
    expect(second.body.events.map((e: Json) => e.title)).toContain("Café Ünïcode ☕");

    const updated = await svc.request("POST", `/events/${created.body.id}`, { as: "admin", body: { title: "Renamed" } });
    expect(updated.status).toBe(200);
    const third = await svc.get("/events");
    expect(third.body.events.map((e: Json) => e.title)).toContain("Renamed");
    expect(third.headers.get("etag")).not.toBe(first.headers.get("etag"));
  });

  /**
   * Holds the next call of a service's method until released: a read in flight has read the store and
   * waits there while a write lands.
   */
  function holdNext(service: string, method: string) {
    const svcObj = svc.broker.getLocalService(service) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const own = svcObj[method];
    let release!: () => void;
    const released = new Promise<void>(resolve => { release = resolve; });
    let reached!: () => void;
    const reachedP = new Promise<void>(resolve => { reached = resolve; });
    let held = false;
    svcObj[method] = async function (this: unknown, ...args: unknown[]) {
      if (!held) {
        held = true;
        reached();
        await released;
      }
      return own.apply(this, args);
    };
    return { reached: reachedP, release: () => release(), restore: () => { svcObj[method] = own; release(); } };
  }

  test("a read in flight across a write is answered but not kept: the read after the write's answer sees the write", async () => {
    const day = new Date(Date.now() + 6 * 86400000).toISOString().slice(0, 10);
    const venue = await succeed(svc, "POST", "/venues", { venue: "Slow Hall", status: "publish" });
    const event = await succeed(svc, "POST", "/events", { title: "Before", start_date: `${day} 10:00`, end_date: `${day} 11:00`, venue: venue.id });

    // an event's page (a kept answer of the gateway): held while it embeds its venue, after reading the event
    let hold = holdNext("venues", "keptPerRecord");
    try {
      const inFlight = svc.get(`/events/${event.id}`);
      await hold.reached;
      await succeed(svc, "POST", `/events/${event.id}`, { title: "After" });
      hold.release();
      expect((await inFlight).body.title).toBe("Before"); // it read the event before the write
      expect((await svc.get(`/events/${event.id}`)).body.title).toBe("After");
    } finally {
      hold.restore();
    }

    // a venue's page (kept by the gateway and by the venues service's action cache): held after reading the venue
    hold = holdNext("venues", "presentMany");
    try {
      const inFlight = svc.get(`/venues/${venue.id}`);
      await hold.reached;
      await succeed(svc, "POST", `/venues/${venue.id}`, { venue: "Renamed Hall" });
      hold.release();
      expect((await inFlight).body.venue).toBe("Slow Hall");
      expect((await svc.get(`/venues/${venue.id}`)).body.venue).toBe("Renamed Hall");
      expect((await svc.get(`/events/${event.id}`)).body.venue.venue).toBe("Renamed Hall");
    } finally {
      hold.restore();
    }
  });

  test("a kept answer carries the headers of a routed one: security, CORS, paging, its own request id", async () => {
    const headers = { Origin: "https://app.example" };
    const path = "/events?per_page=1";
    const routed = await svc.request("GET", path, { headers });
    const kept = await svc.request("GET", path, { headers });
    const names = (res: typeof routed) => [...res.headers.keys()].filter(n => n !== "date").sort();
    expect(names(kept)).toEqual(names(routed));
    for (const name of ["access-control-allow-origin", "access-control-expose-headers", "x-content-type-options", "content-security-policy", "x-wp-total", "link", "etag"])
      expect([name, kept.headers.get(name)]).toEqual([name, routed.headers.get(name)]);
    expect(kept.headers.get("x-request-id")).toMatch(/\S/);
    expect(kept.headers.get("x-request-id")).not.toBe(routed.headers.get("x-request-id"));
    // a caller's own request id is echoed, as on a routed answer
    const traced = await svc.request("GET", path, { headers: { ...headers, "X-Request-ID": "trace-42" } });
    expect(traced.headers.get("x-request-id")).toBe("trace-42");
    const conditional = await svc.request("GET", path, { headers: { ...headers, "If-None-Match": routed.headers.get("etag")! } });
    expect(conditional.status).toBe(304);
    expect(conditional.headers.get("access-control-allow-origin")).toBe(routed.headers.get("access-control-allow-origin"));
  });
});
