import { sameWeekdayCorrection } from "../../lib/time/next-weekday";
import { parseWallClock } from "../../lib/time/dates";

const WEDNESDAY = 3;

describe("a positive amount of the current weekday is a week away, as in PHP (docs/dates.md#relative-weekdays)", () => {
  test.each([
    "next wednesday", "Next Wednesday", "next wed", "first wednesday", "+1 wednesday", "1 wednesday", "+2 wednesday",
    "second wednesday", "next wednesday 4pm", "next wednesday 16:00", "next wednesday noon", "  next  wednesday  "
  ])("%j read on a Wednesday: 7 days more than locutus says", text => {
    expect(sameWeekdayCorrection(text, WEDNESDAY)).toBe(7);
  });

  test.each([
    "wednesday", "this wednesday", "last wednesday", "-1 wednesday", "next thursday", "next tuesday 4pm",
    "tomorrow next wednesday", "next wednesday +1 hour", "next week", "next weekday", "wednesday next week", "2025-06-10 09:00"
  ])("%j read on a Wednesday: locutus's answer stands", text => {
    expect(sameWeekdayCorrection(text, WEDNESDAY)).toBe(0);
  });

  test("on any other day locutus's answer stands", () => {
    for (const weekday of [0, 1, 2, 4, 5, 6]) expect(sameWeekdayCorrection("next wednesday", weekday)).toBe(0);
  });

  test("parsed: on Wednesday 2026-11-25 and on the Tuesday and Thursday around it", () => {
    const at = (iso: string) => new Date(iso);
    expect(parseWallClock("next wednesday 4pm", "UTC", at("2026-11-25T00:30:00Z"))).toBe("2026-12-02 16:00:00");
    expect(parseWallClock("next wednesday", "UTC", at("2026-11-25T23:30:00Z"))).toBe("2026-12-02 00:00:00");
    expect(parseWallClock("+2 wednesday", "UTC", at("2026-11-25T12:00:00Z"))).toBe("2026-12-09 00:00:00");
    expect(parseWallClock("wednesday", "UTC", at("2026-11-25T12:00:00Z"))).toBe("2026-11-25 00:00:00");
    expect(parseWallClock("last wednesday", "UTC", at("2026-11-25T12:00:00Z"))).toBe("2026-11-18 00:00:00");
    expect(parseWallClock("next wednesday", "UTC", at("2026-11-24T12:00:00Z"))).toBe("2026-11-25 00:00:00");
    expect(parseWallClock("next wednesday", "UTC", at("2026-11-26T12:00:00Z"))).toBe("2026-12-02 00:00:00");
    // the weekday is the one of the zone the string is read in: still Tuesday in New York
    expect(parseWallClock("next wednesday", "America/New_York", at("2026-11-25T02:00:00Z"))).toBe("2026-11-25 00:00:00");
    expect(parseWallClock("next wednesday", "America/New_York", at("2026-11-25T12:00:00Z"))).toBe("2026-12-02 00:00:00");
  });
});
