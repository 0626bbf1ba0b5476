/**
 * Non-public records never show through another door: embedded venues and organizers (C1: embedded records follow visibility), searches
 * (D34: search never matches through hidden fields), term counts (docs/records.md#term-counts) and the list filters that name an event (`event`/`post` on terms,
 * `event` on venues and organizers). Password-protected records stay blanked wherever they appear, for
 * every role, unless the password is sent (docs/authorization.md#password-protected-records). Expectations are written out from docs/authorization.md.
 */
import { startService, Running, KeyName, USER_IDS } from "../helpers/harness";
import { pool } from "../helpers/security";
import type { Json } from "../helpers/json";

type Role = "anonymous" | "administrator" | "editor" | "author" | "contributor" | "subscriber";
const ROLES: Role[] = ["anonymous", "administrator", "editor", "author", "contributor", "subscriber"];
const KEY: Record<Exclude<Role, "anonymous">, KeyName> = { administrator: "admin", editor: "editor", author: "author", contributor: "contributor", subscriber: "subscriber" };
const asKey = (role: Role): KeyName | undefined => (role === "anonymous" ? undefined : KEY[role]);
const EDITORS: Role[] = ["administrator", "editor"];
const WRITERS: Role[] = ["administrator", "editor", "author", "contributor"];

/** Others' records (author2's) each role may read (docs/authorization.md#per-record-rules): publish for all, the rest for editors. */
const READS_OTHERS: Record<string, Role[]> = { publish: ROLES, protected: ROLES, draft: EDITORS, pending: EDITORS, private: EDITORS, future: EDITORS };
const LINKED_STATES = Object.keys(READS_OTHERS);
const SECRET = "Marmalade";
const PASSWORD = "Visibility Key";

describe("non-public and protected records through embeds, searches, counts and filters", () => {
  let svc: Running;
  const tok = `vz${process.pid.toString(36)}`;
  let checks = 0;
  beforeAll(async () => { svc = await startService({ RATE_LIMIT: "", CACHER: "" }); });
  afterAll(async () => {
    await svc.stop();
    console.log(`visibility: ${checks} checks through HTTP`);
  });

  const create = async (path: string, body: Record<string, unknown>) => {
    const res = await svc.request("POST", path, { as: "admin", body });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const statusBody = (state: string) => ({
    status: state === "protected" ? "publish" : state,
    ...(state === "future" ? { date: "+6 days" } : {}),
    ...(state === "protected" ? { post_password: PASSWORD } : {})
  });

  describe("embedded venues and organizers (C1: embedded records follow visibility)", () => {
    const venues: Record<string, number> = {};
    const organizers: Record<string, number> = {};
    let event: Json;
    beforeAll(async () => {
      for (const state of LINKED_STATES) {
        venues[state] = (await create("/venues", { venue: `${tok} venue ${state}`, author: USER_IDS.author2, address: `${SECRET} road ${state}`, city: "Lille", ...statusBody(state) })).id;
        organizers[state] = (await create("/organizers", { organizer: `${tok} organizer ${state}`, author: USER_IDS.author2, email: `${SECRET.toLowerCase()}-${state}@example.org`, ...statusBody(state) })).id;
      }
      event = await create("/events", {
        title: `${tok} embedding event`, start_date: "tomorrow 18:00", end_date: "tomorrow 20:00",
        venue: LINKED_STATES.map(s => venues[s]), organizer: LINKED_STATES.map(s => organizers[s])
      });
    });

    const embeddedIds = (v: unknown): number[] => (Array.isArray(v) ? v : v && typeof v === "object" ? [v] : []).map((x: Json) => x.id).sort((a, b) => a - b);

    test.each(ROLES)("%s sees only the linked records it may read, protected ones blanked (single GET and list)", async role => {
      const single = await svc.get(`/events/${event.id}`, asKey(role));
      const list = await svc.get(`/events?search=${encodeURIComponent(`${tok} embedding`)}`, asKey(role));
      expect([single.status, list.status]).toEqual([200, 200]);
      const listed = list.body.events.find((e: Json) => e.id === event.id);
      checks += 2;
      for (const record of [single.body, listed]) {
        const expectedStates = LINKED_STATES.filter(s => READS_OTHERS[s].includes(role));
        expect(embeddedIds(record.venue)).toEqual(expectedStates.map(s => venues[s]).sort((a, b) => a - b));
        expect(embeddedIds(record.organizer)).toEqual(expectedStates.map(s => organizers[s]).sort((a, b) => a - b));
        const protectedVenue = (Array.isArray(record.venue) ? record.venue : [record.venue]).find((v: Json) => v.id === venues.protected);
        expect(protectedVenue).toBeDefined();
        expect(protectedVenue.address ?? "").toBe("");
      }
      // nothing of a record the caller may not read (nor of the protected one) is anywhere in the answer
      const hidden = LINKED_STATES.filter(s => !READS_OTHERS[s].includes(role) || s === "protected");
      for (const state of hidden) {
        expect(single.text).not.toContain(`${SECRET} road ${state}`);
        expect(list.text).not.toContain(`${SECRET.toLowerCase()}-${state}@`);
      }
    });

    test("the password of a protected venue, sent with the event, reveals it", async () => {
      const res = await svc.get(`/events/${event.id}?password=${encodeURIComponent(PASSWORD)}`);
      const v = res.body.venue.find((x: Json) => x.id === venues.protected);
      expect(v.address).toBe(`${SECRET} road protected`);
      checks++;
    });
  });

  describe("searches never match through a field the caller cannot see (D34: search never matches through hidden fields)", () => {
    const made: Record<string, Record<string, number>> = { events: {}, venues: {}, organizers: {} };
    beforeAll(async () => {
      for (const state of ["publish", "protected", "draft", "private"]) {
        made.events[state] = (await create("/events", { title: `${tok} search ${state}`, description: `${SECRET}${state} pudding`, start_date: "tomorrow 09:00", end_date: "tomorrow 10:00", author: USER_IDS.author2, ...statusBody(state) })).id;
        made.venues[state] = (await create("/venues", { venue: `${tok} search venue ${state}`, zip: `${SECRET}${state}`, author: USER_IDS.author2, ...statusBody(state) })).id;
        made.organizers[state] = (await create("/organizers", { organizer: `${tok} search organizer ${state}`, phone: `${SECRET}${state}`, author: USER_IDS.author2, ...statusBody(state) })).id;
      }
    });

    test("per role and type: protected fields never match; titles do; non-public records only for those who may list them", async () => {
      const failures: string[] = [];
      const cases = ROLES.flatMap(role => (["events", "venues", "organizers"] as const).flatMap(plural => ["publish", "protected", "draft", "private"].map(state => ({ role, plural, state }))));
      await pool(cases, 8, async ({ role, plural, state }) => {
        const id = made[plural][state];
        const listable = state === "publish" || state === "protected" || WRITERS.includes(role);
        const byField = await svc.get(`/${plural}?search=${encodeURIComponent(`${SECRET}${state}`)}`, asKey(role));
        const byName = await svc.get(`/${plural}?search=${encodeURIComponent(`${tok} search ${plural === "events" ? "" : `${plural.slice(0, -1)} `}${state}`)}`, asKey(role));
        checks += 2;
        const has = (res: Json) => (res.body[plural] ?? []).some((r: Json) => r.id === id);
        const expectField = listable && state !== "protected";
        if (has(byField) !== expectField) failures.push(`${role} ${plural} ${state}: search by protected/hidden field ${has(byField) ? "matched" : "did not match"}`);
        if (has(byName) !== listable) failures.push(`${role} ${plural} ${state}: search by name ${has(byName) ? "matched" : "did not match"}`);
        if (state === "protected" && byName.text.includes(`${SECRET}${state}`)) failures.push(`${role} ${plural}: protected text shown in a list`);
      });
      expect(failures).toEqual([]);
    });

    test("with the password, the protected event matches and shows its fields", async () => {
      const res = await svc.get(`/events?search=${SECRET}protected&password=${encodeURIComponent(PASSWORD)}`);
      expect(res.body.events.map((e: Json) => e.id)).toEqual([made.events.protected]);
      expect(res.body.events[0].description).toContain("pudding");
      checks++;
    });
  });

  describe("term counts and the filters that name an event", () => {
    const events: Record<string, number> = {};
    let category: Json;
    let tag: Json;
    let venue: Json;
    let organizer: Json;
    beforeAll(async () => {
      category = await create("/categories", { name: `${tok} counted` });
      tag = await create("/tags", { name: `${tok} counted tag` });
      venue = await create("/venues", { venue: `${tok} filter venue` });
      organizer = await create("/organizers", { organizer: `${tok} filter organizer` });
      for (const state of ["publish", "protected", "draft", "pending", "private", "future", "trash"]) {
        const ev = await create("/events", {
          title: `${tok} counted ${state}`, start_date: "tomorrow 12:00", end_date: "tomorrow 13:00", author: USER_IDS.author2,
          categories: [category.id], tags: [tag.id], venue: venue.id, organizer: organizer.id, ...statusBody(state === "trash" ? "publish" : state)
        });
        if (state === "trash") await svc.request("DELETE", `/events/${ev.id}`, { as: "admin" });
        events[state] = ev.id;
      }
    });

    test.each(ROLES)("%s: counts include published events only (protected ones are published)", async role => {
      for (const [plural, term] of [["categories", category], ["tags", tag]] as const) {
        const one = await svc.get(`/${plural}/${term.id}`, asKey(role));
        const list = await svc.get(`/${plural}?search=${encodeURIComponent(`${tok} counted`)}`, asKey(role));
        checks += 2;
        expect(one.body.count).toBe(2);
        expect(list.body[plural].find((t: Json) => t.id === term.id)?.count).toBe(2);
      }
    });

    test.each(ROLES)("%s: `event`/`post` filters reveal the terms, venues and organizers of readable events only", async role => {
      for (const [state, id] of Object.entries(events)) {
        // docs/authorization.md#per-record-rules (others' records; trashed events are never readable) and #password-protected-records: a protected event's terms and
        // linked records are blanked fields, so the filters do not reveal them either
        const readable = state === "publish" || (state !== "trash" && state !== "protected" && EDITORS.includes(role));
        for (const [path, field, wanted] of [
          [`/categories?event=${id}`, "categories", category.id], [`/categories?post=${id}`, "categories", category.id], [`/tags?event=${id}`, "tags", tag.id],
          [`/venues?event=${id}`, "venues", venue.id], [`/organizers?event=${id}`, "organizers", organizer.id]
        ] as Array<[string, string, number]>) {
          const res = await svc.get(path, asKey(role));
          checks++;
          const items: Json[] = res.status === 200 ? res.body[field] : [];
          const shown = items.some(item => item.id === wanted);
          expect([role, state, path, res.status < 500, shown]).toEqual([role, state, path, true, readable]);
        }
      }
    });
  });
});
