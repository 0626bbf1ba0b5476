/**
 * lib/recurrence/lines.ts: the fast zone converter gives what lib/time/dates.ts gives (it only skips
 * moment-timezone's parsing far from offset changes), and content lines split as iCalendar writes them.
 */
import moment from "moment-timezone";
import { utcToWallClock, wallClockToUtc } from "../../lib/time/dates";
import { parseContentLine, wallFromMs, wallMs, zoneConverter } from "../../lib/recurrence/lines";

describe("zoneConverter", () => {
  test.each(["Europe/Rome", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/Sao_Paulo", "UTC", "UTC+5:30", "CET", "EST"])("%s agrees with lib/time/dates.ts over two years, every 15 minutes around offset changes", zone => {
    const conv = zoneConverter(zone);
    const from = wallMs("2026-01-01 00:00:00");
    const to = from + 2 * 366 * 86_400_000;
    const samples: number[] = [];
    for (let ms = from; ms < to; ms += 613 * 60_000) samples.push(ms);
    for (const change of moment.tz.zone(zone)?.untils.filter(u => u > from && u < to) ?? []) {
      for (let ms = change - 40 * 3_600_000; ms < change + 40 * 3_600_000; ms += 15 * 60_000) samples.push(ms);
    }
    for (const ms of samples) {
      const wall = wallFromMs(ms);
      expect(conv.toUtc(wall)).toBe(wallClockToUtc(wall, zone));
      expect(conv.toWall(wall)).toBe(utcToWallClock(wall, zone));
    }
  });

  test("wall-clock strings round-trip through milliseconds, years before 100 included", () => {
    for (const w of ["2027-03-28 02:30:00", "0099-12-31 23:59:59", "9999-01-01 00:00:00"]) expect(wallFromMs(wallMs(w))).toBe(w);
    expect(wallMs("2027-03-28")).toBeNaN();
  });
});

describe("parseContentLine", () => {
  test("name, parameters (quoted or not) and value", () => {
    const line = parseContentLine("exdate;tzid=\"America/Argentina/Buenos_Aires\";VALUE=DATE-TIME:20270101T100000,20270102T100000");
    expect(line?.name).toBe("EXDATE");
    expect([...(line?.params ?? new Map<string, string>()).entries()]).toEqual([["TZID", "America/Argentina/Buenos_Aires"], ["VALUE", "DATE-TIME"]]);
    expect(line?.value).toBe("20270101T100000,20270102T100000");
  });

  test("malformed lines", () => {
    for (const bad of ["", ":x", "RRULE", "RDATE;TZID:x", "RDATE;TZID=a;TZID=b:x", "1RULE:x"]) expect(parseContentLine(bad)).toBeNull();
  });
});
