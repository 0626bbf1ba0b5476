/**
 * The pure parts of the sync issue, alone: feed tokens, visibility and gaps (lib/changes/feed.ts),
 * `modified_after`/`modified_before` (lib/changes/modified.ts), `_fields` (lib/http/fields.ts), ETags and
 * conditional requests (lib/http/etag.ts), idempotency keys (lib/http/idempotency.ts), iCalendar text
 * (lib/events/ics-answer.ts), and the key store's claims (store/key-store.ts) on the embedded store.
 */
import { contiguousPrefix, decide, decodeToken, encodeToken, feedPageSize, visibleTo } from "../../lib/changes/feed";
import { modifiedCondition, modifiedRange } from "../../lib/changes/modified";
import { applyMask, parseFields, shapeBody } from "../../lib/http/fields";
import { bodyTag, etagOf, ifMatchPasses, notModified, parseEtags, partsTag, strongEtag } from "../../lib/http/etag";
import { canonicalJson, isValidKey, requestFingerprint, settlement } from "../../lib/http/idempotency";
import { escapeText, fixedOffsetMinutes, foldLine, vtimezone, wantsIcs } from "../../lib/events/ics-answer";
import { plainText } from "../../lib/text/sanitize";
import { openKeyStore } from "../../store/key-store";
import { acquireStore } from "../../store";

describe("feed tokens", () => {
  test("round trip; anything else is not a token", () => {
    for (const seq of [0, 1, 42, 9_007_199_254_740_991]) expect(decodeToken(encodeToken(seq))).toBe(seq);
    for (const bad of ["", "abc", "MTIz", 12, null, undefined, "x".repeat(100), Buffer.from("chg1:01").toString("base64url"), Buffer.from("chg1:1.5").toString("base64url")]) {
      expect(decodeToken(bad)).toBeUndefined();
    }
    expect(feedPageSize(undefined)).toBe(50);
    expect(feedPageSize(600)).toBe(500);
  });
});

describe("who sees a change", () => {
  const anon = null;
  const admin = { id: 1, role: "administrator" as const };
  const publish = { status: "publish", author: 2, date_utc: "2020-01-01 00:00:00" };
  const draft = { status: "draft", author: 2, date_utc: "2020-01-01 00:00:00" };
  const now = "2030-01-01 00:00:00";

  test("as the lists show: publish for everyone, other statuses for editors, never trash; terms always", () => {
    expect(visibleTo(anon, "event", publish, now)).toBe(true);
    expect(visibleTo(anon, "event", draft, now)).toBe(false);
    expect(visibleTo(admin, "venue", draft, now)).toBe(true);
    expect(visibleTo(admin, "organizer", { ...publish, status: "trash" }, now)).toBe(false);
    expect(visibleTo(anon, "event", { ...publish, status: "future", date_utc: "2029-12-31 23:59:59" }, now)).toBe(true);
    expect(visibleTo(anon, "event", { ...publish, status: "future", date_utc: "2030-01-02 00:00:00" }, now)).toBe(false);
    expect(visibleTo(anon, "category", {}, now)).toBe(true);
    expect(visibleTo(anon, "tag", null, now)).toBe(false);
  });

  test("skip, tombstone or record", () => {
    expect(decide(anon, { type: "event", before: null, after: draft }, now)).toBe("skip");
    expect(decide(anon, { type: "event", before: publish, after: { ...publish, status: "private" } }, now)).toBe("tombstone");
    expect(decide(anon, { type: "event", before: draft, after: publish }, now)).toBe("record");
    expect(decide(anon, { type: "tag", before: {}, after: null }, now)).toBe("tombstone");
  });

  test("readers stop at a young gap in the sequence and pass an old one", () => {
    const at = 1_000_000;
    const batch = [{ _id: 1, at }, { _id: 2, at }, { _id: 4, at }, { _id: 5, at }];
    expect(contiguousPrefix(0, batch, at + 100)).toEqual({ entries: batch.slice(0, 2), blocked: true });
    expect(contiguousPrefix(0, batch, at + 60_000)).toEqual({ entries: batch, blocked: false });
    expect(contiguousPrefix(3, batch.slice(2), at)).toEqual({ entries: batch.slice(2), blocked: false });
  });
});

describe("modified_after / modified_before", () => {
  test("UTC unless an offset is given; strict bounds on modified_utc", () => {
    const now = new Date("2025-06-10T12:00:00Z");
    expect(modifiedRange({}, now)).toBeUndefined();
    expect(modifiedRange({ modified_after: "2025-06-01 10:00:00", modified_before: "2025-06-02T10:00:00+02:00" }, now))
      .toEqual({ after: "2025-06-01 10:00:00", before: "2025-06-02 08:00:00" });
    expect(modifiedCondition({ after: "a", before: "b" })).toEqual({ modified_utc: { $gt: "a", $lt: "b" } });
  });
});

describe("_fields", () => {
  const record = { id: 1, title: "T", venue: { id: 2, city: "Rome", country: "IT" }, categories: [{ id: 3, name: "Jazz" }, { id: 4, name: "Pop" }], tags: [] };

  test("parse: comma lists and arrays, dotted paths, whole keys win", () => {
    expect(parseFields("id, venue.city")).toEqual({ id: true, venue: { city: true } });
    expect(parseFields(["venue.city", "venue"])).toEqual({ venue: true });
    expect(parseFields(["venue", "venue.city"])).toEqual({ venue: true });
    for (const none of [undefined, "", " , ", 3, {}]) expect(parseFields(none)).toBeUndefined();
  });

  test("apply: record order, nested objects and arrays of objects", () => {
    expect(applyMask(record, parseFields("title,id")!)).toEqual({ id: 1, title: "T" });
    expect(Object.keys(applyMask(record, parseFields("title,id")!) as object)).toEqual(["id", "title"]);
    expect(applyMask(record, parseFields("venue.city,categories.name,tags.name")!)).toEqual({ venue: { city: "Rome" }, categories: [{ name: "Jazz" }, { name: "Pop" }], tags: [] });
  });

  test("lists keep their envelope; the feed keeps the change keys", () => {
    const list = { events: [record], rest_url: "u", total: 1, total_pages: 1 };
    expect(shapeBody("events.list", list, parseFields("id")!)).toEqual({ events: [{ id: 1 }], rest_url: "u", total: 1, total_pages: 1 });
    expect(shapeBody("taxonomy.tags.list", { rest_url: "u", tags: [{ id: 1, name: "x" }] }, parseFields("name")!)).toEqual({ rest_url: "u", tags: [{ name: "x" }] });
    const feed = { changes: [{ type: "event", id: 1, action: "deleted" }, { type: "event", id: 1, action: "updated", record }], next_token: "t", has_more: false };
    expect(shapeBody("changes.list", feed, parseFields("title")!)).toEqual({ ...feed, changes: [feed.changes[0], { ...feed.changes[1], record: { title: "T" } }] });
    expect(shapeBody("events.get", record, parseFields("categories.id")!)).toEqual({ categories: [{ id: 3 }, { id: 4 }] });
  });
});

describe("ETags and preconditions", () => {
  test("strong, per caller and language", () => {
    const anon = strongEtag("{}", null, "en");
    expect(anon).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(strongEtag("{}", null, "en")).toBe(anon);
    expect(new Set([anon, strongEtag("{}", { id: 1, role: "editor" }, "en"), strongEtag("{}", null, "fr"), strongEtag("[]", null, "en")]).size).toBe(4);
    // a stored answer's kept hash gives the ETag its bytes give
    expect(etagOf(bodyTag("{}"), null, "en")).toBe(anon);
    expect(etagOf(bodyTag(Buffer.from("{}")), { id: 1, role: "editor" }, "en")).toBe(strongEtag("{}", { id: 1, role: "editor" }, "en"));
  });

  test("a text of parts: its tag follows every part's and the text around them", () => {
    const [a, b] = [bodyTag('{"id":1}'), bodyTag('{"id":2}')];
    const page = partsTag([a, b], '{"total":2}');
    expect(partsTag([bodyTag('{"id":1}'), bodyTag('{"id":2}')], '{"total":2}')).toBe(page);
    expect(new Set([page, partsTag([b, a], '{"total":2}'), partsTag([a], '{"total":2}'), partsTag([a, b], '{"total":3}'), partsTag([], '{"total":2}')]).size).toBe(5);
    expect(page).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test("If-Match: strong comparison, lists, the wildcard", () => {
    expect(parseEtags(`"a", W/"b" ,"c"`)).toEqual(["\"a\"", "W/\"b\"", "\"c\""]);
    expect(ifMatchPasses(`"x", "a"`, "\"a\"")).toBe(true);
    expect(ifMatchPasses("W/\"a\"", "\"a\"")).toBe(false);
    expect(ifMatchPasses("*", "\"a\"")).toBe(true);
    expect(ifMatchPasses("garbage", "\"a\"")).toBe(false);
  });

  test("If-None-Match (weak comparison) decides; else If-Modified-Since", () => {
    const lm = "Tue, 10 Jun 2025 12:00:00 GMT";
    expect(notModified({ ifNoneMatch: "W/\"a\"" }, "\"a\"", lm)).toBe(true);
    expect(notModified({ ifNoneMatch: "\"b\"", ifModifiedSince: lm }, "\"a\"", lm)).toBe(false);
    expect(notModified({ ifModifiedSince: lm }, "\"a\"", lm)).toBe(true);
    expect(notModified({ ifModifiedSince: "Tue, 10 Jun 2025 11:59:59 GMT" }, "\"a\"", lm)).toBe(false);
    expect(notModified({ ifModifiedSince: "yesterday" }, "\"a\"", lm)).toBe(false);
    expect(notModified({}, "\"a\"", lm)).toBe(false);
  });
});

describe("idempotency keys", () => {
  test("keys, fingerprints, what is kept", () => {
    expect(isValidKey("a")).toBe(true);
    expect(isValidKey("with inner space")).toBe(true);
    for (const bad of ["", " a", "a ", "x".repeat(256), "é", 5]) expect(isValidKey(bad)).toBe(false);
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe("{\"a\":[{\"d\":2}],\"b\":1}");
    expect(requestFingerprint({ route: "r", params: { a: 1, b: 2 } })).toBe(requestFingerprint({ params: { b: 2, a: 1 }, route: "r" }));
    expect(settlement(201)).toBe("store");
    expect(settlement(400)).toBe("store");
    expect(settlement(500)).toBe("store");
    expect(settlement(503)).toBe("release");
    expect(settlement(504)).toBe("keep");
  });

  test("the key store: claim, in progress, mismatch, done, lapsed lease, expiry", async () => {
    const config = { dataDir: ":memory:", connectTimeoutMs: 1000 };
    const store = openKeyStore((await acquireStore(config)).collection("idempotency_keys", []));
    expect(await store.claim("k", "f1", 60_000, 60_000)).toEqual({ state: "claimed" });
    expect(await store.claim("k", "f1", 60_000, 60_000)).toEqual({ state: "in_progress" });
    expect(await store.claim("k", "f2", 60_000, 60_000)).toEqual({ state: "mismatch" });
    await store.settle("k", "f1", { status: 201, body: "{}", location: "L" }, 60_000);
    expect(await store.claim("k", "f1", 60_000, 60_000)).toEqual({ state: "done", status: 201, body: "{}", location: "L" });
    expect(await store.claim("lapsed", "f", 1, 60_000)).toEqual({ state: "claimed" });
    await new Promise(r => setTimeout(r, 5));
    expect(await store.claim("lapsed", "f", 60_000, 60_000)).toEqual({ state: "claimed" });
    expect(await store.claim("short", "f", 60_000, 1)).toEqual({ state: "claimed" });
    await new Promise(r => setTimeout(r, 5));
    expect(await store.claim("short", "other", 60_000, 60_000)).toEqual({ state: "claimed" });
    await store.release("short", "other");
    expect(await store.claim("short", "again", 60_000, 60_000)).toEqual({ state: "claimed" });
    expect(await store.sweep()).toBe(0);
  });
});

describe("iCalendar text", () => {
  test("escaping, HTML to text, folding at 75 octets without splitting characters", () => {
    expect(escapeText("a,b;c\\d\ne")).toBe("a\\,b\\;c\\\\d\\ne");
    expect(plainText("<p>A &amp; B</p><p>C&#39;s &lt;x&gt;</p>")).toBe("A & B\nC's <x>");
    const folded = foldLine(`DESCRIPTION:${"é".repeat(100)}`);
    for (const line of folded.split("\r\n")) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(folded.split("\r\n").map((l, i) => (i ? l.slice(1) : l)).join("")).toBe(`DESCRIPTION:${"é".repeat(100)}`);
  });

  test("zones: fixed offsets, VTIMEZONE observances at the offset changes", () => {
    expect(fixedOffsetMinutes("UTC+5:30")).toBe(330);
    expect(fixedOffsetMinutes("UTC-5")).toBe(-300);
    expect(fixedOffsetMinutes("Europe/Rome")).toBeUndefined();
    const lines = vtimezone("Europe/Rome", Date.parse("2030-01-01T00:00:00Z"), Date.parse("2030-12-31T00:00:00Z"));
    expect(lines.filter(l => l.startsWith("DTSTART"))).toEqual(["DTSTART:20291028T030000", "DTSTART:20300331T020000", "DTSTART:20301027T030000"]);
    expect(lines).toContain("TZOFFSETTO:+0200");
    expect(lines).toContain("TZNAME:CEST");
  });

  test("what asks for iCalendar", () => {
    expect(wantsIcs("ics", undefined)).toBe(true);
    expect(wantsIcs(undefined, "text/calendar")).toBe(true);
    expect(wantsIcs(undefined, "application/json, text/calendar;q=0.5")).toBe(true);
    expect(wantsIcs("json", "text/calendar")).toBe(false);
    expect(wantsIcs(undefined, "application/json")).toBe(false);
  });
});
