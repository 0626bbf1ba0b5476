/**
 * The answers' schemas (lib/http/response-schemas.ts) against the serialisers that produce the answers, and the
 * /doc document against two third-party OpenAPI validators.
 *
 * Each serialiser is run on fixture records (plain, password-blanked, with embeds, with JSON-LD) and its
 * output validated against the document's component schema; each check is also run on a mutated schema
 * to show that a disagreement fails it.
 */
import { execFileSync } from "child_process";
import path from "path";
import "../../services";
import { openApiDocument } from "../../lib/discovery";
import { eventRecord } from "../../lib/events/event-record";
import type { EventDoc, EventEmbeds, RecordContext } from "../../lib/events/event-doc";
import { LinkedDoc, presentRecord, PresentOptions } from "../../lib/linked/record";
import { embeddedTerm, termRecord, TermDoc } from "../../lib/terms/term-record";
import { withLanguageKeys } from "../../lib/i18n/values";
import { listEnvelope } from "../../lib/http/response-schemas";
import { ORGANIZER, VENUE } from "../../lib/linked/kinds";
import { documentAjv, componentValidator, responseValidator } from "../helpers/contract";
import { PATH_LANGUAGES } from "../../lib/settings";
import { LANGUAGES } from "../../lib/i18n/messages";
import type { Json } from "../helpers/json";

const BASE = "http://localhost:3000";
const roots = { site: BASE, ns: `${BASE}/wp-json/calendar/events/v1` };

const linked = (extra: Partial<LinkedDoc> = {}): LinkedDoc => ({
  _id: 7, author: 1, status: "publish", date: "2025-05-01 09:00:00", date_utc: "2025-05-01 09:00:00",
  modified: "2025-05-03 12:00:00", modified_utc: "2025-05-03 12:00:00", slug: "blue-room", name: "Blue Room", name_key: "blue room",
  description: "Basement club.", image: 0, address: "Via Roma 1", city: "Rome", country: "Italy", province: "RM", state: "",
  zip: "00100", phone: "+39 06 123456", website: "http://blueroom.example.org", stateprovince: "RM", email: "a@b.example", ...extra
});
const present = (extra: Partial<PresentOptions> = {}): PresentOptions => ({
  site: BASE, baseUrl: BASE, status: "publish", image: false, jsonLd: false, reveal: true, ...extra
});
const IMAGE = { url: `${BASE}/wp-content/uploads/a.jpg`, id: 40, extension: "jpg" };

const term = (extra: Partial<TermDoc> = {}): TermDoc => ({
  _id: 3, taxonomy: "category", name: "Jazz", name_lc: "jazz", slug: "jazz", tax_slug: "category:jazz", description: "",
  description_lc: "", parent: 2, count: 4, tree_count: 4, lang: "en", modified_utc: "2025-05-03 12:00:00", ...extra
});

const venue = presentRecord(VENUE, linked({ geo_lat: 41.9, geo_lng: 12.5 }), present({ image: IMAGE, jsonLd: true }));
const organizer = presentRecord(ORGANIZER, linked({ _id: 8, name: "Ann" }), present());

const eventDoc = (extra: Partial<EventDoc> = {}): EventDoc => ({
  _id: 12, author: 1, status: "publish", date: "2025-05-01 09:00:00", date_utc: "2025-05-01 09:00:00",
  modified: "2025-05-03 12:00:00", modified_utc: "2025-05-03 12:00:00", title: "Jazz night", description: "Live.", excerpt: "",
  slug: "jazz-night", image: 40, all_day: false, start_date: "2025-06-01 20:00:00", end_date: "2025-06-01 23:00:00",
  utc_start_date: "2025-06-01 18:00:00", utc_end_date: "2025-06-01 21:00:00", timezone: "Europe/Rome", cost: ["10", "20"],
  currency_symbol: "€", currency_position: "postfix", website: null, hide_from_listings: false, sticky: false, featured: true,
  categories: [3], tags: [], venues: [7], organizers: [8], ...extra
});
const embeds = (venues: Record<string, Json> = { 7: venue }): EventEmbeds => ({
  venues,
  organizers: { 8: organizer },
  terms: { 3: embeddedTerm(term(), roots) },
  images: new Map([[40, IMAGE]])
});
const rc: RecordContext = { site: BASE, ns: roots.ns, baseUrl: BASE };

/** What each component must accept: the serialisers' outputs in every shape they take. */
const SAMPLES: Record<string, Array<[string, unknown]>> = {
  Event: [
    ["one venue, an image, JSON-LD", eventRecord(eventDoc(), rc, embeds(), { jsonLd: true, blank: false })],
    ["no venue, no image, free", eventRecord(eventDoc({ venues: [], image: null, cost: [] }), rc, embeds({}), { jsonLd: false, blank: false })],
    ["several venues", eventRecord(eventDoc({ venues: [7, 9] }), rc, embeds({ 7: venue, 9: { ...venue, id: 9 } }), { jsonLd: false, blank: false })],
    ["password-blanked", eventRecord(eventDoc({ post_password: "pw" }), rc, embeds(), { jsonLd: false, blank: true })],
    ["with its language keys", withLanguageKeys(eventRecord(eventDoc(), rc, embeds(), { jsonLd: false, blank: false }), "fr", ["en", "fr"])]
  ],
  Venue: [
    ["with coordinates, an image and JSON-LD", venue],
    ["password-blanked", presentRecord(VENUE, linked({ post_password: "pw" }), present({ reveal: false }))]
  ],
  Organizer: [
    ["plain", organizer],
    ["password-blanked, JSON-LD", presentRecord(ORGANIZER, linked({ post_password: "pw" }), present({ reveal: false, jsonLd: true }))]
  ],
  Term: [
    ["a category record", termRecord(term(), ["music"], roots)],
    ["a tag record", termRecord(term({ taxonomy: "tag", parent: 0 }), [], roots)],
    ["an embedded term", embeddedTerm(term(), roots)],
    ["with its language keys", withLanguageKeys(termRecord(term(), [], roots) as unknown as Record<string, unknown>, "en", ["en"])]
  ]
};

describe("the serialisers agree with the document's schemas", () => {
  const doc = openApiDocument(`${BASE}/wp-json`, "en") as Json;
  const ajv = documentAjv(doc);

  test.each(Object.entries(SAMPLES).flatMap(([name, samples]) => samples.map(([what, value]) => [name, what, value] as const)))(
    "%s: %s", (name, _what, value) => {
      const validate = componentValidator(ajv, name);
      const ok = validate(value);
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    });

  test("a list envelope of serialised records validates against the list schema", () => {
    const validate = ajv.compile({ $ref: "https://contract.invalid/doc.json#/paths/~1events/get/responses/200/content/application~1json/schema" });
    const events = SAMPLES.Event.map(([, v]) => v);
    expect(validate({ rest_url: `${roots.ns}/events?page=1`, total: 5, total_pages: 1, events })).toBe(true);
    expect(validate({ rest_url: "x", total: 5, total_pages: 1, events, extra: 1 })).toBe(false);
    expect(validate(events)).toBe(false); // a bare array is not what the service answers
    expect(listEnvelope("venues").required).toEqual(["venues", "total", "total_pages"]);
  });

  /** The document with one change to a component, and the sample that must now fail. */
  const mutations: Array<[string, (schemas: Json) => void, string, number]> = [
    ["author typed integer (it is sent as a string)", s => { s.Event.properties.author = { type: "integer" }; }, "Event", 0],
    ["a field the serialiser sends is not listed", s => { delete s.Event.properties.ticketed; }, "Event", 0],
    ["image an object only (it is false when absent)", s => { s.Event.properties.image = { $ref: "#/components/schemas/Image" }; }, "Event", 1],
    ["venue an object only (it is [] when absent)", s => { s.Event.properties.venue = { $ref: "#/components/schemas/Venue" }; }, "Event", 1],
    ["date details an array (they are an object)", s => { s.Event.properties.start_date_details = { type: "array" }; }, "Event", 0],
    ["cost details an array (they are an object)", s => { s.Event.properties.cost_details = { type: "array" }; }, "Event", 0],
    ["blanked flags typed boolean only (they are null)", s => { s.Event.properties.featured = { type: "boolean" }; }, "Event", 3],
    ["venue coordinates typed string", s => { s.Venue.properties.geo_lat = { type: "string" }; }, "Venue", 0],
    ["organizer email not listed", s => { delete s.Organizer.properties.email; }, "Organizer", 0],
    ["term meta not listed", s => { delete s.Term.properties.meta; }, "Term", 0],
    ["embedded term filter not listed", s => { delete s.Term.properties.filter; }, "Term", 2]
  ];

  test.each(mutations)("a document that says %s fails the serialiser's output", (_what, mutate, name, index) => {
    const mutated = structuredClone(doc);
    mutate(mutated.components.schemas);
    const validate = componentValidator(documentAjv(mutated), name);
    expect(validate(SAMPLES[name][index][1])).toBe(false);
    // …while the real document accepts it.
    expect(componentValidator(ajv, name)(SAMPLES[name][index][1])).toBe(true);
  });
});

/** Runs both third-party validators (in a child process: one of them is an ES module) on documents. */
function validateDocuments(documents: unknown[]): Array<{ seriousme: unknown[]; swaggerParser: string | null }> {
  const script = path.join(__dirname, "..", "helpers", "openapi-validators.mjs");
  const out = execFileSync(process.execPath, [script], { input: JSON.stringify(documents), maxBuffer: 256 * 1024 * 1024, timeout: 120_000 });
  return JSON.parse(out.toString("utf8"));
}

describe("the document is valid OpenAPI", () => {
  test("@apidevtools/swagger-parser and @seriousme/openapi-schema-validator accept it in every language root and language", () => {
    const docs = [
      ...[undefined, ...PATH_LANGUAGES].map(lang => openApiDocument(`${BASE}${lang ? `/${lang}` : ""}/wp-json`, lang ?? "en")),
      ...LANGUAGES.map(lang => openApiDocument(`${BASE}/wp-json`, lang))
    ];
    for (const result of validateDocuments(docs)) expect(result).toEqual({ seriousme: [], swaggerParser: null });
  });

  test("…and both reject what they should (the old optional path parameter)", () => {
    const doc = openApiDocument(`${BASE}/wp-json`, "en") as Json;
    const password = doc.paths["/events/{id}"].get.parameters.find((p: Json) => p.name === "password");
    password.in = "path";
    password.required = false;
    const [result] = validateDocuments([doc]);
    expect(result.seriousme.length).toBeGreaterThan(0);
    expect(result.swaggerParser).toEqual(expect.any(String));
  });
});

describe("the integration suite's response validator (test/helpers/contract.ts)", () => {
  const doc = openApiDocument(`${BASE}/wp-json`, "en") as Json;
  const validator = responseValidator(doc);
  const url = (p: string, root = "") => `http://127.0.0.1:1${root}/wp-json/calendar/events/v1${p}`;
  const answer = (method: string, p: string, status: number, body: unknown, contentType = "application/json; charset=utf-8") =>
    ({ method, url: url(p), status, contentType, text: typeof body === "string" ? body : JSON.stringify(body) });
  const error = (status: number) => ({ code: "x", message: "m", data: { status } });
  const envelope = { rest_url: "r", total: 1, total_pages: 1, events: [SAMPLES.Event[0][1]] };

  test("accepts what the document describes", () => {
    expect(validator.problems(answer("GET", "/events", 200, envelope))).toEqual([]);
    expect(validator.problems(answer("GET", "/events/", 200, envelope))).toEqual([]);
    expect(validator.problems({ ...answer("GET", "/events", 200, envelope), url: url("/events", "/fr") })).toEqual([]);
    expect(validator.problems(answer("GET", "/events/12", 404, error(404)))).toEqual([]);
    expect(validator.problems(answer("PATCH", "/events/12", 200, SAMPLES.Event[1][1]))).toEqual([]);
    expect(validator.problems(answer("GET", "/events", 304, ""))).toEqual([]);
    expect(validator.problems(answer("HEAD", "/events", 200, ""))).toEqual([]);
    expect(validator.problems(answer("GET", "/events", 200, "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", "text/calendar; charset=utf-8"))).toEqual([]);
    expect(validator.problems(answer("PUT", "/events", 404, error(404)))).toEqual([]); // not an operation: the error body
    expect(validator.problems(answer("GET", "", 200, {}))).toBeUndefined(); // the namespace index is not in the document
    expect(validator.problems({ ...answer("GET", "/x", 200, {}), url: "http://127.0.0.1:1/health/live" })).toBeUndefined();
  });

  test("names what it does not describe", () => {
    expect(validator.problems(answer("GET", "/events", 200, [SAMPLES.Event[0][1]]))).toEqual([expect.stringContaining("must be object")]);
    expect(validator.problems(answer("GET", "/events", 418, error(418)))).toEqual([expect.stringContaining("no such status")]);
    expect(validator.problems(answer("GET", "/events/12", 404, { code: "x" }))).toContainEqual(expect.stringContaining("required property"));
    expect(validator.problems(answer("GET", "/events/12", 200, { ...SAMPLES.Event[0][1] as object, author: 1 }))?.[0]).toContain("/author must be string");
    expect(validator.problems(answer("POST", "/events", 201, "<html>", "text/html"))).toEqual([expect.stringContaining("content type")]);
    expect(validator.problems(answer("GET", "/venues", 200, "BEGIN:VCALENDAR", "text/calendar"))).toEqual([expect.stringContaining("content type")]);
    expect(validator.problems(answer("GET", "/events", 304, "x"))).toEqual([expect.stringContaining("a body where none is sent")]);
    expect(validator.problems(answer("PUT", "/events", 200, {}))).toEqual([expect.stringContaining("does not list")]);
  });
});
