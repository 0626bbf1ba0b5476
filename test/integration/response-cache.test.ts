/**
 * The gateway's kept answers (cache/response-cache.ts): a repeated GET is answered from the cache
 * with the same bytes, a Content-Length that counts bytes (not characters), the same ETag, and never
 * after a write made it stale.
 */
import { startService, succeed, Running } from "../helpers/harness";
import type { Json } from "../helpers/json";
import { holdNext, holdNextOn, linkedOf } from "../helpers/hold";

describe("kept answers", () => {
  let svc: Running;
  // every answer computed (no stored renderings): the reads held below are held inside the computation, which
  // a stored answer skips (its reads across writes: test/integration/store-renderings.test.ts)
  beforeAll(async () => { svc = await startService({ RATE_LIMIT: "", STORED_RENDERINGS: "0" }); });
  afterAll(async () => { await svc.stop(); });

  test("the second GET: same bytes and ETag, a byte-exact Content-Length; a write makes the next one fresh", async () => {
    const day = new Date(Date.now() + 5 * 86400000).toISOString().slice(0, 10);
    const created = await svc.request("POST", "/events", { as: "admin", body: { title: "Café Ünïcode ☕", start_date: `${day} 10:00`, end_date: `${day} 11:00` } });
    expect(created.status).toBe(201);
    const first = await svc.get("/events");
    // the page, sent as the text the events service made of it, is kept by the ids it shows
    const keys = (await svc.broker.cacher!.getCacheKeys()).map(k => k.key);
    expect(keys.filter(k => k.includes(":B:") && k.endsWith(`,${(first.body.events as Json[]).map(e => e.id).join(",")},`))).toHaveLength(1);
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

  test("a page the action cache kept as text is sent with the validators it was computed with", async () => {
    const day = new Date(Date.now() + 7 * 86400000).toISOString().slice(0, 10);
    await succeed(svc, "POST", "/events", { title: "Kept as text", start_date: `${day} 10:00`, end_date: `${day} 11:00` });
    // a request with an Origin passes the gateway's kept answers: the second is the events service's kept text
    const read = () => svc.request("GET", "/events?per_page=3", { headers: { Origin: "https://calendar.example" } });
    const [first, second] = [await read(), await read()];
    const validators = (a: { text: string; headers: Headers }) => [a.text, a.headers.get("etag"), a.headers.get("last-modified"), a.headers.get("content-type")];
    expect(first.headers.get("last-modified")).toBeTruthy();
    expect(validators(second)).toEqual(validators(first));
    // and the same as the page sent without the action cache's help
    const plain = await svc.get("/events?per_page=3");
    expect(validators(plain)).toEqual(validators(first));
  });

  test("a read in flight across a write is answered but not kept: the read after the write's answer sees the write", async () => {
    const day = new Date(Date.now() + 6 * 86400000).toISOString().slice(0, 10);
    const venue = await succeed(svc, "POST", "/venues", { venue: "Slow Hall", status: "publish" });
    const event = await succeed(svc, "POST", "/events", { title: "Before", start_date: `${day} 10:00`, end_date: `${day} 11:00`, venue: venue.id });

    // an event's page (a kept answer of the gateway): held while it embeds its venue, after reading the event
    let hold = holdNext(svc.broker, "venues", "keptPerRecord");
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
    hold = holdNextOn(linkedOf(svc.broker, "venues").presenter, "many");
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

  test("a read of translations in flight across a translation write is not kept: the next read sees the write", async () => {
    const values = (language: string) => svc.broker.call("i18n.values", { type: "event", ids: [4242], language });
    const write = (title: string) => svc.broker.call("i18n.write", { type: "event", id: 4242, language: "fr", fields: { title }, originals: { title: "Original" }, original: "en" });
    await write("Avant");
    const hold = holdNext(svc.broker, "i18n", "readValues", { after: true });
    try {
      const inFlight = values("fr");
      await hold.reached;
      await write("Après");
      hold.release();
      expect(await inFlight).toEqual({ 4242: { title: "Avant" } }); // it was read before the write
      expect(await values("fr")).toEqual({ 4242: { title: "Après" } });
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
