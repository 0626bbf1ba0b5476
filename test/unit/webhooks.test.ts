/**
 * The webhooks' pure rules (lib/webhooks/*, docs/webhooks.md), without a broker: event filters and the
 * delivered type, Standard Webhooks signing (checked against the `standardwebhooks` package), secrets
 * sealed at rest, the retry schedule with its jitter, Retry-After, what an answer means, the payload and
 * delivery ids.
 */
import { Webhook } from "standardwebhooks";
import { deliveredType, isEventFilter, matchesEvent, parseEventFilters } from "../../lib/webhooks/events";
import { deliveryHeaders, newSecret, openSecret, sealingKey, sealSecret, secretKey, signature } from "../../lib/webhooks/signing";
import { attemptOutcome, DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, retryAfterMs, retryDelayMs, shouldDisable } from "../../lib/webhooks/schedule";
import { deliveryIdOfKey, deliveryKey, parseDeliveryId, payloadOf, pingPayload, recordRestUrl } from "../../lib/webhooks/payload";
import { isoInstantMs } from "../../lib/webhooks/params";
import { presentDelivery, type DeliveryDoc } from "../../lib/webhooks/present";

describe("events filters", () => {
  test("valid and invalid filters", () => {
    for (const f of ["*", "event.created", "venue.*", "tag.deleted", "category.updated", "organizer.*"]) expect(isEventFilter(f)).toBe(true);
    for (const f of ["", "event", "event.moved", "image.created", "*.created", "event.created.x", 3, null]) expect(isEventFilter(f)).toBe(false);
    expect(parseEventFilters(["event.created", " venue.* ", "event.created"])).toEqual(["event.created", "venue.*"]);
    expect(parseEventFilters("tag.*,event.deleted")).toEqual(["tag.*", "event.deleted"]);
    expect(parseEventFilters([])).toBeUndefined();
    expect(parseEventFilters(["event.exploded"])).toBeUndefined();
    expect(parseEventFilters({ a: 1 })).toBeUndefined();
  });

  test("matching", () => {
    expect(matchesEvent(["*"], "tag.deleted")).toBe(true);
    expect(matchesEvent(["venue.*"], "venue.updated")).toBe(true);
    expect(matchesEvent(["venue.*"], "event.updated")).toBe(false);
    expect(matchesEvent(["event.created", "tag.deleted"], "event.updated")).toBe(false);
    expect(matchesEvent(["event.created", "tag.deleted"], "tag.deleted")).toBe(true);
  });

  test("the delivered type is the change as the feed shows it to an administrator (a trash is deleted)", () => {
    const now = "2026-01-01 00:00:00";
    const pub = { status: "publish", author: 1, date_utc: "2025-01-01 00:00:00" };
    const trash = { ...pub, status: "trash" };
    expect(deliveredType({ type: "event", action: "created", before: null, after: pub }, now)).toBe("event.created");
    expect(deliveredType({ type: "event", action: "updated", before: pub, after: { ...pub, status: "draft" } }, now)).toBe("event.updated");
    expect(deliveredType({ type: "event", action: "deleted", before: pub, after: trash }, now)).toBe("event.deleted");
    expect(deliveredType({ type: "venue", action: "updated", before: trash, after: pub }, now)).toBe("venue.updated");
    expect(deliveredType({ type: "event", action: "updated", before: trash, after: trash }, now)).toBeUndefined();
    expect(deliveredType({ type: "tag", action: "deleted", before: {}, after: null }, now)).toBe("tag.deleted");
  });
});

describe("signing (Standard Webhooks 1.0)", () => {
  test("a new secret is whsec_ + base64 of 32 random bytes; 24–64 bytes are accepted", () => {
    const s = newSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(secretKey(s)!.length).toBe(32);
    expect(newSecret()).not.toBe(s);
    expect(secretKey(`whsec_${Buffer.alloc(24, 1).toString("base64")}`)).toBeDefined();
    expect(secretKey(`whsec_${Buffer.alloc(64, 1).toString("base64")}`)).toBeDefined();
    expect(secretKey(`whsec_${Buffer.alloc(23, 1).toString("base64")}`)).toBeUndefined();
    expect(secretKey(`whsec_${Buffer.alloc(65, 1).toString("base64")}`)).toBeUndefined();
    expect(secretKey("whsec_not base64!")).toBeUndefined();
    expect(secretKey(Buffer.alloc(32).toString("base64"))).toBeUndefined();
  });

  test("headers verify with the standardwebhooks package; a changed byte does not", () => {
    const secret = newSecret();
    const body = JSON.stringify({ type: "event.created", timestamp: new Date().toISOString(), data: { id: 1, sequence: 2, rest_url: "x" } });
    const ts = Math.floor(Date.now() / 1000);
    const headers = deliveryHeaders(secret, "msg_1_2", ts, body);
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const hook = new Webhook(secret);
    expect(hook.verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => hook.verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    // the package's own signature of the same message is ours
    expect(hook.sign("msg_1_2", new Date(ts * 1000), body)).toBe(signature(secret, "msg_1_2", ts, body));
  });

  test("secrets sealed at rest open with the same key only", () => {
    const secret = newSecret();
    const key = sealingKey("a key from the environment");
    const sealed = sealSecret(secret, key);
    expect(sealed).not.toContain(secret.slice(6));
    expect(sealSecret(secret, key)).not.toBe(sealed);
    expect(openSecret(sealed, key)).toBe(secret);
    expect(() => openSecret(sealed, sealingKey("another key"))).toThrow();
    expect(() => openSecret(sealed, undefined)).toThrow(/WEBHOOK_SECRET_KEY/);
    expect(openSecret(sealSecret(secret, undefined), undefined)).toBe(secret);
    expect(sealingKey(undefined)).toBeUndefined();
  });
});

describe("retries", () => {
  test("the schedule setting", () => {
    expect(parseRetrySchedule(undefined)).toEqual(DEFAULT_RETRY_SCHEDULE);
    expect(parseRetrySchedule("")).toEqual(DEFAULT_RETRY_SCHEDULE);
    expect(parseRetrySchedule(" 1, 2.5 ,0")).toEqual([1, 2.5, 0]);
    for (const bad of ["1,,2", "a", "-1", "1;2"]) expect(() => parseRetrySchedule(bad)).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });

  test("delays with at most ±10 % jitter; none past the schedule", () => {
    expect(retryDelayMs([5, 300], 0, 0.5)).toBe(5000);
    expect(retryDelayMs([5, 300], 0, 0)).toBe(4500);
    expect(retryDelayMs([5, 300], 0, 0.999999)).toBe(5500);
    expect(retryDelayMs([5, 300], 1, 0.5)).toBe(300_000);
    expect(retryDelayMs([5, 300], 2)).toBeUndefined();
    const spread = new Set(Array.from({ length: 50 }, () => retryDelayMs([100], 0)));
    expect(spread.size).toBeGreaterThan(10);
    for (const d of spread) expect(d).toBeGreaterThanOrEqual(90_000);
  });

  test("Retry-After as seconds or a date, capped at a day", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("120", now)).toBe(120_000);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:01:00 GMT", now)).toBe(60_000);
    expect(retryAfterMs("999999", now)).toBe(86_400_000);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  test("what an answer means", () => {
    const base = { schedule: [5, 300], nowMs: 0, random: 0.5 };
    expect(attemptOutcome({ ...base, status: 204, retries: 0 })).toEqual({ kind: "delivered" });
    expect(attemptOutcome({ ...base, status: 410, retries: 0 })).toEqual({ kind: "gone" });
    expect(attemptOutcome({ ...base, status: 500, retries: 0 })).toEqual({ kind: "retry", retryInMs: 5000 });
    expect(attemptOutcome({ ...base, status: undefined, retries: 1 })).toEqual({ kind: "retry", retryInMs: 300_000 });
    expect(attemptOutcome({ ...base, status: 301, retries: 2 })).toEqual({ kind: "failed" });
    expect(attemptOutcome({ ...base, status: 429, retryAfter: "42", retries: 0 })).toEqual({ kind: "retry", retryInMs: 42_000 });
    expect(attemptOutcome({ ...base, status: 503, retryAfter: "7", retries: 1 })).toEqual({ kind: "retry", retryInMs: 7000 });
    // Retry-After only on 429 and 503
    expect(attemptOutcome({ ...base, status: 500, retryAfter: "42", retries: 0 })).toEqual({ kind: "retry", retryInMs: 5000 });
    expect(attemptOutcome({ ...base, status: 429, retryAfter: "42", retries: 2 })).toEqual({ kind: "failed" });
  });

  test("an endpoint failing too long is disabled", () => {
    expect(shouldDisable(undefined, 1e12, 120)).toBe(false);
    expect(shouldDisable(0, 119 * 3_600_000, 120)).toBe(false);
    expect(shouldDisable(0, 120 * 3_600_000, 120)).toBe(true);
  });
});

describe("payload and delivery ids", () => {
  test("the body; deleted carries no record", () => {
    const url = recordRestUrl("https://a.example", "wp-json", "category", 7);
    expect(url).toBe("https://a.example/wp-json/calendar/events/v1/categories/7");
    const body = payloadOf({ eventType: "category.updated", atMs: Date.parse("2026-01-02T03:04:05.678Z"), sequence: 9, id: 7, restUrl: url, record: { id: 7 } });
    expect(JSON.stringify(body)).toBe('{"type":"category.updated","timestamp":"2026-01-02T03:04:05.678Z","data":{"id":7,"sequence":9,"rest_url":"https://a.example/wp-json/calendar/events/v1/categories/7","record":{"id":7}}}');
    expect(payloadOf({ eventType: "category.deleted", atMs: 0, sequence: 9, id: 7, restUrl: url, record: { id: 7 } }).data.record).toBeUndefined();
  });

  test("ids name their endpoint and change; anything else names none", () => {
    expect(deliveryIdOfKey(deliveryKey(3, 123456))).toBe("msg_3_123456");
    expect(parseDeliveryId(deliveryIdOfKey(deliveryKey(3, 123456)))).toEqual({ endpoint: 3, sequence: 123456 });
    // a replay's and a ping's: a tag of their own
    expect(parseDeliveryId(deliveryIdOfKey(deliveryKey(3, 7, "rk2x")))).toEqual({ endpoint: 3, sequence: 7, tag: "rk2x" });
    expect(parseDeliveryId(deliveryIdOfKey(deliveryKey(3, 0, "pa1")))).toEqual({ endpoint: 3, sequence: 0, tag: "pa1" });
    for (const bad of ["msg_0_1", "msg_1", "msg_a_1", "1_2", "msg_1_2_3", "msg_99999999999999999_1", "msg_1_0", "msg_1_2_R1", 12]) expect(parseDeliveryId(bad)).toBeUndefined();
  });

  test("the delivery log's entry", () => {
    const doc: DeliveryDoc = { _id: 1, key: "3:9", endpoint: 3, seq: 9, chain: "3:post:7", type: "event.updated", record_id: 7, status: "pending", attempts: 1, base: 0, due: Date.parse("2026-01-01T00:00:05Z"), last_status_code: 500, delivered_utc: null };
    expect(presentDelivery(doc)).toEqual({ id: "msg_3_9", type: "event.updated", record_id: 7, status: "pending", attempts: 1, last_status_code: 500, next_attempt_utc: "2026-01-01 00:00:05", delivered_utc: null });
    expect(presentDelivery({ ...doc, status: "failed", due: undefined }).next_attempt_utc).toBeNull();
  });
});

describe("rotation overlaps, refused addresses, log instants, pings", () => {
  test("two secrets: two space-separated signatures, a standardwebhooks receiver holding either verifies", () => {
    const [fresh, old, other] = [newSecret(), newSecret(), newSecret()];
    const body = JSON.stringify({ type: "tag.created", timestamp: "2030-01-01T00:00:00.000Z", data: { id: 1, sequence: 2, rest_url: "x" } });
    const ts = Math.floor(Date.now() / 1000);
    const headers = deliveryHeaders([fresh, old], "msg_1_2", ts, body);
    expect(headers["webhook-signature"].split(" ")).toEqual([signature(fresh, "msg_1_2", ts, body), signature(old, "msg_1_2", ts, body)]);
    expect(() => new Webhook(fresh).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(old).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(other).verify(body, headers)).toThrow();
    expect(deliveryHeaders(fresh, "msg_1_2", ts, body)["webhook-signature"].split(" ")).toHaveLength(1);
  });

  test("an address refused after resolution fails at once; a 2xx still delivers", () => {
    expect(attemptOutcome({ retries: 0, schedule: [5, 300], nowMs: 0, refused: true })).toEqual({ kind: "failed" });
    expect(attemptOutcome({ retries: 0, schedule: [5, 300], nowMs: 0 }).kind).toBe("retry");
    expect(attemptOutcome({ status: 204, retries: 0, schedule: [5], nowMs: 0 })).toEqual({ kind: "delivered" });
  });

  test("ISO 8601 instants of the log's filters and the replay (no zone: UTC)", () => {
    expect(isoInstantMs("2030-01-02")).toBe(Date.UTC(2030, 0, 2));
    expect(isoInstantMs("2030-01-02T03:04:05Z")).toBe(Date.UTC(2030, 0, 2, 3, 4, 5));
    expect(isoInstantMs("2030-01-02T03:04")).toBe(Date.UTC(2030, 0, 2, 3, 4));
    expect(isoInstantMs("2030-01-02T03:04:05.250+02:00")).toBe(Date.UTC(2030, 0, 2, 1, 4, 5, 250));
    for (const bad of ["yesterday", "2030-13-01", "2030-01-02T25:00", "", 12, null]) expect([bad, isoInstantMs(bad)]).toEqual([bad, undefined]);
  });

  test("a ping's body", () => {
    expect(pingPayload(7, Date.UTC(2030, 0, 1))).toEqual({ type: "webhook.ping", timestamp: "2030-01-01T00:00:00.000Z", data: { webhook_id: 7 } });
  });
});
