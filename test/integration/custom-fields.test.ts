/**
 * Custom fields through HTTP (docs/records.md#custom-fields, CONTRACT "Custom fields"): the
 * `{ns}/fields` routes and who may call them, their validation, `meta` and `custom_fields` on events,
 * venues and organizers (typed values, The Events Calendar Pro's display texts, labels per language),
 * writes' validation, `meta[<key>]` filters, search of text values, JSON-LD `additionalProperty`, the feed,
 * a deleted field leaving nothing behind (and its key made again showing nothing old), and two sites with
 * fields of one key never seeing each other's. Runs on PostgreSQL too (TEST_STORE=postgres).
 */
import { startService, Running, succeed } from "../helpers/harness";
import { dayAt, token } from "../helpers/events";
import type { Json } from "../helpers/json";
import * as http from "http";

let svc: Running;

beforeAll(async () => {
  svc = await startService({ PLATFORM_KEY: "platform-test-key", CUSTOM_FIELDS_MAX: "12" });
});
afterAll(async () => {
  await svc?.stop();
});

const field = (body: Record<string, unknown>) => succeed(svc, "POST", `${svc.ns}/fields`, body, [201]);
const event = (body: Record<string, unknown> = {}) =>
  succeed(svc, "POST", `${svc.ns}/events`, { title: `Event ${token()}`, start_date: dayAt(3, "20:00:00"), end_date: dayAt(3, "22:00:00"), status: "publish", ...body }, [201]);
const remove = (id: number) => succeed(svc, "DELETE", `${svc.ns}/fields/${id}`);

/** Fields of every type on events, removed after each test (the site's limit is small here). */
async function eventFields(prefix: string): Promise<Record<string, Json>> {
  const out: Record<string, Json> = {};
  out.text = await field({ key: `${prefix}_text`, object_type: "event", type: "text", label: { en: "Stage", fr: "Scène" }, filterable: true });
  out.area = await field({ key: `${prefix}_area`, object_type: "event", type: "textarea", label: "Notes" });
  out.url = await field({ key: `${prefix}_url`, object_type: "event", type: "url", label: "Tickets" });
  out.num = await field({ key: `${prefix}_num`, object_type: "event", type: "number", label: "Age", filterable: true });
  out.bool = await field({ key: `${prefix}_bool`, object_type: "event", type: "boolean", label: "Registration", filterable: true });
  out.choice = await field({ key: `${prefix}_choice`, object_type: "event", type: "choice", label: "Audience", filterable: true,
    options: [{ value: "kids", label: { en: "Children", fr: "Enfants" } }, { value: "adults", label: "Adults" }, { value: "all", label: "Everyone" }] });
  out.multi = await field({ key: `${prefix}_multi`, object_type: "event", type: "multi_choice", label: "Access", filterable: true,
    options: [{ value: "ramp", label: "Ramp" }, { value: "loop", label: "Hearing loop" }, { value: "seats", label: "Seats" }] });
  return out;
}
async function removeAll(fields: Record<string, Json>): Promise<void> {
  for (const f of Object.values(fields)) await remove(f.id);
}

describe("definitions", () => {
  test("create, read, list (object_type filter, paging), update, delete", async () => {
    const made = await svc.request("POST", `${svc.ns}/fields`, { as: "admin", body: { key: "age_rating", object_type: "event", type: "choice", label: { en: "Age rating", fr: "Âge" },
      options: [{ value: "pg", label: "PG" }, { value: "r", label: "R" }], required: false, filterable: true } });
    expect(made.status).toBe(201);
    expect(made.headers.get("location")).toBe(`http://localhost:${svc.port}/wp-json/calendar/events/v1/fields/${made.body.id}`);
    expect(Object.keys(made.body)).toEqual(["id", "key", "object_type", "type", "label", "options", "required", "filterable"]);
    expect(made.body).toEqual(expect.objectContaining({ key: "age_rating", object_type: "event", type: "choice", label: { fr: "Âge", en: "Age rating" }, required: false, filterable: true }));
    const venueField = await field({ key: "age_rating", object_type: "venue", type: "text", label: "Age" });
    expect(venueField.id).not.toBe(made.body.id);

    const read = await svc.request("GET", `${svc.ns}/fields/${made.body.id}`, { as: "admin" });
    expect(read.body).toEqual(made.body);
    const events = await svc.request("GET", `${svc.ns}/fields?object_type=event`, { as: "admin" });
    expect(events.body.map((f: Json) => f.id)).toEqual([made.body.id]);
    expect(events.headers.get("x-wp-total")).toBe("1");
    const paged = await svc.request("GET", `${svc.ns}/fields?per_page=1&page=2`, { as: "admin" });
    expect([paged.body.map((f: Json) => f.id), paged.headers.get("x-wp-total"), paged.headers.get("x-wp-totalpages")]).toEqual([[venueField.id], "2", "2"]);

    const renamed = await succeed(svc, "POST", `${svc.ns}/fields/${made.body.id}`, { label: "Rating", options: [{ value: "pg", label: "Parental guidance" }, { value: "r", label: "R" }], required: true });
    expect(renamed).toEqual(expect.objectContaining({ label: "Rating", required: true, options: [{ value: "pg", label: "Parental guidance" }, { value: "r", label: "R" }] }));
    for (const fixed of [{ key: "other" }, { object_type: "venue" }, { type: "text" }]) {
      const res = await svc.request("POST", `${svc.ns}/fields/${made.body.id}`, { as: "admin", body: fixed });
      expect([JSON.stringify(fixed), res.status, res.body.code, Object.keys(res.body.data.params)]).toEqual([JSON.stringify(fixed), 400, "rest_invalid_param", Object.keys(fixed)]);
    }
    const gone = await svc.request("DELETE", `${svc.ns}/fields/${made.body.id}`, { as: "admin" });
    expect([gone.status, gone.body.deleted, gone.body.key]).toEqual([200, true, "age_rating"]);
    expect((await svc.request("GET", `${svc.ns}/fields/${made.body.id}`, { as: "admin" })).status).toBe(404);
    await remove(venueField.id);
  });

  test("administrators only: other roles 403 rest_forbidden, anonymous 401", async () => {
    const f = await field({ key: "door", object_type: "event", type: "text", label: "Door" });
    for (const as of ["editor", "author", "subscriber"] as const) {
      for (const [method, path, body] of [["GET", `${svc.ns}/fields`], ["POST", `${svc.ns}/fields`, { key: "x", object_type: "event", type: "text", label: "X" }],
        ["GET", `${svc.ns}/fields/${f.id}`], ["POST", `${svc.ns}/fields/${f.id}`, { label: "Y" }], ["DELETE", `${svc.ns}/fields/${f.id}`]] as Array<[string, string, Json?]>) {
        const res = await svc.request(method, path, { as, body });
        expect([as, method, path, res.status, res.body.code]).toEqual([as, method, path, 403, "rest_forbidden"]);
      }
    }
    const anon = await svc.request("GET", `${svc.ns}/fields`);
    expect([anon.status, anon.body.code]).toEqual([401, "rest_forbidden"]);
    await remove(f.id);
  });

  test("bad definitions are 400 naming the parameter; a key taken for the object type is 409", async () => {
    const base = { key: "ok_key", object_type: "event", type: "text", label: "Label" };
    for (const [body, param] of [
      [{ ...base, key: "Bad-Key" }, "key"], [{ ...base, key: "9lives" }, "key"], [{ ...base, key: "a".repeat(41) }, "key"],
      [{ ...base, object_type: "term" }, "object_type"], [{ ...base, type: "date" }, "type"], [{ ...base, label: "" }, "label"],
      [{ ...base, label: { xx: "Label" } }, "label"], [{ ...base, type: "choice" }, "options"], [{ ...base, type: "choice", options: [{ value: "a" }, { value: "a" }] }, "options"],
      [{ ...base, options: [{ value: "a" }] }, "options"], [{ ...base, required: "maybe" }, "required"]
    ] as Array<[Record<string, unknown>, string]>) {
      const res = await svc.request("POST", `${svc.ns}/fields`, { as: "admin", body });
      expect([JSON.stringify(body), res.status, res.body.code, Object.keys(res.body.data?.params ?? {})]).toEqual([JSON.stringify(body), 400, "rest_invalid_param", [param]]);
    }
    const f = await field(base);
    const again = await svc.request("POST", `${svc.ns}/fields`, { as: "admin", body: base });
    expect([again.status, again.body.code]).toEqual([409, "rest_field_exists"]);
    await remove(f.id);
  });

  test("a site's limit holds: past CUSTOM_FIELDS_MAX a create is refused, a delete frees a place", async () => {
    const made: Json[] = [];
    const left = 12 - (await svc.request("GET", `${svc.ns}/fields?per_page=50`, { as: "admin" })).body.length;
    for (let i = 0; i < left; i++) made.push(await field({ key: `lim_${i}`, object_type: "organizer", type: "text", label: `L${i}` }));
    const over = await svc.request("POST", `${svc.ns}/fields`, { as: "admin", body: { key: "lim_over", object_type: "organizer", type: "text", label: "Over" } });
    expect([over.status, over.body.code]).toEqual([400, "rest_field_limit"]);
    await remove(made.pop()!.id);
    made.push(await field({ key: "lim_over", object_type: "organizer", type: "text", label: "Over" }));
    for (const f of made) await remove(f.id);
  });
});

describe("values on events", () => {
  test("meta typed, custom_fields as The Events Calendar Pro shows them, in every context and language", async () => {
    const f = await eventFields("v");
    const plain = await event();
    expect([plain.meta, plain.custom_fields]).toEqual([{}, []]);
    const ev = await event({ meta: { v_text: "Main stage", v_area: "Line one\nLine two", v_url: "https://tickets.example.org/a?b=1&c=2", v_num: "12",
      v_bool: "yes", v_choice: "kids", v_multi: ["seats", "ramp"] } });
    expect(ev.meta).toEqual({ v_text: "Main stage", v_area: "Line one\nLine two", v_url: "https://tickets.example.org/a?b=1&c=2", v_num: 12, v_bool: true, v_choice: "kids", v_multi: ["ramp", "seats"] });
    expect(ev.custom_fields).toEqual({
      Stage: "Main stage", Notes: "Line one\nLine two", Tickets: '<a href="https://tickets.example.org/a?b=1&amp;c=2" target="_self">https://tickets.example.org/a?b=1&c=2</a>',
      Age: "12", Registration: "Yes", Audience: "Children", Access: "Ramp, Seats"
    });
    const one = (await svc.request("GET", `/events/${ev.id}`)).body;
    expect([one.meta, one.custom_fields]).toEqual([ev.meta, ev.custom_fields]);
    expect(one.json_ld.additionalProperty).toEqual(expect.arrayContaining([
      { "@type": "PropertyValue", name: "Stage", value: "Main stage" }, { "@type": "PropertyValue", name: "Age", value: 12 },
      { "@type": "PropertyValue", name: "Registration", value: true }, { "@type": "PropertyValue", name: "Access", value: "Ramp, Seats" }
    ]));
    const edit = (await svc.request("GET", `/events/${ev.id}?context=edit`, { as: "admin" })).body;
    expect(edit.meta).toEqual(ev.meta);
    const listed = (await svc.request("GET", `/events?include=${ev.id}`)).body.events[0];
    expect([listed.meta, listed.custom_fields]).toEqual([ev.meta, ev.custom_fields]);
    const fr = (await svc.request("GET", `${svc.base}/fr/wp-json/calendar/events/v1/events/${ev.id}`)).body;
    expect(fr.custom_fields).toEqual(expect.objectContaining({ Scène: "Main stage", Audience: "Enfants" }));
    // the label falls back to the default language where it has none of the asked one
    const de = (await svc.request("GET", `/events/${ev.id}?i18n_language=de`)).body;
    expect(de.custom_fields).toEqual(expect.objectContaining({ Stage: "Main stage", Audience: "Children" }));
    // a choice's label renamed: the stored value stays, the text follows
    await succeed(svc, "POST", `${svc.ns}/fields/${f.choice.id}`, { options: [{ value: "kids", label: "Kids" }, { value: "adults", label: "Adults" }, { value: "all", label: "Everyone" }] });
    const after = (await svc.request("GET", `/events/${ev.id}`)).body;
    expect([after.meta.v_choice, after.custom_fields.Audience]).toEqual(["kids", "Kids"]);
    // the feed carries them too
    const feed = await svc.request("GET", `${svc.ns}/changes?per_page=500`, { as: "admin" });
    const change = feed.body.changes.filter((c: Json) => c.type === "event" && c.id === ev.id).pop();
    expect(change.record.meta).toEqual(ev.meta);
    // not in the iCalendar file
    const ics = await svc.request("GET", `/events/${ev.id}?format=ics`);
    expect(ics.text).toContain("BEGIN:VEVENT");
    expect(ics.text).not.toContain("Main stage");
    await removeAll(f);
  });

  test("updates are partial: keys given set, null removes; the rest stays", async () => {
    const f = await eventFields("p");
    const ev = await event({ meta: { p_text: "A", p_num: 1, p_multi: "ramp,loop" } });
    expect(ev.meta).toEqual({ p_text: "A", p_num: 1, p_multi: ["ramp", "loop"] });
    const up = await succeed(svc, "POST", `${svc.ns}/events/${ev.id}`, { meta: { p_num: 2.5, p_text: null, p_bool: false } });
    expect(up.meta).toEqual({ p_num: 2.5, p_bool: false, p_multi: ["ramp", "loop"] });
    expect(up.custom_fields).toEqual({ Age: "2.5", Registration: "No", Access: "Ramp, Hearing loop" });
    const untouched = await succeed(svc, "POST", `${svc.ns}/events/${ev.id}`, { title: "Renamed" });
    expect(untouched.meta).toEqual(up.meta);
    const emptied = await succeed(svc, "POST", `${svc.ns}/events/${ev.id}`, { meta: { p_num: null, p_bool: null, p_multi: [] } });
    expect([emptied.meta, emptied.custom_fields]).toEqual([{}, []]);
    await removeAll(f);
  });

  test("a wrong type, an unknown key, a choice not offered, a missing required field: 400 naming meta, the key in the message", async () => {
    const f = await eventFields("w");
    const req = await field({ key: "w_req", object_type: "event", type: "text", label: "Required", required: true });
    const start = { title: "Bad", start_date: dayAt(3, "20:00:00"), end_date: dayAt(3, "22:00:00") };
    for (const [meta, key] of [
      [{ w_num: "twelve", w_req: "x" }, "w_num"], [{ w_bool: "perhaps", w_req: "x" }, "w_bool"], [{ w_text: 5, w_req: "x" }, "w_text"],
      [{ w_url: "not a url", w_req: "x" }, "w_url"], [{ w_url: "javascript:alert(1)", w_req: "x" }, "w_url"], [{ nope: 1, w_req: "x" }, "nope"],
      [{ w_choice: "teens", w_req: "x" }, "w_choice"], [{ w_multi: ["ramp", "lift"], w_req: "x" }, "w_multi"], [{ w_text: "x" }, "w_req"], [{ w_req: null }, "w_req"]
    ] as Array<[Record<string, unknown>, string]>) {
      const res = await svc.request("POST", `${svc.ns}/events`, { as: "admin", body: { ...start, meta } });
      expect([JSON.stringify(meta), res.status, res.body.code, Object.keys(res.body.data.params)]).toEqual([JSON.stringify(meta), 400, "rest_invalid_param", ["meta"]]);
      expect(res.body.data.params.meta).toContain(key);
    }
    const notObject = await svc.request("POST", `${svc.ns}/events`, { as: "admin", body: { ...start, meta: ["w_req"] } });
    expect([notObject.status, Object.keys(notObject.body.data.params)]).toEqual([400, ["meta"]]);
    // a record made before the field was required is updated without giving it
    await succeed(svc, "POST", `${svc.ns}/fields/${req.id}`, { required: false });
    const ev = await event();
    await succeed(svc, "POST", `${svc.ns}/fields/${req.id}`, { required: true });
    expect((await svc.request("POST", `${svc.ns}/events/${ev.id}`, { as: "admin", body: { title: "Still fine" } })).status).toBe(200);
    const removal = await svc.request("POST", `${svc.ns}/events/${ev.id}`, { as: "admin", body: { meta: { w_req: null } } });
    expect([removal.status, removal.body.data.params.meta]).toEqual([400, expect.stringContaining("w_req")]);
    await remove(req.id);
    await removeAll(f);
  });
});

describe("filters and search", () => {
  test("meta[<key>]=<value> filters lists (choices: any of a comma list); unknown or not filterable keys are 400", async () => {
    const f = await eventFields("q");
    const a = await event({ meta: { q_text: "North", q_num: 7, q_bool: true, q_choice: "kids", q_multi: ["ramp"] } });
    const b = await event({ meta: { q_text: "South", q_num: 7.5, q_bool: false, q_choice: "adults", q_multi: ["loop", "seats"] } });
    const c = await event({ meta: { q_choice: "all" } });
    const ids = async (query: string) => (await svc.request("GET", `/events?per_page=50&${query}`)).body.events.map((e: Json) => e.id).sort();
    expect(await ids("meta[q_text]=North")).toEqual([a.id]);
    expect(await ids("meta[q_num]=7.5")).toEqual([b.id]);
    expect(await ids("meta[q_num]=7")).toEqual([a.id]);
    expect(await ids("meta[q_bool]=false")).toEqual([b.id]);
    expect(await ids("meta[q_choice]=kids,all")).toEqual([a.id, c.id].sort());
    expect(await ids("meta[q_multi]=seats")).toEqual([b.id]);
    expect(await ids("meta[q_multi]=ramp,loop")).toEqual([a.id, b.id].sort());
    expect(await ids("meta[q_choice]=kids&meta[q_bool]=true")).toEqual([a.id]);
    expect(await ids("meta[q_choice]=kids&meta[q_bool]=false")).toEqual([]);
    expect(await ids("meta[q_text]=Nowhere")).toEqual([]);
    // a write moves a record in and out of a filtered list at once (no kept answer outlives it)
    await succeed(svc, "POST", `${svc.ns}/events/${c.id}`, { meta: { q_choice: "kids" } });
    expect(await ids("meta[q_choice]=kids")).toEqual([a.id, c.id].sort());
    await succeed(svc, "POST", `${svc.ns}/events/${c.id}`, { meta: { q_choice: null } });
    expect(await ids("meta[q_choice]=kids")).toEqual([a.id]);
    // a recurring event's occurrences carry the series' values
    const series = await event({ recurrence: ["RRULE:FREQ=DAILY;COUNT=3"], meta: { q_choice: "adults" } });
    const occurrences = (await svc.request("GET", `/events/${series.id}/occurrences`)).body.events;
    expect(occurrences.map((o: Json) => o.meta.q_choice)).toEqual(["adults", "adults", "adults"]);
    expect(await ids("meta[q_choice]=adults")).toEqual([b.id, ...occurrences.map((o: Json) => o.id)].sort());
    // the paging links carry the filter
    const page = await svc.request("GET", `/events?per_page=1&meta[q_choice]=kids,adults`);
    expect(page.body.next_rest_url).toContain(`meta%5Bq_choice%5D=kids%2Cadults`);
    for (const query of ["meta[q_area]=x", "meta[nope]=x", "meta[q_num]=abc", "meta[q_choice]="]) {
      const res = await svc.request("GET", `/events?${query}`);
      expect([query, res.status, res.body.code, Object.keys(res.body.data.params)]).toEqual([query, 400, "rest_invalid_param", ["meta"]]);
    }
    await removeAll(f);
  });

  test("search finds text values; a deleted field's text is found no more", async () => {
    const f = await eventFields("s");
    const word = `zq${token()}`;
    const ev = await event({ meta: { s_area: `Bring a ${word} along` } });
    const found = async (q: string) => (await svc.request("GET", `/events?search=${encodeURIComponent(q)}`)).body.events.map((e: Json) => e.id);
    expect(await found(word)).toEqual([ev.id]);
    expect(await found(word.toUpperCase())).toEqual([ev.id]);
    await remove(f.area.id);
    expect(await found(word)).toEqual([]);
    delete f.area;
    await removeAll(f);
  });
});

describe("deleting a field", () => {
  test("leaves no value behind: the key made again shows nothing old, filters find nothing old", async () => {
    const first = await field({ key: "d_key", object_type: "event", type: "choice", label: "D", filterable: true, options: [{ value: "x", label: "X" }] });
    const evs = [await event({ meta: { d_key: "x" } }), await event({ meta: { d_key: "x" } })];
    await remove(first.id);
    const gone = (await svc.request("GET", `/events/${evs[0].id}`)).body;
    expect([gone.meta, gone.custom_fields]).toEqual([{}, []]);
    const again = await field({ key: "d_key", object_type: "event", type: "choice", label: "D again", filterable: true, options: [{ value: "x", label: "X" }] });
    for (const ev of evs) {
      const now = (await svc.request("GET", `/events/${ev.id}`)).body;
      expect([now.meta, now.custom_fields]).toEqual([{}, []]);
    }
    expect((await svc.request("GET", `/events?meta[d_key]=x`)).body.events).toEqual([]);
    // nothing of the old field is left in the store: no value in any record, no token, no link row
    const { acquireStore, releaseStore } = await import("../../store");
    const { storeConfig } = await import("../../mixins/store.mixin");
    const store = await acquireStore(storeConfig());
    try {
      if (store.sql) {
        const json = store.kind === "sqlite" ? "json(doc)" : "doc";
        const docs = await store.sql.all<{ doc: string | Json }>(`SELECT ${json} AS doc FROM events WHERE site = 1 AND id IN (${evs.map(e => e.id).join(", ")})`);
        expect(docs).toHaveLength(evs.length);
        for (const row of docs) {
          const doc = typeof row.doc === "string" ? JSON.parse(row.doc) : row.doc;
          expect([doc.custom_values ?? {}, doc.custom_links ?? [], doc.custom_text ?? ""]).toEqual([{}, [], ""]);
        }
        const tokens = await store.sql.all(`SELECT id FROM field_tokens WHERE site = 1 AND ${store.kind === "sqlite" ? "json_extract(doc, '$.field')" : "(doc ->> 'field')::bigint"} = ${first.id}`);
        expect(tokens).toEqual([]);
        const links = await store.sql.all(`SELECT id FROM links WHERE site = 1 AND type = 'events' AND field = 'custom_links' AND id IN (${evs.map(e => e.id).join(", ")})`);
        expect(links).toEqual([]);
      }
    } finally {
      await releaseStore(storeConfig());
    }
    await remove(again.id);
  });
});

describe("venues and organizers", () => {
  test("carry meta and custom_fields, filter and search by them", async () => {
    const access = await field({ key: "access", object_type: "venue", type: "multi_choice", label: "Accessibility", filterable: true,
      options: [{ value: "ramp", label: "Ramp" }, { value: "lift", label: "Lift" }] });
    const note = await field({ key: "note", object_type: "venue", type: "text", label: "Note" });
    const contact = await field({ key: "contact", object_type: "organizer", type: "url", label: "Contact", filterable: true });
    const word = `vq${token()}`;
    const v = await succeed(svc, "POST", `${svc.ns}/venues`, { venue: `Hall ${token()}`, meta: { access: ["lift"], note: `Ask for ${word}` } }, [201]);
    expect([v.meta, v.custom_fields]).toEqual([{ access: ["lift"], note: `Ask for ${word}` }, { Accessibility: "Lift", Note: `Ask for ${word}` }]);
    const other = await succeed(svc, "POST", `${svc.ns}/venues`, { venue: `Other ${token()}` }, [201]);
    expect([other.meta, other.custom_fields]).toEqual([{}, []]);
    const listed = await svc.request("GET", `/venues?meta[access]=lift,ramp`);
    expect(listed.body.venues.map((x: Json) => x.id)).toEqual([v.id]);
    expect((await svc.request("GET", `/venues?search=${word}`)).body.venues.map((x: Json) => x.id)).toEqual([v.id]);
    const bad = await svc.request("POST", `${svc.ns}/venues/${v.id}`, { as: "admin", body: { meta: { access: ["stairs"] } } });
    expect([bad.status, Object.keys(bad.body.data.params)]).toEqual([400, ["meta"]]);
    const read = (await svc.request("GET", `/venues/${v.id}`)).body;
    expect(read.json_ld.additionalProperty).toEqual([{ "@type": "PropertyValue", name: "Accessibility", value: "Lift" }, { "@type": "PropertyValue", name: "Note", value: `Ask for ${word}` }]);
    const o = await succeed(svc, "POST", `${svc.ns}/organizers`, { organizer: `Org ${token()}`, meta: { contact: "https://org.example.org/" } }, [201]);
    expect(o.custom_fields).toEqual({ Contact: '<a href="https://org.example.org/" target="_self">https://org.example.org/</a>' });
    expect((await svc.request("GET", `/organizers?meta[contact]=${encodeURIComponent("https://org.example.org/")}`)).body.organizers.map((x: Json) => x.id)).toEqual([o.id]);
    // an event embeds its venue with the venue's fields
    const ev = await event({ venue: v.id });
    expect(ev.venue.meta).toEqual({ access: ["lift"], note: `Ask for ${word}` });
    for (const x of [access, note, contact]) await remove(x.id);
    expect((await svc.request("GET", `/venues/${v.id}`)).body.meta).toEqual({});
  });
});

describe("sites", () => {
  /** One request with an explicit Host header (fetch does not let a client choose it). */
  function call(method: string, host: string, key: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    return new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = { Host: host, Authorization: `Bearer ${key}`, ...(text ? { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(text)) } : {}) };
      const req = http.request({ host: "127.0.0.1", port: svc.port, method, path: `/wp-json/calendar/events/v1${path}`, headers }, res => {
        const chunks: Buffer[] = [];
        res.on("data", c => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
      });
      req.on("error", reject);
      if (text) req.write(text);
      req.end();
    });
  }

  test("two sites with fields of one key and different types never see each other's", async () => {
    const host = `fields-${token()}.example.org`;
    const made = await fetch(`${svc.base}/platform/v1/sites`, { method: "POST", headers: { Authorization: "Bearer platform-test-key", "Content-Type": "application/json" }, body: JSON.stringify({ host }) });
    expect(made.status).toBe(201);
    const site = await made.json() as Json;
    // from here on the default site answers its own host only (BASE_URL's)
    const here = (method: string, path: string, body?: unknown) => call(method, `localhost:${svc.port}`, "k-admin", path, body);
    const there = (method: string, path: string, body?: unknown) => call(method, host, site.api_key, path, body);
    const when = { start_date: dayAt(3, "20:00:00"), end_date: dayAt(3, "22:00:00"), status: "publish" };
    const mine = await here("POST", "/fields", { key: "capacity", object_type: "event", type: "number", label: "Capacity", filterable: true });
    const theirs = await there("POST", "/fields", { key: "capacity", object_type: "event", type: "choice", label: "Size", filterable: true, options: [{ value: "small", label: "Small" }, { value: "big", label: "Big" }] });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect((await there("GET", "/fields")).body.map((f: Json) => [f.key, f.type])).toEqual([["capacity", "choice"]]);
    expect((await here("GET", "/fields?object_type=event")).body.map((f: Json) => [f.key, f.type])).toEqual([["capacity", "number"]]);
    const evHere = await here("POST", "/events", { title: "Here", ...when, meta: { capacity: 300 } });
    const evThere = await there("POST", "/events", { title: "There", ...when, meta: { capacity: "big" } });
    expect([evHere.status, evHere.body.meta, evThere.status, evThere.body.meta, evThere.body.custom_fields]).toEqual([201, { capacity: 300 }, 201, { capacity: "big" }, { Size: "Big" }]);
    expect((await there("POST", "/events", { title: "There", ...when, meta: { capacity: 300 } })).status).toBe(400);
    expect((await here("POST", "/events", { title: "Here", ...when, meta: { capacity: "big" } })).status).toBe(400);
    expect((await here("GET", "/events?meta[capacity]=300")).body.events.map((e: Json) => e.id)).toEqual([evHere.body.id]);
    expect((await there("GET", "/events?meta[capacity]=big")).body.events.map((e: Json) => e.id)).toEqual([evThere.body.id]);
    expect((await there("GET", "/events?meta[capacity]=300")).status).toBe(400);
    // each site's /doc describes its own field
    const docThere = (await there("GET", "/doc")).body;
    expect(docThere.components.schemas.Event.properties.meta.properties.capacity).toEqual(expect.objectContaining({ type: "string", enum: ["small", "big"] }));
    const docHere = (await here("GET", "/doc")).body;
    expect(docHere.components.schemas.Event.properties.meta.properties.capacity).toEqual(expect.objectContaining({ type: "number" }));
    // deleting one site's field leaves the other's values alone
    expect((await here("DELETE", `/fields/${mine.body.id}`)).status).toBe(200);
    expect((await there("GET", `/events/${evThere.body.id}`)).body.meta).toEqual({ capacity: "big" });
    expect((await here("GET", `/events/${evHere.body.id}`)).body.meta).toEqual({});
  });
});
