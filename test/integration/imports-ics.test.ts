/**
 * iCalendar imports: fixtures written in the manner of five producers (Google Calendar,
 * Outlook/Exchange with Windows zone names, Apple iCloud, Meetup, The Events Calendar's export) with
 * series, exceptions, cancellations, all-day events and time zones. The instants the service lists after
 * importing each equal ical.js's own expansion of the fixture (test/helpers/recurrence.ts `icalSeen`, an
 * expander other than the service's, C55: horizon and ICS). Then: a second run creates nothing, a changed feed updates,
 * venues are matched by name, the routes' rules (administrators only, every_minutes ≥ 15, bad feeds fail).
 */
import * as fs from "fs";
import * as path from "path";
import ICAL from "ical.js";
import { KEYS, startService, Running } from "../helpers/harness";
import { icalSeen, listAll, seenOfRecords } from "../helpers/recurrence";
import { httpJson, runImport } from "../helpers/imports";
import type { Json } from "../helpers/json";

const FIXTURES = path.join(__dirname, "..", "fixtures", "ics");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, `${name}.ics`), "utf8");
const FROM = "2026-12-01 00:00:00";
const TO = "2027-12-31 23:59:59";
const ADMIN = KEYS.admin;

let svc: Running;
beforeAll(async () => { svc = await startService({ IMPORT_POLL_MS: "100" }); });
afterAll(async () => { await svc.stop(); });

/**
 * The local starts of the fixture's cancelled occurrences (ical.js lists them as occurrences; the service
 * removes them). A cancelled event of its own is imported, marked canceled.
 */
function cancelledStarts(text: string): Set<string> {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const out = new Set<string>();
  for (const v of calendar.getAllSubcomponents("vevent")) {
    if (String(v.getFirstPropertyValue("status")).toUpperCase() !== "CANCELLED" || !v.hasProperty("recurrence-id")) continue;
    const t = v.getFirstPropertyValue("dtstart") as ICAL.Time;
    out.add(`${t.toString().replace("T", " ").slice(0, 19)}`);
  }
  return out;
}

/** The events of one import in the window: its series and single events, and their occurrences. */
async function importedEvents(importId: number): Promise<Json[]> {
  const all = await listAll(svc, `start_date=${encodeURIComponent(FROM)}&end_date=${encodeURIComponent(TO)}&context=edit`);
  const own = new Set(all.filter(e => e.import_source?.import === importId).map(e => e.id));
  return all.filter(e => own.has(e.id) || own.has(e.post_parent));
}

describe.each(["google", "outlook", "icloud", "meetup", "tec"])("the %s fixture", name => {
  let imp: Json;
  beforeAll(async () => { imp = await runImport(svc.ns, ADMIN, fixture(name), "text/calendar"); });

  test("imports without errors", () => {
    expect(imp.state).toBe("done");
    expect(imp.errors).toEqual([]);
    expect(imp.failed).toBe(0);
    expect(imp.created).toBeGreaterThan(0);
  });

  test("the listed instants equal ical.js's expansion", async () => {
    const cancelled = cancelledStarts(fixture(name));
    const expected = icalSeen(fixture(name), FROM, TO).filter(s => !cancelled.has(s.start));
    const seen = seenOfRecords(await importedEvents(imp.id));
    expect(seen).toEqual(expected);
    expect(seen.length).toBeGreaterThanOrEqual(2);
  });

  test("a second run creates and updates nothing", async () => {
    const again = await runImport(svc.ns, ADMIN, { ics: fixture(name) });
    expect(again).toMatchObject({ state: "done", created: 0, updated: 0, failed: 0 });
    expect(again.unchanged).toBe(imp.created);
  });
});

describe("what an iCalendar import brings", () => {
  test("Outlook's Windows zone names become IANA zones", async () => {
    const events = await listAll(svc, `start_date=${encodeURIComponent(FROM)}&end_date=${encodeURIComponent(TO)}&search=Steering`);
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events.map(e => e.timezone))).toEqual(new Set(["Europe/Berlin"]));
    const vendor = await listAll(svc, `start_date=${encodeURIComponent(FROM)}&end_date=${encodeURIComponent(TO)}&search=Vendor`);
    expect(vendor.map(e => [e.timezone, e.utc_start_date])).toEqual([["America/Los_Angeles", "2027-03-18 15:00:00"]]);
  });

  test("LOCATION names one venue case-insensitively; GEO, ORGANIZER, CATEGORIES and URL arrive", async () => {
    const events = await listAll(svc, `start_date=${encodeURIComponent(FROM)}&end_date=${encodeURIComponent(TO)}&search=Reading`);
    const market = await listAll(svc, `start_date=${encodeURIComponent(FROM)}&end_date=${encodeURIComponent(TO)}&search=Spring`);
    expect(market[0].venue.id).toBe(events[0].venue.id);
    const jazz = (await listAll(svc, `start_date=${encodeURIComponent(FROM)}&end_date=${encodeURIComponent(TO)}&search=Jazz%20night`))[0];
    expect(jazz.venue).toMatchObject({ venue: "Teatro Esempio, Via Roma 1, Milano, 20121, Italy", geo_lat: 45.4642, geo_lng: 9.19 });
    expect(jazz.organizer.map((o: Json) => [o.organizer, o.email])).toEqual([["Associazione Esempio", "info@venue.example.org"]]);
    expect(jazz.categories.map((c: Json) => c.name).sort()).toEqual(["Jazz", "Music"]);
    expect(jazz.website).toBe("https://venue.example.org/event/jazz-night/");
    const venues = await httpJson("GET", `${svc.ns}/venues?search=esempio&per_page=50`, ADMIN);
    expect(venues.body.venues.map((v: Json) => v.venue).sort()).toEqual(["Teatro Esempio, Via Roma 1, Milano, 20121, Italy", "teatro esempio"]);
  });

  test("events new to a run link the venue and organizer of their names without writing them again", async () => {
    const jazz = (await listAll(svc, `start_date=${encodeURIComponent(FROM)}&end_date=${encodeURIComponent(TO)}&search=Jazz%20night`))[0];
    const venue = async () => (await httpJson("GET", `${svc.ns}/venues/${jazz.venue.id}?context=edit`, ADMIN)).body.modified_utc;
    const organizer = async () => (await httpJson("GET", `${svc.ns}/organizers/${jazz.organizer[0].id}?context=edit`, ADMIN)).body.modified_utc;
    const before = [await venue(), await organizer()];
    // two more events at that venue, by that organizer; a write of either would give it a later modified time (seconds)
    const text = fixture("tec");
    const master = /BEGIN:VEVENT\r?\n(?:(?!END:VEVENT)[\s\S])*?SUMMARY:Jazz night[\s\S]*?END:VEVENT\r?\n/.exec(text)![0];
    const more = [1, 2].map(i => master.replace(/UID:[^\r\n]*/, `UID:matinee-${i}@venue.example.org`).replace("SUMMARY:Jazz night", `SUMMARY:Jazz matinee ${i}`)).join("");
    await new Promise(resolve => setTimeout(resolve, 1100));
    const run = await runImport(svc.ns, ADMIN, { ics: text.replace("END:VCALENDAR", `${more}END:VCALENDAR`) });
    expect(run).toMatchObject({ state: "done", created: 2, updated: 0, failed: 0 });
    const matinees = await listAll(svc, `start_date=${encodeURIComponent(FROM)}&end_date=${encodeURIComponent(TO)}&search=matinee`);
    expect(matinees.map(e => [e.venue.id, e.organizer[0].id])).toEqual([[jazz.venue.id, jazz.organizer[0].id], [jazz.venue.id, jazz.organizer[0].id]]);
    expect([await venue(), await organizer()]).toEqual(before);
  });

  test("a changed feed updates the changed event only; trash_missing trashes what left it", async () => {
    const text = fixture("meetup");
    const changed = text.replace("SUMMARY:JS Night: workers and queues", "SUMMARY:JS Night: queues");
    const run = await runImport(svc.ns, ADMIN, { ics: changed });
    // (the feed's cancelled lunch is an event too, marked canceled: unchanged)
    expect(run).toMatchObject({ state: "done", created: 0, updated: 1, unchanged: 2 });
    const without = changed.replace(/BEGIN:VEVENT\r?\nDTSTAMP:20261120T150000Z\r?\nDTSTART;TZID=America\/New_York:20270317T183000[\s\S]*?END:VEVENT\r?\n/, "");
    const trash = await runImport(svc.ns, ADMIN, { ics: without, trash_missing: true });
    expect(trash).toMatchObject({ state: "done", created: 0, updated: 0, unchanged: 2, trashed: 1 });
    const left = await listAll(svc, `start_date=${encodeURIComponent(FROM)}&end_date=${encodeURIComponent(TO)}&search=queues`);
    expect(left).toEqual([]);
  });

  test("new-only leaves changed records alone", async () => {
    const text = fixture("tec").replace("SUMMARY:Jazz night", "SUMMARY:Jazz night (changed)");
    const run = await runImport(svc.ns, ADMIN, { ics: text, update: "new-only" });
    expect(run).toMatchObject({ state: "done", created: 0, updated: 0 });
    expect(await listAll(svc, `start_date=${encodeURIComponent(FROM)}&end_date=${encodeURIComponent(TO)}&search=changed`)).toEqual([]);
  });
});

describe("the routes", () => {
  test("administrators only: 401 anonymous, 403 editors", async () => {
    const anon = await fetch(`${svc.ns}/imports`);
    expect(anon.status).toBe(401);
    expect((await httpJson("POST", `${svc.ns}/imports`, KEYS.editor, { ics: fixture("tec") })).status).toBe(403);
    expect((await httpJson("GET", `${svc.ns}/imports`, KEYS.editor)).status).toBe(403);
  });

  test("bad parameters are 400 naming them; every_minutes below 15 too", async () => {
    const res = await httpJson("POST", `${svc.ns}/imports`, ADMIN, { url: "https://example.org/feed.ics", every_minutes: 5, update: "sometimes" });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.data.params).sort()).toEqual(["every_minutes", "update"]);
    expect((await httpJson("POST", `${svc.ns}/imports`, ADMIN, {})).status).toBe(400);
    expect((await httpJson("POST", `${svc.ns}/imports`, ADMIN, { url: "ftp://example.org/x" })).body.data.params).toHaveProperty("url");
  });

  test("a refused address is 400 naming url", async () => {
    const res = await httpJson("POST", `${svc.ns}/imports`, ADMIN, { url: "http://127.0.0.1:9/feed.ics" });
    expect(res.status).toBe(400);
    expect(res.body.data.params).toHaveProperty("url");
  });

  test("a broken feed fails with a clear error and writes nothing", async () => {
    const imp = await runImport(svc.ns, ADMIN, { ics: "this is not a calendar" });
    expect(imp.state).toBe("failed");
    expect(imp.error).toMatch(/not an iCalendar feed/);
    expect(imp.created).toBe(0);
  });

  test("202 with Location, listed, readable, and DELETE removes it", async () => {
    const res = await httpJson("POST", `${svc.ns}/imports`, ADMIN, { url: "https://example.org/feed.ics", every_minutes: 60 });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ state: "queued", type: "ics", every_minutes: 60 });
    expect(res.headers.get("location")).toMatch(new RegExp(`/calendar/events/v1/imports/${res.body.id}$`));
    const list = await httpJson("GET", `${svc.ns}/imports?per_page=100`, ADMIN);
    expect(list.body.map((i: Json) => i.id)).toContain(res.body.id);
    expect((await httpJson("DELETE", `${svc.ns}/imports/${res.body.id}`, ADMIN)).status).toBe(200);
    expect((await httpJson("GET", `${svc.ns}/imports/${res.body.id}`, ADMIN)).status).toBe(404);
  });
});
