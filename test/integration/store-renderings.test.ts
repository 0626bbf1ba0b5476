/**
 * The stored renderings' guard on both SQL stores (store/sql/renderings.ts, docs/caching.md#stored-renderings):
 * a rendering is kept only while its record's row holds the document it was made from and the site's mark
 * is unchanged; a write of the record removes it in the write's transaction; an event's rendering is read
 * with those it refers to, in one statement, and not at all when one of them is missing. On PostgreSQL a
 * write not yet committed is waited for and then seen.
 */
import type { Doc } from "../../store/collection";
import type { Renderings, Stitched, StoredRendering } from "../../store/renderings";
import { openTestStore, type TestStore } from "../helpers/test-store";
import type { Param } from "../../store/sql/driver";

const SITE = 1;
const VARIANT = '["en","http://x","http://x/ns","http://x"]';

/** A stored rendering without the number of its keep (compared on its own where it matters). */
const plain = ({ ver: _ver, ...rest }: StoredRendering) => rest;

/** A transaction that has run `sql` and stays open, holding what it wrote or locked, until released. */
async function heldOpen(store: TestStore["store"], sql: string, params: Param[]): Promise<{ release: () => Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>(resolve => { release = resolve; });
  let ran!: () => void;
  const inside = new Promise<void>(resolve => { ran = resolve; });
  const open = store.sql!.transaction(async tx => {
    await tx.all(sql, params);
    ran();
    await held;
  });
  await inside;
  return { release: () => { release(); return open; } };
}
const unnumbered = (s: Stitched | undefined) => s && { ...s, own: plain(s.own), refs: s.refs.map(plain) };

describe.each(["sqlite", "postgres"] as const)("stored renderings on %s", kind => {
  let opened: TestStore | undefined;
  let renderings: Renderings;
  beforeAll(async () => {
    opened = await openTestStore(kind, "renderings");
    if (opened) renderings = opened.store.renderings!;
  });
  afterAll(async () => { await opened?.close(); });

  test("kept from the stored document only; removed by a write of it; stitched only when every reference is kept", async () => {
    if (!opened) return console.warn("PostgreSQL not reachable: skipped");
    const { store } = opened;
    const venues = store.collection("venues", [], SITE);
    const events = store.collection("events", [], SITE);
    const venue: Doc = { _id: 7, venue: "Hall", status: "publish" };
    const event: Doc = { _id: 9, title: "Night", status: "publish", venues: [7] };
    await venues.insert(venue);
    await events.insert(event);
    const mark = await renderings.mark(SITE);
    const keepEvent = (m: number) => renderings.keep(SITE, VARIANT, m, [{ kind: "events", id: 9, doc: event, body: '{"e":1}', refs: [["venues", 7]] }]);
    await keepEvent(mark);
    // the venue's rendering missing: no stitched answer (a page's read says the event's own is there, incomplete)
    expect(await renderings.stitched(SITE, VARIANT, "events", 9)).toBeUndefined();
    expect([...(await renderings.stitchedMany(SITE, VARIANT, "events", [9, 10]))].map(([id, found]) => [id, unnumbered(found)])).toEqual([[9, { own: { kind: "events", id: 9, body: '{"e":1}' }, refs: [], complete: false }]]);
    await renderings.keep(SITE, VARIANT, mark, [{ kind: "venues", id: 7, doc: venue, body: '{"v":"Hall"}' }]);
    expect(unnumbered(await renderings.stitched(SITE, VARIANT, "events", 9))).toEqual({ own: { kind: "events", id: 9, body: '{"e":1}' }, refs: [{ kind: "venues", id: 7, body: '{"v":"Hall"}' }], complete: true });
    expect(await renderings.stitched(SITE, "another variant", "events", 9)).toBeUndefined();

    // a write of the venue removes its rendering; one made from the document before it is refused
    const renamed = await venues.updateOne({ _id: 7 }, { $set: { venue: "Grand Hall" } });
    expect(await renderings.stitched(SITE, VARIANT, "events", 9)).toBeUndefined();
    await renderings.keep(SITE, VARIANT, mark, [{ kind: "venues", id: 7, doc: venue, body: '{"v":"Hall"}' }]);
    expect(await renderings.stitched(SITE, VARIANT, "events", 9)).toBeUndefined();
    await renderings.keep(SITE, VARIANT, mark, [{ kind: "venues", id: 7, doc: renamed!, body: '{"v":"Grand Hall"}' }]);
    expect((await renderings.stitched(SITE, VARIANT, "events", 9))?.refs[0].body).toBe('{"v":"Grand Hall"}');

    // a change of the site's field definitions removes every rendering and moves the mark: one made before it is refused
    await store.collection("field_definitions", [], SITE).insert({ _id: 1, key: "door", object_type: "event" });
    expect(await renderings.stitched(SITE, VARIANT, "events", 9)).toBeUndefined();
    const moved = await renderings.mark(SITE);
    expect(moved).not.toBe(mark);
    await keepEvent(mark);
    await renderings.keep(SITE, VARIANT, mark, [{ kind: "venues", id: 7, doc: renamed!, body: '{"v":"Grand Hall"}' }]);
    expect(await renderings.stitched(SITE, VARIANT, "events", 9)).toBeUndefined();
    await keepEvent(moved);
    await renderings.keep(SITE, VARIANT, moved, [{ kind: "venues", id: 7, doc: renamed!, body: '{"v":"Grand Hall"}' }]);
    expect(await renderings.stitched(SITE, VARIANT, "events", 9)).toBeDefined();

    // another site's rows are its own
    expect(await renderings.stitched(SITE + 1, VARIANT, "events", 9)).toBeUndefined();

    // a page's events in one statement: each with its own references, in their order, by id
    const second: Doc = { _id: 11, title: "Matinee", status: "publish", venues: [7] };
    await events.insert(second);
    await renderings.keep(SITE, VARIANT, moved, [{ kind: "events", id: 11, doc: second, body: '{"e":2}', refs: [["venues", 7], ["events", 9]] }]);
    const page = await renderings.stitchedMany(SITE, VARIANT, "events", [11, 9, 12]);
    expect([...page.keys()].sort((a, b) => a - b)).toEqual([9, 11]);
    expect(unnumbered(page.get(9))).toEqual({ own: { kind: "events", id: 9, body: '{"e":1}' }, refs: [{ kind: "venues", id: 7, body: '{"v":"Grand Hall"}' }], complete: true });
    expect(unnumbered(page.get(11))).toEqual({ own: { kind: "events", id: 11, body: '{"e":2}' }, refs: [{ kind: "venues", id: 7, body: '{"v":"Grand Hall"}' }, { kind: "events", id: 9, body: '{"e":1}' }], complete: true });
  });

  test("a composed answer is read while every rendering it was composed from is the one stored, and kept only on the rendering it was composed from", async () => {
    if (!opened) return console.warn("PostgreSQL not reachable: skipped");
    const { store } = opened;
    const site = SITE + 3;
    const venues = store.collection("venues", [], site);
    const events = store.collection("events", [], site);
    const venue: Doc = { _id: 31, venue: "Hall", status: "publish" };
    const event: Doc = { _id: 32, title: "Night", status: "publish", venues: [31] };
    const alone: Doc = { _id: 33, title: "Alone", status: "publish", venues: [] };
    await venues.insert(venue);
    await events.insert(event);
    await events.insert(alone);
    const mark = await renderings.mark(site);
    await renderings.keep(site, VARIANT, mark, [{ kind: "events", id: 32, doc: event, body: '{"e":32}', refs: [["venues", 31]] }, { kind: "events", id: 33, doc: alone, body: '{"e":33}', refs: [] }]);
    await renderings.keep(site, VARIANT, mark, [{ kind: "venues", id: 31, doc: venue, body: '{"v":"Hall"}' }]);
    // what compose keeps, and what composed reads back of it
    const answer = (text: string) => ({ text, plain: `${text} without JSON-LD`, modified: "2031-01-01 10:00:00", tag: `tag of ${text}`, plainTag: `tag of ${text} without JSON-LD` });
    const whole = (text: string) => ({ text, modified: "2031-01-01 10:00:00", tag: `tag of ${text}` });
    /** A page's composed texts, with JSON-LD or without, by id. */
    const page = async (jsonLd: boolean) => Object.fromEntries([...await renderings.composedMany(site, VARIANT, "events", [32, 33, 34], jsonLd)].map(([id, t]) => [id, t.text]));
    expect(await renderings.composed(site, VARIANT, "events", 32)).toBeUndefined();
    const from = (await renderings.stitched(site, VARIANT, "events", 32))!;
    expect(from.own.ver).not.toBe(from.refs[0].ver);
    await renderings.compose(site, VARIANT, from, answer("whole"));
    expect(await renderings.composed(site, VARIANT, "events", 32)).toEqual(whole("whole"));
    expect(await renderings.composed(site, "another variant", "events", 32)).toBeUndefined();
    // an event linking nothing
    await renderings.compose(site, VARIANT, (await renderings.stitched(site, VARIANT, "events", 33))!, answer("alone"));
    expect(await renderings.composed(site, VARIANT, "events", 33)).toEqual(whole("alone"));
    // a page's texts in one statement, each with its modified time
    expect(await page(true)).toEqual({ 32: "whole", 33: "alone" });
    expect(await page(false)).toEqual({ 32: "whole without JSON-LD", 33: "alone without JSON-LD" });
    expect((await renderings.composedMany(site, VARIANT, "events", [33], false)).get(33)).toEqual({ text: "alone without JSON-LD", modified: "2031-01-01 10:00:00", tag: "tag of alone without JSON-LD" });
    expect((await renderings.composedMany(site, VARIANT, "events", [33], true)).get(33)).toEqual(whole("alone"));
    expect((await renderings.composedMany(site, "another variant", "events", [32, 33], false)).size).toBe(0);
    // the venue written and its rendering kept again: the composed answer is not read any more
    const renamed = await venues.updateOne({ _id: 31 }, { $set: { venue: "Grand Hall" } });
    expect(await renderings.composed(site, VARIANT, "events", 32)).toBeUndefined();
    await renderings.keep(site, VARIANT, mark, [{ kind: "venues", id: 31, doc: renamed!, body: '{"v":"Grand Hall"}' }]);
    expect(await renderings.composed(site, VARIANT, "events", 32)).toBeUndefined();
    expect(await page(false)).toEqual({ 33: "alone without JSON-LD" });
    const now = (await renderings.stitched(site, VARIANT, "events", 32))!;
    expect(now.refs[0].ver).toBeGreaterThan(from.refs[0].ver);
    // composed from what was read before: kept, but never read as current
    await renderings.compose(site, VARIANT, from, answer("stale"));
    expect(await renderings.composed(site, VARIANT, "events", 32)).toBeUndefined();
    await renderings.compose(site, VARIANT, now, answer("renamed"));
    expect(await renderings.composed(site, VARIANT, "events", 32)).toEqual(whole("renamed"));
    expect(await page(false)).toEqual({ 32: "renamed without JSON-LD", 33: "alone without JSON-LD" });
    // the event written: its rendering and its answer go; one composed from the rendering before is not kept on the new one
    const retitled = await events.updateOne({ _id: 32 }, { $set: { title: "Day" } });
    expect(await renderings.composed(site, VARIANT, "events", 32)).toBeUndefined();
    await renderings.keep(site, VARIANT, mark, [{ kind: "events", id: 32, doc: retitled!, body: '{"e":"day"}', refs: [["venues", 31]] }]);
    await renderings.compose(site, VARIANT, now, answer("old event"));
    expect(await renderings.composed(site, VARIANT, "events", 32)).toBeUndefined();
    // an incomplete read composes nothing
    await venues.updateOne({ _id: 31 }, { $set: { venue: "Closed" } });
    const incomplete = (await renderings.stitchedMany(site, VARIANT, "events", [32])).get(32)!;
    expect(incomplete.complete).toBe(false);
    await renderings.compose(site, VARIANT, incomplete, answer("incomplete"));
    expect(await renderings.composed(site, VARIANT, "events", 32)).toBeUndefined();
  });

  test("PostgreSQL: a keep beside a write not yet committed waits for it and then refuses the old document", async () => {
    if (!opened) return console.warn("PostgreSQL not reachable: skipped");
    if (kind !== "postgres") return;
    const { store } = opened;
    const venues = store.collection("venues", [], SITE);
    const venue: Doc = { _id: 21, venue: "Old", status: "publish" };
    await venues.insert(venue);
    await store.collection("events", [], SITE).insert({ _id: 22, status: "publish", venues: [21] });
    const mark = await renderings.mark(SITE);
    await renderings.keep(SITE, VARIANT, mark, [{ kind: "events", id: 22, doc: { _id: 22, status: "publish", venues: [21] }, body: "{}", refs: [["venues", 21]] }]);
    const writer = await heldOpen(store, "UPDATE venues SET doc = jsonb_set(doc, '{venue}', '\"New\"') WHERE site = ? AND id = ?", [SITE, 21]);
    const keeping = renderings.keep(SITE, VARIANT, mark, [{ kind: "venues", id: 21, doc: venue, body: '{"v":"Old"}' }]);
    await new Promise(resolve => setTimeout(resolve, 200));
    await writer.release();
    await keeping;
    expect(await renderings.stitched(SITE, VARIANT, "events", 22)).toBeUndefined();
  });

  test("composing again from the same renderings writes nothing; PostgreSQL: a compose skips a row another compose holds", async () => {
    if (!opened) return console.warn("PostgreSQL not reachable: skipped");
    const { store } = opened;
    const site = SITE + 4;
    const event: Doc = { _id: 41, title: "Noon", status: "publish", venues: [] };
    await store.collection("events", [], site).insert(event);
    await renderings.keep(site, VARIANT, await renderings.mark(site), [{ kind: "events", id: 41, doc: event, body: '{"e":41}', refs: [] }]);
    const from = (await renderings.stitched(site, VARIANT, "events", 41))!;
    const answer = (text: string) => ({ text, plain: text, modified: null, tag: text, plainTag: text });
    await renderings.compose(site, VARIANT, from, answer("first"));
    // the same renderings: the texts composed from them stand (the same renderings make the same texts)
    await renderings.compose(site, VARIANT, from, answer("again"));
    expect((await renderings.composed(site, VARIANT, "events", 41))?.text).toBe("first");
    if (kind !== "postgres") return;
    // a row another transaction holds: the compose goes on without waiting for it, and writes nothing
    await store.sql!.run("UPDATE renderings SET answer = NULL WHERE site = ? AND kind = 'events' AND id = ?", [site, 41]);
    const holder = await heldOpen(store, "SELECT ver FROM renderings WHERE site = ? AND kind = 'events' AND id = ? FOR UPDATE", [site, 41]);
    const composing = renderings.compose(site, VARIANT, from, answer("beside"));
    const outcome = await Promise.race([composing.then(() => "composed"), new Promise(resolve => setTimeout(() => resolve("waiting"), 3000))]);
    await holder.release();
    await composing;
    expect(outcome).toBe("composed");
    expect(await renderings.composed(site, VARIANT, "events", 41)).toBeUndefined();
    await renderings.compose(site, VARIANT, from, answer("after"));
    expect((await renderings.composed(site, VARIANT, "events", 41))?.text).toBe("after");
  });

  test("the renderings of a variant nobody read since a time are removed; those of a variant read or kept since stay", async () => {
    if (!opened) return console.warn("PostgreSQL not reachable: skipped");
    const { store } = opened;
    const site = SITE + 5;
    const old = '["en","http://old.example","http://old.example/ns","http://old.example"]';
    const events = store.collection("events", [], site);
    const event: Doc = { _id: 3, title: "Dawn", status: "publish", venues: [] };
    await events.insert(event);
    const mark = await renderings.mark(site);
    const keep = (variant: string, body: string) => renderings.keep(site, variant, mark, [{ kind: "events", id: 3, doc: event, body, refs: [] }]);
    const pause = () => new Promise(resolve => setTimeout(resolve, 5));
    await keep(old, '{"old":1}');
    await keep(VARIANT, '{"now":1}');
    // read or kept since: nothing goes
    expect(await renderings.forgetUnread(Date.now() - 60_000)).toBe(0);
    expect(await renderings.stitched(site, old, "events", 3)).toBeDefined();
    // unread since a time after every read and keep: everything goes, on every site (not read here: a
    // process notes a variant it read at most once in SEEN_NOTED_EVERY_MS, and the upkeep starts it afresh)
    await pause();
    expect(await renderings.forgetUnread(Date.now())).toBeGreaterThanOrEqual(2);
    // the old variant kept, then a time; the current one read after it (a read that found nothing), then kept
    await keep(old, '{"old":2}');
    await pause();
    const since = Date.now();
    await pause();
    expect(await renderings.stitched(site, VARIANT, "events", 3)).toBeUndefined();
    await keep(VARIANT, '{"now":2}');
    expect(await renderings.forgetUnread(since)).toBe(1);
    expect(await renderings.stitched(site, old, "events", 3)).toBeUndefined();
    expect((await renderings.stitched(site, VARIANT, "events", 3))?.own.body).toBe('{"now":2}');
  });
});
