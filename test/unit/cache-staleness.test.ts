/**
 * What a kept answer depends on and what a write makes stale (lib/cache/staleness.ts), checked with the
 * cachers' own pattern matcher, so a key either side of every rule is cleaned or kept as it must be.
 */
import { Utils } from "moleculer";
import { dependencyOfUrl, inSeries, keyPrefix, sitePatterns, stalePatterns, type Dependency } from "../../lib/cache/staleness";

const NS = "/calendar/events/v1";
const key = (space: "RESP" | "ACT", site: number, dep: Dependency) => `${keyPrefix(space, site, dep)}abc-_123`;
const cleaned = (patterns: string[], k: string) => patterns.some(p => Utils.match(k, p));

describe("what an answer depends on, by URL", () => {
  test.each([
    ["/wp-json/calendar/events/v1/events/12", { kind: "event", id: 12 }],
    ["/fr/wp-json/calendar/events/v1/events/12?_fields=title", { kind: "event", id: 12 }],
    ["/wp-json/calendar/events/v1/venues/3/", { kind: "venue", id: 3 }],
    ["/wp-json/calendar/events/v1/organizers/4", { kind: "organizer", id: 4 }],
    ["/wp-json/calendar/events/v1/events", { kind: "site" }],
    ["/wp-json/calendar/events/v1/events?page=2", { kind: "site" }],
    ["/wp-json/calendar/events/v1/events/12/occurrences", { kind: "site" }],
    ["/wp-json/calendar/events/v1/events/by-slug/jazz", { kind: "site" }],
    ["/wp-json/calendar/events/v1/categories/12", { kind: "site" }],
    ["/wp-json/calendar/events/v1/", { kind: "site" }],
    ["/elsewhere/events/12", { kind: "site" }]
  ])("%s", (url, dep) => expect(dependencyOfUrl(url, NS)).toEqual(dep));
});

describe("what a write makes stale", () => {
  const spaces = ["RESP", "ACT"] as const;

  test("an event written alone: the site's lists and that event's page, nothing else", () => {
    const patterns = stalePatterns(2, { collection: "events", id: 5 });
    for (const s of spaces) {
      expect(cleaned(patterns, key(s, 2, { kind: "site" }))).toBe(true);
      expect(cleaned(patterns, key(s, 2, { kind: "event", id: 5 }))).toBe(true);
      expect(cleaned(patterns, key(s, 2, { kind: "event", id: 55 }))).toBe(false);
      expect(cleaned(patterns, key(s, 2, { kind: "event", id: 6 }))).toBe(false);
      expect(cleaned(patterns, key(s, 2, { kind: "venue", id: 5 }))).toBe(false);
      expect(cleaned(patterns, key(s, 12, { kind: "site" }))).toBe(false);
      expect(cleaned(patterns, key(s, 1, { kind: "event", id: 5 }))).toBe(false);
    }
  });

  test("a venue or organizer: its page, the lists and every event page (they embed it)", () => {
    for (const [collection, kind] of [["venues", "venue"], ["organizers", "organizer"]] as const) {
      const patterns = stalePatterns(1, { collection, id: 3 });
      for (const s of spaces) {
        expect(cleaned(patterns, key(s, 1, { kind, id: 3 }))).toBe(true);
        expect(cleaned(patterns, key(s, 1, { kind, id: 4 }))).toBe(false);
        expect(cleaned(patterns, key(s, 1, { kind: "event", id: 99 }))).toBe(true);
        expect(cleaned(patterns, key(s, 1, { kind: "site" }))).toBe(true);
        expect(cleaned(patterns, key(s, 7, { kind: "event", id: 99 }))).toBe(false);
      }
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
