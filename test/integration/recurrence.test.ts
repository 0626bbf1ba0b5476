/**
 * Recurring events through HTTP (C34: occurrence ids; C51 to C55: the recurrence decisions): series made with weekly, monthly and yearly
 * rules (COUNT, UNTIL, BYDAY, BYMONTHDAY, BYSETPOS, EXDATE, RDATE) in Europe/Rome and America/New_York
 * across DST changes and all-day; the occurrences `/events` lists in a window are compared with what
 * ical.js (not the rrule library the service expands with) expands from the service's own iCalendar
 * answer of the same query. Also: the record fields, the occurrences route, validation, the scopes of
 * updates and deletes, a rule change keeping surviving ids, the horizon moving forward, term counts and
 * the change feed replaying to the same lists. Runs on PostgreSQL too (`npm run test:postgres`).
 */
import type { Json } from "../helpers/json";
import { startService, succeed, Running } from "../helpers/harness";
import { token } from "../helpers/events";
import { icalSeen, listAll, seenOfRecords } from "../helpers/recurrence";
import { Copy, fullLists, sorted, syncFeed } from "../helpers/sync-client";
import { SERIES_JOB_TIMEOUT_MS } from "../../domain/events/series-horizon";

let svc: Running;
/** Next year: the whole year lies inside the materialisation horizon (C55: two years ahead). */
const Y = new Date().getUTCFullYear() + 1;
const WINDOW = `start_date=${Y}-01-01&end_date=${Y}-12-31`;

beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc.stop();
});

const ok = (method: string, path: string, body?: Record<string, unknown>, status?: number[]) => succeed(svc, method, path, body, status);

/** Creates a series titled with a fresh token; answers the first event and the token. */
async function series(body: Record<string, unknown>): Promise<{ first: Json; tok: string }> {
  const tok = token("rec");
  const first = await ok("POST", "/events", { title: `Series ${tok}`, ...body });
  return { first, tok };
}

/** The list of a window against ical.js's expansion of the ICS of the same query; answers the list. */
async function compareWithIcal(query: string, from: string, to: string): Promise<Json[]> {
  const listed = await listAll(svc, query);
  const ics = await svc.request("GET", `/events?${query}&format=ics`, { as: "admin" });
  expect(ics.status).toBe(200);
  expect(ics.headers.get("content-type")).toMatch(/text\/calendar/);
  expect(icalSeen(ics.text, from, to)).toEqual(seenOfRecords(listed));
  return listed;
}

const YEAR = [`${Y}-01-01 00:00:00`, `${Y}-12-31 23:59:59`] as const;
const starts = (events: Json[]) => events.map(e => e.start_date).sort();
const idsByStart = (events: Json[]): Record<string, number> => Object.fromEntries(events.map(e => [e.start_date, e.id]));

describe("series against ical.js", () => {
  test("weekly BYDAY with UNTIL and an EXDATE in Europe/Rome keeps 19:00 across both DST changes", async () => {
    const { first, tok } = await series({
      start_date: `${Y}-01-05 19:00:00`, end_date: `${Y}-01-05 21:00:00`, timezone: "Europe/Rome",
      recurrence: [`RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=${Y}1130T235959Z`, `EXDATE;TZID=Europe/Rome:${Y}0112T190000`]
    });
    expect(first.recurrence).toEqual([`RRULE:FREQ=WEEKLY;UNTIL=${Y}1130T235959Z;BYDAY=TU,TH`, `EXDATE;TZID=Europe/Rome:${Y}0112T190000`]);
    const listed = await compareWithIcal(`search=${tok}&${WINDOW}`, `${Y}-01-01 00:00:00`, `${Y}-12-31 23:59:59`);
    expect(listed.length).toBeGreaterThan(80);
    expect(new Set(listed.map(e => e.start_date.slice(11)))).toEqual(new Set(["19:00:00"]));
    expect(listed.map(e => e.start_date)).not.toContain(`${Y}-01-12 19:00:00`);
    // the UTC hour moves with DST: 18:00Z in winter, 17:00Z in summer
    expect(new Set(listed.map(e => e.utc_start_date.slice(11)))).toEqual(new Set(["18:00:00", "17:00:00"]));
  });

  test("monthly BYSETPOS (last weekday of the month) with COUNT in America/New_York across DST", async () => {
    const { first, tok } = await series({
      start_date: `${Y}-01-29 09:30:00`, end_date: `${Y}-01-29 10:30:00`, timezone: "America/New_York",
      recurrence: ["RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=12"]
    });
    const listed = await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
    expect(listed.length).toBe(12);
    expect(listed.every(e => e.start_date.endsWith("09:30:00"))).toBe(true);
    expect(new Set(listed.map(e => e.utc_start_date.slice(11)))).toEqual(new Set(["14:30:00", "13:30:00"]));
    // every other occurrence names the first event
    expect(listed.filter(e => e.id !== first.id).every(e => e.post_parent === first.id && e.recurrence === undefined)).toBe(true);
  });

  test("monthly BYMONTHDAY=31 with an RDATE and an EXDATE in America/New_York", async () => {
    const { tok } = await series({
      start_date: `${Y}-01-31 18:00:00`, end_date: `${Y}-01-31 20:00:00`, timezone: "America/New_York",
      recurrence: ["RRULE:FREQ=MONTHLY;BYMONTHDAY=31;COUNT=7", `RDATE;TZID=America/New_York:${Y}0415T180000`, `EXDATE;TZID=America/New_York:${Y}0531T180000`]
    });
    const listed = await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
    const days = starts(listed).map(d => d.slice(5, 10));
    expect(days).toEqual(["01-31", "03-31", "04-15", "07-31", "08-31", "10-31", "12-31"]);
  });

  test("yearly on the last Sunday of March and October (the DST change days) in Europe/Rome, with an RDATE", async () => {
    const { tok } = await series({
      start_date: `${Y}-03-01 10:00:00`, end_date: `${Y}-03-01 11:30:00`, timezone: "Europe/Rome",
      recurrence: ["RRULE:FREQ=YEARLY;BYMONTH=3,10;BYDAY=-1SU;UNTIL=" + `${Y + 5}0101`, `RDATE;TZID=Europe/Rome:${Y}0704T100000`]
    });
    const listed = await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
    // the first start (not given by the rule) is an occurrence too, then the rule's and the added date
    expect(listed.length).toBe(4);
    expect(listed.every(e => e.start_date.endsWith("10:00:00"))).toBe(true);
  });

  test("all-day weekly series with COUNT and a date EXDATE", async () => {
    const { first, tok } = await series({
      start_date: `${Y}-02-06`, end_date: `${Y}-02-06`, all_day: true, timezone: "America/New_York",
      recurrence: ["RRULE:FREQ=WEEKLY;BYDAY=SA;COUNT=10", `EXDATE;VALUE=DATE:${Y}0320`]
    });
    expect(first.all_day).toBe(true);
    const listed = await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
    expect(listed.length).toBe(9);
    expect(listed.every(e => e.all_day && e.start_date.endsWith("00:00:00") && e.end_date.endsWith("23:59:59"))).toBe(true);
    expect(starts(listed)).not.toContain(`${Y}-03-20 00:00:00`);
  });

  test("a narrower window lists part of a series: the ICS excludes exactly the unlisted occurrences inside it", async () => {
    const { tok } = await series({
      start_date: `${Y}-02-02 08:00:00`, end_date: `${Y}-02-02 09:00:00`, timezone: "Europe/Rome",
      recurrence: ["RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=" + `${Y}0630T000000Z`]
    });
    const listed = await compareWithIcal(`search=${tok}&start_date=${Y}-03-20&end_date=${Y}-04-10`, `${Y}-03-20 00:00:00`, `${Y}-04-10 23:59:59`);
    expect(listed.length).toBe(6);
  });

  test("a window reaching past the horizon: the ICS expands to the stored occurrences only", async () => {
    const { tok } = await series({
      start_date: `${Y}-01-07 07:30:00`, end_date: `${Y}-01-07 08:00:00`, timezone: "America/New_York", recurrence: ["RRULE:FREQ=WEEKLY;BYDAY=TH"]
    });
    const listed = await compareWithIcal(`search=${tok}&start_date=${Y + 1}-01-01&end_date=${Y + 3}-12-31`, `${Y + 1}-01-01 00:00:00`, `${Y + 3}-12-31 23:59:59`);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThan(53);
  });

  test("a query matching more than the 1 000 events an iCalendar answer holds: the series still expand to every matching occurrence", async () => {
    const tok = token("many");
    const daily = (time: string) => ok("POST", "/events", {
      title: `Daily ${tok}`, start_date: `${Y}-01-01 ${time}`, end_date: `${Y}-01-01 ${time.replace(":00:00", ":30:00")}`, timezone: "Europe/Rome",
      recurrence: ["RRULE:FREQ=DAILY"]
    });
    const a = await daily("08:00:00");
    await daily("20:00:00");
    // an exception far past the first 1 000 records (in start order)
    const late = (await svc.get(`/events/${a.id}/occurrences?start_date=${Y + 1}-09-15&end_date=${Y + 1}-09-15`, "admin")).body.events[0];
    await ok("POST", `/events/${late.id}`, { title: `Late ${tok}`, start_date: `${Y + 1}-09-15 09:00:00`, end_date: `${Y + 1}-09-15 09:45:00` });
    const query = `search=${tok}&start_date=${Y}-01-01&end_date=${Y + 1}-10-31`;
    const listed = await compareWithIcal(query, `${Y}-01-01 00:00:00`, `${Y + 1}-10-31 23:59:59`);
    expect(listed.length).toBeGreaterThan(1000);
    expect(listed.find(e => e.id === late.id)).toMatchObject({ title: `Late ${tok}`, start_date: `${Y + 1}-09-15 09:00:00` });
  });

  test("exceptions (own title and time) are RECURRENCE-ID VEVENTs, and a filter leaving occurrences out is honoured", async () => {
    const { tok } = await series({
      start_date: `${Y}-05-05 19:00:00`, end_date: `${Y}-05-05 20:00:00`, timezone: "Europe/Rome",
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=8"]
    });
    let listed = await listAll(svc, `search=${tok}&${WINDOW}`);
    const third = listed.find(e => e.start_date === `${Y}-05-19 19:00:00`);
    const fifth = listed.find(e => e.start_date === `${Y}-06-02 19:00:00`);
    await ok("POST", `/events/${third.id}`, { title: `Special ${tok}`, start_date: `${Y}-05-19 21:00:00`, end_date: `${Y}-05-19 22:30:00` });
    await ok("POST", `/events/${fifth.id}`, { featured: true });
    listed = await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
    expect(listed.find(e => e.id === third.id)).toMatchObject({ title: `Special ${tok}`, start_date: `${Y}-05-19 21:00:00` });
    const ics = await svc.request("GET", `/events?search=${tok}&${WINDOW}&format=ics`, { as: "admin" });
    expect(ics.text).toContain(`RECURRENCE-ID;TZID=Europe/Rome:${Y}0519T190000`);
    // only the featured one: the others inside the window are excluded, the exception gone from the list
    const featured = await compareWithIcal(`search=${tok}&${WINDOW}&featured=true`, ...YEAR);
    expect(featured.map(e => e.id)).toEqual([fifth.id]);
  });
});

describe("one event as iCalendar (C55: horizon and ICS)", () => {
  test("the first event's file is the whole series; another occurrence's is that occurrence alone", async () => {
    const { first, tok } = await series({
      start_date: `${Y}-10-20 19:00:00`, end_date: `${Y}-10-20 20:00:00`, timezone: "Europe/Rome", recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"]
    });
    const whole = await svc.request("GET", `/events/${first.id}?format=ics`, { as: "admin" });
    expect(whole.status).toBe(200);
    const seen = icalSeen(whole.text, `${Y - 1}-01-01 00:00:00`, `${Y + 1}-12-31 23:59:59`);
    expect(seen.map(x => x.start)).toEqual([`${Y}-10-20 19:00:00`, `${Y}-10-27 19:00:00`, `${Y}-11-03 19:00:00`, `${Y}-11-10 19:00:00`]);
    expect(seen.every(x => x.title === `Series ${tok}`)).toBe(true);
    const other = (await svc.get(`/events/${first.id}/occurrences`, "admin")).body.events[2];
    const one = await svc.request("GET", `/events/${other.id}?format=ics`, { as: "admin" });
    expect(one.text).not.toContain("RRULE");
    expect(icalSeen(one.text, `${Y - 1}-01-01 00:00:00`, `${Y + 1}-12-31 23:59:59`).map(x => x.start)).toEqual([`${Y}-11-03 19:00:00`]);
  });
});

describe("records, the occurrences route and validation", () => {
  let first: Json;
  let tok: string;
  let occurrences: Json[];
  beforeAll(async () => {
    ({ first, tok } = await series({
      start_date: `${Y}-03-03 12:00:00`, end_date: `${Y}-03-03 13:00:00`, timezone: "Europe/Rome", slug: `lunch-${Date.now()}`,
      recurrence: ["RRULE:FREQ=DAILY;COUNT=5"]
    }));
    occurrences = await listAll(svc, `search=${tok}&${WINDOW}`);
  });

  test("the first event carries `recurrence`, the others `post_parent`, both right before the i18n keys (C51: recurrence fields)", async () => {
    const keys = Object.keys(first);
    expect(keys.slice(-3)).toEqual(["recurrence", "i18n_language", "translations"]);
    const other = occurrences.find(e => e.id !== first.id);
    expect(Object.keys(other).slice(-3)).toEqual(["post_parent", "i18n_language", "translations"]);
    const plain = await ok("POST", "/events", { title: `Plain ${tok}`, start_date: `${Y}-03-03 12:00:00`, end_date: `${Y}-03-03 13:00:00` });
    expect(plain).not.toHaveProperty("recurrence");
    expect(plain).not.toHaveProperty("post_parent");
  });

  test("occurrences have their own ids and slugs `{series slug}-{date}` (C54: occurrence slugs and route)", () => {
    expect(occurrences).toHaveLength(5);
    expect(new Set(occurrences.map(e => e.id)).size).toBe(5);
    const second = occurrences.find(e => e.start_date === `${Y}-03-04 12:00:00`);
    expect(second.slug).toBe(`${first.slug}-${Y}-03-04`);
    expect(second.title).toBe(first.title);
  });

  test("GET /events/{id}/occurrences from any member, paged and windowed; 404 outside a series", async () => {
    const member = occurrences.find(e => e.id !== first.id);
    const all = await svc.request("GET", `/events/${member.id}/occurrences`, { as: "admin" });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(5);
    expect(all.body.events.map((e: Json) => e.id)).toEqual(occurrences.map(e => e.id).sort((a, b) => a - b));
    const paged = await svc.request("GET", `/events/${first.id}/occurrences?per_page=2&page=2`, { as: "admin" });
    expect(paged.body.events).toHaveLength(2);
    expect(paged.body.total_pages).toBe(3);
    expect(paged.body.next_rest_url).toContain(`/events/${first.id}/occurrences`);
    const windowed = await svc.get(`/events/${first.id}/occurrences?start_date=${Y}-03-04&end_date=${Y}-03-05`);
    expect(windowed.body.events.map((e: Json) => e.start_date)).toEqual([`${Y}-03-04 12:00:00`, `${Y}-03-05 12:00:00`]);
    const plain = await ok("POST", "/events", { title: "Alone", start_date: `${Y}-03-03 12:00:00`, end_date: `${Y}-03-03 13:00:00` });
    const none = await svc.get(`/events/${plain.id}/occurrences`);
    expect(none.status).toBe(404);
    expect(none.body.code).toBe("rest_event_not_recurring");
  });

  test.each([
    [["RRULE:FREQ=HOURLY"]],
    [["RRULE:FREQ=WEEKLY;COUNT=0"]],
    [["RRULE:FREQ=WEEKLY;COUNT=2", "RRULE:FREQ=DAILY;COUNT=2"]],
    [["DTSTART:20270101T100000Z", "RRULE:FREQ=WEEKLY"]],
    [["RRULE:FREQ=WEEKLY", "EXDATE;TZID=America/New_York:20270110T120000"]],
    [["RRULE:FREQ=DAILY;INTERVAL=0"]],
    ["RRULE:FREQ=WEEKLY"],
    [["RRULE:FREQ=WEEKLY;UNTIL=20000101T000000Z"]]
  ])("a bad recurrence %j is a 400 naming `recurrence` (C52: the recurrence rules accepted)", async recurrence => {
    const res = await svc.request("POST", "/events", { as: "admin", body: { title: "Bad", start_date: `${Y}-01-01 10:00:00`, end_date: `${Y}-01-01 11:00:00`, timezone: "Europe/Rome", recurrence } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("rest_invalid_param");
    expect(Object.keys(res.body.data.params)).toEqual(["recurrence"]);
  });

  test("more than 1 000 occurrences up to the horizon is a 400 (C52: the recurrence rules accepted)", async () => {
    // a daily rule that started 1 200 days ago gives about 1 930 occurrences up to the horizon, every third day about 640
    const day = new Date(Date.now() - 1200 * 86_400_000).toISOString().slice(0, 10);
    const body = (rule: string) => ({ title: `Many ${token("m")}`, start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00`, recurrence: [rule] });
    const res = await svc.request("POST", "/events", { as: "admin", body: body("RRULE:FREQ=DAILY") });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.data.params)).toEqual(["recurrence"]);
    const fewer = await svc.request("POST", "/events", { as: "admin", body: body("RRULE:FREQ=DAILY;INTERVAL=3") });
    expect(fewer.status).toBe(201);
  });

  test("post_parent on a series is a 400; a bad scope is a 400", async () => {
    const res = await svc.request("POST", `/events/${first.id}`, { as: "admin", body: { post_parent: 1 } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.data.params)).toContain("post_parent");
    const scope = await svc.request("POST", `/events/${first.id}?scope=everything`, { as: "admin", body: { title: "x" } });
    expect(scope.status).toBe(400);
    expect(Object.keys(scope.body.data.params)).toContain("scope");
  });

  test("term counts count each published occurrence (C35: recurrence leaves other events unchanged)", async () => {
    const cat = await ok("POST", "/categories", { name: `Cat ${tok}` });
    const { first: f } = await series({
      start_date: `${Y}-09-01 10:00:00`, end_date: `${Y}-09-01 11:00:00`, categories: [cat.id], recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"]
    });
    expect((await svc.get(`/categories/${cat.id}`)).body.count).toBe(4);
    const members = (await svc.get(`/events/${f.id}/occurrences`, "admin")).body.events;
    await ok("DELETE", `/events/${members[2].id}`);
    expect((await svc.get(`/categories/${cat.id}`)).body.count).toBe(3);
  });
});

describe("scopes of updates and deletes (C53: occurrence identity, exceptions and scope)", () => {
  /** A weekly series of 6 Tuesdays at 19:00 Rome; answers its members by start. */
  async function weekly(): Promise<{ first: Json; tok: string; byStart: Record<string, number> }> {
    const { first, tok } = await series({
      start_date: `${Y}-04-06 19:00:00`, end_date: `${Y}-04-06 20:00:00`, timezone: "Europe/Rome", cost: "10",
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=6"]
    });
    return { first, tok, byStart: idsByStart(await listAll(svc, `search=${tok}&${WINDOW}`)) };
  }
  const at = (day: string) => `${Y}-${day} 19:00:00`;

  test("this: one occurrence changes alone (an exception); all then changes the rest but not what it overrode", async () => {
    const { first, tok, byStart } = await weekly();
    const third = byStart[at("04-20")];
    const edited = await ok("POST", `/events/${third}`, { title: `Own ${tok}` });
    expect(edited.id).toBe(third);
    await ok("POST", `/events/${first.id}`, { title: `Renamed ${tok}`, cost: "12", scope: "all" });
    const listed = await listAll(svc, `search=${tok}&${WINDOW}`);
    expect(idsByStart(listed)).toEqual(byStart);
    for (const e of listed) {
      expect(e.title).toBe(e.id === third ? `Own ${tok}` : `Renamed ${tok}`);
      expect(e.cost).toBe("$12");
    }
    await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
  });

  test("this and all at the same moment: the exception keeps its own title and takes the series' new cost", async () => {
    const { first, tok, byStart } = await weekly();
    const third = byStart[at("04-20")];
    const [mine, all] = await Promise.all([
      svc.request("PATCH", `/events/${third}`, { as: "admin", body: { title: `Own ${tok}` } }),
      svc.request("PATCH", `/events/${first.id}`, { as: "admin", body: { title: `Renamed ${tok}`, cost: "15", scope: "all" } })
    ]);
    expect([mine.status, all.status]).toEqual([200, 200]);
    for (const e of await listAll(svc, `search=${tok}&${WINDOW}`)) {
      expect(e.title).toBe(e.id === third ? `Own ${tok}` : `Renamed ${tok}`);
      expect(e.cost).toBe("$15");
    }
  });

  test("an occurrence with its own times is left alone when the series is planned again (no write, no feed entry)", async () => {
    const { first, tok, byStart } = await weekly();
    const third = byStart[at("04-20")];
    await ok("POST", `/events/${third}`, { start_date: `${Y}-04-21 18:00:00`, end_date: `${Y}-04-21 19:30:00` });
    const { token: mark } = await syncFeed(svc, new Map(), { as: "admin", perPage: 500 });
    // one more occurrence: the series is planned again, the others keep their ids and times
    await ok("POST", `/events/${first.id}`, { recurrence: ["RRULE:FREQ=WEEKLY;COUNT=7"], scope: "all" });
    const listed = idsByStart(await listAll(svc, `search=${tok}&${WINDOW}`));
    expect(Object.keys(listed)).toHaveLength(7);
    expect(listed[`${Y}-04-21 18:00:00`]).toBe(third);
    const after = (await syncFeed(svc, new Map(), { as: "admin", perPage: 500, token: mark })).seen;
    expect(after.some(c => c.action === "created")).toBe(true);
    expect(after.filter(c => c.id === third)).toEqual([]);
  });

  test("all from an occurrence: a time change moves every occurrence and keeps every id", async () => {
    const { tok, byStart } = await weekly();
    const fourth = byStart[at("04-27")];
    await ok("PATCH", `/events/${fourth}?scope=all`, { start_date: `${Y}-04-27 20:30:00`, end_date: `${Y}-04-27 21:30:00` });
    const listed = await listAll(svc, `search=${tok}&${WINDOW}`);
    expect(listed.map(e => e.start_date.slice(11))).toEqual(Array(6).fill("20:30:00"));
    expect(listed.map(e => e.id).sort()).toEqual(Object.values(byStart).sort());
    const first = listed.find(e => Array.isArray(e.recurrence));
    expect(first.start_date).toBe(`${Y}-04-06 20:30:00`);
    await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
  });

  test.each([["a week", 7], ["a day", 1]])("all: the whole series moved by %s onto its own later dates keeps working and the first event's id", async (_label, days) => {
    const { first, tok, byStart } = await weekly();
    const day = (n: number) => `${Y}-04-${String(6 + n).padStart(2, "0")}`;
    await ok("PATCH", `/events/${first.id}`, { start_date: `${day(days)} 19:00:00`, end_date: `${day(days)} 20:00:00` });
    const listed = await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
    expect(listed).toHaveLength(6);
    expect(starts(listed)[0]).toBe(`${day(days)} 19:00:00`);
    expect(listed.find(e => e.start_date === `${day(days)} 19:00:00`).id).toBe(first.id);
    // the occurrences that were not moved onto the first event's new date keep their ids
    const kept = Object.values(byStart).filter(id => listed.some(e => e.id === id));
    expect(kept.length).toBeGreaterThanOrEqual(5);
    expect(new Set(listed.map(e => e.slug)).size).toBe(6);
  });

  test("following: the series splits at the occurrence into a new series, ids kept", async () => {
    const { first, tok, byStart } = await weekly();
    const fourth = byStart[at("04-27")];
    const split = await ok("PUT", `/events/${fourth}`, { title: `Later ${tok}`, scope: "following" });
    expect(split.recurrence).toEqual(["RRULE:FREQ=WEEKLY;COUNT=3"]);
    expect(split).not.toHaveProperty("post_parent");
    const old = (await svc.get(`/events/${first.id}`, "admin")).body;
    expect(old.recurrence[0]).toMatch(/^RRULE:FREQ=WEEKLY;UNTIL=/);
    const listed = await listAll(svc, `search=${tok}&${WINDOW}`);
    expect(idsByStart(listed)).toEqual(byStart);
    for (const e of listed) {
      const later = e.start_date >= at("04-27");
      expect(e.title).toBe(later ? `Later ${tok}` : `Series ${tok}`);
      if (later && e.id !== fourth) expect(e.post_parent).toBe(fourth);
      if (!later && e.id !== first.id) expect(e.post_parent).toBe(first.id);
    }
    expect((await svc.get(`/events/${fourth}/occurrences`, "admin")).body.total).toBe(3);
    expect((await svc.get(`/events/${first.id}/occurrences`, "admin")).body.total).toBe(3);
    await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
  });

  test("delete this: trashes the occurrence and adds its EXDATE; restoring removes it", async () => {
    const { first, tok, byStart } = await weekly();
    const second = byStart[at("04-13")];
    const trashed = await ok("DELETE", `/events/${second}`);
    expect(trashed.status).toBe("trash");
    const head = (await svc.get(`/events/${first.id}`, "admin")).body;
    expect(head.recurrence).toContain(`EXDATE;TZID=Europe/Rome:${Y}0413T190000`);
    let listed = await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
    expect(listed.map(e => e.id)).not.toContain(second);
    expect(listed).toHaveLength(5);
    await ok("POST", `/events/${second}`, { status: "publish" });
    expect((await svc.get(`/events/${first.id}`, "admin")).body.recurrence).toEqual(["RRULE:FREQ=WEEKLY;COUNT=6"]);
    listed = await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
    expect(idsByStart(listed)).toEqual(byStart);
  });

  test("deletes of several occurrences at once each add their EXDATE (none lost)", async () => {
    const { first, tok, byStart } = await weekly();
    const days = ["04-13", "04-20", "04-27", "05-04"];
    const answers = await Promise.all(days.map(d => svc.request("DELETE", `/events/${byStart[at(d)]}`, { as: "admin" })));
    expect(answers.map(a => a.status)).toEqual([200, 200, 200, 200]);
    const head = (await svc.get(`/events/${first.id}`, "admin")).body;
    expect(head.recurrence).toEqual(["RRULE:FREQ=WEEKLY;COUNT=6", `EXDATE;TZID=Europe/Rome:${days.map(d => `${Y}${d.replace("-", "")}T190000`).join(",")}`]);
    expect(starts(await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR))).toEqual([at("04-06"), at("05-11")]);
  });

  test("delete following: the rule ends before it, it and the later ones are trashed", async () => {
    const { first, tok, byStart } = await weekly();
    await ok("DELETE", `/events/${byStart[at("04-27")]}?scope=following`);
    const listed = await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR);
    expect(starts(listed)).toEqual([at("04-06"), at("04-13"), at("04-20")]);
    expect((await svc.get(`/events/${first.id}`, "admin")).body.recurrence[0]).toMatch(/UNTIL=/);
  });

  test("delete all: every occurrence is trashed; a second delete is 410", async () => {
    const { tok, byStart } = await weekly();
    const res = await ok("DELETE", `/events/${byStart[at("04-20")]}?scope=all`);
    expect(res.status).toBe("trash");
    expect(await listAll(svc, `search=${tok}&${WINDOW}`)).toEqual([]);
    const again = await svc.request("DELETE", `/events/${byStart[at("04-20")]}`, { as: "admin" });
    expect(again.status).toBe(410);
    // restoring the series restores every occurrence, ids kept
    const first = Object.values(byStart).sort((x, y) => x - y)[0];
    await ok("POST", `/events/${first}`, { status: "publish" });
    const back = await listAll(svc, `search=${tok}&${WINDOW}`);
    expect(idsByStart(back)).toEqual(byStart);
    expect(back.every(e => e.status === "publish" && !e.slug.includes("trashed"))).toBe(true);
  });

  test("a rule change keeps the ids of surviving occurrences; removed ones are deleted, new ones get new ids", async () => {
    const { first, tok } = await series({
      start_date: `${Y}-06-01 18:00:00`, end_date: `${Y}-06-01 19:00:00`, timezone: "America/New_York",
      recurrence: [`RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=${Y}0701T000000Z`]
    });
    const before = idsByStart(await listAll(svc, `search=${tok}&${WINDOW}`));
    expect(Object.keys(before)).toHaveLength(9);
    await ok("POST", `/events/${first.id}`, { recurrence: [`RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=${Y}0715T000000Z`] });
    const after = idsByStart(await compareWithIcal(`search=${tok}&${WINDOW}`, ...YEAR));
    const tuesdays = Object.keys(before).filter(d => new Date(`${d.slice(0, 10)}T12:00:00Z`).getUTCDay() === 2);
    for (const d of tuesdays) expect(after[d]).toBe(before[d]);
    const thursday = Object.keys(before).find(d => !tuesdays.includes(d))!;
    expect(after[thursday]).toBeUndefined();
    expect((await svc.get(`/events/${before[thursday]}`, "admin")).status).toBe(404);
    const added = Object.keys(after).filter(d => !(d in before));
    expect(added.length).toBeGreaterThan(0);
    for (const d of added) expect(after[d]).toBeGreaterThan(Math.max(...Object.values(before)));
    // [] ends the series: the first event stays alone
    const ended = await ok("POST", `/events/${first.id}`, { recurrence: [] });
    expect(ended).not.toHaveProperty("recurrence");
    expect((await listAll(svc, `search=${tok}&${WINDOW}`)).map(e => e.id)).toEqual([first.id]);
  });
});

describe("status, visibility and permissions", () => {
  test("a draft series has occurrences without slugs, hidden from anonymous lists; publishing it publishes them", async () => {
    const { first, tok } = await series({
      status: "draft", start_date: `${Y}-07-06 18:00:00`, end_date: `${Y}-07-06 19:00:00`, recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"]
    });
    const drafts = await listAll(svc, `search=${tok}&${WINDOW}&status=draft`);
    expect(drafts).toHaveLength(3);
    expect(drafts.every(e => e.status === "draft" && e.slug === "")).toBe(true);
    expect(await listAll(svc, `search=${tok}&${WINDOW}`, null)).toEqual([]);
    await ok("POST", `/events/${first.id}`, { status: "publish" });
    const published = await listAll(svc, `search=${tok}&${WINDOW}`, null);
    expect(published.map(e => e.id).sort()).toEqual(drafts.map(e => e.id).sort());
    const headSlug = published.find(e => e.id === first.id).slug;
    expect(headSlug).not.toBe("");
    expect(published.filter(e => e.id !== first.id).map(e => e.slug).sort()).toEqual([`${headSlug}-${Y}-07-13`, `${headSlug}-${Y}-07-20`]);
  });

  test("an occurrence is editable as its series: its author may, another author may not", async () => {
    const tok = token("perm");
    const res = await svc.request("POST", "/events", { as: "author", body: {
      title: `Mine ${tok}`, status: "publish", start_date: `${Y}-07-07 18:00:00`, end_date: `${Y}-07-07 19:00:00`, recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"]
    } });
    expect(res.status).toBe(201);
    const members = (await svc.get(`/events/${res.body.id}/occurrences`, "author")).body.events;
    const other = members[1].id;
    expect((await svc.request("POST", `/events/${other}`, { as: "author2", body: { title: "Not mine" } })).status).toBe(403);
    expect((await svc.request("DELETE", `/events/${other}`, { as: "author2" })).status).toBe(403);
    const mine = await svc.request("POST", `/events/${other}`, { as: "author", body: { title: `Still mine ${tok}` } });
    expect(mine.status).toBe(200);
    expect(mine.body.title).toBe(`Still mine ${tok}`);
  });
});

describe("languages", () => {
  test("a translation written on the series applies to its occurrences unless an exception has its own", async () => {
    const FR = (path: string) => `/fr/wp-json/calendar/events/v1${path}`;
    const { first, tok } = await series({ start_date: `${Y}-08-03 18:00:00`, end_date: `${Y}-08-03 19:00:00`, recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"] });
    await ok("POST", FR(`/events/${first.id}`), { title: `Série ${tok}` });
    const members = (await svc.get(`/events/${first.id}/occurrences`, "admin")).body.events;
    const own = members[2].id;
    await ok("POST", FR(`/events/${own}`), { title: `À part ${tok}` });
    const fr = (await svc.get(FR(`/events/${first.id}/occurrences`), "admin")).body.events as Json[];
    expect(fr.map(e => e.title)).toEqual([`Série ${tok}`, `Série ${tok}`, `À part ${tok}`]);
    expect(fr.every(e => e.i18n_language === "fr" && e.translations.includes("fr"))).toBe(true);
    const en = await listAll(svc, `search=${tok}&${WINDOW}`);
    expect(en.map(e => e.title)).toEqual(Array(3).fill(`Series ${tok}`));
  });
});

describe("the horizon (C55)", () => {
  test("an unbounded series is materialised through the horizon, which moves forward with time keeping ids", async () => {
    const { first, tok } = await series({
      start_date: `${Y}-01-04 09:00:00`, end_date: `${Y}-01-04 10:00:00`, timezone: "Europe/Rome", recurrence: ["RRULE:FREQ=WEEKLY"]
    });
    const far = `search=${tok}&start_date=${Y - 1}-01-01&end_date=${Y + 4}-12-31`;
    const before = await listAll(svc, far);
    const last = starts(before).pop()!;
    // the default window ends 24 months ahead; the horizon one day after it
    const limit = new Date();
    limit.setUTCMonth(limit.getUTCMonth() + 24);
    limit.setUTCDate(limit.getUTCDate() + 2);
    expect(last <= limit.toISOString().slice(0, 10)).toBe(true);
    expect(last > new Date(limit.getTime() - 10 * 86_400_000).toISOString().slice(0, 10)).toBe(true);
    const later = new Date(Date.now() + 91 * 86_400_000).toISOString();
    // three runs at once (as on three nodes): the store's constraint keeps one row per occurrence
    const runs = await Promise.all([1, 2, 3].map(() => svc.broker.call("events.materialise", { now: later }, { timeout: SERIES_JOB_TIMEOUT_MS })));
    expect(runs.some((r: Json) => r.extended > 0)).toBe(true);
    const after = await listAll(svc, far);
    expect(after.length).toBeGreaterThanOrEqual(before.length + 12);
    const kept = idsByStart(after);
    for (const e of before) expect(kept[e.start_date]).toBe(e.id);
    expect(after.every(e => e.id === first.id || e.post_parent === first.id)).toBe(true);
    expect(new Set(after.map(e => e.start_date)).size).toBe(after.length);
    expect((await svc.get(`/events/${first.id}/occurrences?per_page=1`, "admin")).body.total).toBe(after.length);
  });

  test("the job running while series start materialises each series once: no ids are drawn twice", async () => {
    // each round: a series of 12 started while the job runs over and over (as every node's timer would);
    // the next event's id follows the series' last, so no occurrence was drawn by both
    for (let round = 0; round < 6; round++) {
      let starting = true;
      const job = (async () => {
        while (starting) {
          await svc.broker.call("events.materialise", {}, { timeout: SERIES_JOB_TIMEOUT_MS });
          // SQLite answers without giving the event loop a turn: let the create's request in
          await new Promise(resolve => setImmediate(resolve));
        }
      })();
      const { first } = await series({ start_date: `${Y}-03-0${1 + round} 10:00:00`, end_date: `${Y}-03-0${1 + round} 11:00:00`, recurrence: ["RRULE:FREQ=DAILY;COUNT=12"] });
      starting = false;
      await job;
      const members = (await svc.get(`/events/${first.id}/occurrences?per_page=50`, "admin")).body.events as Json[];
      expect(members.map(e => e.id)).toEqual(Array.from({ length: 12 }, (_, i) => (first.id as number) + i));
      const next = await ok("POST", "/events", { title: "after the series", start_date: `${Y}-04-01 10:00:00`, end_date: `${Y}-04-01 11:00:00` });
      expect(next.id).toBe((first.id as number) + 12);
    }
  });
});

describe("the change feed (C34: occurrence ids)", () => {
  test.each([["admin"], [null]] as const)("replaying the feed from nothing gives %s the same lists as the lists themselves", async as => {
    const copy: Copy = new Map();
    await syncFeed(svc, copy, { as: as ?? undefined, perPage: 500 });
    const lists = await fullLists(svc, as ?? undefined);
    const strip = (c: Copy) => {
      const out: Copy = new Map();
      for (const [key, record] of c) {
        const counts = (terms: unknown) => (Array.isArray(terms) ? terms.map(t => ({ ...t, count: 0 })) : terms);
        out.set(key, key.startsWith("event:") ? { ...record, categories: counts(record.categories), tags: counts(record.tags) } : { ...record, count: 0 });
      }
      return out;
    };
    expect([...lists.keys()].filter(k => k.startsWith("event:")).length).toBeGreaterThan(100);
    expect(sorted(strip(copy))).toEqual(sorted(strip(lists)));
  });

  test("a copy synced earlier catches up with series changes (rule change, exclusions, split, horizon) from its token", async () => {
    const copy: Copy = new Map();
    const { first, tok } = await series({
      start_date: `${Y}-11-02 18:00:00`, end_date: `${Y}-11-02 19:00:00`, timezone: "America/New_York", recurrence: ["RRULE:FREQ=WEEKLY;BYDAY=TU,FR;COUNT=8"]
    });
    const { token: since } = await syncFeed(svc, copy, { as: "admin", perPage: 500 });
    const members = (await svc.get(`/events/${first.id}/occurrences`, "admin")).body.events;
    await ok("DELETE", `/events/${members[1].id}`);
    await ok("POST", `/events/${first.id}`, { recurrence: ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6"] });
    const now = (await svc.get(`/events/${first.id}/occurrences`, "admin")).body.events;
    await ok("POST", `/events/${now[3].id}?scope=following`, { title: `Later ${tok}` });
    await svc.broker.call("events.materialise", { now: new Date(Date.now() + 200 * 86_400_000).toISOString() }, { timeout: SERIES_JOB_TIMEOUT_MS });
    await syncFeed(svc, copy, { as: "admin", token: since, perPage: 500 });
    const lists = await fullLists(svc, "admin");
    const mine = (c: Copy) => new Map([...c].filter(([, r]) => typeof r.title === "string" && (r.title as string).includes(tok)));
    const strip = (c: Copy) => new Map([...c].map(([k, r]) => [k, { ...r, categories: [], tags: [] }]));
    expect(mine(lists).size).toBeGreaterThan(4);
    expect(sorted(strip(mine(copy)))).toEqual(sorted(strip(mine(lists))));
    // the first event's record in the copy has the new lines
    expect((copy.get(`event:${first.id}`)?.recurrence as string[])[0]).toMatch(/^RRULE:FREQ=WEEKLY;.*BYDAY=TU/);
  });
});
