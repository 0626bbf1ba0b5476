/**
 * The field tables (lib/records/field-table.ts, lib/events/event-fields.ts, lib/linked/venue-fields.ts,
 * organizer-fields.ts, lib/terms/term-fields.ts, and the event list's parameters in lib/events/event-params.ts)
 * against every place derived from them: each derived list must name exactly the table's fields, in the
 * table's order where order shows in the answer (the params schemas, /doc, the records, the staleness sets,
 * the list's links, an import's input). A field added by hand to one of those places, or left out of one, fails here; the last
 * block shows the comparison catching a key added by hand.
 */
import { EVENT_FIELDS } from "../../lib/events/event-fields";
import { EVENT_PARAMS } from "../../lib/events/event-params";
import { EVENT_BLANKS, eventRecord } from "../../lib/events/event-record";
import type { EventDoc, EventEmbeds } from "../../lib/events/event-doc";
import { componentSchemas } from "../../lib/http/response-schemas";
import { TRANSLATABLE } from "../../lib/i18n/types";
import {
  answerSchemas, editOnlyFields, embeddedKinds, importedFields, listFilterRules, plainFilterParams, presentationFields, protectedBlanks, searchedFields, shapedFields,
  translatableFields, writtenOnlyBy, type FieldTable
} from "../../lib/records/field-table";
import { EVENT_LINK_ORDER, EVENT_LIST_PARAMS } from "../../lib/events/event-params";
import { eventInput, organizerInput, venueInput } from "../../lib/imports/tec";
import { PLAIN_LIST_PARAMS, PRESENTATION_FIELDS, stalePatterns } from "../../cache/staleness";
import type { Json } from "../helpers/json";
import { VENUE_FIELDS } from "../../lib/linked/venue-fields";
import { ORGANIZER_FIELDS } from "../../lib/linked/organizer-fields";
import { ORGANIZER, VENUE } from "../../lib/linked/kinds";
import { linkedSchemas } from "../../lib/linked/params";
import { presentRecord, type LinkedDoc } from "../../lib/linked/record";
import type { LinkedShaping } from "../../lib/linked/linked-field-parts";
import type { LinkedKindSpec } from "../../lib/linked/spec";
import { CATEGORY_ONLY_WRITES, TERM_FIELDS } from "../../lib/terms/term-fields";
import { TERM_PARAMS } from "../../lib/terms/term-params";
import { embeddedTerm, termRecord, type TermDoc } from "../../lib/terms/term-record";

/**
 * What a derived place's keys differ by from the table's: keys the table does not name, table keys it
 * lacks, and (when `ordered`) the same keys in another order.
 */
function drift(place: string, derived: Iterable<string>, table: readonly string[], ordered = true): string[] {
  const keys = [...derived];
  const out = [
    ...keys.filter(k => !table.includes(k)).map(k => `${place}: ${k} is not in the table`),
    ...table.filter(k => !keys.includes(k)).map(k => `${place}: ${k} is missing`)
  ];
  if (out.length === 0 && ordered && keys.join() !== table.join()) out.push(`${place}: order differs from the table's`);
  return out;
}

const written = <S>(t: FieldTable<S>) => t.writeOrder.filter(name => t.fields[name]?.write);
const answered = <S>(t: FieldTable<S>) => Object.keys(answerSchemas(t));
const shaped = <S>(t: FieldTable<S>) => shapedFields(t).map(([name]) => name);
const componentOf = (name: string): Json => componentSchemas()[name];
const eventSchema = (): Json => componentOf("Event");
/** A params schema's parameters (without fastest-validator's `$$` options). */
const params = (schema: object) => Object.keys(schema).filter(k => !k.startsWith("$$"));

const doc = {
  _id: 12, author: 1, status: "publish", date: "2025-05-01 09:00:00", date_utc: "2025-05-01 09:00:00", modified: "2025-05-03 12:00:00",
  modified_utc: "2025-05-03 12:00:00", title: "Jazz night", slug: "jazz-night", all_day: false, start_date: "2025-06-01 20:00:00",
  end_date: "2025-06-01 23:00:00", utc_start_date: "2025-06-01 18:00:00", utc_end_date: "2025-06-01 21:00:00", timezone: "Europe/Rome",
  cost: [], currency_symbol: "$", currency_position: "prefix", website: null, hide_from_listings: false, sticky: false, featured: false,
  categories: [], tags: [], venues: [], organizers: []
} satisfies EventDoc;
const embeds: EventEmbeds = { venues: {}, organizers: {}, terms: {}, images: new Map() };
const rc = { site: "http://localhost:3000", ns: "http://localhost:3000/wp-json/calendar/events/v1", baseUrl: "http://localhost:3000" };

describe("the event table", () => {
  test("names every written field once in its write order, and only fields it declares written", () => {
    const order = EVENT_FIELDS.writeOrder;
    expect(order.filter((name, i) => order.indexOf(name) !== i)).toEqual([]);
    expect(order.filter(name => !EVENT_FIELDS.fields[name]?.write)).toEqual([]);
    expect(drift("write order", order, Object.keys(EVENT_FIELDS.fields).filter(n => EVENT_FIELDS.fields[n].write), false)).toEqual([]);
  });

  test("the params schemas of create and update are its written fields", () => {
    expect(drift("create", params(EVENT_PARAMS.create), written(EVENT_FIELDS))).toEqual([]);
    expect(drift("update", params(EVENT_PARAMS.update), ["id", "password", ...written(EVENT_FIELDS)])).toEqual([]);
    expect(drift("updateBySlug", params(EVENT_PARAMS.updateBySlug), ["slug", ...written(EVENT_FIELDS).filter(n => n !== "slug")])).toEqual([]);
  });

  test("the /doc Event schema is its answered fields, in answer order", () => {
    expect(drift("Event schema", Object.keys(eventSchema().properties), answered(EVENT_FIELDS))).toEqual([]);
  });

  test("the shaped record is its shaped fields, in answer order, each documented", () => {
    const record = eventRecord(doc, rc, embeds, { jsonLd: false, blank: false });
    expect(drift("record", Object.keys(record), shaped(EVENT_FIELDS))).toEqual([]);
    expect(drift("record with JSON-LD", Object.keys(eventRecord(doc, rc, embeds, { jsonLd: true, blank: false })), [...shaped(EVENT_FIELDS), "json_ld"])).toEqual([]);
    expect(shaped(EVENT_FIELDS).filter(name => !answered(EVENT_FIELDS).includes(name))).toEqual([]);
  });

  test("the fields another step adds say which, and the shaper answers in every context", () => {
    const unshaped = Object.entries(EVENT_FIELDS.fields).filter(([, e]) => e.answer && !e.answer.shape);
    expect(unshaped.filter(([, e]) => !e.answer?.addedBy).map(([name]) => name)).toEqual([]);
    expect(editOnlyFields(EVENT_FIELDS)).toEqual(["import_source"]);
    expect(editOnlyFields(EVENT_FIELDS).filter(name => shaped(EVENT_FIELDS).includes(name))).toEqual([]);
  });

  test("the password-protected keys are its blanked fields", () => {
    expect(drift("blanks", Object.keys(EVENT_BLANKS), Object.keys(protectedBlanks(EVENT_FIELDS)), false)).toEqual([]);
    const blanked = eventRecord(doc, rc, embeds, { jsonLd: false, blank: true });
    for (const [name, blank] of Object.entries(EVENT_BLANKS)) if (name in blanked) expect([name, blanked[name]]).toEqual([name, blank]);
  });

  test("the translatable fields are its translatable fields", () => {
    expect(drift("translatable", TRANSLATABLE.event.fields, translatableFields(EVENT_FIELDS))).toEqual([]);
    expect(translatableFields(EVENT_FIELDS)).toEqual(["title", "description", "excerpt", "event_status_reason"]);
  });

  test("the staleness sets are its presentation fields and its plain list filters, and no plain filter is on a presentation field", () => {
    expect(drift("PRESENTATION_FIELDS", PRESENTATION_FIELDS, presentationFields(EVENT_FIELDS), false)).toEqual([]);
    expect(drift("PLAIN_LIST_PARAMS", PLAIN_LIST_PARAMS, ["page", "per_page", ...plainFilterParams(EVENT_FIELDS)], false)).toEqual([]);
    const onPresentation = Object.entries(EVENT_FIELDS.fields).filter(([, e]) => e.listFilter?.plain && e.stored === "presentation").map(([name]) => name);
    expect(onPresentation).toEqual([]);
  });

  test("a write of a kind the event embeds makes every event page stale", () => {
    const collections: Record<string, string> = { venue: "venues", organizer: "organizers", term: "terms" };
    expect(embeddedKinds(EVENT_FIELDS).sort()).toEqual(["organizer", "term", "venue"]);
    for (const kind of embeddedKinds(EVENT_FIELDS)) {
      const patterns = stalePatterns(1, { collection: collections[kind], id: 5 });
      expect([kind, patterns.some(p => p === "ACT:1:E**" || p === "ACT:1:**")]).toEqual([kind, true]);
    }
  });

  test("the event status fields are table entries: written, answered, protected where the caller may not read them, presentation only", () => {
    for (const name of ["event_status", "event_status_reason", "attendance_mode", "online_url"]) expect([name, !!EVENT_FIELDS.fields[name].write]).toEqual([name, true]);
    for (const name of ["event_status", "event_status_reason", "previous_start_date", "attendance_mode", "online_url"]) {
      expect([name, answered(EVENT_FIELDS).includes(name), EVENT_FIELDS.fields[name].stored]).toEqual([name, true, "presentation"]);
    }
    expect(EVENT_FIELDS.fields.previous_start_date.write).toBeUndefined();
    expect(Object.keys(EVENT_BLANKS)).toEqual(expect.arrayContaining(["event_status_reason", "online_url"]));
  });
});

const linkedDoc = {
  _id: 7, author: 1, status: "publish", date: "2025-01-01 10:00:00", date_utc: "2025-01-01 09:00:00", modified: "2025-01-02 10:00:00",
  modified_utc: "2025-01-02 09:00:00", slug: "hall", name: "Hall", name_key: "hall", description: "A hall", image: 0, address: "1 Main St", city: "Rome",
  country: "Italy", province: "RM", state: "Lazio", zip: "00100", phone: "123", website: "https://hall.example", stateprovince: "RM", email: "a@hall.example",
  show_map: false, show_map_link: true, geo_lat: 41.9, geo_lng: 12.5
} satisfies LinkedDoc;
const present = (spec: LinkedKindSpec, reveal: boolean) => presentRecord(spec, linkedDoc, {
  site: "http://localhost:3000", baseUrl: "http://localhost:3000", status: "publish", image: { url: "http://localhost:3000/i.png", id: 3, extension: "png" }, jsonLd: true, reveal
});
/** The extensions the linked actions accept beyond the plugin's create arguments (lib/linked/params.ts). */
const LINKED_WRITE_EXTENSIONS: Record<string, string[]> = { venue: ["post_password", "meta", "geo_lat", "geo_lng"], organizer: ["post_password", "meta"] };

/** The event list's parameters a link of a page does not carry: they change what the caller may read, not which page it is. */
const UNLINKED_LIST_PARAMS = ["password", "context"];
/** A link carries the language it was asked in (C8: language in built URLs), which no list rule names: the language step reads it. */
const LINK_ONLY_PARAMS = ["i18n_language"];

describe("the event list's parameters and the imports", () => {
  const filters = Object.entries(EVENT_FIELDS.fields).flatMap(([name, e]) => (e.listFilter ? [[name, e.listFilter.param] as const] : []));

  test("every list filter of the table is a list parameter, carried in the list's links", () => {
    expect(filters.filter(([, param]) => !params(EVENT_PARAMS.list).includes(param))).toEqual([]);
    expect(filters.filter(([, param]) => !(EVENT_LINK_ORDER as readonly string[]).includes(param))).toEqual([]);
  });

  test("the links carry every list parameter once and no other", () => {
    const linked = [...EVENT_LINK_ORDER] as string[];
    expect(linked.filter((name, i) => linked.indexOf(name) !== i)).toEqual([]);
    const listed = params(EVENT_PARAMS.list).filter(name => !UNLINKED_LIST_PARAMS.includes(name));
    expect(drift("link order", linked.filter(name => !LINK_ONLY_PARAMS.includes(name)), listed, false)).toEqual([]);
  });

  test("each list filter's rule is the list schema's rule for its parameter", () => {
    const rules = listFilterRules(EVENT_FIELDS);
    expect(Object.keys(rules)).toEqual(filters.map(([, param]) => param));
    const list = EVENT_PARAMS.list as Record<string, unknown>;
    expect(Object.keys(rules).filter(param => JSON.stringify(list[param]) !== JSON.stringify(rules[param]))).toEqual([]);
  });

  test("a list parameter named as a stored field of the table filters by it through the table's entry", () => {
    const byParam = new Set(filters.map(([, param]) => param));
    const stored = Object.entries(EVENT_FIELDS.fields).filter(([, e]) => e.stored).map(([name]) => name);
    expect(params(EVENT_PARAMS.list).filter(name => stored.includes(name) && !byParam.has(name))).toEqual([]);
  });

  test("the links' places are 1, 2, 3… with none repeated or skipped, so the link order is the places' order", () => {
    const places = Object.values(EVENT_LIST_PARAMS).flatMap(p => (p.link === undefined ? [] : [p.link])).sort((a, b) => a - b);
    expect(places).toEqual(places.map((_, i) => i + 1));
    expect(params(EVENT_PARAMS.list)).toEqual(Object.keys(EVENT_LIST_PARAMS));
    expect(EVENT_LINK_ORDER.at(-1)).toBe("i18n_language");
  });

  test("an import copies the fields the table marks, each a written field, and no other", () => {
    const marked = importedFields(EVENT_FIELDS);
    expect(importedFields(EVENT_FIELDS, "text")).toEqual(expect.arrayContaining(["event_status", "event_status_reason", "attendance_mode", "online_url"]));
    expect(marked.filter(name => !EVENT_FIELDS.writeOrder.includes(name))).toEqual([]);
    const input = eventInput(fullSource(), importMaps);
    expect(drift("import", Object.keys(input), marked, false)).toEqual([]);
    for (const name of importedFields(EVENT_FIELDS, "text")) expect([name, input[name]]).toEqual([name, fullSource()[name]]);
    for (const name of importedFields(EVENT_FIELDS, "flag")) expect([name, input[name]]).toEqual([name, true]);
    expect(input).not.toHaveProperty("previous_start_date");
  });
});

/** The source's ids mapped to ours, for an import's input: each source id 1 is our 2. */
const importMaps = { categories: new Map([[1, 2]]), tags: new Map([[1, 2]]), venues: new Map([[1, 2]]), organizers: new Map([[1, 2]]) };

/** A source event answering a value for every field the table marks imported, the way the import reads it, and fields it never copies. */
function fullSource(): Record<string, unknown> {
  const own: Record<string, unknown> = {
    title: "Jazz night", status: "publish", date: "2029-12-01 10:00:00", date_utc: "2029-12-01 09:00:00", image: { url: "https://source.example/i.png" }, cost: "$10",
    categories: [{ id: 1 }], tags: [{ id: 1 }], venue: { id: 1 }, organizer: [{ id: 1 }], recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"]
  };
  const byWay = (name: string): unknown => {
    const way = EVENT_FIELDS.fields[name].imported;
    return way === "flag" ? "1" : way === "own" ? own[name] : name.endsWith("_date") ? "2030-01-01 20:00:00" : `the ${name}`;
  };
  return { id: 9, url: "https://source.example/event/9", previous_start_date: "2029-12-01 20:00:00", ticketed: true, ...Object.fromEntries(importedFields(EVENT_FIELDS).map(name => [name, byWay(name)])) };
}

describe.each([
  ["venue", VENUE_FIELDS, VENUE, "Venue", ["name", "description", "address", "city", "province", "state", "stateprovince"]],
  ["organizer", ORGANIZER_FIELDS, ORGANIZER, "Organizer", ["name", "description"]]
] as Array<[string, FieldTable<LinkedShaping>, LinkedKindSpec, string, string[]]>)("the %s table", (kind, table, spec, component, translatable) => {
  test("names every written field once in its write order, and only fields it declares written", () => {
    const order = table.writeOrder;
    expect(order.filter((name, i) => order.indexOf(name) !== i)).toEqual([]);
    expect(drift("write order", order, Object.keys(table.fields).filter(n => table.fields[n].write), false)).toEqual([]);
  });

  test("the params schemas are its written fields, then the extensions", () => {
    const schemas = linkedSchemas(spec);
    expect(drift("documented create", params(schemas.documented.create), written(table))).toEqual([]);
    expect(drift("create", params(schemas.actions.create), [...written(table), ...LINKED_WRITE_EXTENSIONS[kind]])).toEqual([]);
    expect(drift("update", params(schemas.actions.update), ["id", ...written(table), ...LINKED_WRITE_EXTENSIONS[kind]])).toEqual([]);
    expect(drift("updateBySlug", params(schemas.actions.updateBySlug), ["slug", ...written(table), ...LINKED_WRITE_EXTENSIONS[kind]])).toEqual([]);
  });

  test("the list's links carry every parameter of its list action once, and no other", () => {
    const schemas = linkedSchemas(spec);
    expect(schemas.linkOrder.filter((name, i) => schemas.linkOrder.indexOf(name) !== i)).toEqual([]);
    expect(drift("link order", schemas.linkOrder, params(schemas.actions.list), false)).toEqual([]);
  });

  test(`the /doc ${component} schema is its answered fields, in answer order`, () => {
    expect(drift(`${component} schema`, Object.keys(componentOf(component).properties), answered(table))).toEqual([]);
  });

  test("the record answers its documented fields, its own text fields in the table's order", () => {
    const keys = Object.keys(present(spec, true));
    expect(keys.filter(name => !answered(table).includes(name))).toEqual([]);
    expect(drift("own fields", keys.filter(name => shaped(table).includes(name)), shaped(table))).toEqual([]);
    expect(drift("own fields in the spec", spec.outputOrder, shaped(table))).toEqual([]);
    expect(drift("written own fields", spec.fields, table.writeOrder.filter(name => shaped(table).includes(name)))).toEqual([]);
    const missing = Object.entries(table.fields).filter(([, e]) => e.answer && !e.answer.shape && !e.answer.addedBy).map(([name]) => name);
    expect(missing).toEqual([]);
    expect(editOnlyFields(table)).toEqual(["import_source"]);
  });

  test("the password-protected keys are its blanked fields", () => {
    expect(drift("blanks", Object.keys(spec.blanks), Object.keys(protectedBlanks(table)), false)).toEqual([]);
    const blanked = present(spec, false);
    for (const [name, blank] of Object.entries(spec.blanks)) if (name in blanked) expect([name, blanked[name]]).toEqual([name, blank]);
    expect(Object.keys(blanked).filter(name => name in spec.blanks).length).toBeGreaterThan(3);
  });

  test("a list's search looks in the fields the table marks searched, each a written text field", () => {
    expect(drift("searchFields", spec.searchFields, searchedFields(table), false)).toEqual([]);
    expect(searchedFields(table).filter(name => !spec.fields.includes(name))).toEqual([]);
    expect(searchedFields(table).length).toBeGreaterThan(2);
  });

  test("an import copies the fields the table marks, and no other", () => {
    const own: Record<string, unknown> = { status: "publish", date: "2029-12-01 10:00:00", date_utc: "2029-12-01 09:00:00", image: { url: "https://source.example/i.png" }, geo_lat: 41.9, geo_lng: 12.5 };
    const byWay = (name: string): unknown => (table.fields[name].imported === "flag" ? "1" : table.fields[name].imported === "own" ? own[name] : `the ${name}`);
    const source = { id: 9, url: "https://source.example/venue/9", excerpt: "not copied", ...Object.fromEntries(importedFields(table).map(name => [name, byWay(name)])) };
    const input = kind === "venue" ? venueInput(source) : organizerInput(source);
    expect(drift("import", Object.keys(input), importedFields(table), false)).toEqual([]);
    for (const name of importedFields(table, "value")) expect([name, input[name]]).toEqual([name, `the ${name}`]);
  });

  test("the translatable fields are its translatable fields, the name stored as name", () => {
    expect(TRANSLATABLE[kind as "venue" | "organizer"].fields).toEqual(translatable);
    expect(drift("translatable", TRANSLATABLE[kind as "venue" | "organizer"].fields.map(n => (n === "name" ? kind : n)), translatableFields(table))).toEqual([]);
  });
});

describe("the term table", () => {
  const term = (taxonomy: "category" | "tag"): TermDoc => ({
    _id: 4, taxonomy, name: "Jazz", name_lc: "jazz", slug: "jazz", tax_slug: `${taxonomy}:jazz`, description: "Live", description_lc: "live", parent: 2, count: 3,
    tree_count: 3, lang: "en", modified_utc: "2025-01-01 00:00:00"
  });
  const roots = { site: "http://localhost:3000", ns: "http://localhost:3000/wp-json/tribe/events/v1" };

  test("the write params of categories are its written fields, those of tags all but the category-only ones", () => {
    const tagWrites = written(TERM_FIELDS).filter(name => !CATEGORY_ONLY_WRITES.includes(name));
    expect(drift("category create", params(TERM_PARAMS.category.create), written(TERM_FIELDS))).toEqual([]);
    expect(drift("category update", params(TERM_PARAMS.category.update), ["id", ...written(TERM_FIELDS)])).toEqual([]);
    expect(drift("tag create", params(TERM_PARAMS.tag.create), [...tagWrites, "parent"])).toEqual([]);
    expect(drift("tag update", params(TERM_PARAMS.tag.update), ["id", ...tagWrites, "parent"])).toEqual([]);
    expect(TERM_PARAMS.tag.create.parent).toBe("any|optional");
    expect(CATEGORY_ONLY_WRITES).toEqual(writtenOnlyBy(TERM_FIELDS, "category"));
    expect(CATEGORY_ONLY_WRITES).toEqual(["parent"]);
  });

  test("the /doc Term schema is its answered fields, in answer order", () => {
    expect(drift("Term schema", Object.keys(componentOf("Term").properties), answered(TERM_FIELDS))).toEqual([]);
  });

  test("both shapes of a term answer only documented fields, and every answered field is added by a named step", () => {
    for (const taxonomy of ["category", "tag"] as const) {
      for (const keys of [Object.keys(termRecord(term(taxonomy), [], roots)), Object.keys(embeddedTerm(term(taxonomy), roots))]) {
        expect([taxonomy, keys.filter(name => !answered(TERM_FIELDS).includes(name))]).toEqual([taxonomy, []]);
      }
    }
    expect(Object.entries(TERM_FIELDS.fields).filter(([, e]) => e.answer && !e.answer.addedBy).map(([name]) => name)).toEqual([]);
    expect(editOnlyFields(TERM_FIELDS)).toEqual(["import_source"]);
  });

  test("the translatable fields are its translatable fields", () => {
    expect(drift("translatable", TRANSLATABLE.term.fields, translatableFields(TERM_FIELDS))).toEqual([]);
    expect(translatableFields(TERM_FIELDS)).toEqual(["name", "description"]);
  });
});

describe("the comparison catches a field added by hand", () => {
  test("a property added to the /doc Term schema, a rule to a term's create", () => {
    const schema = componentOf("Term");
    schema.properties.hand_added = { type: "string", description: "Added by hand" };
    expect(drift("Term schema", Object.keys(schema.properties), answered(TERM_FIELDS))).toEqual(["Term schema: hand_added is not in the table"]);
    expect(drift("category create", [...params(TERM_PARAMS.category.create), "hand_added"], written(TERM_FIELDS))).toEqual(["category create: hand_added is not in the table"]);
  });

  test("a property added to the /doc Venue schema, a parameter to the venue's create", () => {
    const schema = componentOf("Venue");
    schema.properties.hand_added = { type: "string", description: "Added by hand" };
    expect(drift("Venue schema", Object.keys(schema.properties), answered(VENUE_FIELDS))).toEqual(["Venue schema: hand_added is not in the table"]);
    const create = params(linkedSchemas(VENUE).documented.create);
    expect(drift("documented create", [...create, "hand_added"], written(VENUE_FIELDS))).toEqual(["documented create: hand_added is not in the table"]);
  });

  test("a field added by hand to a kind's search, a list parameter left out of the links or added to them by hand", () => {
    expect(drift("searchFields", [...VENUE.searchFields, "country"], searchedFields(VENUE_FIELDS), false)).toEqual(["searchFields: country is not in the table"]);
    const listed = [...params(EVENT_PARAMS.list), "hand_added"].filter(name => !UNLINKED_LIST_PARAMS.includes(name));
    const linked = EVENT_LINK_ORDER.filter(name => !LINK_ONLY_PARAMS.includes(name));
    expect(drift("link order", linked, listed, false)).toEqual(["link order: hand_added is missing"]);
    const sent = params(EVENT_PARAMS.list).filter(name => !UNLINKED_LIST_PARAMS.includes(name));
    expect(drift("link order", [...linked, "hand_added"], sent, false)).toEqual(["link order: hand_added is not in the table"]);
  });

  test("a field an import copies by hand", () => {
    const input = { ...eventInput(fullSource(), importMaps), hand_added: "copied" };
    expect(drift("import", Object.keys(input), importedFields(EVENT_FIELDS), false)).toEqual(["import: hand_added is not in the table"]);
    const { timezone: _left, ...withoutZone } = eventInput(fullSource(), importMaps);
    expect(drift("import", Object.keys(withoutZone), importedFields(EVENT_FIELDS), false)).toEqual(["import: timezone is missing"]);
  });

  test("a property added to the /doc Event schema", () => {
    const schema = eventSchema();
    schema.properties.hand_added = { type: "string", description: "Added by hand" };
    expect(drift("Event schema", Object.keys(schema.properties), answered(EVENT_FIELDS))).toEqual(["Event schema: hand_added is not in the table"]);
  });

  test("a rule added to a params schema, a key to a staleness set, a key dropped from the blanks, a key moved in the record", () => {
    expect(drift("create", [...params(EVENT_PARAMS.create), "hand_added"], written(EVENT_FIELDS))).toEqual(["create: hand_added is not in the table"]);
    expect(drift("PRESENTATION_FIELDS", new Set([...PRESENTATION_FIELDS, "hand_added"]), presentationFields(EVENT_FIELDS), false)).toEqual(["PRESENTATION_FIELDS: hand_added is not in the table"]);
    expect(drift("blanks", Object.keys(EVENT_BLANKS).filter(k => k !== "online_url"), Object.keys(protectedBlanks(EVENT_FIELDS)), false)).toEqual(["blanks: online_url is missing"]);
    const [first, ...rest] = shaped(EVENT_FIELDS);
    expect(drift("record", [...rest, first], shaped(EVENT_FIELDS))).toEqual(["record: order differs from the table's"]);
  });
});
