/**
 * Stored renderings (docs/caching.md#stored-renderings), the differential check over a seeded calendar:
 * every record kind (events, venues, organizers, categories, tags), embeds, custom fields, a translation,
 * a due `future` event, password-protected records, `view` and `edit`, `_fields`. Each answer is read with
 * STORED_RENDERINGS off (computed), then on (the first read keeps the renderings, the next stitches them
 * from the store), and must be the same bytes every time; the store's `renderings` table tells which
 * answers were stored. A write of a linked record (a venue renamed, a term's count moved, a field defined)
 * must show at once in every event stitched from it. TEST_STORE=postgres runs it on PostgreSQL.
 */
import { startService, succeed, Running } from "../helpers/harness";
import { settings, useSettings } from "../../lib/settings";
import type { Json } from "../helpers/json";

interface SqlHandle { all<T>(sql: string, params?: unknown[]): Promise<T[]>; run(sql: string, params?: unknown[]): Promise<number> }

const day = (n: number) => `2031-0${1 + (n % 9)}-1${n % 10} 10:00:00`;
const until = (n: number) => `2031-0${1 + (n % 9)}-1${n % 10} 12:00:00`;

describe("stored renderings: every stitched answer is the computed one", () => {
  let svc: Running;
  let sql: SqlHandle;
  const seeded: Record<string, number> = {};
  const events: number[] = [];

  const stored = async (kind: string, id: number): Promise<number> =>
    Number((await sql.all<{ n: number | string }>("SELECT COUNT(*) AS n FROM renderings WHERE kind = ? AND id = ?", [kind, id]))[0].n);
  /** Whether the event's answer is stitched from the store: its rendering and every one it refers to are there. */
  const stitched = async (id: number): Promise<boolean> => {
    const [own] = await sql.all<{ refs: string | null }>("SELECT refs FROM renderings WHERE kind = 'events' AND id = ?", [id]);
    if (!own) return false;
    for (const [kind, ref] of JSON.parse(own.refs ?? "[]") as Array<[string, number]>) if (!(await stored(kind, ref))) return false;
    return true;
  };
  // the seeded events' year (the default list's window ends before it)
  const years = "/events?start_date=2031-01-01&end_date=2031-12-31";
  const storedOn = (on: boolean) => useSettings({ ...settings(), storedRenderings: on });
  /**
   * The answer computed (setting off), then read three times with it on (the first read keeps the
   * renderings, the second stitches them and keeps the event's whole answer, the third sends that): all the
   * same bytes. Answers the text.
   */
  const same = async (path: string, as?: "admin"): Promise<string> => {
    storedOn(false);
    const computed = await svc.get(path, as);
    storedOn(true);
    const first = await svc.get(path, as);
    const second = await svc.get(path, as);
    const third = await svc.get(path, as);
    // the body, and the validators the gateway derives from it
    const seen = (a: { status: number; text: string; headers: Headers }) => [path, a.status, a.text, a.headers.get("etag"), a.headers.get("last-modified"), a.headers.get("content-type")];
    expect(seen(first)).toEqual(seen(computed));
    expect(seen(second)).toEqual(seen(computed));
    expect(seen(third)).toEqual(seen(computed));
    return computed.text;
  };

  beforeAll(async () => {
    svc = await startService({ STORED_RENDERINGS: "1", CACHER: "off", DUE_EVENTS_JOB_MS: "0", SERIES_JOB_MS: "0", BASE_URL: "https://cal.example.org/sub" });
    sql = (svc.broker.getLocalService("events") as unknown as { storeHandle: { sql: SqlHandle } }).storeHandle.sql;
    await succeed(svc, "POST", `${svc.ns}/fields`, { key: "capacity", object_type: "event", type: "number", label: "Capacity" });
    await succeed(svc, "POST", `${svc.ns}/fields`, { key: "entrance", object_type: "venue", type: "text", label: "Entrance" });
    seeded.venue = (await succeed(svc, "POST", "/venues", { venue: "Main Hall", status: "publish", city: "Rome", country: "Italy", meta: { entrance: "North door" } })).id as number;
    seeded.venue2 = (await succeed(svc, "POST", "/venues", { venue: "Annex", status: "publish" })).id as number;
    seeded.draftVenue = (await succeed(svc, "POST", "/venues", { venue: "Unopened", status: "draft" })).id as number;
    seeded.lockedVenue = (await succeed(svc, "POST", "/venues", { venue: "Locked", status: "publish", post_password: "pw", address: "Secret street 1" })).id as number;
    seeded.organizer = (await succeed(svc, "POST", "/organizers", { organizer: "Jazz Club", status: "publish", email: "club@example.org" })).id as number;
    seeded.organizer2 = (await succeed(svc, "POST", "/organizers", { organizer: "Brass Band", status: "publish" })).id as number;
    seeded.parent = (await succeed(svc, "POST", "/categories", { name: "Music" })).id as number;
    seeded.child = (await succeed(svc, "POST", "/categories", { name: "Jazz", parent: seeded.parent })).id as number;
    seeded.tag = (await succeed(svc, "POST", "/tags", { name: "Outdoor" })).id as number;
    const inputs: Json[] = [
      { title: "Plain" },
      { title: "  Jazz <b>night</b> ", description: "<p>Three sets</p>\n\ntwo bands & more", excerpt: "Live jazz.", timezone: "Europe/Rome", cost: "20$",
        website: "http://jazz.example.org", featured: true, venue: seeded.venue, organizer: [seeded.organizer, seeded.organizer2],
        categories: [seeded.child, seeded.parent], tags: [seeded.tag], meta: { capacity: "120" } },
      { title: "Two venues", venue: [seeded.venue, seeded.venue2], categories: [seeded.parent] },
      { title: "Hidden venue", venue: [seeded.draftVenue, seeded.venue2], organizer: [seeded.organizer] },
      { title: "Locked venue", venue: seeded.lockedVenue },
      { title: "Online", attendance_mode: "mixed", online_url: "https://meet.example.org/x", venue: seeded.venue },
      { title: "Rescheduled", event_status: "rescheduled", tags: [seeded.tag] },
      { title: "Protected", post_password: "pw", venue: seeded.venue }
    ];
    for (const [i, input] of inputs.entries()) events.push((await succeed(svc, "POST", "/events", { status: "publish", start_date: day(i), end_date: until(i), ...input })).id as number);
    // a due `future` event: its date passed without a write (C13: a due `future` post counts as published; read as published)
    const due = await succeed(svc, "POST", "/events", { title: "Due", status: "future", date: "+1 day", start_date: day(9), end_date: until(9), venue: seeded.venue });
    seeded.due = due.id as number;
    events.push(seeded.due);
    // a translation: the French values read in French, the original in the default language
    const fr = await svc.request("POST", `/events/${events[1]}?i18n_language=fr`, { as: "admin", body: { title: "Soirée jazz" } });
    expect(fr.status).toBe(200);
    seeded.draft = (await succeed(svc, "POST", "/events", { status: "draft", title: "Draft", start_date: day(3), end_date: until(3), venue: seeded.venue })).id as number;
    events.push(seeded.draft);
    // its date passed after the last write of an event (a write of events publishes the due ones)
    const store = (svc.broker.getLocalService("events") as unknown as { store: { updateOne(q: Json, u: Json): Promise<unknown>; findOne(q: Json): Promise<Json> } }).store;
    await store.updateOne({ _id: seeded.due }, { $set: { date_utc: "2020-01-01 00:00:00", date: "2020-01-01 00:00:00" } });
    // stored as `future`, read as published
    expect((await store.findOne({ _id: seeded.due })).status).toBe("future");
    expect((await svc.get(`/events/${seeded.due}`)).body.status).toBe("publish");
  });
  afterAll(async () => { await svc.stop(); });

  test("every list page, every variant: the same bytes computed and stored; a page's events are stitched from the store", async () => {
    const lists = [
      years, `${years}&json_ld=1`, `${years}&per_page=3&page=2`, `${years}&categories=${seeded.parent}`, `${years}&venue=${seeded.venue}`,
      `${years}&_fields=title,venue,organizer,tags`, `${years}&search=jazz`, `${years}&i18n_language=fr`, `${years}&password=pw`
    ];
    for (const path of lists) {
      await same(path);
      await same(path, "admin");
    }
    expect(JSON.parse(await same(years)).events.length).toBe(9);
    // the list reads alone kept the renderings: every published event without a password is stitched
    const storedOnes = [];
    for (const id of events) if (await stitched(id)) storedOnes.push(id);
    expect(storedOnes.sort()).toEqual(events.filter(id => ![events[7], seeded.due, seeded.draft].includes(id)).sort());
    // and a page is answered from them: a rendering changed in the store shows in the list (its composed
    // texts dropped with it, as a rendering kept again has none)
    await sql.run("UPDATE renderings SET body = replace(body, '\"Plain\"', '\"Stitched\"'), answer = NULL, answer_plain = NULL WHERE kind = 'events' AND id = ?", [events[0]]);
    storedOn(true);
    const titles = ((await svc.get(`${years}&per_page=50`)).body.events as Json[]).map(e => e.title);
    expect(titles).toContain("Stitched");
    await sql.run("DELETE FROM renderings WHERE kind = 'events' AND id = ?", [events[0]]);
    expect(((await svc.get(`${years}&per_page=50`)).body.events as Json[]).map(e => e.title)).toContain("Plain");
  });

  test("every event, every variant: the same bytes computed and stored; only the anonymous default-language view of published events is stored", async () => {
    for (const id of events) {
      await same(`/events/${id}`);
      await same(`/events/${id}?_fields=title,venue,organizer,categories,json_ld`);
      await same(`/events/${id}?context=edit`, "admin");
      await same(`/events/${id}`, "admin");
      await same(`/events/${id}?i18n_language=fr`);
      await same(`/events/${id}?password=pw`);
    }
    const storedOnes = [];
    for (const id of events) if (await stitched(id)) storedOnes.push(id);
    // the protected, the due `future` and the draft events are computed at every read
    expect(storedOnes.sort()).toEqual(events.filter(id => ![events[7], seeded.due, seeded.draft].includes(id)).sort());
    // a hidden (draft) venue is kept as shown to nobody: the event linking it is stored all the same
    expect(await stored("venues", seeded.draftVenue)).toBe(1);
  });

  test("an event read whole answers the text composed from its renderings while each of them is still the one stored", async () => {
    const id = events[2];
    const path = `/events/${id}`;
    await same(path);
    const answered = async () => (await sql.all<{ answer: string | null }>("SELECT answer FROM renderings WHERE kind = 'events' AND id = ?", [id]))[0]?.answer;
    const text = await answered();
    expect(text).toBe((await svc.get(path)).text);
    // the kept text is what is sent...
    await sql.run("UPDATE renderings SET answer = replace(answer, '\"Two venues\"', '\"Composed\"') WHERE kind = 'events' AND id = ?", [id]);
    expect((await svc.get(path)).body.title).toBe("Composed");
    // ...but not once a rendering it was composed from was kept again: it is composed anew
    await sql.run("DELETE FROM renderings WHERE kind = 'venues' AND id = ?", [seeded.venue2]);
    await svc.get(`/venues/${seeded.venue2}`);
    expect(await stored("venues", seeded.venue2)).toBe(1);
    const again = await svc.get(path);
    expect(again.body.title).toBe("Two venues");
    expect(again.text).toBe(text);
    expect(await answered()).toBe(text);
    // an internal caller gets the record, not the text
    const record = await svc.broker.call("events.get", { id }) as Json;
    expect(record.title).toBe("Two venues");
  });

  test("a list page is sent as its events' texts composed without their JSON-LD, while each rendering they were composed from is still the one stored", async () => {
    const id = events[2];
    const page = `${years}&per_page=50`;
    await same(page);
    await same(`${page}&json_ld=1`);
    const composed = async () => (await sql.all<{ answer: string | null; answer_plain: string | null }>("SELECT answer, answer_plain FROM renderings WHERE kind = 'events' AND id = ?", [id]))[0];
    const listed = (text: string) => (JSON.parse(text).events as Json[]).find(e => e.id === id)!;
    // the page holds the event's texts as composed: without its JSON-LD by default, with it when asked
    const { answer, answer_plain: plain } = await composed();
    expect(JSON.stringify(listed((await svc.get(page)).text))).toBe(plain);
    expect(JSON.stringify(listed((await svc.get(`${page}&json_ld=1`)).text))).toBe(answer);
    expect(JSON.parse(plain!).json_ld).toBeUndefined();
    expect(JSON.parse(answer!).json_ld).toBeDefined();
    // the kept texts are what is sent...
    await sql.run("UPDATE renderings SET answer_plain = replace(answer_plain, '\"Two venues\"', '\"Composed\"') WHERE kind = 'events' AND id = ?", [id]);
    expect(listed((await svc.get(page)).text).title).toBe("Composed");
    expect(listed((await svc.get(`${page}&json_ld=1`)).text).title).toBe("Two venues");
    // ...until a rendering they were composed from is kept again: then composed anew, both
    await sql.run("DELETE FROM renderings WHERE kind = 'venues' AND id = ?", [seeded.venue2]);
    await svc.get(`/venues/${seeded.venue2}`);
    expect(listed((await svc.get(page)).text).title).toBe("Two venues");
    expect(await composed()).toEqual({ answer, answer_plain: plain });
    await same(page);
    // an internal caller gets the records
    const records = await svc.broker.call("events.list", { start_date: "2031-01-01", end_date: "2031-12-31", per_page: 50 }) as { events: Json[] };
    expect(records.events.find(e => e.id === id)!.title).toBe("Two venues");
  });

  test("venues and organizers read alone: the same bytes computed and stored; a published one without a password answers from its rendering", async () => {
    const linked: Array<[string, number]> = [
      ["venues", seeded.venue], ["venues", seeded.venue2], ["venues", seeded.draftVenue], ["venues", seeded.lockedVenue],
      ["organizers", seeded.organizer], ["organizers", seeded.organizer2]
    ];
    for (const [kind, id] of linked) {
      await same(`/${kind}/${id}`);
      await same(`/${kind}/${id}?_fields=id,venue,organizer,json_ld`);
      await same(`/${kind}/${id}?context=edit`, "admin");
      await same(`/${kind}/${id}`, "admin");
      await same(`/${kind}/${id}?i18n_language=fr`);
      await same(`/${kind}/${id}?password=pw`);
    }
    // answered from the store: a rendering changed there shows, and a computed read keeps it again
    await sql.run("UPDATE renderings SET body = replace(body, '\"Jazz Club\"', '\"Stored Club\"') WHERE kind = 'organizers' AND id = ?", [seeded.organizer]);
    storedOn(true);
    expect((await svc.get(`/organizers/${seeded.organizer}`)).body.organizer).toBe("Stored Club");
    await sql.run("DELETE FROM renderings WHERE kind = 'organizers' AND id = ?", [seeded.organizer]);
    expect((await svc.get(`/organizers/${seeded.organizer}`)).body.organizer).toBe("Jazz Club");
    expect(await stored("organizers", seeded.organizer)).toBe(1);
  });

  test("a write of a linked record shows at once in every event stitched from it", async () => {
    for (const id of events) await same(`/events/${id}`);
    expect(await stitched(events[1])).toBe(true);
    // the venue renamed: no event is written, each shows the new name (computed, then stored again)
    await succeed(svc, "POST", `/venues/${seeded.venue}`, { venue: "Grand Hall" });
    storedOn(true);
    const renamed = await svc.get(`/events/${events[1]}`);
    expect(renamed.body.venue.venue).toBe("Grand Hall");
    expect(renamed.body.json_ld.location.name).toBe("Grand Hall");
    const listed = (await svc.get(`${years}&per_page=50&json_ld=1`)).body.events as Json[];
    expect(listed.find(e => e.id === events[1])!.venue.venue).toBe("Grand Hall");
    await same(years);
    for (const id of events) await same(`/events/${id}`);
    expect(await stitched(events[1])).toBe(true);
    // a term's count moves with another event's write: the embedded term shows it
    const before = (await svc.get(`/events/${events[1]}`)).body.tags[0].count as number;
    await succeed(svc, "POST", "/events", { status: "publish", title: "Another outdoor", start_date: day(5), end_date: until(5), tags: [seeded.tag] });
    expect((await svc.get(`/events/${events[1]}`)).body.tags[0].count).toBe(before + 1);
    for (const id of events) await same(`/events/${id}`);
    // a field defined: every rendering of the site goes (its answers show the new field's key)
    expect(await stitched(events[1])).toBe(true);
    await succeed(svc, "POST", `${svc.ns}/fields`, { key: "door", object_type: "event", type: "text", label: "Door" });
    expect(await stitched(events[1])).toBe(false);
    for (const id of events) await same(`/events/${id}`);
    // the venue trashed: the events drop it
    await succeed(svc, "DELETE", `/venues/${seeded.venue2}`);
    for (const id of events) await same(`/events/${id}`);
    expect((await svc.get(`/events/${events[2]}`)).body.venue.id).toBe(seeded.venue);
  });
});
