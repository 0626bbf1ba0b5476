/**
 * Event status and online events (docs/records.md#event-status-and-online-events), over HTTP on the
 * store under test (SQLite, or PostgreSQL with TEST_STORE=postgres): the fields in every record and
 * context, their defaults (events stored before them included), the 400s naming the parameter, the list
 * filters, `previous_start_date` kept on a reschedule, one occurrence canceled with scope `this`, the
 * reason per language and searched as the description is, the JSON-LD of canceled, postponed, rescheduled, online and mixed events checked
 * against the properties Google lists for Event structured data, and the iCalendar read by ical.js.
 */
import ICAL from "ical.js";
import { KEYS, startService, Running, succeed } from "../helpers/harness";
import { runImport } from "../helpers/imports";
import { syncFeed } from "../helpers/sync-client";
import { startReceiver, testSecret } from "../helpers/webhook-receiver";
import { eventsService, expectInvalid, token } from "../helpers/events";
import type { Json } from "../helpers/json";

let svc: Running;
beforeAll(async () => { svc = await startService({ IMPORT_POLL_MS: "100", OUTBOUND_ALLOW_PRIVATE: "1", WEBHOOK_POLL_MS: "100" }); });
afterAll(async () => { await svc.stop(); });

const FR = (path: string) => `/fr/wp-json/calendar/events/v1${path}`;
const Y = new Date().getUTCFullYear() + 2;
const VENUE = { venue: "Teatro Verdi", address: "Via Roma 1", city: "Trieste", country: "Italy" };
const STATUS_KEYS = ["event_status", "event_status_reason", "previous_start_date", "attendance_mode", "online_url"];

async function create(body: Record<string, unknown>): Promise<Json> {
  return succeed(svc, "POST", "/events", { start_date: `${Y}-05-10 20:00:00`, end_date: `${Y}-05-10 22:00:00`, ...body });
}
const update = (id: number, body: Record<string, unknown>) => succeed(svc, "POST", `/events/${id}`, body);
const pick = (record: Json) => Object.fromEntries(STATUS_KEYS.map(k => [k, record[k]]));
const listIds = async (query: string): Promise<number[]> => {
  const res = await svc.request("GET", `/events?per_page=50&start_date=${Y}-01-01&end_date=${Y}-12-31&${query}`, { as: "admin" });
  expect(res.status).toBe(200);
  return res.body.events.map((e: Json) => e.id);
};

describe("the fields", () => {
  test("a new event answers the defaults, in view and edit, single and listed", async () => {
    const tag = token("dflt");
    const ev = await create({ title: `${tag} plain` });
    const defaults = { event_status: "scheduled", event_status_reason: "", previous_start_date: null, attendance_mode: "offline", online_url: null };
    expect(pick(ev)).toEqual(defaults);
    expect(pick((await svc.get(`/events/${ev.id}`)).body)).toEqual(defaults);
    expect(pick((await svc.get(`/events/${ev.id}?context=edit`, "admin")).body)).toEqual(defaults);
    const listed = (await svc.get(`/events?search=${tag}&start_date=${Y}-01-01`)).body.events;
    expect(listed.map(pick)).toEqual([defaults]);
  });

  test("create and update take every field; view and edit read them back", async () => {
    const ev = await create({ title: token("full"), event_status: "postponed", event_status_reason: " Storm warning ", attendance_mode: "mixed",
      online_url: "https://stream.example.org/live?id=4", venue: VENUE });
    const expected = { event_status: "postponed", event_status_reason: "Storm warning", previous_start_date: null, attendance_mode: "mixed",
      online_url: "https://stream.example.org/live?id=4" };
    expect(pick(ev)).toEqual(expected);
    for (const path of [`/events/${ev.id}`, `/events/${ev.id}?context=edit`]) expect(pick((await svc.get(path, "admin")).body)).toEqual(expected);
    const moved = await update(ev.id, { event_status: "moved_online", attendance_mode: "online" });
    expect(pick(moved)).toEqual({ ...expected, event_status: "moved_online", attendance_mode: "online" });
    // back to a plain event: the URL cleared with ""
    const back = await update(ev.id, { event_status: "scheduled", event_status_reason: "", attendance_mode: "offline", online_url: "" });
    expect(pick(back)).toEqual({ event_status: "scheduled", event_status_reason: "", previous_start_date: null, attendance_mode: "offline", online_url: null });
  });

  test("an author edits the fields of an own event; a contributor may not write another's", async () => {
    const own = await svc.request("POST", "/events", { as: "author", body: { title: token("own"), start_date: `${Y}-05-11 10:00`, end_date: `${Y}-05-11 11:00`, status: "publish" } });
    expect(own.status).toBe(201);
    const res = await svc.request("POST", `/events/${own.body.id}`, { as: "author", body: { event_status: "canceled", event_status_reason: "Sold out venue closed" } });
    expect(res.status).toBe(200);
    expect(res.body.event_status).toBe("canceled");
    const other = await svc.request("POST", `/events/${own.body.id}`, { as: "contributor", body: { event_status: "scheduled" } });
    expect(other.status).toBe(403);
  });

  test("a protected event listed to a caller without its password: no reason, no URL (in its JSON-LD neither)", async () => {
    const tag = token("pw");
    const ev = await create({ title: `${tag} private stream`, post_password: "sesame", event_status: "postponed", event_status_reason: "Secret reason",
      attendance_mode: "online", online_url: "https://meet.example.org/secret" });
    const listed = (await svc.get(`/events?search=${tag}&start_date=${Y}-01-01&json_ld=1`)).body.events as Json[];
    expect(listed.map(pick)).toEqual([{ event_status: "postponed", event_status_reason: "", previous_start_date: null, attendance_mode: "online", online_url: null }]);
    expect(JSON.stringify(listed[0].json_ld ?? {})).not.toContain("secret");
    const withPassword = (await svc.get(`/events?search=${tag}&start_date=${Y}-01-01&password=sesame`)).body.events as Json[];
    expect(withPassword[0].online_url).toBe("https://meet.example.org/secret");
    expect((await svc.get(`/events/${ev.id}?password=sesame`)).body.event_status_reason).toBe("Secret reason");
  });

  test("events stored before the fields existed answer the defaults and match the default filters", async () => {
    const tag = token("old");
    const ev = await create({ title: `${tag} legacy` });
    await eventsService(svc).store.updateOne({ _id: ev.id }, { $unset: { event_status: 1, event_status_reason: 1, attendance_mode: 1, online_url: 1 } });
    const read = (await svc.get(`/events/${ev.id}`)).body;
    expect(pick(read)).toEqual({ event_status: "scheduled", event_status_reason: "", previous_start_date: null, attendance_mode: "offline", online_url: null });
    expect(await listIds(`search=${tag}&event_status=scheduled`)).toEqual([ev.id]);
    expect(await listIds(`search=${tag}&attendance_mode=offline,online`)).toEqual([ev.id]);
    expect(await listIds(`search=${tag}&event_status=canceled`)).toEqual([]);
    expect(await listIds(`search=${tag}&attendance_mode=mixed`)).toEqual([]);
  });

  test("bad values are 400 rest_invalid_param naming the parameter; an online or mixed event needs its URL", async () => {
    const base = { title: token("bad"), start_date: `${Y}-05-10 20:00`, end_date: `${Y}-05-10 21:00` };
    const post = (body: Record<string, unknown>, path = "/events") => svc.request("POST", path, { as: "admin", body });
    expectInvalid(await post({ ...base, event_status: "cancelled" }), "event_status");
    expectInvalid(await post({ ...base, attendance_mode: "hybrid" }), "attendance_mode");
    expectInvalid(await post({ ...base, attendance_mode: "online" }), "online_url");
    expectInvalid(await post({ ...base, attendance_mode: "mixed", online_url: "" }), "online_url");
    expectInvalid(await post({ ...base, attendance_mode: "online", online_url: "ftp://files.example.org/x" }), "online_url");
    expectInvalid(await post({ ...base, online_url: "not a url" }), "online_url");
    expectInvalid(await post({ ...base, event_status_reason: 12 }), "event_status_reason");
    const online = await create({ title: token("onl"), attendance_mode: "online", online_url: "https://meet.example.org/a" });
    expectInvalid(await post({ online_url: "" }, `/events/${online.id}`), "online_url");
    expectInvalid(await post({ attendance_mode: "mixed", online_url: "" }, `/events/${online.id}`), "online_url");
    // by slug too (the writer holds the same rule)
    expectInvalid(await post({ online_url: "" }, `/events/by-slug/${online.slug}`), "online_url");
    // unchanged after the refusals
    expect(pick((await svc.get(`/events/${online.id}`, "admin")).body)).toMatchObject({ attendance_mode: "online", online_url: "https://meet.example.org/a" });
    // the list filters
    expectInvalid(await svc.get("/events?event_status=scheduled,nope"), "event_status");
    expectInvalid(await svc.get("/events?attendance_mode=virtual"), "attendance_mode");
  });
});

describe("lists", () => {
  const tag = token("lst");
  const made: Record<string, number> = {};
  beforeAll(async () => {
    for (const [name, body] of Object.entries({
      plain: {},
      canceled: { event_status: "canceled", event_status_reason: "Flooded hall" },
      postponed: { event_status: "postponed" },
      online: { attendance_mode: "online", online_url: "https://meet.example.org/b" },
      mixed: { event_status: "moved_online", attendance_mode: "mixed", online_url: "https://meet.example.org/c" }
    })) made[name] = (await create({ title: `${tag} ${name}`, ...body })).id;
  });

  test("a canceled event keeps its dates and stays in lists and searches", async () => {
    const ev = (await svc.get(`/events/${made.canceled}`)).body;
    expect([ev.start_date, ev.end_date, ev.status]).toEqual([`${Y}-05-10 20:00:00`, `${Y}-05-10 22:00:00`, "publish"]);
    expect(await listIds(`search=${tag}`)).toEqual(expect.arrayContaining([made.canceled, made.postponed]));
    expect(await listIds(`search=${encodeURIComponent(`${tag} canceled`)}`)).toEqual([made.canceled]);
  });

  test("event_status and attendance_mode filter by comma lists, alone and together", async () => {
    const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
    expect(sorted(await listIds(`search=${tag}&event_status=canceled,postponed`))).toEqual(sorted([made.canceled, made.postponed]));
    expect(sorted(await listIds(`search=${tag}&event_status=scheduled`))).toEqual(sorted([made.plain, made.online]));
    expect(sorted(await listIds(`search=${tag}&attendance_mode=online,mixed`))).toEqual(sorted([made.online, made.mixed]));
    expect(await listIds(`search=${tag}&attendance_mode=mixed&event_status=moved_online`)).toEqual([made.mixed]);
    expect(await listIds(`search=${tag}&attendance_mode=offline&event_status=moved_online`)).toEqual([]);
    // array form of the parameter
    expect(sorted(await listIds(`search=${tag}&event_status[]=canceled&event_status[]=moved_online`))).toEqual(sorted([made.canceled, made.mixed]));
  });

  test("the change feed carries the record with its status", async () => {
    await update(made.postponed, { event_status: "rescheduled", start_date: `${Y}-06-10 20:00:00`, end_date: `${Y}-06-10 22:00:00` });
    const { seen } = await syncFeed(svc, new Map(), { as: "admin", perPage: 500 });
    const found = [...seen].reverse().find(c => c.id === made.postponed && c.type === "event");
    expect(found?.record).toMatchObject({ event_status: "rescheduled", previous_start_date: `${Y}-05-10 20:00:00` });
  });
});

describe("webhooks", () => {
  test("an event.updated delivery's record shows the status", async () => {
    const rx = await startReceiver();
    try {
      const path = `/hook-${token()}`;
      const secret = testSecret();
      rx.expect(path, secret);
      await succeed(svc, "POST", `${svc.ns}/webhooks`, { url: rx.url(path), secret, events: ["event.updated"] });
      const ev = await create({ title: token("hook") });
      await update(ev.id, { event_status: "canceled", event_status_reason: "Storm" });
      const mine = () => rx.received(path).filter(r => r.body.data.id === ev.id);
      await rx.waitFor(() => mine().length > 0, 20_000, "the event.updated delivery");
      expect(mine()[0].body.type).toBe("event.updated");
      expect(mine()[0].body.data.record).toMatchObject({ id: ev.id, event_status: "canceled", event_status_reason: "Storm" });
      expect(rx.rejected).toEqual([]);
    } finally {
      await rx.close();
    }
  });
});

describe("previous_start_date", () => {
  test("kept when a rescheduled event's start moves: the start before the last move, in site time", async () => {
    // the event's own zone differs from the site's (UTC): the previous start is written in the site's
    const ev = await create({ title: token("resch"), timezone: "Europe/Rome", start_date: `${Y}-05-10 20:00:00`, end_date: `${Y}-05-10 22:00:00` });
    expect(ev.previous_start_date).toBeNull();
    // becoming rescheduled without a move keeps nothing yet
    expect((await update(ev.id, { event_status: "rescheduled" })).previous_start_date).toBeNull();
    const first = await update(ev.id, { start_date: `${Y}-05-17 20:00:00`, end_date: `${Y}-05-17 22:00:00` });
    expect(first.previous_start_date).toBe(`${Y}-05-10 18:00:00`);
    // another write that does not move the start keeps it; the read answers it in every context
    expect((await update(ev.id, { event_status_reason: "Moved a week" })).previous_start_date).toBe(`${Y}-05-10 18:00:00`);
    expect((await svc.get(`/events/${ev.id}?context=edit`, "admin")).body.previous_start_date).toBe(`${Y}-05-10 18:00:00`);
    const second = await update(ev.id, { start_date: `${Y}-05-24 21:00:00`, end_date: `${Y}-05-24 23:00:00` });
    expect(second.previous_start_date).toBe(`${Y}-05-17 18:00:00`);
    // read-only: a value sent is dropped
    expect((await update(ev.id, { previous_start_date: "2000-01-01 00:00:00" })).previous_start_date).toBe(`${Y}-05-17 18:00:00`);
    // scheduled again: none
    expect((await update(ev.id, { event_status: "scheduled" })).previous_start_date).toBeNull();
  });

  test("a status and a move in one write", async () => {
    const ev = await create({ title: token("resch2") });
    const moved = await update(ev.id, { event_status: "rescheduled", start_date: `${Y}-07-01 20:00:00`, end_date: `${Y}-07-01 22:00:00` });
    expect(moved.previous_start_date).toBe(`${Y}-05-10 20:00:00`);
  });
});

describe("recurrence", () => {
  test("occurrences take the series' status; one canceled with scope this, the others follow the series", async () => {
    const first = await create({ title: token("series"), start_date: `${Y}-03-02 19:00:00`, end_date: `${Y}-03-02 21:00:00`,
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"], attendance_mode: "mixed", online_url: "https://meet.example.org/s", venue: VENUE });
    const occurrences = async () => (await svc.get(`/events/${first.id}/occurrences?per_page=10`, "admin")).body.events as Json[];
    let all = await occurrences();
    expect(all).toHaveLength(4);
    expect(all.map(o => [o.event_status, o.attendance_mode, o.online_url])).toEqual(Array(4).fill(["scheduled", "mixed", "https://meet.example.org/s"]));
    const second = all[1];
    const canceled = await update(second.id, { event_status: "canceled", event_status_reason: "Holiday", scope: "this" });
    expect(canceled.event_status).toBe("canceled");
    all = await occurrences();
    expect(all.map(o => o.event_status)).toEqual(["scheduled", "canceled", "scheduled", "scheduled"]);
    // the series postponed as a whole: the canceled occurrence keeps its own status
    await update(first.id, { event_status: "postponed", scope: "all" });
    all = await occurrences();
    expect(all.map(o => o.event_status)).toEqual(["postponed", "canceled", "postponed", "postponed"]);
    expect(all[1].event_status_reason).toBe("Holiday");
    // the list filter sees occurrences as events
    expect(await listIds(`post_parent=${first.id}&event_status=canceled`)).toEqual([second.id]);
    // iCalendar: the canceled occurrence is an exception of the series with STATUS:CANCELLED
    const ics = await svc.request("GET", `/events?format=ics&start_date=${Y}-03-01&end_date=${Y}-03-31&post_parent=${first.id}`, { as: "admin" });
    expect(ics.status).toBe(200);
    const vevents = new ICAL.Component(ICAL.parse(ics.text)).getAllSubcomponents("vevent");
    const exception = vevents.find((v: Json) => v.hasProperty("recurrence-id"));
    expect(exception?.getFirstPropertyValue("status")).toBe("CANCELLED");
  });
});

describe("languages", () => {
  test("the reason is kept per language, with the original as fallback", async () => {
    const ev = await create({ title: token("i18n"), event_status: "canceled", event_status_reason: "Storm warning" });
    const fr = await svc.request("POST", FR(`/events/${ev.id}`), { as: "admin", body: { event_status_reason: "Alerte tempête" } });
    expect(fr.status).toBe(200);
    expect(fr.body).toMatchObject({ event_status_reason: "Alerte tempête", event_status: "canceled", i18n_language: "fr" });
    expect((await svc.get(`/events/${ev.id}`)).body.event_status_reason).toBe("Storm warning");
    expect((await svc.get(FR(`/events/${ev.id}`))).body.event_status_reason).toBe("Alerte tempête");
    expect((await svc.get(`/events/${ev.id}?i18n_language=de`)).body.event_status_reason).toBe("Storm warning");
    // the status itself is one for every language
    await svc.request("POST", FR(`/events/${ev.id}`), { as: "admin", body: { event_status: "postponed" } });
    expect((await svc.get(`/events/${ev.id}`)).body.event_status).toBe("postponed");
  });
});

describe("search", () => {
  test("the reason is searched as the description is: protected events' only by who may read them", async () => {
    const word = token("reason");
    const open = await create({ title: token("open"), event_status: "canceled", event_status_reason: `Flooded hall ${word}` });
    const hidden = await create({ title: token("hidden"), post_password: "sesame", event_status: "postponed", event_status_reason: `Secret ${word}` });
    const found = async (path: string) => ((await svc.get(path)).body.events as Json[]).map(e => e.id).sort((a, b) => a - b);
    const window = `start_date=${Y}-01-01&end_date=${Y}-12-31`;
    expect(await found(`/events?search=${word}&${window}`)).toEqual([open.id]);
    expect(await found(`/events?search=${encodeURIComponent(`flooded ${word}`)}&${window}`)).toEqual([open.id]);
    expect(await found(`/events?search=${word}&${window}&password=sesame`)).toEqual([open.id, hidden.id].sort((a, b) => a - b));
    expect(await found(`/events?search=${word}&${window}&event_status=postponed&password=sesame`)).toEqual([hidden.id]);
    // a reason changed: the old text no longer matches
    await update(open.id, { event_status_reason: "Moved to the park" });
    expect(await found(`/events?search=${word}&${window}`)).toEqual([]);
    expect(await found(`/events?search=${encodeURIComponent(`${open.title} park`)}&${window}`)).toEqual([open.id]);
  });

  test("a translated reason is searched in its language", async () => {
    const word = token("raison");
    const ev = await create({ title: token("i18n search"), event_status: "canceled", event_status_reason: "Storm warning" });
    await svc.request("POST", FR(`/events/${ev.id}`), { as: "admin", body: { event_status_reason: `Alerte tempête ${word}` } });
    const found = async (path: string) => ((await svc.get(path)).body.events as Json[]).map(e => e.id);
    expect(await found(FR(`/events?search=${word}&start_date=${Y}-01-01`))).toEqual([ev.id]);
    expect(await found(`/events?search=${word}&start_date=${Y}-01-01`)).toEqual([]);
  });
});

/**
 * Problems of an event's JSON-LD against Google's Event structured data (required: name, startDate,
 * location — a Place with an address, or a VirtualLocation with a url for online events, both for mixed
 * ones; recommended: description, endDate, eventStatus, eventAttendanceMode, previousStartDate of a
 * rescheduled event, organizer, offers, image, performer), with schema.org's values.
 */
function googleEventProblems(ld: Json): string[] {
  const out: string[] = [];
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?([+-]\d{2}:\d{2}|Z)$/;
  if (ld["@type"] !== "Event") out.push("@type is not Event");
  if (!/schema\.org/.test(String(ld["@context"]))) out.push("@context is not schema.org");
  if (typeof ld.name !== "string" || !ld.name) out.push("name is missing");
  if (!iso.test(String(ld.startDate))) out.push("startDate is not ISO 8601 with an offset");
  if (ld.endDate !== undefined && !iso.test(String(ld.endDate))) out.push("endDate is not ISO 8601 with an offset");
  const statuses = ["EventScheduled", "EventCancelled", "EventPostponed", "EventRescheduled", "EventMovedOnline"].map(s => `https://schema.org/${s}`);
  if (!statuses.includes(ld.eventStatus)) out.push(`eventStatus ${ld.eventStatus} is not a schema.org EventStatusType`);
  const modes = ["Offline", "Online", "Mixed"].map(m => `https://schema.org/${m}EventAttendanceMode`);
  if (!modes.includes(ld.eventAttendanceMode)) out.push(`eventAttendanceMode ${ld.eventAttendanceMode} is not a schema.org EventAttendanceModeEnumeration`);
  const locations: Json[] = Array.isArray(ld.location) ? ld.location : ld.location ? [ld.location] : [];
  if (!locations.length) out.push("location is missing");
  const places = locations.filter(l => l["@type"] === "Place");
  const virtual = locations.filter(l => l["@type"] === "VirtualLocation");
  for (const p of places) if (!p.address || (typeof p.address === "object" && !Object.keys(p.address).some(k => k !== "@type"))) out.push("a Place has no address");
  for (const v of virtual) if (!/^https?:\/\//.test(String(v.url))) out.push("a VirtualLocation has no url");
  if (locations.length !== places.length + virtual.length) out.push("a location is neither a Place nor a VirtualLocation");
  const mode = String(ld.eventAttendanceMode).replace("https://schema.org/", "");
  if (mode === "OnlineEventAttendanceMode" && (!virtual.length || places.length)) out.push("an online event's location is not a VirtualLocation");
  if (mode === "MixedEventAttendanceMode" && (!virtual.length || !places.length)) out.push("a mixed event's location is not both a Place and a VirtualLocation");
  if (mode === "OfflineEventAttendanceMode" && (!places.length || virtual.length)) out.push("an offline event's location is not a Place");
  if (ld.eventStatus === "https://schema.org/EventRescheduled" && !iso.test(String(ld.previousStartDate))) out.push("a rescheduled event has no previousStartDate");
  if (ld.eventStatus === "https://schema.org/EventMovedOnline" && !virtual.length) out.push("an event moved online has no VirtualLocation");
  if (ld.previousStartDate !== undefined && ld.eventStatus !== "https://schema.org/EventRescheduled") out.push("previousStartDate without EventRescheduled");
  if (typeof ld.description !== "string") out.push("description is missing");
  return out;
}

describe("JSON-LD and iCalendar", () => {
  const jsonLdOf = async (id: number) => (await svc.get(`/events/${id}`)).body.json_ld as Json;

  test("canceled, postponed, rescheduled, online, moved online and mixed events meet Google's Event properties", async () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ event_status: "canceled", venue: VENUE }, { eventStatus: "https://schema.org/EventCancelled", eventAttendanceMode: "https://schema.org/OfflineEventAttendanceMode" }],
      [{ event_status: "postponed", venue: VENUE }, { eventStatus: "https://schema.org/EventPostponed" }],
      [{ venue: VENUE }, { eventStatus: "https://schema.org/EventScheduled" }],
      [{ attendance_mode: "online", online_url: "https://meet.example.org/x" },
        { eventAttendanceMode: "https://schema.org/OnlineEventAttendanceMode", location: { "@type": "VirtualLocation", url: "https://meet.example.org/x" } }],
      [{ event_status: "moved_online", attendance_mode: "online", online_url: "https://meet.example.org/y", venue: VENUE },
        { eventStatus: "https://schema.org/EventMovedOnline", location: { "@type": "VirtualLocation", url: "https://meet.example.org/y" } }],
      [{ attendance_mode: "mixed", online_url: "https://meet.example.org/z", venue: VENUE }, { eventAttendanceMode: "https://schema.org/MixedEventAttendanceMode" }]
    ];
    for (const [body, expected] of cases) {
      const ev = await create({ title: token("ld"), description: "An evening of music", ...body });
      const ld = await jsonLdOf(ev.id);
      expect({ body, problems: googleEventProblems(ld) }).toEqual({ body, problems: [] });
      expect(ld).toMatchObject(expected);
      expect(ld.startDate).toBe(`${Y}-05-10T20:00:00+00:00`);
    }
    const rescheduled = await create({ title: token("ld"), description: "Moved", timezone: "Europe/Rome", venue: VENUE });
    await update(rescheduled.id, { event_status: "rescheduled", start_date: `${Y}-05-12 21:00:00`, end_date: `${Y}-05-12 23:00:00` });
    const ld = await jsonLdOf(rescheduled.id);
    expect(googleEventProblems(ld)).toEqual([]);
    expect(ld).toMatchObject({ eventStatus: "https://schema.org/EventRescheduled", previousStartDate: `${Y}-05-10T20:00:00+02:00`, startDate: `${Y}-05-12T21:00:00+02:00` });
    // the checker itself refuses what Google refuses
    expect(googleEventProblems({ ...ld, location: undefined, previousStartDate: undefined })).toEqual(["location is missing", "an offline event's location is not a Place", "a rescheduled event has no previousStartDate"]);
  });

  test("iCalendar read by ical.js: STATUS:CANCELLED, TENTATIVE for postponed, CONFIRMED otherwise; the online URL as CONFERENCE", async () => {
    const canceled = await create({ title: token("ics"), event_status: "canceled", event_status_reason: "Flood" });
    const postponed = await create({ title: token("ics"), event_status: "postponed" });
    const online = await create({ title: token("ics"), attendance_mode: "online", online_url: "https://meet.example.org/ics" });
    const vevent = async (id: number) => {
      const res = await svc.get(`/events/${id}?format=ics`);
      expect(res.status).toBe(200);
      return new ICAL.Component(ICAL.parse(res.text)).getFirstSubcomponent("vevent")!;
    };
    const c = await vevent(canceled.id);
    expect(c.getFirstPropertyValue("status")).toBe("CANCELLED");
    // the canceled event keeps its dates
    expect(new ICAL.Event(c).startDate.toString()).toBe(`${Y}-05-10T20:00:00Z`);
    expect((await vevent(postponed.id)).getFirstPropertyValue("status")).toBe("TENTATIVE");
    const o = await vevent(online.id);
    expect(o.getFirstPropertyValue("status")).toBe("CONFIRMED");
    expect(o.getFirstPropertyValue("conference")).toBe("https://meet.example.org/ics");
  });
});

describe("imports", () => {
  test("an iCalendar event with STATUS:CANCELLED is imported as canceled, the others as scheduled", async () => {
    const uid = token("uid");
    const vevent = (n: number, status: string) => ["BEGIN:VEVENT", `UID:${uid}-${n}@example.org`, `DTSTAMP:${Y}0101T000000Z`, `DTSTART:${Y}0410T120000Z`,
      `DTEND:${Y}0410T130000Z`, `SUMMARY:${uid} lunch ${n}`, `STATUS:${status}`, "END:VEVENT"];
    const ics = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...vevent(1, "CANCELLED"), ...vevent(2, "CONFIRMED"), "END:VCALENDAR"].join("\r\n");
    const run = await runImport(svc.ns, KEYS.admin, { ics });
    expect(run).toMatchObject({ state: "done", created: 2, failed: 0 });
    const listed = (await svc.get(`/events?search=${uid}&start_date=${Y}-04-01&end_date=${Y}-04-30`)).body.events as Json[];
    // both start at the same minute and an import writes in parallel, so the ids' order is the run's
    const statuses = listed.map(e => [e.title, e.event_status]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(statuses).toEqual([[`${uid} lunch 1`, "canceled"], [`${uid} lunch 2`, "scheduled"]]);
  });
});
