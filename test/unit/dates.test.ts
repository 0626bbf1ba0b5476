import {
  ZERO_DATE, addMonthsDb, compareDb, dateDetails, dayEnd, dayStart, defaultListWindow, fromDb,
  isValidDateInput, isValidTimezone, isoWithOffset, listBound, nowDb, parseInZone, parseUtc,
  parseWallClock, timezoneAbbr, toDb, utcToWallClock, wallClockToUtc, zoneOffset,
} from "../../lib/time/dates";

// Fixed "now": Monday 2025-06-09 14:30:15 UTC.
const NOW = new Date("2025-06-09T14:30:15Z");

describe("accepted and rejected strings (docs/dates.md#accepted-input; now = 2025-06-09 14:30:15 UTC, zone UTC)", () => {
  // [input, parseWallClock(input, "UTC"), parseUtc(input)]; null = rejected
  const table: Array<[string, string | null, string | null]> = [
    // Date + time
    ["2025-06-10 09:00:00", "2025-06-10 09:00:00", "2025-06-10 09:00:00"],
    ["2025-06-10 09:00", "2025-06-10 09:00:00", "2025-06-10 09:00:00"],
    ["2025-06-10 9am", "2025-06-10 09:00:00", "2025-06-10 09:00:00"],
    ["2018-01-01 4pm", "2018-01-01 16:00:00", "2018-01-01 16:00:00"],
    ["2025/06/10 21:30", "2025-06-10 21:30:00", "2025-06-10 21:30:00"],
    // ISO 8601
    ["2025-06-10", "2025-06-10 00:00:00", "2025-06-10 00:00:00"],
    ["2025-06-10T09:00", "2025-06-10 09:00:00", "2025-06-10 09:00:00"],
    ["2025-06-10T09:00:00", "2025-06-10 09:00:00", "2025-06-10 09:00:00"],
    ["2025-06-10T09:00:00Z", "2025-06-10 09:00:00", "2025-06-10 09:00:00"],
    ["2025-06-10T09:00:00+02:00", "2025-06-10 09:00:00", "2025-06-10 07:00:00"],
    ["2025-06-10T09:00:00.123-05:00", "2025-06-10 09:00:00", "2025-06-10 14:00:00"],
    ["20250610T090000", "2025-06-10 09:00:00", "2025-06-10 09:00:00"],
    // Relative
    ["now", "2025-06-09 14:30:15", "2025-06-09 14:30:15"],
    ["today", "2025-06-09 00:00:00", "2025-06-09 00:00:00"],
    ["tomorrow", "2025-06-10 00:00:00", "2025-06-10 00:00:00"],
    ["yesterday", "2025-06-08 00:00:00", "2025-06-08 00:00:00"],
    ["midnight", "2025-06-09 00:00:00", "2025-06-09 00:00:00"],
    ["noon", "2025-06-09 12:00:00", "2025-06-09 12:00:00"],
    ["tomorrow 9am", "2025-06-10 09:00:00", "2025-06-10 09:00:00"],
    ["tomorrow 11am", "2025-06-10 11:00:00", "2025-06-10 11:00:00"],
    ["yesterday 23:59", "2025-06-08 23:59:00", "2025-06-08 23:59:00"],
    ["next wednesday 4pm", "2025-06-11 16:00:00", "2025-06-11 16:00:00"],
    ["+5 days 11am", "2025-06-14 11:00:00", "2025-06-14 11:00:00"],
    ["+24 months", "2027-06-09 14:30:15", "2027-06-09 14:30:15"],
    ["-1 month", "2025-05-09 14:30:15", "2025-05-09 14:30:15"],
    ["+5 weeks", "2025-07-14 14:30:15", "2025-07-14 14:30:15"],
    ["+2 hours", "2025-06-09 16:30:15", "2025-06-09 16:30:15"],
    ["last monday", "2025-06-02 00:00:00", "2025-06-02 00:00:00"],
    ["first day of next month", "2025-07-01 14:30:15", "2025-07-01 14:30:15"], // PHP keeps the time
    ["monday next week", "2025-06-16 00:00:00", "2025-06-16 00:00:00"],
    // Time only (today at that time)
    ["9am", "2025-06-09 09:00:00", "2025-06-09 09:00:00"],
    ["9:30pm", "2025-06-09 21:30:00", "2025-06-09 21:30:00"],
    ["14:00", "2025-06-09 14:00:00", "2025-06-09 14:00:00"],
    ["14:00:05", "2025-06-09 14:00:05", "2025-06-09 14:00:05"],
    // Other common
    ["06/10/2025", "2025-06-10 00:00:00", "2025-06-10 00:00:00"],
    ["10-06-2025", "2025-06-10 00:00:00", "2025-06-10 00:00:00"],
    ["10.06.2025", "2025-06-10 00:00:00", "2025-06-10 00:00:00"],
    ["10 June 2025", "2025-06-10 00:00:00", "2025-06-10 00:00:00"],
    ["June 10, 2025", "2025-06-10 00:00:00", "2025-06-10 00:00:00"],
    ["Jun 10 2025 5pm", "2025-06-10 17:00:00", "2025-06-10 17:00:00"],
    ["@1749549600", "2025-06-10 10:00:00", "2025-06-10 10:00:00"],
    // Rejected
    ["foo", null, null],
    ["before my birthday", null, null],
    ['"before my birthday"', null, null],
    ["", null, null],
  ];

  it.each(table)("%j → wall %s, utc %s", (input, wall, utc) => {
    expect(parseWallClock(input, "UTC", NOW)).toBe(wall);
    expect(parseUtc(input, NOW)).toBe(utc);
    expect(isValidDateInput(input)).toBe(wall !== null);
  });
});

describe("isValidDateInput and timestamps", () => {
  it.each([
    [1749549600, true], [-86400, true], [0, true], ["1749549600", true], ["-86400", true], [" 1749549600 ", true],
    [1.5, false], ["1.5", false], ["10.06", false], ["1e3", false], [Number.NaN, false], [Infinity, false],
    [true, false], [false, false], [null, false], [undefined, false], [{}, false], [[], false], [["2025-06-10"], false],
    ["", false], ["   ", false], ["2025-06-10 25:00", false], [1e20, false],
    [`2025-06-10${" ".repeat(300)}09:00`, false],
  ])("%j → %s", (input, expected) => {
    expect(isValidDateInput(input)).toBe(expected);
  });

  it("reads integers as Unix timestamps, so a bare 20250610 is in 1970", () => {
    expect(parseUtc("20250610", NOW)).toBe("1970-08-23 09:10:10");
    expect(parseUtc(1749549600, NOW)).toBe("2025-06-10 10:00:00");
    expect(parseUtc(-1, NOW)).toBe("1969-12-31 23:59:59");
  });

  it("renders timestamps in UTC for wall-clock fields whatever the zone", () => {
    expect(parseWallClock(1749549600, "Europe/Rome", NOW)).toBe("2025-06-10 10:00:00");
    expect(parseWallClock("1749549600", "America/New_York", NOW)).toBe("2025-06-10 10:00:00");
    expect(parseWallClock("@1749549600", "Asia/Hong_Kong", NOW)).toBe("2025-06-10 10:00:00");
  });
});

describe("parseWallClock", () => {
  it("reads relative phrases against the current wall clock in the zone", () => {
    // 02:00 UTC on 06-10 is still 06-09 22:00 in New York.
    const lateEvening = new Date("2025-06-10T02:00:00Z");
    expect(parseWallClock("tomorrow 9am", "America/New_York", lateEvening)).toBe("2025-06-10 09:00:00");
    expect(parseWallClock("tomorrow 9am", "UTC", lateEvening)).toBe("2025-06-11 09:00:00");
    expect(parseWallClock("now", "Asia/Hong_Kong", NOW)).toBe("2025-06-09 22:30:15");
    expect(parseWallClock("now", "UTC+5:30", NOW)).toBe("2025-06-09 20:00:15");
  });

  it("keeps the wall clock written with an explicit offset or zone", () => {
    expect(parseWallClock("2025-06-10T09:00:00+02:00", "America/New_York", NOW)).toBe("2025-06-10 09:00:00");
    expect(parseWallClock("2025-06-10 09:00:00 +0200", "UTC", NOW)).toBe("2025-06-10 09:00:00");
    expect(parseWallClock("2025-06-10T09:00:00+02", "UTC", NOW)).toBe("2025-06-10 09:00:00");
    expect(parseWallClock("2025-06-10 09:00 EST", "Europe/Rome", NOW)).toBe("2025-06-10 09:00:00");
    expect(parseWallClock("20250610T090000Z", "Europe/Rome", NOW)).toBe("2025-06-10 09:00:00");
  });

  it("rejects an out-of-range offset", () => {
    expect(parseWallClock("2025-06-10T09:00:00+25:00", "UTC", NOW)).toBeNull();
  });
});

describe("relative phrases are UTC arithmetic (test/unit/other-zone.test.ts asks the same in a New York process)", () => {
  // Around New York's spring-forward night (2025-03-09 07:00 UTC): arithmetic in that zone's local time
  // would land an hour off; the answers are the ones of plain UTC arithmetic.
  const nearChange = new Date("2025-03-09T00:30:00Z");
  it.each([
    ["+1 day", "2025-03-10 00:30:00"],
    ["tomorrow 2:30am", "2025-03-10 02:30:00"],
    ["+6 hours", "2025-03-09 06:30:00"],
    ["today 02:30", "2025-03-09 02:30:00"]
  ])("parseUtc(%j) at 2025-03-09 00:30 UTC → %s", (input, expected) => {
    expect(parseUtc(input, nearChange)).toBe(expected);
  });

  test("process.env.TZ is as it was after a parse", () => {
    const before = process.env.TZ;
    parseUtc("+1 day", nearChange);
    expect(process.env.TZ).toBe(before);
  });
});

describe("parseUtc", () => {
  it.each([
    ["2025-06-10T09:00:00+02:00", "2025-06-10 07:00:00"],
    ["2025-06-10T09:00:00+02", "2025-06-10 07:00:00"],
    ["2025-06-10 09:00 GMT+2", "2025-06-10 07:00:00"],
    ["2025-06-10 09:00:00 UTC+5:30", "2025-06-10 03:30:00"],
    ["2025-06-10 09:00 EST", "2025-06-10 14:00:00"],
    ["2025-06-10 09:00:00 (CEST)", "2025-06-10 07:00:00"],
    ["2025-06-10 09:00:00 UTC", "2025-06-10 09:00:00"],
    ["20250610T090000-0500", "2025-06-10 14:00:00"],
    ["2025-06-10 9am -05:00", "2025-06-10 14:00:00"],
    ["2025-06-10 -05:00", "2025-06-10 05:00:00"],
    ["+02:00", "2025-06-09 14:30:15"],
    // a dash inside a date is not an offset
    ["2025-06-10", "2025-06-10 00:00:00"],
    ["10-06-2025", "2025-06-10 00:00:00"],
    ["2025-06", "2025-06-01 00:00:00"],
  ])("%s → %s", (input, expected) => {
    expect(parseUtc(input, NOW)).toBe(expected);
  });

  it("evaluates relative phrases with an offset against now in that offset", () => {
    // now is 2025-06-10 00:30:15 in +10:00, so "today" is the 10th there.
    expect(parseUtc("today +10:00", NOW)).toBe("2025-06-09 14:00:00");
  });
});

describe("parseInZone (venue/organizer date)", () => {
  it("keeps a string without offset as the wall clock in the zone", () => {
    expect(parseInZone("2025-06-10 09:00:00", "Europe/Rome", NOW)).toBe("2025-06-10 09:00:00");
    expect(parseInZone("2025-06-10 09:00:00", "UTC", NOW)).toBe("2025-06-10 09:00:00");
  });

  it("converts a string with offset, and a timestamp, into the zone", () => {
    expect(parseInZone("2025-06-10T09:00:00Z", "Europe/Rome", NOW)).toBe("2025-06-10 11:00:00");
    expect(parseInZone("2025-06-10T09:00:00+02:00", "UTC", NOW)).toBe("2025-06-10 07:00:00");
    expect(parseInZone(1749549600, "Europe/Rome", NOW)).toBe("2025-06-10 12:00:00");
    expect(parseInZone("@1749549600", "UTC", NOW)).toBe("2025-06-10 10:00:00");
  });

  it("reads relative phrases against now in the zone", () => {
    expect(parseInZone("now", "Asia/Hong_Kong", NOW)).toBe("2025-06-09 22:30:15");
  });

  it("returns null for invalid input", () => {
    expect(parseInZone("foo", "UTC", NOW)).toBeNull();
  });
});

describe("isValidTimezone", () => {
  it.each([
    "", "UTC", "UTC+2", "UTC-5", "UTC+5:30", "UTC+0", "UTC+14", "UTC-12", "UTC+10:45",
    "America/New_York", "Europe/Rome", "Australia/Sydney", "Asia/Hong_Kong", "America/Sao_Paulo", "Etc/GMT+3",
    "europe/rome", "EST", "EDT", "CET", "CEST", "PST", "PDT", "GMT", "BST", "est", "+02:00", "-0500", "+05:30", "+2",
  ])("%j is valid", (tz) => {
    expect(isValidTimezone(tz)).toBe(true);
  });

  it.each([
    "UTC+", "UTC+2x", "UTC+15", "UTC+5:3", "UTC+5:60", "UTCfoo", "UTC 2", "Foo/Bar", "Mars/Olympus", "XYZ",
    "+25:00", "2", 2, null, undefined, {}, [], true,
  ])("%j is invalid", (tz) => {
    expect(isValidTimezone(tz)).toBe(false);
  });
});

describe("wallClockToUtc / utcToWallClock", () => {
  it.each([
    ["2025-01-15 09:00:00", "America/New_York", "2025-01-15 14:00:00"],
    ["2025-06-10 09:00:00", "America/New_York", "2025-06-10 13:00:00"],
    ["2018-01-01 16:00:00", "Asia/Hong_Kong", "2018-01-01 08:00:00"],
    ["2025-06-10 10:00:00", "Europe/Rome", "2025-06-10 08:00:00"],
    ["2025-01-10 09:00:00", "Australia/Sydney", "2025-01-09 22:00:00"],
    ["2025-06-10 09:00:00", "UTC", "2025-06-10 09:00:00"],
    ["2025-06-10 09:00:00", "", "2025-06-10 09:00:00"],
    ["2025-06-10 09:00:00", "UTC+2", "2025-06-10 07:00:00"],
    ["2025-06-10 09:00:00", "UTC-5", "2025-06-10 14:00:00"],
    ["2025-06-10 02:00:00", "UTC+5:30", "2025-06-09 20:30:00"],
    ["2025-06-10 09:00:00", "EST", "2025-06-10 14:00:00"], // abbreviation: fixed, no DST
    ["2025-06-10 09:00:00", "CET", "2025-06-10 08:00:00"],
    ["2025-06-10 09:00:00", "+02:00", "2025-06-10 07:00:00"],
    ["2025-06-10 09:00:00", "-0500", "2025-06-10 14:00:00"],
    // Spring-forward gap: 02:30 does not exist in New York on 2025-03-09, PHP moves it to 03:30 EDT.
    ["2025-03-09 02:30:00", "America/New_York", "2025-03-09 07:30:00"],
    // Fall-back overlap: PHP takes the first (DST) occurrence.
    ["2025-11-02 01:30:00", "America/New_York", "2025-11-02 05:30:00"],
  ])("%s in %s → %s UTC", (wall, zone, utc) => {
    expect(wallClockToUtc(wall, zone)).toBe(utc);
  });

  it.each([
    ["2025-06-10 13:00:00", "America/New_York", "2025-06-10 09:00:00"],
    ["2025-06-10 08:00:00", "Europe/Rome", "2025-06-10 10:00:00"],
    ["2025-06-09 20:30:00", "UTC+5:30", "2025-06-10 02:00:00"],
    ["2025-06-10 09:00:00", "UTC", "2025-06-10 09:00:00"],
  ])("%s UTC in %s → %s", (utc, zone, wall) => {
    expect(utcToWallClock(utc, zone)).toBe(wall);
  });

  it("passes the zero date through", () => {
    expect(wallClockToUtc(ZERO_DATE, "Europe/Rome")).toBe(ZERO_DATE);
    expect(utcToWallClock(ZERO_DATE, "Europe/Rome")).toBe(ZERO_DATE);
  });

  it("throws for an unknown zone", () => {
    expect(() => wallClockToUtc("2025-06-10 09:00:00", "Foo/Bar")).toThrow(RangeError);
  });
});

describe("timezoneAbbr / zoneOffset / isoWithOffset", () => {
  it.each([
    ["America/New_York", "2025-01-15 09:00:00", "EST", "-05:00"],
    ["America/New_York", "2025-06-10 09:00:00", "EDT", "-04:00"],
    ["Europe/Rome", "2025-01-15 09:00:00", "CET", "+01:00"],
    ["Europe/Rome", "2025-06-10 20:00:00", "CEST", "+02:00"],
    ["Australia/Sydney", "2025-06-10 09:00:00", "AEST", "+10:00"],
    ["Australia/Sydney", "2025-01-10 09:00:00", "AEDT", "+11:00"],
    ["Asia/Hong_Kong", "2018-01-01 16:00:00", "HKT", "+08:00"],
    ["America/Sao_Paulo", "2025-06-10 09:00:00", "-03", "-03:00"],
    ["UTC", "2025-06-10 09:00:00", "UTC", "+00:00"],
    ["", "2025-06-10 09:00:00", "UTC", "+00:00"],
    ["UTC+2", "2025-06-10 09:00:00", "UTC+2", "+02:00"],
    ["UTC+5:30", "2025-06-10 09:00:00", "UTC+5:30", "+05:30"],
    ["UTC-5", "2025-06-10 09:00:00", "UTC-5", "-05:00"],
    ["est", "2025-06-10 09:00:00", "EST", "-05:00"],
    ["CEST", "2025-01-10 09:00:00", "CEST", "+02:00"],
    ["+02:00", "2025-06-10 09:00:00", "+02:00", "+02:00"],
    ["-0500", "2025-06-10 09:00:00", "-05:00", "-05:00"],
  ])("%s at %s → %s %s", (zone, wall, abbr, offset) => {
    expect(timezoneAbbr(zone, wall)).toBe(abbr);
    expect(zoneOffset(zone, wall)).toBe(offset);
  });

  it("formats ISO 8601 with the zone's offset", () => {
    expect(isoWithOffset("2025-06-10 20:00:00", "Europe/Rome")).toBe("2025-06-10T20:00:00+02:00");
    expect(isoWithOffset("2025-01-15 09:00:00", "America/New_York")).toBe("2025-01-15T09:00:00-05:00");
    expect(isoWithOffset("2025-06-10 09:00:00", "UTC")).toBe("2025-06-10T09:00:00+00:00");
    expect(isoWithOffset("2025-06-10 09:00:00", "UTC+5:30")).toBe("2025-06-10T09:00:00+05:30");
  });
});

describe("DB string helpers", () => {
  it("dateDetails copies zero-padded strings", () => {
    expect(dateDetails("2025-06-09 09:00:05")).toEqual({
      year: "2025", month: "06", day: "09", hour: "09", minutes: "00", seconds: "05",
    });
  });

  it("toDb / fromDb / nowDb round-trip in UTC", () => {
    expect(toDb(new Date("2025-06-09T04:05:06.789Z"))).toBe("2025-06-09 04:05:06");
    expect(fromDb("2025-06-09 04:05:06").toISOString()).toBe("2025-06-09T04:05:06.000Z");
    expect(toDb(fromDb("0099-01-02 03:04:05"))).toBe("0099-01-02 03:04:05");
    expect(Number.isNaN(fromDb("not a date").getTime())).toBe(true);
    expect(nowDb(NOW)).toBe("2025-06-09 14:30:15");
    expect(nowDb()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it("toDb: the second it wrote last, asked again (any millisecond of it), and the seconds around it", () => {
    const at = (iso: string) => toDb(new Date(iso));
    expect([at("2025-06-09T04:05:06.001Z"), at("2025-06-09T04:05:06.999Z"), at("2025-06-09T04:05:07.000Z"), at("2025-06-09T04:05:06.500Z")])
      .toEqual(["2025-06-09 04:05:06", "2025-06-09 04:05:06", "2025-06-09 04:05:07", "2025-06-09 04:05:06"]);
    // before 1970 the second is still the one the date falls in
    expect([at("1969-12-31T23:59:59.500Z"), at("1969-12-31T23:59:59.900Z"), at("1970-01-01T00:00:00.100Z")])
      .toEqual(["1969-12-31 23:59:59", "1969-12-31 23:59:59", "1970-01-01 00:00:00"]);
    expect(toDb(new Date(Number.NaN))).toBe(toDb(new Date(Number.NaN)));
  });

  it("dayStart / dayEnd", () => {
    expect(dayStart("2025-06-09 14:30:15")).toBe("2025-06-09 00:00:00");
    expect(dayEnd("2025-06-09 14:30:15")).toBe("2025-06-09 23:59:59");
  });

  it("addMonthsDb overflows like PHP", () => {
    expect(addMonthsDb("2025-06-09 14:30:15", 24)).toBe("2027-06-09 14:30:15");
    expect(addMonthsDb("2025-06-09 14:30:15", -1)).toBe("2025-05-09 14:30:15");
    expect(addMonthsDb("2025-01-31 00:00:00", 1)).toBe("2025-03-03 00:00:00");
  });

  it("compareDb orders DB strings", () => {
    expect(compareDb("2025-06-09 00:00:00", "2025-06-10 00:00:00")).toBe(-1);
    expect(compareDb("2025-06-10 00:00:00", "2025-06-09 23:59:59")).toBe(1);
    expect(compareDb("2025-06-10 00:00:00", "2025-06-10 00:00:00")).toBe(0);
  });
});

describe("listBound (docs/lists.md#date-filters)", () => {
  it.each([
    ["2025-06-10", "start_date", false, "2025-06-10 00:00:00"],
    ["2025-06-10 15:00", "start_date", false, "2025-06-10 00:00:00"],
    ["2025-06-12", "end_date", false, "2025-06-12 23:59:59"],
    ["2025-06-10", "starts_before", false, "2025-06-10 23:59:59"],
    ["2025-06-10", "starts_after", false, "2025-06-10 23:59:59"],
    ["2025-06-10", "ends_before", false, "2025-06-10 23:59:59"],
    ["2025-06-10", "ends_after", false, "2025-06-10 23:59:59"],
    ["2025-06-10T15:00:00", "start_date", true, "2025-06-10 15:00:00"],
    ["2025-06-10T15:00:00", "ends_after", true, "2025-06-10 15:00:00"],
    ["2025-06-10T23:00:00-05:00", "start_date", false, "2025-06-11 00:00:00"],
    ["2025-06-10T23:00:00-05:00", "start_date", true, "2025-06-11 04:00:00"],
    ["tomorrow", "end_date", false, "2025-06-10 23:59:59"],
    [1749549600, "starts_after", true, "2025-06-10 10:00:00"],
  ] as const)("%j %s strict=%s → %s", (value, kind, strict, expected) => {
    expect(listBound(value, kind, strict, "UTC", NOW)).toBe(expected);
  });

  it("converts the instant into the site zone", () => {
    expect(listBound("2025-06-10T15:00:00", "start_date", true, "America/New_York", NOW)).toBe("2025-06-10 11:00:00");
    expect(listBound("2025-06-10T02:00:00", "start_date", false, "America/New_York", NOW)).toBe("2025-06-09 00:00:00");
  });

  it("returns null for invalid values", () => {
    expect(listBound("before my birthday", "start_date", false, "UTC", NOW)).toBeNull();
    expect(listBound("", "end_date", true, "UTC", NOW)).toBeNull();
    expect(listBound(1.5, "end_date", true, "UTC", NOW)).toBeNull();
  });
});

describe("defaultListWindow", () => {
  it("not strict: 00:00 of yesterday to the end of the day two years ahead", () => {
    expect(defaultListWindow(false, "UTC", NOW)).toEqual({ start: "2025-06-08 00:00:00", end: "2027-06-09 23:59:59" });
  });

  it("strict: yesterday 23:59 to exactly now + 24 months", () => {
    expect(defaultListWindow(true, "UTC", NOW)).toEqual({ start: "2025-06-08 23:59:00", end: "2027-06-09 14:30:15" });
  });

  it("is evaluated in the site zone", () => {
    // NOW is 2025-06-09 22:30:15 in Hong Kong.
    expect(defaultListWindow(true, "Asia/Hong_Kong", NOW)).toEqual({ start: "2025-06-08 23:59:00", end: "2027-06-09 22:30:15" });
    // 2025-06-10 02:00 UTC is still 2025-06-09 in New York.
    expect(defaultListWindow(false, "America/New_York", new Date("2025-06-10T02:00:00Z")))
      .toEqual({ start: "2025-06-08 00:00:00", end: "2027-06-09 23:59:59" });
  });
});

describe("worked examples (docs/dates.md#examples-site-zone-utc; site zone UTC, now 2025-06-09 14:30:15 UTC)", () => {
  it("start_date 'tomorrow 9am', no timezone", () => {
    const start = parseWallClock("tomorrow 9am", "UTC", NOW)!;
    const end = parseWallClock("tomorrow 11am", "UTC", NOW)!;
    expect(start).toBe("2025-06-10 09:00:00");
    expect(end).toBe("2025-06-10 11:00:00");
    expect(wallClockToUtc(start, "UTC")).toBe(start);
    expect(timezoneAbbr("UTC", start)).toBe("UTC");
  });

  it("same with timezone America/New_York", () => {
    const start = parseWallClock("tomorrow 9am", "America/New_York", NOW)!;
    expect(start).toBe("2025-06-10 09:00:00");
    expect(wallClockToUtc(start, "America/New_York")).toBe("2025-06-10 13:00:00");
    expect(timezoneAbbr("America/New_York", start)).toBe("EDT");
  });

  it("'2018-01-01 4pm' in Asia/Hong_Kong", () => {
    const start = parseWallClock("2018-01-01 4pm", "Asia/Hong_Kong", NOW)!;
    expect(start).toBe("2018-01-01 16:00:00");
    expect(wallClockToUtc(start, "Asia/Hong_Kong")).toBe("2018-01-01 08:00:00");
    expect(timezoneAbbr("Asia/Hong_Kong", start)).toBe("HKT");
  });

  it("timestamp 1749549600 in Europe/Rome keeps the UTC wall clock", () => {
    const start = parseWallClock(1749549600, "Europe/Rome", NOW)!;
    expect(start).toBe("2025-06-10 10:00:00");
    expect(wallClockToUtc(start, "Europe/Rome")).toBe("2025-06-10 08:00:00");
  });

  it("date_utc 'tomorrow 9am' → date the same", () => {
    const dateUtc = parseUtc("tomorrow 9am", NOW)!;
    expect(dateUtc).toBe("2025-06-10 09:00:00");
    expect(utcToWallClock(dateUtc, "UTC")).toBe("2025-06-10 09:00:00");
  });

  it("list start_date=2025-06-10&end_date=2025-06-12", () => {
    expect(listBound("2025-06-10", "start_date", false, "UTC", NOW)).toBe("2025-06-10 00:00:00");
    expect(listBound("2025-06-12", "end_date", false, "UTC", NOW)).toBe("2025-06-12 23:59:59");
  });

  it("list start_date=2025-06-10T15:00:00&strict_dates=true", () => {
    expect(listBound("2025-06-10T15:00:00", "start_date", true, "UTC", NOW)).toBe("2025-06-10 15:00:00");
  });

  it("UTC values (docs/dates.md#utc-values): America/New_York 2025-01-15 09:00:00 → 14:00:00 UTC, EST", () => {
    expect(wallClockToUtc("2025-01-15 09:00:00", "America/New_York")).toBe("2025-01-15 14:00:00");
    expect(timezoneAbbr("America/New_York", "2025-01-15 09:00:00")).toBe("EST");
  });
});

describe("all-day events (docs/dates.md#all-day-events)", () => {
  it("New York all-day event in winter: UTC 05:00:00 to next day 04:59:59", () => {
    const start = dayStart(parseWallClock("2025-01-15 10:00", "America/New_York", NOW)!);
    const end = dayEnd(parseWallClock("2025-01-15 12:00", "America/New_York", NOW)!);
    expect([start, end]).toEqual(["2025-01-15 00:00:00", "2025-01-15 23:59:59"]);
    expect(wallClockToUtc(start, "America/New_York")).toBe("2025-01-15 05:00:00");
    expect(wallClockToUtc(end, "America/New_York")).toBe("2025-01-16 04:59:59");
  });

  it("multi-day all-day event keeps different start and end dates (tomorrow … +5 days)", () => {
    const start = dayStart(parseWallClock("tomorrow", "UTC", NOW)!);
    const end = dayEnd(parseWallClock("+5 days", "UTC", NOW)!);
    expect([start, end]).toEqual(["2025-06-10 00:00:00", "2025-06-14 23:59:59"]);
  });
});
