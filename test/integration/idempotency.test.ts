/**
 * Safe retries through HTTP (C21: idempotency keys): `Idempotency-Key` on every create. A repeat with the same key and body
 * replays the first answer (status, body, Location) and creates nothing; the same key with another body is
 * 422 `rest_idempotency_mismatch`; a repeat while the first still runs is 409 `rest_idempotency_in_progress`;
 * keys are scoped per caller and route. (Across gateway nodes: sync-nodes.test.ts.)
 */
import { startService, Running, KeyName } from "../helpers/harness";
import { dayAt, expectError, token } from "../helpers/events";
import type { Json } from "../helpers/json";

let svc: Running;

beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc.stop();
});

const post = (path: string, body: unknown, key?: string, as: KeyName = "admin", extra: Record<string, string> = {}) =>
  svc.request("POST", path, { as, body, headers: { ...(key !== undefined ? { "Idempotency-Key": key } : {}), ...extra } });
const eventBody = (title: string) => ({ title, start_date: dayAt(7, "18:00:00"), end_date: dayAt(7, "19:00:00") });
const countEvents = async (word: string) => (await svc.get(`/events?search=${word}`, "admin")).body.events.length;

describe("a repeated create", () => {
  test("replays the first answer (status, body, Location) and creates nothing", async () => {
    const word = token("idem");
    const key = `key-${word}`;
    const first = await post("/events", eventBody(word), key);
    expect(first.status).toBe(201);
    expect(first.headers.get("location")).toBe(first.body.rest_url);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    for (let i = 0; i < 2; i++) {
      const again = await post("/events", eventBody(word), key);
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      expect(again.headers.get("location")).toBe(first.headers.get("location"));
      expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
      expect(again.headers.get("idempotent-replayed")).toBe("true");
    }
    expect(await countEvents(word)).toBe(1);
  });

  test("the same key with another body is 422 rest_idempotency_mismatch (localised)", async () => {
    const word = token("mismatch");
    const key = `key-${word}`;
    expect((await post("/events", eventBody(word), key)).status).toBe(201);
    expectError(await post("/events", eventBody(`${word} other`), key), 422, "rest_idempotency_mismatch");
    const fr = await post("/events?i18n_language=fr", eventBody(word), key);
    expectError(fr, 422, "rest_idempotency_mismatch");
    expect(fr.body.message).not.toBe((await post("/events", { ...eventBody(word), excerpt: "x" }, key)).body.message);
    expect(await countEvents(word)).toBe(1);
  });

  test("a repeat while the first is still running is 409 rest_idempotency_in_progress", async () => {
    const events = svc.broker.getLocalService("events") as Json;
    const original = events.checkWrite;
    events.checkWrite = async function (this: unknown, ...args: unknown[]) {
      await new Promise(r => setTimeout(r, 400));
      return original.apply(this, args);
    };
    try {
      const word = token("slow");
      const key = `key-${word}`;
      const first = post("/events", eventBody(word), key);
      await new Promise(r => setTimeout(r, 100));
      expectError(await post("/events", eventBody(word), key), 409, "rest_idempotency_in_progress");
      expect((await first).status).toBe(201);
      const replay = await post("/events", eventBody(word), key);
      expect(replay.status).toBe(201);
      expect(replay.text).toBe((await first).text);
      expect(await countEvents(word)).toBe(1);
    } finally {
      events.checkWrite = original;
    }
  });

  test("error answers are replayed too", async () => {
    const key = `key-${token("bad")}`;
    const first = await post("/events", { title: "No dates" }, key);
    expect(first.status).toBe(400);
    const again = await post("/events", { title: "No dates" }, key);
    expect(again.status).toBe(400);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  test("without the header every request creates", async () => {
    const word = token("plain");
    await post("/events", eventBody(word));
    await post("/events", eventBody(word));
    expect(await countEvents(word)).toBe(2);
  });
});

describe("scope", () => {
  test("keys are per caller: another caller's same key creates its own record", async () => {
    const word = token("scope");
    const key = `key-${word}`;
    const admin = await post("/events", eventBody(word), key, "admin");
    const editor = await post("/events", eventBody(word), key, "editor");
    expect(editor.status).toBe(201);
    expect(editor.body.id).not.toBe(admin.body.id);
    expect(await countEvents(word)).toBe(2);
  });

  test("keys are per route, on every create: venues, organizers, categories, tags", async () => {
    const key = `key-${token("routes")}`;
    const made: number[] = [];
    for (const [path, body] of [["/venues", { venue: `Idem ${token()}` }], ["/organizers", { organizer: `Idem ${token()}` }], ["/categories", { name: `Idem ${token()}` }], ["/tags", { name: `Idem ${token()}` }]] as const) {
      const first = await post(path, body, key);
      expect({ path, status: first.status }).toEqual({ path, status: 201 });
      const again = await post(path, body, key);
      expect({ path, status: again.status, same: again.text === first.text, location: again.headers.get("location") })
        .toEqual({ path, status: 201, same: true, location: first.headers.get("location") });
      expect(first.headers.get("location")).toBeTruthy();
      made.push(first.body.id);
      expectError(await post(path, { ...body, description: "different" }, key), 422, "rest_idempotency_mismatch");
    }
    expect(new Set(made).size).toBe(4);
  });

  test("a key that is not 1 to 255 visible ASCII characters is 400 naming the header", async () => {
    for (const key of ["x".repeat(256), "tab\tinside", "naïve"]) {
      const res = await post("/tags", { name: `Bad key ${token()}` }, key);
      expect({ key, status: res.status }).toEqual({ key, status: 400 });
      expectError(res, 400, "rest_invalid_param");
      expect(Object.keys(res.body.data.params)).toEqual(["Idempotency-Key"]);
    }
  });

  test("only creates take a key: updates ignore it", async () => {
    const tag = (await post("/tags", { name: `Update ${token()}` })).body;
    const key = `key-${token("upd")}`;
    expect((await post(`/tags/${tag.id}`, { description: "one" }, key)).body.description).toBe("one");
    expect((await post(`/tags/${tag.id}`, { description: "two" }, key)).body.description).toBe("two");
  });
});
