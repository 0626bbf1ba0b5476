/**
 * Webhooks through HTTP (docs/webhooks.md, C63: what a webhook says), every delivery verified by a
 * receiver built on the `standardwebhooks` package: the routes and who may call them, the payload of
 * each record type's create, update and delete, `events` filters, retries on the (shortened) schedule,
 * `Retry-After`, 410, the manual retry, and the outbound address rules (loopback refused without
 * OUTBOUND_ALLOW_PRIVATE). Runs on PostgreSQL too (TEST_STORE=postgres).
 */
import { startService, Running } from "../helpers/harness";
import { dayAt, token } from "../helpers/events";
import { startReceiver, testSecret, Receiver, Received } from "../helpers/webhook-receiver";
import type { Json } from "../helpers/json";

let svc: Running;
let rx: Receiver;

/** The retry schedule of these tests (seconds). */
const SCHEDULE = [1, 1];

beforeAll(async () => {
  rx = await startReceiver();
  // The receiver runs in this test's process: on a loaded machine its answer can take seconds, and an attempt
  // that times out is made again (correct, at least once), which is not what these tests look at; no test
  // here relies on the timeout itself.
  svc = await startService({ OUTBOUND_ALLOW_PRIVATE: "1", WEBHOOK_POLL_MS: "100", WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(","), WEBHOOK_TIMEOUT_MS: "15000" });
});
afterAll(async () => {
  await svc?.stop();
  await rx?.close();
});
afterEach(() => {
  // every request the receiver got carried a valid Standard Webhooks signature
  expect(rx.rejected).toEqual([]);
});

async function ok(method: string, path: string, body?: Record<string, unknown>): Promise<Json> {
  const res = await svc.request(method, path, { as: "admin", body });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

/** A new endpoint at a receiver path of its own; answers its record and path. */
async function endpoint(opts: { events?: string[]; answer?: Parameters<Receiver["expect"]>[2] } = {}): Promise<{ hook: Json; path: string; secret: string }> {
  const path = `/hook-${token()}`;
  const secret = testSecret();
  rx.expect(path, secret, opts.answer);
  const hook = await ok("POST", `${svc.ns}/webhooks`, { url: rx.url(path), secret, ...(opts.events ? { events: opts.events } : {}) });
  return { hook, path, secret };
}

const summary = (list: Received[]) => list.map(r => `${r.body.type}:${r.body.data.id}`);

describe("endpoints", () => {
  test("create, read, list, update, new secret, delete; the secret is answered only on create and /secret", async () => {
    const secret = testSecret();
    const created = await svc.request("POST", `${svc.ns}/webhooks`, { as: "admin", body: { url: rx.url("/crud"), description: "CRUD" } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(["id", "url", "events", "description", "active", "secret", "created_utc"]);
    expect(created.body).toEqual(expect.objectContaining({ url: rx.url("/crud"), events: ["*"], description: "CRUD", active: true }));
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.body.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
    const id = created.body.id;

    const given = await ok("POST", `${svc.ns}/webhooks`, { url: rx.url("/crud2"), secret, events: ["event.created", "venue.*"] });
    expect(given.secret).toBe(secret);
    expect(given.events).toEqual(["event.created", "venue.*"]);

    const read = await svc.request("GET", `${svc.ns}/webhooks/${id}`, { as: "admin" });
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    expect(read.body.id).toBe(id);
    const list = await svc.request("GET", `${svc.ns}/webhooks`, { as: "admin" });
    expect(list.status).toBe(200);
    expect(list.body.map((h: Json) => h.id)).toEqual(expect.arrayContaining([id, given.id]));
    expect(list.body.every((h: Json) => h.secret === undefined)).toBe(true);

    const updated = await ok("POST", `${svc.ns}/webhooks/${id}`, { events: ["tag.deleted"], description: "Changed", active: "no" });
    expect(updated).toEqual(expect.objectContaining({ id, events: ["tag.deleted"], description: "Changed", active: false }));
    expect(updated.secret).toBeUndefined();

    const rotated = await svc.request("POST", `${svc.ns}/webhooks/${id}/secret`, { as: "admin" });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);

    const removed = await svc.request("DELETE", `${svc.ns}/webhooks/${id}`, { as: "admin" });
    expect(removed.status).toBe(200);
    await ok("DELETE", `${svc.ns}/webhooks/${given.id}`);
    // unknown ids (a removed endpoint's, one never made, a delivery of none): 404 with the contract's error JSON
    const gone = `${svc.ns}/webhooks/${id}`;
    for (const [method, path] of [["GET", gone], ["POST", gone], ["DELETE", gone], ["POST", `${gone}/secret`], ["GET", `${gone}/deliveries`],
      ["GET", `${svc.ns}/webhooks/999999`], ["POST", `${svc.ns}/webhooks/999999/deliveries/msg_999999_1/retry`]]) {
      const res = await svc.request(method, path, { as: "admin", body: method === "POST" && !path.endsWith("/secret") && !path.endsWith("/retry") ? { description: "x" } : undefined });
      expect([method, path, res.status, Object.keys(res.body), res.body.code, res.body.data.status]).toEqual([method, path, 404, ["code", "message", "data"], "rest_no_route", 404]);
    }
  });

  test("administrators only: other roles 403 rest_forbidden, anonymous 401", async () => {
    const { hook } = await endpoint();
    for (const as of ["editor", "author", "subscriber"] as const) {
      for (const [method, path] of [["GET", `${svc.ns}/webhooks`], ["POST", `${svc.ns}/webhooks`], ["GET", `${svc.ns}/webhooks/${hook.id}`], ["GET", `${svc.ns}/webhooks/${hook.id}/deliveries`], ["POST", `${svc.ns}/webhooks/${hook.id}/secret`]]) {
        const res = await svc.request(method, path, { as, body: method === "POST" ? { url: rx.url("/x") } : undefined });
        expect([as, method, path, res.status, res.body.code]).toEqual([as, method, path, 403, "rest_forbidden"]);
      }
    }
    const anon = await svc.request("GET", `${svc.ns}/webhooks`);
    expect([anon.status, anon.body.code]).toEqual([401, "rest_forbidden"]);
    await ok("DELETE", `${svc.ns}/webhooks/${hook.id}`);
  });

  test("bad input is 400 rest_invalid_param naming the parameter", async () => {
    for (const [body, param] of [
      [{ url: "ftp://example.com/hook" }, "url"],
      [{ url: "not a url" }, "url"],
      [{ url: rx.url("/bad"), events: ["event.exploded"] }, "events"],
      [{ url: rx.url("/bad"), events: [] }, "events"],
      [{ url: rx.url("/bad"), secret: "whsec_c2hvcnQ=" }, "secret"],
      [{ url: rx.url("/bad"), secret: "plain" }, "secret"]
    ] as Array<[Record<string, unknown>, string]>) {
      const res = await svc.request("POST", `${svc.ns}/webhooks`, { as: "admin", body });
      expect([JSON.stringify(body), res.status, res.body.code, Object.keys(res.body.data.params ?? {})]).toEqual([JSON.stringify(body), 400, "rest_invalid_param", [param]]);
    }
    const missing = await svc.request("POST", `${svc.ns}/webhooks`, { as: "admin", body: {} });
    expect(missing.status).toBe(400);
  });

  // Loopback spellings only: were the rule wrong, an endpoint made here must never send a delivery beyond
  // this machine. Private, link-local and unique-local ranges are checked without a socket
  // (test/unit/outbound-addresses.test.ts).
  test("loopback destinations are refused without OUTBOUND_ALLOW_PRIVATE (the setting lifts the rule)", async () => {
    const { readSettings, useSettings, deploymentSettings } = require("../../lib/settings");
    const allowed = deploymentSettings();
    useSettings({ ...readSettings(process.env), outboundAllowPrivate: false });
    try {
      for (const url of [rx.url("/loop"), "http://localhost:9/hook", "http://127.0.0.2:9/hook", "http://0x7f.1:9/hook", "http://[::1]:9/hook", "http://[::ffff:127.0.0.1]:9/hook"]) {
        const res = await svc.request("POST", `${svc.ns}/webhooks`, { as: "admin", body: { url } });
        expect([url, res.status, res.body.code, Object.keys(res.body.data.params ?? {})]).toEqual([url, 400, "rest_invalid_param", ["url"]]);
      }
    } finally {
      useSettings(allowed);
    }
    // with the setting, the same loopback address is accepted
    const res = await svc.request("POST", `${svc.ns}/webhooks`, { as: "admin", body: { url: rx.url("/loop") } });
    expect(res.status).toBe(201);
    await ok("DELETE", `${svc.ns}/webhooks/${res.body.id}`);
  });
});

describe("deliveries", () => {
  test("create, update and delete of each record type arrive with the contract's payload, signed", async () => {
    const { hook, path } = await endpoint();
    const ev = await ok("POST", "/events", { title: `Hooked ${token()}`, start_date: dayAt(3, "10:00:00"), end_date: dayAt(3, "11:00:00") });
    // the record is rendered when its change is fanned out, not in the write's transaction (docs/webhooks.md,
    // known limit): the rename waits for the create's delivery, so the created record is the one as created
    await rx.waitFor(() => summary(rx.received(path)).includes(`event.created:${ev.id}`), 20_000, `event.created:${ev.id}`);
    await ok("POST", `/events/${ev.id}`, { title: "Hooked, renamed" });
    await ok("DELETE", `/events/${ev.id}`);
    const venue = await ok("POST", "/venues", { venue: `Hall ${token()}` });
    await ok("POST", `/venues/${venue.id}`, { city: "Lisbon" });
    await ok("DELETE", `/venues/${venue.id}`);
    const org = await ok("POST", "/organizers", { organizer: `Org ${token()}` });
    await ok("POST", `/organizers/${org.id}`, { phone: "123" });
    await ok("DELETE", `/organizers/${org.id}`);
    const cat = await ok("POST", "/categories", { name: `Cat ${token()}` });
    await ok("POST", `/categories/${cat.id}`, { description: "Described" });
    // a term deleted before its update is fanned out has nothing left to render (the same known limit)
    await rx.waitFor(() => summary(rx.received(path)).includes(`category.updated:${cat.id}`), 20_000, `category.updated:${cat.id}`);
    await ok("DELETE", `/categories/${cat.id}`);
    const tag = await ok("POST", "/tags", { name: `Tag ${token()}` });
    await ok("POST", `/tags/${tag.id}`, { description: "Described" });
    await ok("DELETE", `/tags/${tag.id}`);

    const expected = [ev, venue, org, cat, tag].flatMap((r, i) => ["created", "updated", "deleted"].map(a => `${["event", "venue", "organizer", "category", "tag"][i]}.${a}:${r.id}`));
    await rx.waitFor(() => expected.every(e => summary(rx.received(path)).includes(e)), 45_000, `${expected.join(" ")}; got ${summary(rx.received(path)).join(" ")}`);
    const got = rx.received(path);
    // one delivery per change, each once (no crash here); a change the service makes itself (the
    // geolocation service writing a venue's coordinates back) is a change of its own
    const mine = got.filter(r => expected.includes(`${r.body.type}:${r.body.data.id}`));
    expect([...new Set(summary(mine))].sort()).toEqual([...expected].sort());
    expect(new Set(mine.map(r => r.id)).size).toBe(mine.length);
    expect(new Set(mine.map(r => r.body.data.sequence)).size).toBe(mine.length);
    for (const r of mine) {
      expect(Object.keys(r.body)).toEqual(["type", "timestamp", "data"]);
      expect(r.body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["user-agent"]).toMatch(/^calendar-events\//);
      expect(r.id).toMatch(/^\S+$/);
      expect(Math.abs(r.timestamp * 1000 - r.at)).toBeLessThan(5000);
      const type = r.body.type.split(".")[0];
      const plural = { event: "events", venue: "venues", organizer: "organizers", category: "categories", tag: "tags" }[type];
      expect(r.body.data.rest_url).toBe(`${svc.ns}/${plural}/${r.body.data.id}`.replace("127.0.0.1", "localhost"));
      expect(Number.isInteger(r.body.data.sequence)).toBe(true);
      if (r.body.type.endsWith(".deleted")) expect(r.body.data.record).toBeUndefined();
      // a term deleted before its earlier changes were fanned out is gone for good: nothing to render
      else if (r.body.data.record !== undefined || !["category", "tag"].includes(type)) expect(r.body.data.record).toEqual(expect.objectContaining({ id: r.body.data.id }));
    }
    const seqOf = (e: string) => mine.find(r => `${r.body.type}:${r.body.data.id}` === e)!.body.data.sequence;
    // per record, in feed order
    for (const id of new Set(mine.map(r => `${r.body.type.split(".")[0]}:${r.body.data.id}`))) {
      const seqs = mine.filter(r => `${r.body.type.split(".")[0]}:${r.body.data.id}` === id).map(r => r.body.data.sequence);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
    for (let i = 0; i < expected.length; i += 3) {
      expect(seqOf(expected[i])).toBeLessThan(seqOf(expected[i + 1]));
      expect(seqOf(expected[i + 1])).toBeLessThan(seqOf(expected[i + 2]));
    }
    // the record as an administrator reads it right after the change
    const created = mine.find(r => r.body.type === "event.created")!;
    expect(created.body.data.record!.title).toMatch(/^Hooked /);
    expect(mine.find(r => r.body.type === "event.updated")!.body.data.record!.title).toBe("Hooked, renamed");
    expect(mine.filter(r => r.body.type === "venue.updated").map(r => r.body.data.record!.city)).toContain("Lisbon");
    expect(mine.find(r => r.body.type === "category.updated")!.body.data.record!.description).toBe("Described");

    // the delivery log: newest first, each delivered once (a delivery is marked delivered once its answer
    // is back, which may be just after the receiver has it: the log is read again until it says so)
    const readLog = () => svc.request("GET", `${svc.ns}/webhooks/${hook.id}/deliveries?per_page=50`, { as: "admin" });
    let log = await readLog();
    for (let tries = 0; tries < 50 && log.body.some?.((d: Json) => expected.includes(`${d.type}:${d.record_id}`) && d.status !== "delivered"); tries++) {
      await new Promise(r => setTimeout(r, 100));
      log = await readLog();
    }
    expect(log.status).toBe(200);
    expect(Object.keys(log.body[0])).toEqual(["id", "type", "record_id", "status", "attempts", "last_status_code", "next_attempt_utc", "delivered_utc"]);
    const logged = log.body.filter((d: Json) => expected.includes(`${d.type}:${d.record_id}`));
    expect(logged).toHaveLength(mine.length);
    expect(logged.every((d: Json) => d.status === "delivered" && d.attempts === 1 && d.last_status_code === 200 && d.next_attempt_utc === null)).toBe(true);
    expect(new Set(logged.map((d: Json) => d.id))).toEqual(new Set(mine.map(r => r.id)));
    await ok("DELETE", `${svc.ns}/webhooks/${hook.id}`);
  });

  test("each delivery's record is the record as it stood right after its change (context=edit, default language)", async () => {
    const { hook, path } = await endpoint({ events: ["event.*"] });
    const ev = await ok("POST", "/events", { title: `First ${token()}`, start_date: dayAt(3, "10:00:00"), end_date: dayAt(3, "11:00:00"), status: "draft" });
    await rx.waitFor(() => rx.received(path).length >= 1);
    await ok("POST", `/events/${ev.id}?i18n_language=fr`, { title: "Titre français" });
    await rx.waitFor(() => rx.received(path).length >= 2);
    await ok("POST", `/events/${ev.id}`, { title: "Second", status: "publish" });
    await rx.waitFor(() => rx.received(path).length >= 3);
    const [first, second, third] = rx.received(path).map(r => r.body);
    expect([first.type, second.type, third.type]).toEqual(["event.created", "event.updated", "event.updated"]);
    expect([first.data.record!.title, first.data.record!.status]).toEqual([ev.title, "draft"]);
    // a write in another language: the record in the site's default language
    expect(second.data.record!.title).toBe(ev.title);
    expect([third.data.record!.title, third.data.record!.status]).toEqual(["Second", "publish"]);
    // as an administrator reads it (a single event's page adds its JSON-LD, as lists do not)
    const { json_ld: _jsonLd, ...read } = await ok("GET", `/events/${ev.id}?context=edit`);
    expect(third.data.record).toEqual(read);
    expect(third.data.rest_url).toBe(read.rest_url);
    await ok("DELETE", `${svc.ns}/webhooks/${hook.id}`);
  });

  test("events filters: only the matching changes arrive", async () => {
    const venuesOnly = await endpoint({ events: ["venue.*", "event.deleted"] });
    const everything = await endpoint();
    const ev = await ok("POST", "/events", { title: `Filtered ${token()}`, start_date: dayAt(3, "10:00:00"), end_date: dayAt(3, "11:00:00") });
    const venue = await ok("POST", "/venues", { venue: `Filtered ${token()}` });
    await ok("DELETE", `/events/${ev.id}`);
    await rx.waitFor(() => rx.received(everything.path).length >= 3);
    await rx.waitFor(() => rx.received(venuesOnly.path).length >= 2);
    await new Promise(r => setTimeout(r, 500));
    expect(summary(rx.received(venuesOnly.path))).toEqual([`venue.created:${venue.id}`, `event.deleted:${ev.id}`]);
    expect(summary(rx.received(everything.path))).toEqual([`event.created:${ev.id}`, `venue.created:${venue.id}`, `event.deleted:${ev.id}`]);
    await ok("DELETE", `${svc.ns}/webhooks/${venuesOnly.hook.id}`);
    await ok("DELETE", `${svc.ns}/webhooks/${everything.hook.id}`);
  });

  test("a receiver failing twice, then answering 200, gets three attempts on the schedule, one webhook-id", async () => {
    const { hook, path } = await endpoint({ answer: ({ n }) => (n <= 2 ? 500 : 200) });
    const tag = await ok("POST", "/tags", { name: `Flaky ${token()}` });
    await rx.waitFor(() => rx.received(path).length >= 3, 20_000);
    const got = rx.received(path);
    expect(got.map(r => r.status)).toEqual([500, 500, 200]);
    expect(new Set(got.map(r => r.id)).size).toBe(1);
    expect(new Set(got.map(r => r.raw)).size).toBe(1);
    expect(got[0].body.data.id).toBe(tag.id);
    // each retry after its delay of the schedule (1 s, with up to 10 % jitter either way)
    for (let i = 1; i < 3; i++) {
      const gap = got[i].at - got[i - 1].at;
      expect(gap).toBeGreaterThanOrEqual(SCHEDULE[i - 1] * 900 - 50);
      expect(gap).toBeLessThan(SCHEDULE[i - 1] * 1100 + 1500);
    }
    await new Promise(r => setTimeout(r, 300));
    const [d] = (await svc.request("GET", `${svc.ns}/webhooks/${hook.id}/deliveries`, { as: "admin" })).body;
    expect(d).toEqual(expect.objectContaining({ id: got[0].id, type: "tag.created", record_id: tag.id, status: "delivered", attempts: 3, last_status_code: 200, next_attempt_utc: null }));
    expect(d.delivered_utc).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    await ok("DELETE", `${svc.ns}/webhooks/${hook.id}`);
  });

  test("Retry-After on 429 is honoured", async () => {
    const { hook, path } = await endpoint({ answer: ({ n }) => (n === 1 ? { status: 429, headers: { "Retry-After": "3" } } : 200) });
    await ok("POST", "/tags", { name: `Busy ${token()}` });
    await rx.waitFor(() => rx.received(path).length >= 2, 20_000);
    const [first, second] = rx.received(path);
    expect(second.at - first.at).toBeGreaterThanOrEqual(2900);
    await ok("DELETE", `${svc.ns}/webhooks/${hook.id}`);
  });

  test("410 makes the endpoint inactive, with the reason shown; nothing more is sent to it", async () => {
    const { hook, path } = await endpoint({ answer: () => 410 });
    await ok("POST", "/tags", { name: `Gone ${token()}` });
    await rx.waitFor(() => rx.received(path).length >= 1);
    let read: Json = {};
    for (let i = 0; i < 100 && read.active !== false; i++) {
      read = (await svc.request("GET", `${svc.ns}/webhooks/${hook.id}`, { as: "admin" })).body;
      if (read.active !== false) await new Promise(r => setTimeout(r, 50));
    }
    expect(read.active).toBe(false);
    expect(read.failure_reason).toMatch(/410/);
    await ok("POST", "/tags", { name: `Gone again ${token()}` });
    await new Promise(r => setTimeout(r, 1000));
    expect(rx.received(path)).toHaveLength(1);
    const [d] = (await svc.request("GET", `${svc.ns}/webhooks/${hook.id}/deliveries`, { as: "admin" })).body;
    expect(d).toEqual(expect.objectContaining({ status: "failed", attempts: 1, last_status_code: 410 }));
    // made active again by hand: the reason goes
    const again = await ok("POST", `${svc.ns}/webhooks/${hook.id}`, { active: true });
    expect(again.active).toBe(true);
    expect(again.failure_reason).toBeUndefined();
    await ok("DELETE", `${svc.ns}/webhooks/${hook.id}`);
  });

  test("a failed delivery (schedule spent) is sent again now by the manual retry", async () => {
    let healthy = false;
    const { hook, path } = await endpoint({ answer: () => (healthy ? 200 : 503) });
    const tag = await ok("POST", "/tags", { name: `Retry ${token()}` });
    await rx.waitFor(() => rx.received(path).length >= SCHEDULE.length + 1, 20_000);
    let d: Json = {};
    for (let i = 0; i < 100 && d.status !== "failed"; i++) {
      d = (await svc.request("GET", `${svc.ns}/webhooks/${hook.id}/deliveries`, { as: "admin" })).body[0];
      if (d.status !== "failed") await new Promise(r => setTimeout(r, 50));
    }
    expect(d).toEqual(expect.objectContaining({ type: "tag.created", record_id: tag.id, status: "failed", attempts: SCHEDULE.length + 1, last_status_code: 503, next_attempt_utc: null }));
    healthy = true;
    const before = rx.received(path).length;
    const retried = await svc.request("POST", `${svc.ns}/webhooks/${hook.id}/deliveries/${d.id}/retry`, { as: "admin" });
    expect(retried.status).toBe(202);
    expect(retried.body.status).toBe("pending");
    await rx.waitFor(() => rx.received(path).length > before, 5000);
    const last = rx.received(path).at(-1)!;
    expect([last.id, last.status]).toEqual([d.id, 200]);
    for (let i = 0; i < 100 && d.status !== "delivered"; i++) {
      d = (await svc.request("GET", `${svc.ns}/webhooks/${hook.id}/deliveries`, { as: "admin" })).body[0];
      if (d.status !== "delivered") await new Promise(r => setTimeout(r, 50));
    }
    expect(d).toEqual(expect.objectContaining({ status: "delivered", attempts: SCHEDULE.length + 2, last_status_code: 200 }));
    // ids that name no delivery of this endpoint, whatever their spelling: 404
    const seq = /_(\d+)$/.exec(d.id)![1];
    for (const unknown of [`msg_${hook.id + 1000}_${seq}`, `msg_${hook.id}_${Number(seq) + 1000}`, "not-a-delivery"]) {
      const res = await svc.request("POST", `${svc.ns}/webhooks/${hook.id}/deliveries/${unknown}/retry`, { as: "admin" });
      expect([unknown, res.status, res.body.code]).toEqual([unknown, 404, "rest_no_route"]);
    }
    await ok("DELETE", `${svc.ns}/webhooks/${hook.id}`);
  });

  test("changes made before an endpoint existed are not its; a deleted endpoint gets nothing more", async () => {
    const early = await ok("POST", "/tags", { name: `Early ${token()}` });
    const { hook, path } = await endpoint();
    const late = await ok("POST", "/tags", { name: `Late ${token()}` });
    await rx.waitFor(() => rx.received(path).length >= 1);
    await new Promise(r => setTimeout(r, 300));
    expect(summary(rx.received(path))).toEqual([`tag.created:${late.id}`]);
    expect(early.id).toBeLessThan(late.id);
    await ok("DELETE", `${svc.ns}/webhooks/${hook.id}`);
    await ok("POST", "/tags", { name: `After ${token()}` });
    await new Promise(r => setTimeout(r, 600));
    expect(rx.received(path)).toHaveLength(1);
  });
});
