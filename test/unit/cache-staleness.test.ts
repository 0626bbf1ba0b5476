/**
 * What a kept answer depends on and what a write makes stale (cache/staleness.ts), checked with the
 * cachers' own pattern matcher, so a key either side of every rule is cleaned or kept as it must be.
 */
import { Utils } from "moleculer";
import { ANY_SHOWN, bodyIds, bodyPatternId, changedFields, dependencyOfUrl, inSeries, isListKey, keyPrefix, feedPatterns, listBodyKey, presentational, sitePatterns, stalePatterns, termCountPatterns, type Dependency } from "../../cache/staleness";
import { keyMatches } from "../../cache/key-pattern";

const NS = "/calendar/events/v1";
const key = (space: "RESP" | "ACT", site: number, dep: Dependency) => `${keyPrefix(space, site, dep)}abc-_123`;
const cleaned = (patterns: string[], k: string) => {
  const framework = patterns.some(p => Utils.match(k, p));
  // the in-process cacher's own matcher agrees with the framework's on every pattern the rules make
  expect(patterns.some(p => keyMatches(k, p, () => { throw new Error(`not a ** pattern: ${p}`); }))).toBe(framework);
  return framework;
};
const listKey = (site: number) => key("RESP", site, { kind: "list" });
const bodyKey = (site: number, ids: number[], total = 40) => listBodyKey(listKey(site), total, ids);

describe("what an answer depends on, by URL", () => {
  test.each([
    ["/wp-json/calendar/events/v1/events/12", { kind: "event", id: 12 }],
    ["/fr/wp-json/calendar/events/v1/events/12?_fields=title", { kind: "event", id: 12 }],
    ["/wp-json/calendar/events/v1/venues/3/", { kind: "venue", id: 3 }],
    ["/wp-json/calendar/events/v1/organizers/4", { kind: "organizer", id: 4 }],
    ["/wp-json/calendar/events/v1/events", { kind: "list" }],
    ["/wp-json/calendar/events/v1/events/", { kind: "list" }],
    ["/wp-json/calendar/events/v1/events?page=2", { kind: "list" }],
    ["/de/wp-json/calendar/events/v1/events?categories=jazz&venue=3&start_date=2030-01-01&per_page=5", { kind: "list" }],
    ["/wp-json/calendar/events/v1/events?search=jazz", { kind: "site" }],
    ["/wp-json/calendar/events/v1/events?page=2&orderby=title", { kind: "site" }],
    ["/wp-json/calendar/events/v1/events?ical=1", { kind: "site" }],
    ["/wp-json/calendar/events/v1/events?modified_after=2030-01-01", { kind: "site" }],
    ["/wp-json/calendar/events/v1/events/12/occurrences", { kind: "site" }],
    ["/wp-json/calendar/events/v1/events/by-slug/jazz", { kind: "site" }],
    ["/wp-json/calendar/events/v1/categories/12", { kind: "site" }],
    ["/wp-json/calendar/events/v1/changes", { kind: "feed" }],
    ["/fr/wp-json/calendar/events/v1/changes?since=Y2hnMTo2NQ&per_page=5", { kind: "feed" }],
    ["/wp-json/calendar/events/v1/changes/", { kind: "feed" }],
    ["/wp-json/calendar/events/v1/", { kind: "site" }],
    ["/elsewhere/events/12", { kind: "site" }]
  ])("%s", (url, dep) => expect(dependencyOfUrl(url, NS)).toEqual(dep));
});

describe("what a write makes stale", () => {
  const spaces = ["RESP", "ACT"] as const;

  test("a list page's body is named by the page, its total and the events it shows", () => {
    expect(isListKey(listKey(2))).toBe(true);
    expect(isListKey(key("RESP", 2, { kind: "site" }))).toBe(false);
    expect(isListKey(key("RESP", 2, { kind: "event", id: 4 }))).toBe(false);
    expect(bodyKey(2, [5, 17], 40)).toBe("RESP:2:B:abc-_123:40:,5,17,");
    expect(bodyKey(2, [])).toBe("RESP:2:B:abc-_123:40:,,");
  });

  test("a body's key names the events it shows; the pattern of the bodies showing one event names it", () => {
    expect(bodyIds(bodyKey(1, [12, 15]))).toEqual({ group: "RESP:1:B", ids: ["12", "15"] });
    expect(bodyIds(bodyKey(3, []))).toEqual({ group: "RESP:3:B", ids: [] });
    expect(bodyIds("RESP:1:B:p,1,:3:,4,")).toEqual({ group: "RESP:1:B", ids: [ANY_SHOWN] });
    expect(bodyIds("RESP:1:B:p:3")).toEqual({ group: "RESP:1:B", ids: [ANY_SHOWN] });
    expect(bodyIds("RESP:1:E12:x")).toBeUndefined();
    expect(bodyIds(listKey(1))).toBeUndefined();
    const [pattern] = stalePatterns(1, { collection: "events", id: 12, changed: ["title"] }).filter(p => p.includes(":B:"));
    expect(bodyPatternId(pattern)).toEqual({ group: "RESP:1:B", id: "12" });
    expect(bodyPatternId("RESP:1:B:**")).toBeUndefined();
    expect(bodyPatternId("RESP:1:E12:**")).toBeUndefined();
  });

  test("which fields a write changed, and whether only what no plain list depends on", () => {
    const before = { _id: 1, title: "A", categories: [1, 2], modified: "x", start_date: "2030-01-01 10:00:00" };
    expect(changedFields(before, { ...before, title: "B", modified: "y" })).toEqual(["title", "modified"]);
    expect(changedFields(before, { ...before, categories: [2, 1] })).toEqual(["categories"]);
    expect(changedFields(before, { ...before, excerpt: "new" })).toEqual(["excerpt"]);
    expect(presentational({ collection: "events", id: 1, changed: ["title", "modified", "modified_utc", "description"] })).toBe(true);
    expect(presentational({ collection: "events", id: 1, changed: ["title", "start_date"] })).toBe(false);
    expect(presentational({ collection: "events", id: 1, changed: ["status"] })).toBe(false);
    expect(presentational({ collection: "events", id: 1 })).toBe(false);
  });

  test("an event's title: its page, the site's other answers and the list bodies showing it; the list pages stay", () => {
    const patterns = stalePatterns(2, { collection: "events", id: 5, changed: ["title", "modified", "modified_utc"] });
    expect(cleaned(patterns, listKey(2))).toBe(false);
    expect(cleaned(patterns, bodyKey(2, [5]))).toBe(true);
    expect(cleaned(patterns, bodyKey(2, [1, 5, 9]))).toBe(true);
    expect(cleaned(patterns, bodyKey(2, [1, 55, 9], 5))).toBe(false);
    expect(cleaned(patterns, bodyKey(2, [15, 51], 5))).toBe(false);
    expect(cleaned(patterns, bodyKey(3, [5]))).toBe(false);
    for (const s of spaces) {
      expect(cleaned(patterns, key(s, 2, { kind: "site" }))).toBe(true);
      expect(cleaned(patterns, key(s, 2, { kind: "event", id: 5 }))).toBe(true);
      expect(cleaned(patterns, key(s, 2, { kind: "event", id: 6 }))).toBe(false);
    }
  });

  test("an event written alone: the site's lists and that event's page, nothing else", () => {
    const patterns = stalePatterns(2, { collection: "events", id: 5 });
    expect(cleaned(patterns, listKey(2))).toBe(true);
    expect(cleaned(patterns, listKey(3))).toBe(false);
    expect(cleaned(patterns, bodyKey(2, [5]))).toBe(true);
    expect(cleaned(patterns, bodyKey(2, [6, 7]))).toBe(false);
    for (const s of spaces) {
      expect(cleaned(patterns, key(s, 2, { kind: "site" }))).toBe(true);
      expect(cleaned(patterns, key(s, 2, { kind: "event", id: 5 }))).toBe(true);
      expect(cleaned(patterns, key(s, 2, { kind: "event", id: 55 }))).toBe(false);
      expect(cleaned(patterns, key(s, 2, { kind: "event", id: 6 }))).toBe(false);
      expect(cleaned(patterns, key(s, 2, { kind: "venue", id: 5 }))).toBe(false);
      expect(cleaned(patterns, key(s, 12, { kind: "site" }))).toBe(false);
      expect(cleaned(patterns, key(s, 1, { kind: "event", id: 5 }))).toBe(false);
    }
    // its feed entry is stored with it: the feed's pages move on
    expect(cleaned(patterns, key("RESP", 2, { kind: "feed" }))).toBe(true);
    expect(cleaned(patterns, key("RESP", 3, { kind: "feed" }))).toBe(false);
    expect(cleaned(feedPatterns(2), key("RESP", 2, { kind: "feed" }))).toBe(true);
    expect(cleaned(feedPatterns(2), key("RESP", 2, { kind: "site" }))).toBe(false);
    expect(cleaned(feedPatterns(2), listKey(2))).toBe(false);
  });

  test("term counts moved: every term's entries, the lists, every event page and the feed; venues and organizers stay", () => {
    const patterns = termCountPatterns(1);
    expect(cleaned(patterns, key("RESP", 1, { kind: "feed" }))).toBe(true);
    for (const s of spaces) {
      expect(cleaned(patterns, key(s, 1, { kind: "term", id: 3 }))).toBe(true);
      expect(cleaned(patterns, key(s, 1, { kind: "event", id: 99 }))).toBe(true);
      expect(cleaned(patterns, key(s, 1, { kind: "site" }))).toBe(true);
      expect(cleaned(patterns, key(s, 1, { kind: "venue", id: 3 }))).toBe(false);
      expect(cleaned(patterns, key(s, 1, { kind: "organizer", id: 3 }))).toBe(false);
      expect(cleaned(patterns, key(s, 7, { kind: "term", id: 3 }))).toBe(false);
      expect(cleaned(patterns, key(s, 7, { kind: "site" }))).toBe(false);
    }
    expect(cleaned(patterns, listKey(1))).toBe(true);
    expect(cleaned(patterns, bodyKey(1, [8, 9]))).toBe(true);
  });

  test("a venue or organizer: its page, the lists and every event page (they embed it)", () => {
    for (const [collection, kind] of [["venues", "venue"], ["organizers", "organizer"]] as const) {
      const patterns = stalePatterns(1, { collection, id: 3 });
      expect(cleaned(patterns, key("RESP", 1, { kind: "feed" }))).toBe(true);
      for (const s of spaces) {
        expect(cleaned(patterns, key(s, 1, { kind, id: 3 }))).toBe(true);
        expect(cleaned(patterns, key(s, 1, { kind, id: 4 }))).toBe(false);
        expect(cleaned(patterns, key(s, 1, { kind: "event", id: 99 }))).toBe(true);
        expect(cleaned(patterns, key(s, 1, { kind: "site" }))).toBe(true);
        expect(cleaned(patterns, key(s, 7, { kind: "event", id: 99 }))).toBe(false);
      }
      expect(cleaned(patterns, listKey(1))).toBe(true);
      expect(cleaned(patterns, bodyKey(1, [8, 9]))).toBe(true);
      expect(cleaned(patterns, bodyKey(2, [8, 9]))).toBe(false);
    }
  });

  test("an event of a series, a write of many, terms and translations: all of the site, and only it", () => {
    for (const write of [{ collection: "events", id: 5, series: true }, { collection: "events" }, { collection: "terms", id: 3 }, { collection: "translations", id: 1 }]) {
      const patterns = stalePatterns(3, write);
      expect(patterns).toEqual(sitePatterns(3));
      for (const s of spaces) {
        expect(cleaned(patterns, key(s, 3, { kind: "venue", id: 1 }))).toBe(true);
        expect(cleaned(patterns, key(s, 3, { kind: "event", id: 8 }))).toBe(true);
        expect(cleaned(patterns, key(s, 33, { kind: "site" }))).toBe(false);
      }
      expect(cleaned(patterns, listKey(3))).toBe(true);
      expect(cleaned(patterns, bodyKey(3, [1]))).toBe(true);
    }
  });

  test("a record is in a series when it is a series' first event or another occurrence", () => {
    expect(inSeries({ _id: 1, series_lines: ["RRULE:FREQ=DAILY"] })).toBe(true);
    expect(inSeries({ _id: 2, post_parent: 1 })).toBe(true);
    expect(inSeries({ _id: 3, post_parent: 0 })).toBe(false);
    expect(inSeries({ _id: 4 })).toBe(false);
    expect(inSeries(null)).toBe(false);
  });
});

describe("the in-process cacher's pattern matcher", () => {
  const never = () => { throw new Error("fallback used"); };
  test.each([
    ["RESP:1:B:h:3:,5,", "RESP:1:B:**,5,**", true],
    ["RESP:1:B:h:3:,55,", "RESP:1:B:**,5,**", false],
    ["RESP:1:B:h:3:,5,", "RESP:1:B:**", true],
    ["RESP:1:S:x", "RESP:1:B:**", false],
    ["RESP:1:S:x", "RESP:1:S:x", true],
    ["RESP:1:S:x", "**", true],
    ["ab", "a**b**b", false],
    ["abb", "a**b**b", true],
    ["RESP:1:E12:x", "RESP:1:E**", true]
  ])("%s against %s", (k, pattern, expected) => {
    expect(keyMatches(k, pattern, never)).toBe(expected);
    expect(Utils.match(k, pattern)).toBe(expected);
  });

  test("other wildcards go to the framework's matcher", () => {
    expect(keyMatches("a.b", "a.*", (k, p) => Utils.match(k, p))).toBe(true);
    expect(() => keyMatches("a.b", "a.?", never)).toThrow("fallback used");
  });
});
