/**
 * Hostile input for the fuzzing tests (fast-check arbitraries) and the ways it travels: query strings
 * (`a[b][c]=…`, `a[]=…`), JSON bodies (written out by hand, so keys such as `__proto__` survive and numbers
 * such as `1e999` reach the parser), form bodies and hostile path segments.
 */
import fc from "fast-check";
import type { Json } from "./json";

/** A JSON-like value as a tree, so any key (`__proto__`, `constructor`, `$where`) and any number text can be written. */
export type V =
  | { t: "s"; v: string }
  | { t: "n"; v: string }
  | { t: "b"; v: boolean }
  | { t: "null" }
  | { t: "arr"; v: V[] }
  | { t: "obj"; v: Array<[string, V]> };

export const PARAM_NAMES = [
  "title", "description", "excerpt", "slug", "status", "author", "date", "date_utc", "start_date", "end_date", "all_day", "timezone",
  "cost", "website", "show_map", "show_map_link", "hide_from_listings", "sticky", "featured", "image", "categories", "tags", "venue",
  "organizer", "post_parent", "post_password", "password", "context", "page", "per_page", "search", "include", "starts_before",
  "starts_after", "ends_before", "ends_after", "strict_dates", "ticketed", "geoloc", "geoloc_lat", "geoloc_lng", "geoloc_radius",
  "geoloc_unit", "orderby", "order", "format", "json_ld", "i18n_language", "id", "name", "parent", "hide_empty", "exclude", "post",
  "event", "has_events", "only_with_upcoming", "address", "city", "country", "province", "state", "zip", "phone", "stateprovince",
  "email", "geo_lat", "geo_lng", "namespace", "_fields", "modified_after", "since"
];

const HOSTILE_KEYS = ["$gt", "$gte", "$ne", "$where", "$regex", "$in", "$nin", "$or", "$and", "$exists", "$set", "$inc", "__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "", " ", "a.b", "a[b]", "[]", "0", "-1", "\u0000"];

const HOSTILE_STRINGS = [
  "", " ", "\t\n", "0", "-1", "1.5", "1e400", "-0", "0x1F", "NaN", "Infinity", "-Infinity", "null", "undefined", "true", "false", "[]", "{}",
  "2020-13-45", "0000-00-00 00:00:00", "9999-99-99 99:99:99", "2024-02-30", "tomorrow +99999 years", "@-99999999999", "@1e30",
  "last friday of next month", "next monday 25:61", "+1 fortnight", "yesterday noon", "1970-01-01T00:00:00Z", "275760-09-13",
  "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "'; DROP TABLE events; --", "{\"$gt\": \"\"}", "this.constructor.constructor('return process')()",
  "../../../../etc/passwd", "..\\..\\windows", "%00", "%E0%A4%A", "%", "\u0000", "\u0000abc", "\ud800", "\udfff", "𝕏𝔂𝔃", "ＡＢＣ", "\u202e gnp.exe",
  "\u200b", "Zalgo Z̴̧̛̩̮̗a̸l̷g̶o̵", "${7*7}", "{{7*7}}", "#{7*7}", "%s%s%s%n", "a,b,,c", ",,,", "1,2,3", "-5,0,1", "publish,draft", "any",
  "trash", "auto-draft", "inherit", "edit", "view", "mi", "km", "distance", "ics", "json", "http://", "javascript:alert(1)", "data:text/html,x",
  "https://example.org/x.jpg", "http://[::1]:99999/a.png", "mailto:a@b", "a".repeat(300), "é".repeat(100), "🎉".repeat(50)
];

const HOSTILE_NUMBERS = ["0", "-0", "1", "-1", "2", "50", "51", "9007199254740991", "9007199254740993", "-9223372036854775808", "1.5", "-1.5", "1e308", "1e999", "-1e999", "1e-400", "123456789012345678901234567890", "0.1e1"];

/** A hostile scalar: random and unicode text, numbers out of every range, booleans, null, huge strings. */
export const scalar: fc.Arbitrary<V> = fc.oneof(
  { arbitrary: fc.constantFrom(...HOSTILE_STRINGS).map(v => ({ t: "s", v }) as V), weight: 5 },
  { arbitrary: fc.string({ maxLength: 40 }).map(v => ({ t: "s", v }) as V), weight: 3 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 20 }).map(v => ({ t: "s", v }) as V), weight: 2 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }).map(v => ({ t: "s", v }) as V), weight: 1 },
  { arbitrary: fc.integer({ min: 1000, max: 60_000 }).chain(n => fc.constantFrom("x", "é", "🎉", " ", "%", "<").map(c => ({ t: "s", v: c.repeat(n) }) as V)), weight: 1 },
  { arbitrary: fc.constantFrom(...HOSTILE_NUMBERS).map(v => ({ t: "n", v }) as V), weight: 3 },
  { arbitrary: fc.integer().map(v => ({ t: "n", v: String(v) }) as V), weight: 2 },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map(v => ({ t: "n", v: String(v) }) as V), weight: 1 },
  { arbitrary: fc.boolean().map(v => ({ t: "b", v }) as V), weight: 1 },
  { arbitrary: fc.constant({ t: "null" } as V), weight: 1 }
);

const key: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...HOSTILE_KEYS), weight: 3 },
  { arbitrary: fc.constantFrom(...PARAM_NAMES), weight: 3 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 1 }
);

/** A nested value: scalars, arrays where scalars belong, objects with operator and prototype keys. */
export const value: fc.Arbitrary<V> = fc.letrec<{ value: V }>(tie => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { arbitrary: scalar, weight: 6 },
    { arbitrary: fc.array(tie("value"), { maxLength: 4 }).map(v => ({ t: "arr", v }) as V), weight: 1 },
    { arbitrary: fc.array(fc.tuple(key, tie("value")), { maxLength: 4 }).map(v => ({ t: "obj", v }) as V), weight: 1 }
  )
})).value;

/** A value nested `depth` levels deep (objects or arrays). */
export function deep(depth: number, leaf: V = { t: "s", v: "x" }, asArray = false): V {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = asArray ? { t: "arr", v: [v] } : { t: "obj", v: [["a", v]] };
  return v;
}

export const nested: fc.Arbitrary<V> = fc.oneof(
  value,
  fc.tuple(fc.integer({ min: 10, max: 400 }), scalar, fc.boolean()).map(([d, leaf, arr]) => deep(d, leaf, arr))
);

/** Parameters: known names with hostile values, hostile names, operators at the top level. */
export const params: fc.Arbitrary<Array<[string, V]>> = fc.array(
  fc.oneof(
    { arbitrary: fc.tuple(fc.constantFrom(...PARAM_NAMES), nested), weight: 6 },
    { arbitrary: fc.tuple(key, value), weight: 2 }
  ),
  { maxLength: 6 }
);

// ---------------------------------------------------------------------------------------------------------
// Encodings
// ---------------------------------------------------------------------------------------------------------

const jsonString = (s: string) => JSON.stringify(s);

/** JSON text of a tree (duplicate and prototype keys kept; numbers written as generated; iterative: any depth). */
export function toJson(root: V): string {
  const out: string[] = [];
  const stack: Array<V | string> = [root];
  while (stack.length) {
    const item = stack.pop()!;
    if (typeof item === "string") { out.push(item); continue; }
    switch (item.t) {
      case "s": out.push(jsonString(item.v)); break;
      case "n": out.push(item.v); break;
      case "b": out.push(String(item.v)); break;
      case "null": out.push("null"); break;
      case "arr": {
        stack.push("]");
        for (let i = item.v.length - 1; i >= 0; i--) { stack.push(item.v[i]); if (i > 0) stack.push(","); }
        stack.push("[");
        break;
      }
      case "obj": {
        stack.push("}");
        for (let i = item.v.length - 1; i >= 0; i--) { stack.push(item.v[i][1]); stack.push(`${jsonString(item.v[i][0])}:`); if (i > 0) stack.push(","); }
        stack.push("{");
        break;
      }
    }
  }
  return out.join("");
}

export function objectJson(entries: Array<[string, V]>): string {
  return toJson({ t: "obj", v: entries });
}

/** `encodeURIComponent`, except that lone surrogates become an invalid UTF-8 escape instead of throwing. */
export function encode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return encodeURIComponent((s as Json).toWellFormed ? (s as Json).toWellFormed() : s.replace(/[\ud800-\udfff]/g, "")) + "%ED%A0%80";
  }
}

/** Flattened `name[sub][]=value` pairs of a parameter, as qs and HTML forms write them (iterative: any depth). */
export function pairs(name: string, v: V, indexed = false): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const stack: Array<[string, V]> = [[name, v]];
  while (stack.length) {
    const [n, x] = stack.pop()!;
    switch (x.t) {
      case "s":
      case "n": out.push([n, x.v]); break;
      case "b": out.push([n, String(x.v)]); break;
      case "null": out.push([n, ""]); break;
      case "arr": for (let i = x.v.length - 1; i >= 0; i--) stack.push([`${n}[${indexed ? i : ""}]`, x.v[i]]); break;
      case "obj":
        if (!x.v.length) out.push([`${n}[]`, ""]);
        for (let i = x.v.length - 1; i >= 0; i--) stack.push([`${n}[${x.v[i][0]}]`, x.v[i][1]]);
        break;
    }
  }
  return out;
}

/** An encoded query string or form body; `raw` leaves some bytes unescaped (malformed escapes included). */
export function formEncode(entries: Array<[string, V]>, indexed = false): string {
  return entries.flatMap(([k, v]) => pairs(k, v, indexed)).map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&");
}

/** Bodies that are not a JSON object: broken JSON, other JSON values, very deep nesting. */
export const rawBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("{", "}", "{bad", "{\"a\":}", "[", "nul", "\"str\"", "123", "null", "true", "[]", "[1,2,3]", "{\"title\": \"x\",}", "\u0000", "\ufeff{}",
    "{\"__proto__\": {\"admin\": true}}", "{\"constructor\": {\"prototype\": {\"x\": 1}}}", "{\"a\": 1e999999}", "{\"title\": \"\\ud800\"}"),
  fc.integer({ min: 100, max: 50_000 }).map(n => "[".repeat(n) + "]".repeat(n)),
  fc.integer({ min: 100, max: 20_000 }).map(n => "{\"a\":".repeat(n) + "1" + "}".repeat(n)),
  fc.string({ maxLength: 60 })
);

/** Path segments: valid-looking, hostile, malformed escapes, very long, unicode. */
export const segment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("0", "-1", "1.5", "1e3", "99999999999999999999999", "00012", "%E0%A4%A", "%", "%zz", "%00", "%2F", "%2e%2e", "..", ".", "%C0%AE",
    "a%20b", "__proto__", "constructor", "$node", "~node", "%24where", "a;b", "a,b", "\u00e9", "%F0%9F%8E%89", "x".repeat(5000)),
  fc.nat({ max: 100_000 }).map(String),
  fc.string({ maxLength: 30 }).map(encode),
  fc.string({ unit: "binary", maxLength: 10 }).map(encode)
);

/** The least body a create of each collection takes, its texts starting with `label`. */
export function baseBodies(label: string): Record<string, Array<[string, V]>> {
  const text = (v: string): V => ({ t: "s", v });
  return {
    events: [["title", text(label)], ["start_date", text("tomorrow 10:00")], ["end_date", text("tomorrow 11:00")]],
    venues: [["venue", text(`${label} venue`)]],
    organizers: [["organizer", text(`${label} organizer`)]],
    categories: [["name", text(`${label} category`)]],
    tags: [["name", text(`${label} tag`)]]
  };
}
