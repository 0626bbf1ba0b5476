/**
 * Imports as operators and producers meet them (C64: what an import brings; C66: what `trash_missing` trashes): `trash_missing` that trashes only what
 * left a source read whole and brings back what returned; Outlook's own VTIMEZONEs; every ORGANIZER;
 * CLASS:PRIVATE; an unbounded rule older than a series may hold; one unreadable line; a TEC source's
 * worded costs and `import_source` on every record it brings; a TEC Pro source's custom fields kept as
 * text fields named by their labels (C69: custom fields everywhere their record goes); the dry run (its counts equal the run that
 * follows, on a TEC source and on a feed), a run asked for now and the run history. The TEC source is a
 * stub on 127.0.0.1 serving The Events Calendar's list shapes. Runs on SQLite and (TEST_STORE=postgres)
 * PostgreSQL.
 */
import * as http from "http";
import { KEYS, startService, Running } from "../helpers/harness";
import { listAll } from "../helpers/recurrence";
import { httpJson, readAll, runImport, waitForImport } from "../helpers/imports";
import type { Json } from "../helpers/json";

const ADMIN = KEYS.admin;
const WINDOW = `start_date=${encodeURIComponent("2019-01-01 00:00:00")}&end_date=${encodeURIComponent("2028-12-31 23:59:59")}&status=publish,private,draft&context=edit`;

let svc: Running;
beforeAll(async () => { svc = await startService({ IMPORT_POLL_MS: "100", OUTBOUND_ALLOW_PRIVATE: "1" }); });
afterAll(async () => { await svc.stop(); });

const calendar = (name: string, ...lines: string[]) => ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//operators test//EN", `X-WR-CALNAME:${name}`, ...lines, "END:VCALENDAR"].join("\r\n");
const vevent = (uid: string, ...lines: string[]) => ["BEGIN:VEVENT", `UID:${uid}`, "DTSTAMP:20261101T000000Z", ...lines, "END:VEVENT"];


describe("trash_missing (C66: what trash_missing trashes)", () => {
  const A = vevent("keep@c66", "DTSTART:20270301T100000Z", "DTEND:20270301T110000Z", "SUMMARY:C66 stays");
  const B = vevent("flaky@c66", "DTSTART:20270302T100000Z", "DTEND:20270302T110000Z", "SUMMARY:C66 comes and goes");
  const bWithoutStart = B.filter(l => !l.startsWith("DTSTART"));
  const bBadDate = B.map(l => (l.startsWith("DTSTART") ? "DTSTART:2027-03-02 10h" : l));
  let bId: number;

  /** B as its administrator sees it: read, or (trashed events are not read one by one) found in the trash list. */
  const bState = async (): Promise<Json> => {
    const r = await httpJson("GET", `${svc.ns}/events/${bId}?context=edit`, ADMIN);
    if (r.status === 200) return r.body;
    const trashed = await listAll(svc, WINDOW.replace("status=publish,private,draft", "status=trash"));
    return trashed.find(e => e.id === bId) ?? { status: r.status };
  };

  test("an entry present but unreadable is failed, not missing: its record stays as it was", async () => {
    const first = await runImport(svc.ns, ADMIN, { ics: calendar("C66", ...A, ...B), trash_missing: true });
    expect(first).toMatchObject({ state: "done", created: 2, failed: 0 });
    bId = (await listAll(svc, `${WINDOW}&search=${encodeURIComponent("comes and goes")}`))[0].id;
    for (const broken of [bWithoutStart, bBadDate]) {
      const run = await runImport(svc.ns, ADMIN, { ics: calendar("C66", ...A, ...broken), trash_missing: true });
      expect(run).toMatchObject({ state: "done", unchanged: 1, failed: 1, trashed: 0 });
      expect(run.errors.map((e: Json) => e.source)).toContain("flaky@c66");
      expect(await bState()).toMatchObject({ id: bId, status: "publish", title: "C66 comes and goes" });
    }
  });

  test("an entry gone from a complete read is trashed; back at the source it is published again with its id", async () => {
    const gone = await runImport(svc.ns, ADMIN, { ics: calendar("C66", ...A), trash_missing: true });
    expect(gone).toMatchObject({ state: "done", unchanged: 1, trashed: 1, failed: 0 });
    expect((await bState()).status).toBe("trash");
    const back = await runImport(svc.ns, ADMIN, { ics: calendar("C66", ...A, ...B), trash_missing: true });
    expect(back).toMatchObject({ state: "done", created: 0, updated: 1, unchanged: 1, trashed: 0 });
    expect(await bState()).toMatchObject({ id: bId, status: "publish", title: "C66 comes and goes" });
    const listed = await listAll(svc, `${WINDOW}&search=${encodeURIComponent("C66")}`);
    expect(listed.map(e => e.id).sort()).toEqual([bId, listed.find(e => e.title === "C66 stays").id].sort());
  });

  test("a record trashed by hand is not brought back", async () => {
    expect((await httpJson("DELETE", `${svc.ns}/events/${bId}`, ADMIN)).status).toBe(200);
    expect((await bState()).status).toBe("trash");
    const again = await runImport(svc.ns, ADMIN, { ics: calendar("C66", ...A, ...B), trash_missing: true });
    expect(again).toMatchObject({ state: "done", unchanged: 2, trashed: 0 });
    expect((await bState()).status).toBe("trash");
  });
});

describe("what a feed says", () => {
  const SYDNEY = [
    "BEGIN:VTIMEZONE", "TZID:Customized Time Zone",
    "BEGIN:STANDARD", "DTSTART:16010101T030000", "TZOFFSETFROM:+1100", "TZOFFSETTO:+1000", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=4", "END:STANDARD",
    "BEGIN:DAYLIGHT", "DTSTART:16010101T020000", "TZOFFSETFROM:+1000", "TZOFFSETTO:+1100", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=10", "END:DAYLIGHT",
    "END:VTIMEZONE"
  ];
  let run: Json;
  let events: Json[];
  beforeAll(async () => {
    run = await runImport(svc.ns, ADMIN, {
      ics: calendar("Producers",
        ...SYDNEY,
        ...vevent("standup@outlook", "DTSTART;TZID=Customized Time Zone:20270104T080000", "DTEND;TZID=Customized Time Zone:20270104T083000",
          "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=30", "SUMMARY:Sydney standup"),
        ...vevent("hosts@tec", "DTSTART:20270310T180000Z", "DTEND:20270310T200000Z", "SUMMARY:Two hosts night",
          "ORGANIZER;CN=\"Ops Host One\":mailto:one@example.org", "ORGANIZER;CN=\"Ops Host Two\":mailto:two@example.org"),
        ...vevent("private@feed", "DTSTART:20270311T180000Z", "DTEND:20270311T190000Z", "SUMMARY:Board only", "CLASS:PRIVATE"),
        ...vevent("daily@since-2020", "DTSTART;TZID=Europe/Rome:20200106T090000", "DTEND;TZID=Europe/Rome:20200106T091500", "RRULE:FREQ=DAILY", "SUMMARY:Daily since 2020"),
        ...vevent("broken-line@feed", "DTSTART:20270312T180000Z", "SUMMARY:Read without its bad line", "X-GARBLED;=oops:1"),
        ...vevent("fine@feed", "DTSTART:20270313T180000Z", "SUMMARY:Read as ever"))
    });
    events = await listAll(svc, WINDOW);
  });
  const titled = (title: string) => events.filter(e => e.title === title);

  test("the feed is done; the unreadable line is named and nothing failed", () => {
    if (run.failed) console.log(run.errors);
    expect(run).toMatchObject({ state: "done", created: 6, failed: 0 });
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatchObject({ source: "broken-line@feed", message: expect.stringContaining("X-GARBLED") });
    expect(titled("Read without its bad line")).toHaveLength(1);
    expect(titled("Read as ever")).toHaveLength(1);
  });

  test("a custom VTIMEZONE with Sydney's rules: every Monday 08:00 in Sydney", () => {
    const standups = titled("Sydney standup");
    expect(standups.length).toBe(30);
    for (const e of standups) {
      expect(e.timezone).toBe("Australia/Sydney");
      expect(e.start_date.slice(11)).toBe("08:00:00");
      expect(new Date(`${e.start_date.slice(0, 10)}T00:00:00Z`).getUTCDay()).toBe(1);
    }
    expect(standups.find(e => e.start_date.startsWith("2027-01-04")).utc_start_date).toBe("2027-01-03 21:00:00");
    expect(standups.find(e => e.start_date.startsWith("2027-07-05")).utc_start_date).toBe("2027-07-04 22:00:00");
  });

  test("each ORGANIZER is linked", () => {
    const [e] = titled("Two hosts night");
    expect(e.organizer.map((o: Json) => o.organizer)).toEqual(["Ops Host One", "Ops Host Two"]);
  });

  test("CLASS:PRIVATE arrives private", () => {
    expect(titled("Board only").map(e => e.status)).toEqual(["private"]);
    expect(titled("Read as ever").map(e => e.status)).toEqual(["publish"]);
  });

  test("an unbounded rule with more than 1 000 occurrences is kept to the horizon", () => {
    const daily = titled("Daily since 2020");
    expect(daily.length).toBeGreaterThan(300);
    expect(daily.every(e => e.start_date.endsWith("09:00:00") && e.timezone === "Europe/Rome")).toBe(true);
  });
});

/** A stub of a site running The Events Calendar: its REST discovery and list routes, records in `source`. */
interface TecSource { events: Json[]; venues: Json[]; organizers: Json[]; categories: Json[]; tags: Json[] }
function tecStub(source: TecSource): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const send = (body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(200, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    const root = `http://127.0.0.1:${(server.address() as { port: number }).port}/wp-json/`;
    if (url.pathname === "/") return send({ name: "stub" }, { link: `<${root}>; rel="https://api.w.org/"` });
    if (url.pathname === "/wp-json/tribe/events/v1") return send({ namespace: "tribe/events/v1", routes: {} });
    const list = /^\/wp-json\/tribe\/events\/v1\/(events|venues|organizers|categories|tags)$/.exec(url.pathname)?.[1] as keyof TecSource | undefined;
    if (!list) {
      res.writeHead(404);
      return res.end();
    }
    send({ [list]: source[list], total: source[list].length, total_pages: 1 });
  });
  return new Promise(resolve => server.listen(0, "127.0.0.1", () => resolve({
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    close: () => new Promise(done => server.close(() => done()))
  })));
}

describe("a TEC source", () => {
  const source: TecSource = {
    categories: [{ id: 5, name: "Ops Category", slug: "ops-category", parent: 0 }],
    tags: [{ id: 6, name: "Ops Tag", slug: "ops-tag" }],
    venues: [{ id: 10, venue: "Ops Hall", city: "Springfield", status: "publish" }],
    organizers: [{ id: 20, organizer: "Ops Org One", status: "publish" }, { id: 21, organizer: "Ops Org Two", status: "publish" }],
    events: [1, 2, 3].map(i => ({
      id: 100 + i, title: `Ops TEC event ${i}`, status: "publish", start_date: `2027-04-0${i} 18:00:00`, end_date: `2027-04-0${i} 20:00:00`, timezone: "UTC",
      cost: i === 1 ? "Free" : i === 2 ? "Donation" : "$10", cost_details: { currency_symbol: "$", currency_position: "prefix", values: i === 1 ? ["free"] : i === 2 ? ["donation"] : ["10"] },
      venue: { id: 10 }, organizer: [{ id: 20 }, { id: 21 }], categories: [{ id: 5 }], tags: [{ id: 6 }]
    }))
  };
  let stub: { url: string; close(): Promise<void> };
  beforeAll(async () => { stub = await tecStub(source); });
  afterAll(async () => { await stub.close(); });

  const counts = (r: Json) => ({ created: r.created, updated: r.updated, unchanged: r.unchanged, trashed: r.trashed, skipped: r.skipped, failed: r.failed, errors: r.errors });
  const dryRun = async (body: Record<string, unknown>): Promise<Json> => {
    const res = await svc.request("POST", `${svc.ns}/imports`, { as: "admin", body: { ...body, dry_run: true } });
    expect(res.status).toBe(200);
    expect(res.body.dry_run).toBe(true);
    return res.body;
  };

  test("a dry run's counts equal those of the run that follows, first and after changes; it writes nothing", async () => {
    const body = { url: stub.url, trash_missing: true };
    const before = (await listAll(svc, WINDOW)).length;
    const dry = await dryRun(body);
    expect((await listAll(svc, WINDOW)).length).toBe(before);
    const real = await runImport(svc.ns, ADMIN, body);
    expect(counts(dry)).toEqual(counts(real));
    expect(real).toMatchObject({ state: "done", created: 3 + 1 + 2 + 1 + 1, failed: 0 });
    // one changed, one gone
    source.events[0].title = "Ops TEC event 1 (moved)";
    const gone = source.events.pop()!;
    const dry2 = await dryRun(body);
    const real2 = await runImport(svc.ns, ADMIN, body);
    expect(counts(dry2)).toEqual(counts(real2));
    expect(real2).toMatchObject({ updated: 1, trashed: 1 });
    source.events.push(gone);
    expect(counts(await dryRun(body))).toEqual(counts(await runImport(svc.ns, ADMIN, body)));
  });

  test("worded costs keep their case", async () => {
    const byTitle = new Map((await listAll(svc, WINDOW)).map(e => [e.title, e]));
    expect(byTitle.get("Ops TEC event 1 (moved)").cost).toBe("Free");
    expect(byTitle.get("Ops TEC event 2").cost).toBe("Donation");
    expect(byTitle.get("Ops TEC event 3").cost).toBe("$10");
  });

  test("import_source is answered on every record it brought (C64: what an import brings)", async () => {
    const imports = (await httpJson("GET", `${svc.ns}/imports?per_page=100`, ADMIN)).body as Json[];
    const ours = new Set(imports.filter(i => i.url === stub.url).map(i => i.id));
    // each record as its administrator reads it in context=edit
    const check = async (list: string, field: string, names: string[], sourceIds: string[]) => {
      const listed = (await readAll(svc.ns, ADMIN, list)).filter(r => names.includes(r[field]));
      expect(listed.map(r => r[field]).sort()).toEqual([...names].sort());
      const found = await Promise.all(listed.map(async r => (await svc.request("GET", `/${list}/${r.id}?context=edit`, { as: "admin" })).body));
      for (const r of found) expect(ours.has(r.import_source?.import)).toBe(true);
      expect(found.map(r => r.import_source.source_id).sort()).toEqual([...sourceIds].sort());
      return listed;
    };
    const [venue] = await check("venues", "venue", ["Ops Hall"], ["10"]);
    await check("organizers", "organizer", ["Ops Org One", "Ops Org Two"], ["20", "21"]);
    const [category] = await check("categories", "name", ["Ops Category"], ["5"]);
    await check("tags", "name", ["Ops Tag"], ["6"]);
    const events = (await listAll(svc, WINDOW)).filter(e => /^Ops TEC event/.test(e.title));
    expect(events.map(e => e.import_source.source_id).sort()).toEqual(["101", "102", "103"]);
    // not for a caller who only reads
    expect((await svc.request("GET", `/venues/${venue.id}?context=edit`, { as: "subscriber" })).body.import_source).toBeUndefined();
    expect((await svc.request("GET", `/categories/${category.id}?context=edit`, { as: "subscriber" })).body.import_source).toBeUndefined();
    expect((await svc.request("GET", `/venues/${venue.id}`, { as: "admin" })).body.import_source).toBeUndefined();
  });
});

describe("a TEC Pro source's custom fields (C69: custom fields everywhere their record goes)", () => {
  const link = '<a href="https://example.org/rules" target="_self">https://example.org/rules</a>';
  const source: TecSource = {
    categories: [], tags: [], venues: [], organizers: [],
    events: [1, 2, 3].map(i => ({
      id: 300 + i, title: `Pro fields event ${i}`, status: "publish", start_date: `2027-05-0${i} 18:00:00`, end_date: `2027-05-0${i} 20:00:00`, timezone: "UTC",
      custom_fields: i === 3 ? [] : { "Age rating": `${10 + i}+`, "Stage &amp; room": i === 1 ? "Main stage" : "Club, room 2", "House rules": link }
    }))
  };
  let stub: { url: string; close(): Promise<void> };
  let existing: Json;
  beforeAll(async () => {
    stub = await tecStub(source);
    // the site has a text field of one label already (its own key): the values go there
    existing = (await svc.request("POST", `${svc.ns}/fields`, { as: "admin", body: { key: "rating", object_type: "event", type: "text", label: { en: "Age rating", fr: "Âge" } } })).body;
  });
  afterAll(async () => { await stub.close(); });
  const events = async () => new Map((await listAll(svc, WINDOW)).filter(e => /^Pro fields event/.test(e.title)).map(e => [e.title, e]));
  const fields = async () => ((await svc.request("GET", `${svc.ns}/fields?object_type=event&per_page=100`, { as: "admin" })).body as Json[]);

  test("a dry run makes no field; the run keeps each label as a text field and each value as its text", async () => {
    const before = (await fields()).length;
    const dry = (await svc.request("POST", `${svc.ns}/imports`, { as: "admin", body: { url: stub.url, dry_run: true } })).body;
    expect(dry).toMatchObject({ created: 3, failed: 0 });
    expect((await fields()).length).toBe(before);
    const run = await runImport(svc.ns, ADMIN, { url: stub.url });
    expect(run).toMatchObject({ state: "done", created: 3, failed: 0, errors: [] });
    const made = (await fields()).filter(f => f.id !== existing.id && ["Stage & room", "House rules"].includes(f.label as string));
    expect(made.map(f => [f.key, f.type, f.object_type]).sort()).toEqual([["house_rules", "text", "event"], ["stage_room", "text", "event"]]);
    const byTitle = await events();
    const one = byTitle.get("Pro fields event 1");
    expect(one.custom_fields).toEqual(source.events[0].custom_fields);
    expect(one.meta).toEqual({ rating: "11+", stage_room: "Main stage", house_rules: link });
    expect(byTitle.get("Pro fields event 2").meta).toEqual({ rating: "12+", stage_room: "Club, room 2", house_rules: link });
    expect(byTitle.get("Pro fields event 3").custom_fields).toEqual([]);
    expect(byTitle.get("Pro fields event 3").meta).toEqual({});
  });

  test("run again: unchanged; a value changed at the source: that event updated", async () => {
    expect(await runImport(svc.ns, ADMIN, { url: stub.url })).toMatchObject({ state: "done", created: 0, updated: 0, unchanged: 3, failed: 0 });
    (source.events[1].custom_fields as Record<string, string>)["Age rating"] = "16+";
    expect(await runImport(svc.ns, ADMIN, { url: stub.url })).toMatchObject({ state: "done", created: 0, updated: 1, unchanged: 2, failed: 0 });
    expect((await events()).get("Pro fields event 2").meta.rating).toBe("16+");
    // the text is searched as any custom text is
    const found = (await svc.request("GET", `/events?search=${encodeURIComponent("Club, room")}&${WINDOW}`, { as: "admin" })).body.events as Json[];
    expect(found.map(e => e.title)).toEqual(["Pro fields event 2"]);
  });
});

describe("the operators' routes", () => {
  const feed = (title: string) => calendar("Operators", ...vevent("op-1@feed", "DTSTART:20270501T100000Z", `SUMMARY:${title}`), ...vevent("op-2@feed", "DTSTART:20270502T100000Z", "SUMMARY:Op two"));

  test("a feed's dry run equals its run, first and after a change", async () => {
    const dry = await svc.request("POST", `${svc.ns}/imports`, { as: "admin", body: { ics: feed("Op one"), dry_run: true } });
    expect(dry.status).toBe(200);
    const real = await runImport(svc.ns, ADMIN, { ics: feed("Op one") });
    const pick = (r: Json) => [r.created, r.updated, r.unchanged, r.trashed, r.skipped, r.failed];
    expect(pick(dry.body)).toEqual(pick(real));
    expect(real.created).toBe(2);
    const dry2 = await svc.request("POST", `${svc.ns}/imports`, { as: "admin", body: { ics: feed("Op one, renamed"), dry_run: "1" } });
    const real2 = await runImport(svc.ns, ADMIN, { ics: feed("Op one, renamed") });
    expect(pick(dry2.body)).toEqual(pick(real2));
    expect(real2).toMatchObject({ updated: 1, unchanged: 1 });
  });

  test("run now: 202, and the runs are listed newest first", async () => {
    const made = await runImport(svc.ns, ADMIN, { ics: feed("Op one, renamed") });
    const again = await svc.request("POST", `${svc.ns}/imports/${made.id}/run`, { as: "admin" });
    expect(again.status).toBe(202);
    // the second run ends: two runs in the history
    for (let i = 0; i < 100; i++) {
      const runs = await svc.request("GET", `${svc.ns}/imports/${made.id}/runs`, { as: "admin" });
      if (runs.body.length === 2) break;
      await new Promise(r => setTimeout(r, 100));
    }
    await waitForImport(svc.ns, ADMIN, made.id);
    const runs = await svc.request("GET", `${svc.ns}/imports/${made.id}/runs`, { as: "admin" });
    expect(runs.status).toBe(200);
    expect(runs.body).toHaveLength(2);
    expect(runs.body[0]).toMatchObject({ state: "done", created: 0, unchanged: 2, failed: 0, errors: [] });
    expect(runs.body[0].started_utc >= runs.body[1].started_utc).toBe(true);
    expect(Object.keys(runs.body[0]).sort()).toEqual(["created", "errors", "failed", "finished_utc", "skipped", "started_utc", "state", "trashed", "unchanged", "updated"]);
  });

  test("administrators only; bad input named; unknown imports 404", async () => {
    const made = await runImport(svc.ns, ADMIN, { ics: feed("Op one") });
    for (const [method, path, body] of [["POST", `${svc.ns}/imports`, { ics: feed("x"), dry_run: true }], ["POST", `${svc.ns}/imports/${made.id}/run`, undefined], ["GET", `${svc.ns}/imports/${made.id}/runs`, undefined]] as const) {
      expect((await svc.request(method, path, { as: "editor", body })).status).toBe(403);
      expect((await svc.request(method, path, { body })).status).toBe(401);
    }
    const bad = await svc.request("POST", `${svc.ns}/imports`, { as: "admin", body: { ics: feed("x"), dry_run: "perhaps" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "rest_invalid_param", data: { params: { dry_run: expect.anything() } } });
    const unreadable = await svc.request("POST", `${svc.ns}/imports`, { as: "admin", body: { ics: "not a calendar", dry_run: true } });
    expect(unreadable.status).toBe(400);
    expect(Object.keys(unreadable.body.data.params)).toEqual(["ics"]);
    expect((await svc.request("POST", `${svc.ns}/imports/99999/run`, { as: "admin" })).status).toBe(404);
    expect((await svc.request("GET", `${svc.ns}/imports/99999/runs`, { as: "admin" })).status).toBe(404);
  });
});

describe("without the imports service", () => {
  let bare: Running;
  beforeAll(async () => { bare = await startService({ SERVICES: "api,events,venues,organizers,taxonomy,geolocation,i18n" }); });
  afterAll(async () => { await bare.stop(); });
  test("the new routes answer 503", async () => {
    expect((await bare.request("POST", `${bare.ns}/imports`, { as: "admin", body: { ics: "BEGIN:VCALENDAR", dry_run: true } })).status).toBe(503);
    expect((await bare.request("POST", `${bare.ns}/imports/1/run`, { as: "admin" })).status).toBe(503);
    expect((await bare.request("GET", `${bare.ns}/imports/1/runs`, { as: "admin" })).status).toBe(503);
  });
});

