/**
 * Webhooks as receivers and operators meet them (docs/webhooks.md): an endpoint made inactive is sent
 * nothing more; any 2xx delivers whatever its body; the record of each delivery is the record as of its
 * change (C63: what a webhook says) whatever the fan-out's delay (the receiver down, the webhooks service stopped); an address
 * refused only after resolution fails at once; an idempotent create keeps no secret in the idempotency
 * store; secret rotation with an overlap (a `standardwebhooks` receiver holding either secret); ping, the
 * log's filters and replay; the retention of deliveries and payloads; a site made through the platform API
 * served at once, and its webhook data purged with it. Runs on PostgreSQL too (TEST_STORE=postgres).
 */
import * as http from "http";
import { Webhook } from "standardwebhooks";
import { startService, Running } from "../helpers/harness";
import { dayAt, token } from "../helpers/events";
import { startReceiver, testSecret, Receiver, Received } from "../helpers/webhook-receiver";
import type { Json } from "../helpers/json";
import WebhooksService from "../../services/webhooks.service";
import { acquireStore, releaseStore } from "../../store";
import { storeConfig } from "../../mixins/store.mixin";

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
});
afterEach(() => {
  expect(rx.rejected).toEqual([]);
});

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

async function ok(svc: Running, method: string, path: string, body?: Record<string, unknown>, headers?: Record<string, string>): Promise<Json> {
  const res = await svc.request(method, path, { as: "admin", body, headers });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

async function endpoint(svc: Running, opts: { events?: string[]; answer?: Parameters<Receiver["expect"]>[2]; secret?: string } = {}): Promise<{ hook: Json; path: string; secret: string }> {
  const path = `/ops-${token()}`;
  const secret = opts.secret ?? testSecret();
  rx.expect(path, secret, opts.answer);
  const hook = await ok(svc, "POST", `${svc.ns}/webhooks`, { url: rx.url(path), secret, ...(opts.events ? { events: opts.events } : {}) });
  return { hook, path, secret };
}

async function log(svc: Running, id: number, query = ""): Promise<Json[]> {
  return (await ok(svc, "GET", `${svc.ns}/webhooks/${id}/deliveries?per_page=50${query}`)) as Json[];
}

/** Polls `read` until `pred` holds (or throws after `ms`). */
async function until<T>(read: () => Promise<T>, pred: (v: T) => boolean, ms = 15_000, what = "the condition"): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (pred(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await sleep(50);
  }
}

const delivered = (list: Received[]) => list.filter(r => r.status >= 200 && r.status < 300);

describe("deliveries", () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await startService({ OUTBOUND_ALLOW_PRIVATE: "1", WEBHOOK_POLL_MS: "100", WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1,1", WEBHOOK_SECRET_KEY: "operators-test-key" });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
  });

  test("an endpoint made inactive is sent nothing more, not even a retry already scheduled", async () => {
    const { hook, path } = await endpoint(svc, { answer: () => 503 });
    await ok(svc, "POST", "/tags", { name: `Inactive ${token()}` });
    await rx.waitFor(() => rx.received(path).length >= 1);
    await ok(svc, "POST", `${svc.ns}/webhooks/${hook.id}`, { active: false });
    const seen = rx.received(path).length;
    // the schedule would have retried every second
    await sleep(3000);
    expect(rx.received(path).length).toBe(seen);
    const [d] = await log(svc, hook.id);
    expect([d.status, d.next_attempt_utc]).toEqual(["failed", null]);
  });

  test("any 2xx within the timeout delivers, whatever the body (100 KB here): one attempt", async () => {
    const { hook, path } = await endpoint(svc, { answer: () => ({ status: 200, body: "x".repeat(100 * 1024) }) });
    const tag = await ok(svc, "POST", "/tags", { name: `Big answer ${token()}` });
    await rx.waitFor(() => rx.received(path).length >= 1);
    const [d] = await until(() => log(svc, hook.id), l => l[0]?.status !== "pending", 10_000, "the delivery's end");
    expect(d).toEqual(expect.objectContaining({ record_id: tag.id, status: "delivered", attempts: 1, last_status_code: 200 }));
    await sleep(1500);
    expect(rx.received(path)).toHaveLength(1);
  });

  test("C63: the receiver down while an event is renamed twice and trashed: three deliveries once it is back, as of each change, in sequence order", async () => {
    let up = true;
    const { path } = await endpoint(svc, { events: ["event.*"], answer: () => (up ? 200 : 503) });
    const ev = await ok(svc, "POST", "/events", { title: `Start ${token()}`, start_date: dayAt(4, "10:00:00"), end_date: dayAt(4, "11:00:00"), status: "publish" });
    await rx.waitFor(() => delivered(rx.received(path)).length >= 1);
    up = false;
    // and the fan-out late: a node that died holding its lease (2 s here) has the next changes fanned out after all three
    const store = await acquireStore(storeConfig());
    try {
      await store.collection("webhook_cursor", []).updateOne({ _id: 1 }, { $set: { lease_until: Date.now() + 2000, owner: "a node that died" } });
    } finally {
      await releaseStore(storeConfig());
    }
    await ok(svc, "POST", `/events/${ev.id}`, { title: "one" });
    await ok(svc, "POST", `/events/${ev.id}`, { title: "two" });
    await ok(svc, "DELETE", `/events/${ev.id}`);
    await rx.waitFor(() => rx.received(path).some(r => r.status === 503));
    await sleep(500);
    up = true;
    await rx.waitFor(() => new Set(delivered(rx.received(path)).map(r => r.id)).size >= 4, 30_000, "the three changes' deliveries");
    const got = [...new Map(delivered(rx.received(path)).slice(1).map(r => [r.id, r])).values()].sort((a, b) => a.body.data.sequence - b.body.data.sequence);
    expect(got.map(r => [r.body.type, r.body.data.record?.title, r.body.data.record?.status])).toEqual([
      ["event.updated", "one", "publish"], ["event.updated", "two", "publish"], ["event.deleted", undefined, undefined]
    ]);
    // and in that order at the receiver
    expect(got.map(r => r.at)).toEqual([...got.map(r => r.at)].sort((a, b) => a - b));
  });

  test("C63: the webhooks service stopped while an event is renamed twice and trashed, then started: the two names and the trash, each record as its change left it, in sequence order", async () => {
    const { path } = await endpoint(svc, { events: ["event.*"] });
    const ev = await ok(svc, "POST", "/events", { title: `Before ${token()}`, start_date: dayAt(4, "12:00:00"), end_date: dayAt(4, "13:00:00"), status: "publish" });
    await rx.waitFor(() => rx.received(path).length >= 1);
    await svc.broker.destroyService(svc.broker.getLocalService("webhooks")!);
    // as an administrator reads the event right after each change (a single event's page adds its JSON-LD, as
    // a delivery's record does not)
    const asRead = async () => {
      const { json_ld: _jsonLd, ...read } = await ok(svc, "GET", `/events/${ev.id}?context=edit`);
      return read;
    };
    await ok(svc, "POST", `/events/${ev.id}`, { title: "first name" });
    const afterFirst = await asRead();
    // the clock moves on between the changes, so each record's modified time tells them apart
    await sleep(1100);
    await ok(svc, "POST", `/events/${ev.id}`, { title: "second name", description: "Described on the second change" });
    const afterSecond = await asRead();
    await ok(svc, "DELETE", `/events/${ev.id}`);
    expect(rx.received(path)).toHaveLength(1);
    const made = svc.broker.createService(WebhooksService);
    await svc.broker.waitForServices(["webhooks"]);
    expect(made).toBeDefined();
    await rx.waitFor(() => rx.received(path).length >= 4, 30_000, "the three changes' deliveries");
    // nothing more comes: one delivery per change
    await sleep(1000);
    const got = rx.received(path).slice(1);
    expect(got).toHaveLength(3);
    expect(new Set(got.map(r => r.id)).size).toBe(3);
    // sent in the feed's order, each with a higher sequence than the one before
    const seqs = got.map(r => r.body.data.sequence);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(3);
    expect(seqs[0]).toBeGreaterThan(rx.received(path)[0].body.data.sequence);
    expect(got.map(r => [r.body.type, r.body.data.id, r.body.data.record?.title])).toEqual([
      ["event.updated", ev.id, "first name"], ["event.updated", ev.id, "second name"], ["event.deleted", ev.id, undefined]
    ]);
    // each record whole as that change left it, not the trashed record the fan-out finds when it runs
    expect(afterFirst.modified).not.toBe(afterSecond.modified);
    expect(got[0].body.data.record).toEqual(afterFirst);
    expect(got[1].body.data.record).toEqual(afterSecond);
    expect(got[2].body.data.record).toBeUndefined();
  });

  test("an address refused only once its name resolves fails the delivery at once (no retry schedule)", async () => {
    const { readSettings, useSettings, deploymentSettings } = require("../../lib/settings");
    const allowed = deploymentSettings();
    const webhooks = svc.broker.getLocalService("webhooks") as unknown as { resolver?: unknown };
    // the name resolves to loopback (a stub: no lookup leaves this machine, no socket is opened)
    webhooks.resolver = async () => [{ address: "127.0.0.1", family: 4 }];
    useSettings({ ...readSettings(process.env), outboundAllowPrivate: false });
    try {
      const hook = await ok(svc, "POST", `${svc.ns}/webhooks`, { url: "http://hooks.refused.test/in", secret: testSecret() });
      await ok(svc, "POST", "/tags", { name: `Refused ${token()}` });
      const [d] = await until(() => log(svc, hook.id), l => l[0]?.status === "failed", 10_000, "a failed delivery");
      expect(d).toEqual(expect.objectContaining({ status: "failed", attempts: 1, last_status_code: null, next_attempt_utc: null }));
    } finally {
      useSettings(allowed);
      webhooks.resolver = undefined;
    }
  });

  test("an idempotent create keeps no secret in the idempotency store; a repeat answers the same secret", async () => {
    const key = `hook-${token()}`;
    const secret = testSecret();
    rx.expect("/idem", secret);
    const body = { url: rx.url("/idem"), secret };
    const first = await svc.request("POST", `${svc.ns}/webhooks`, { as: "admin", body, headers: { "Idempotency-Key": key } });
    expect(first.status).toBe(201);
    const again = await svc.request("POST", `${svc.ns}/webhooks`, { as: "admin", body, headers: { "Idempotency-Key": key } });
    expect([again.status, again.body.id, again.body.secret]).toEqual([201, first.body.id, secret]);
    const store = await acquireStore(storeConfig());
    try {
      const kept = JSON.stringify(await store.collection("idempotency_keys", []).find({}));
      expect(kept).not.toContain(secret.slice("whsec_".length));
      const endpoints = JSON.stringify(await store.collection("webhooks", []).find({}));
      // WEBHOOK_SECRET_KEY is set: the endpoint's secret is sealed too
      expect(endpoints).not.toContain(secret.slice("whsec_".length));
    } finally {
      await releaseStore(storeConfig());
    }
  });

  test("secret rotation with an overlap: either secret verifies meanwhile, only the new one after (the clock moved on)", async () => {
    const { hook, path, secret: old } = await endpoint(svc);
    const rotated = await svc.request("POST", `${svc.ns}/webhooks/${hook.id}/secret`, { as: "admin", body: { overlap_hours: 2 } });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(old);
    const verifies = (r: Received, secret: string) => {
      try {
        new Webhook(secret).verify(r.raw, r.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    };
    expect((await svc.request("POST", `${svc.ns}/webhooks/${hook.id}/ping`, { as: "admin" })).status).toBe(202);
    await rx.waitFor(() => rx.received(path).length >= 1);
    const during = rx.received(path)[0];
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect([verifies(during, old), verifies(during, fresh)]).toEqual([true, true]);
    const real = Date.now.bind(Date);
    const spy = jest.spyOn(Date, "now").mockImplementation(() => real() + 3 * 3_600_000);
    try {
      rx.expect(path, fresh);
      expect((await svc.request("POST", `${svc.ns}/webhooks/${hook.id}/ping`, { as: "admin" })).status).toBe(202);
      await rx.waitFor(() => rx.received(path).length >= 2);
      // verified on the moved clock (a receiver checks the timestamp against its own)
      const after = rx.received(path)[1];
      expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(1);
      expect([verifies(after, old), verifies(after, fresh)]).toEqual([false, true]);
    } finally {
      spy.mockRestore();
    }
    // overlap 0: the old one stops at once
    const now0 = await ok(svc, "POST", `${svc.ns}/webhooks/${hook.id}/secret`, { overlap_hours: 0 });
    rx.expect(path, now0.secret);
    await ok(svc, "POST", `${svc.ns}/webhooks/${hook.id}/ping`);
    await rx.waitFor(() => rx.received(path).length >= 3);
    expect([verifies(rx.received(path)[2], fresh), verifies(rx.received(path)[2], now0.secret)]).toEqual([false, true]);
  });

  test("ping, the delivery log's filters, and replay of a period (fresh ids, the record as of each change)", async () => {
    const { hook, path } = await endpoint(svc, { events: ["tag.*"] });
    const ping = await svc.request("POST", `${svc.ns}/webhooks/${hook.id}/ping`, { as: "admin" });
    expect([ping.status, ping.body.type, ping.body.status]).toEqual([202, "webhook.ping", "pending"]);
    await rx.waitFor(() => rx.received(path).length >= 1);
    const pinged = rx.received(path)[0];
    expect(pinged.id).toBe(ping.body.id);
    expect(pinged.body).toEqual({ type: "webhook.ping", timestamp: expect.stringMatching(/Z$/), data: { webhook_id: hook.id } });
    const from = new Date(Date.now() - 1000).toISOString();
    const tag = await ok(svc, "POST", "/tags", { name: `Replayed ${token()}` });
    await ok(svc, "POST", `/tags/${tag.id}`, { name: `Replayed again ${token()}` });
    await rx.waitFor(() => rx.received(path).length >= 3);
    const originals = rx.received(path).slice(1);
    await until(() => log(svc, hook.id), l => l.every(d => d.status === "delivered"), 10_000, "the deliveries' ends");
    // filters
    expect((await log(svc, hook.id, "&type=webhook.ping")).map(d => d.id)).toEqual([ping.body.id]);
    expect((await log(svc, hook.id, "&type=tag.updated")).map(d => d.record_id)).toEqual([tag.id]);
    expect((await log(svc, hook.id, "&status=failed"))).toEqual([]);
    expect((await log(svc, hook.id, "&status=delivered"))).toHaveLength(3);
    expect((await log(svc, hook.id, `&before=${encodeURIComponent(from)}`))).toEqual([]);
    expect((await log(svc, hook.id, `&after=${encodeURIComponent(from)}`))).toHaveLength(3);
    // replay
    const to = new Date(Date.now() + 1000).toISOString();
    const replay = await svc.request("POST", `${svc.ns}/webhooks/${hook.id}/replay`, { as: "admin", body: { after: from, before: to } });
    expect([replay.status, replay.body]).toEqual([202, { queued: 2 }]);
    await rx.waitFor(() => rx.received(path).length >= 5);
    const replayed = rx.received(path).slice(3).sort((a, b) => a.body.data.sequence - b.body.data.sequence);
    expect(replayed.map(r => [r.body.type, r.body.data.sequence, r.body.data.record?.name, (r.body.data as { replay?: boolean }).replay])).toEqual(
      originals.map(r => [r.body.type, r.body.data.sequence, r.body.data.record?.name, true]));
    for (const r of replayed) expect(originals.map(o => o.id)).not.toContain(r.id);
    const marked = await until(() => log(svc, hook.id), l => l.length === 5, 5000, "the replays in the log");
    expect(marked.filter(d => d.replay === true)).toHaveLength(2);
    // bad input: 400 naming the parameter
    const missing = await svc.request("POST", `${svc.ns}/webhooks/${hook.id}/replay`, { as: "admin", body: { before: to } });
    expect([missing.status, missing.body.code, missing.body.data.params]).toEqual([400, "rest_missing_callback_param", ["after"]]);
    for (const [route, body, param] of [
      ["replay", { after: "yesterday", before: to }, "after"], ["replay", { after: to, before: from }, "before"],
      ["secret", { overlap_hours: -1 }, "overlap_hours"], ["secret", { overlap_hours: "soon" }, "overlap_hours"]
    ] as Array<[string, Record<string, unknown>, string]>) {
      const res = await svc.request("POST", `${svc.ns}/webhooks/${hook.id}/${route}`, { as: "admin", body });
      expect([route, res.status, res.body.code, Object.keys(res.body.data.params ?? {})]).toEqual([route, 400, "rest_invalid_param", [param]]);
    }
    for (const [query, param] of [["status=gone", "status"], ["type=event.exploded", "type"], ["after=last+week", "after"], ["before=2026-13-01", "before"]]) {
      const res = await svc.request("GET", `${svc.ns}/webhooks/${hook.id}/deliveries?${query}`, { as: "admin" });
      expect([query, res.status, res.body.code, Object.keys(res.body.data.params ?? {})]).toEqual([query, 400, "rest_invalid_param", [param]]);
    }
    // administrators only
    for (const [method, route] of [["POST", "ping"], ["POST", "replay"]]) {
      const res = await svc.request(method, `${svc.ns}/webhooks/${hook.id}/${route}`, { as: "editor", body: { after: from, before: to } });
      expect([route, res.status, res.body.code]).toEqual([route, 403, "rest_forbidden"]);
    }
  });

  test("PostgreSQL: the webhooks' statements run on a pool of their own", () => {
    const handle = (name: string) => (svc.broker.getLocalService(name) as unknown as { storeHandle?: { sql?: unknown; kind: string } }).storeHandle!;
    const own = handle("webhooks");
    if (own.kind === "postgres") expect(own.sql).not.toBe(handle("events").sql);
    else expect(own.sql).toBe(handle("events").sql);
  });
});

describe("retention and sites", () => {
  const PLATFORM_KEY = "pk-webhooks-ops";
  let svc: Running;
  beforeAll(async () => {
    // deliveries and payloads kept about 3.5 s; the job looks every 300 ms
    svc = await startService({ OUTBOUND_ALLOW_PRIVATE: "1", WEBHOOK_POLL_MS: "100", WEBHOOK_RETENTION_DAYS: String(3.5 / 86_400), WEBHOOK_RETENTION_JOB_MS: "300", PLATFORM_KEY });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
  });

  const rows = async (table: string, site = 1) => {
    const store = await acquireStore(storeConfig());
    try {
      return (await store.collection(table, [], site).find({})).length;
    } finally {
      await releaseStore(storeConfig());
    }
  };

  test("deliveries and payloads older than WEBHOOK_RETENTION_DAYS are removed", async () => {
    const { hook, path } = await endpoint(svc);
    await ok(svc, "POST", "/tags", { name: `Kept a while ${token()}` });
    await rx.waitFor(() => rx.received(path).length >= 1);
    expect(await log(svc, hook.id)).toHaveLength(1);
    expect(await rows("webhook_payloads")).toBeGreaterThan(0);
    await until(() => log(svc, hook.id), l => l.length === 0, 15_000, "the removal");
    await until(() => rows("webhook_payloads"), n => n === 0, 5000, "the payloads' removal");
  });

  /** One HTTP request with an explicit Host header (fetch does not let a client choose it). */
  function call(method: string, host: string, urlPath: string, opts: { key?: string; body?: unknown } = {}): Promise<{ status: number; body: Json }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { Host: host };
      if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
      const data = opts.body === undefined ? undefined : JSON.stringify(opts.body);
      if (data) headers["Content-Type"] = "application/json";
      const req = http.request({ host: "127.0.0.1", port: svc.port, method, path: urlPath, headers }, res => {
        const chunks: Buffer[] = [];
        res.on("data", c => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: Json = text;
          try { body = JSON.parse(text); } catch { /* not JSON */ }
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      req.on("error", reject);
      req.end(data);
    });
  }

  test("a site made through the platform API is known to the webhooks at once; its first delivery is prompt; its webhook data goes with it", async () => {
    const host = `hooks-${token()}.example`;
    const made = await call("POST", "platform.example", "/platform/v1/sites", { key: PLATFORM_KEY, body: { host } });
    expect(made.status).toBe(201);
    const site = made.body.id as number;
    const webhooks = svc.broker.getLocalService("webhooks") as unknown as { siteList?: { ids: number[] } };
    // known without waiting for the next read of the list of sites
    await until(async () => webhooks.siteList?.ids ?? [], ids => ids.includes(site), 1000, "the new site in the webhooks' list");
    const ns = "/wp-json/calendar/events/v1";
    const path = `/site-${token()}`;
    const secret = testSecret();
    rx.expect(path, secret);
    const hook = await call("POST", host, `${ns}/webhooks`, { key: made.body.api_key, body: { url: rx.url(path), secret } });
    expect(hook.status).toBe(201);
    const started = Date.now();
    const tag = await call("POST", host, `${ns}/tags`, { key: made.body.api_key, body: { name: "First on the new site" } });
    expect(tag.status).toBe(201);
    await rx.waitFor(() => rx.received(path).length >= 1, 5000, "the new site's first delivery");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await rows("webhooks", site)).toBe(1);
    expect(await rows("webhook_deliveries", site)).toBe(1);
    // the site purged: its endpoints, deliveries, payloads and cursor go with its records
    expect((await call("DELETE", "platform.example", `/platform/v1/sites/${site}`, { key: PLATFORM_KEY })).status).toBe(200);
    for (const table of ["webhooks", "webhook_deliveries", "webhook_payloads", "webhook_cursor"]) await until(() => rows(table, site), n => n === 0, 15_000, `${table} of the purged site`);
  });
});
