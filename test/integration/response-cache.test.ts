/**
 * The gateway's kept answers (lib/http/response-cache.ts): a repeated GET is answered from the cache
 * with the same bytes, a Content-Length that counts bytes (not characters), the same ETag, and never
 * after a write made it stale.
 */
import { startService, Running } from "../helpers/harness";

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
    expect(second.body.events.map((e: any) => e.title)).toContain("Café Ünïcode ☕");

    const updated = await svc.request("POST", `/events/${created.body.id}`, { as: "admin", body: { title: "Renamed" } });
    expect(updated.status).toBe(200);
    const third = await svc.get("/events");
    expect(third.body.events.map((e: any) => e.title)).toContain("Renamed");
    expect(third.headers.get("etag")).not.toBe(first.headers.get("etag"));
  });
});
