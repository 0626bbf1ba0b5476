/**
 * The `recurrence` field (C51: recurrence fields; C52: the recurrence rules accepted): what is accepted, its normal form, and a 400 `rest_invalid_param`
 * naming `recurrence` for each rule broken.
 */
import { isApiError } from "../../lib/errors";
import { formatRecurrence, parseRecurrence, readRecurrenceParam, RecurrenceReason, isRecurring } from "../../lib/recurrence/rule";
import { expandSeries } from "../../lib/recurrence/expand";
import { SeriesContext } from "../../lib/recurrence/types";

const HORIZON = "2029-01-01 00:00:00";
const rome: SeriesContext = { zone: "Europe/Rome", allDay: false, start: "2027-01-12 19:00:00" };
const allDay: SeriesContext = { zone: "America/New_York", allDay: true, start: "2027-01-12 00:00:00" };
const utc: SeriesContext = { zone: "UTC", allDay: false, start: "2027-01-12 19:00:00" };

function normal(lines: unknown[], ctx: SeriesContext = rome): string[] {
  const p = readRecurrenceParam(lines, ctx, HORIZON);
  if (p.action !== "set") throw new Error(`expected set, got ${p.action}`);
  return p.lines;
}

function reason(lines: unknown, ctx: SeriesContext = rome): RecurrenceReason | string {
  try {
    readRecurrenceParam(lines, ctx, HORIZON);
  } catch (err) {
    expect(isApiError(err)).toBe(true);
    if (!isApiError(err)) throw err;
    expect(err.code).toBe(400);
    expect(err.type).toBe("rest_invalid_param");
    const params = err.data.params as Record<string, { key: string; vars?: Record<string, string> }>;
    expect(Object.keys(params)).toEqual(["recurrence"]);
    return params.recurrence.vars?.reason ?? "";
  }
  throw new Error(`accepted: ${JSON.stringify(lines)}`);
}

describe("accepted and normalised", () => {
  test("null is not sent, [] ends the recurrence", () => {
    expect(readRecurrenceParam(null, rome, HORIZON)).toEqual({ action: "keep" });
    expect(readRecurrenceParam(undefined, rome, HORIZON)).toEqual({ action: "keep" });
    expect(readRecurrenceParam([], rome, HORIZON)).toEqual({ action: "end" });
  });

  test("the issue's example", () => {
    expect(normal(["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270630T235959Z", "EXDATE;TZID=Europe/Rome:20270112T190000"]))
      .toEqual(["RRULE:FREQ=WEEKLY;UNTIL=20270630T235959Z;BYDAY=TU,TH", "EXDATE;TZID=Europe/Rome:20270112T190000"]);
  });

  test("case, part order, quoted TZID, INTERVAL=1 and several date lines are normalised", () => {
    expect(normal([
      "rrule:byday=-1fr;freq=monthly;interval=1;count=5",
      "exdate;tzid=\"Europe/Rome\":20270430T190000,20270226T190000",
      "EXDATE:20270528T170000Z",
      "RDATE;VALUE=DATE-TIME:20270301T190000",
      "RDATE;TZID=europe/rome:20270301T190000",
    ])).toEqual([
      "RRULE:FREQ=MONTHLY;COUNT=5;BYDAY=-1FR",
      "RDATE;TZID=Europe/Rome:20270301T190000",
      "EXDATE;TZID=Europe/Rome:20270226T190000,20270430T190000,20270528T190000",
    ]);
  });

  test("UNTIL as a date or a floating date-time becomes UTC; every BY part is written back", () => {
    expect(normal(["RRULE:FREQ=MONTHLY;UNTIL=20270630"])).toEqual(["RRULE:FREQ=MONTHLY;UNTIL=20270630T215959Z"]);
    expect(normal(["RRULE:FREQ=WEEKLY;UNTIL=20270105T190000"], { ...rome, start: "2027-01-05 19:00:00" }))
      .toEqual(["RRULE:FREQ=WEEKLY;UNTIL=20270105T180000Z"]);
    expect(normal(["RRULE:FREQ=YEARLY;BYMONTH=1,7;BYWEEKNO=2,-1;BYYEARDAY=12;BYMONTHDAY=12;BYDAY=TU;BYSETPOS=1,-1;WKST=SU;COUNT=3"]))
      .toEqual(["RRULE:FREQ=YEARLY;COUNT=3;BYMONTH=1,7;BYWEEKNO=2,-1;BYYEARDAY=12;BYMONTHDAY=12;BYDAY=TU;BYSETPOS=1,-1;WKST=SU"]);
  });

  test("all-day series: dates, UNTIL as a date", () => {
    expect(normal(["RRULE:FREQ=WEEKLY;UNTIL=20270301T120000Z", "EXDATE;VALUE=DATE:20270119", "RDATE:20270120"], allDay))
      .toEqual(["RRULE:FREQ=WEEKLY;UNTIL=20270301", "RDATE;VALUE=DATE:20270120", "EXDATE;VALUE=DATE:20270119"]);
  });

  test("a series in UTC writes UTC values", () => {
    expect(normal(["RRULE:FREQ=DAILY;COUNT=3", "EXDATE;TZID=UTC:20270113T190000"], utc)).toEqual(["RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20270113T190000Z"]);
  });

  test("RDATEs alone make a series; the normal form reads back to itself", () => {
    const lines = normal(["RDATE;TZID=Europe/Rome:20270201T190000,20270301T190000"]);
    const again = parseRecurrence(lines, rome, HORIZON);
    expect(isRecurring(again)).toBe(true);
    expect(formatRecurrence(again, rome.zone, false)).toEqual(lines);
  });

  test("at the limits: 100 lines, COUNT=1000, 1000 occurrences", () => {
    const lines = ["RRULE:FREQ=DAILY;COUNT=1000", ...Array.from({ length: 99 }, (_, i) => `EXDATE;TZID=Europe/Rome:2028${String(i % 12 + 1).padStart(2, "0")}01T190000`)];
    expect(normal(lines)[0]).toBe("RRULE:FREQ=DAILY;COUNT=1000");
    const exactly1000 = { ...rome, start: "2026-04-07 19:00:00" };
    expect(normal(["RRULE:FREQ=DAILY"], exactly1000)).toEqual(["RRULE:FREQ=DAILY"]);
    const recurrence = parseRecurrence(["RRULE:FREQ=DAILY"], exactly1000, HORIZON);
    expect(expandSeries({ ...exactly1000, end: exactly1000.start, recurrence }, HORIZON)).toHaveLength(1000);
    expect(reason(["RRULE:FREQ=DAILY"], { ...rome, start: "2026-04-06 19:00:00" })).toBe("too_many_occurrences");
  });
});

describe("refused (C52: the recurrence rules accepted), each with its reason", () => {
  test.each<[string, unknown, RecurrenceReason]>([
    ["not an array", "RRULE:FREQ=DAILY", "type"],
    ["a line that is not a string", [42], "type"],
    ["more than 100 lines", ["RRULE:FREQ=DAILY;COUNT=2", ...Array.from({ length: 100 }, () => "EXDATE;TZID=Europe/Rome:20270113T190000")], "too_many_lines"],
    ["two RRULEs", ["RRULE:FREQ=DAILY;COUNT=2", "RRULE:FREQ=WEEKLY;COUNT=2"], "rrule_count"],
    ["a DTSTART line", ["DTSTART;TZID=Europe/Rome:20270112T190000", "RRULE:FREQ=DAILY;COUNT=2"], "property"],
    ["a DTEND line", ["RRULE:FREQ=DAILY;COUNT=2", "DTEND:20270112T200000Z"], "property"],
    ["an EXRULE", ["EXRULE:FREQ=DAILY;COUNT=2"], "property"],
    ["a line without value", ["RRULE"], "line"],
    ["an RRULE with a parameter", ["RRULE;X-FOO=1:FREQ=DAILY"], "parameter"],
    ["another zone's TZID", ["RRULE:FREQ=DAILY;COUNT=2", "EXDATE;TZID=Europe/Paris:20270113T190000"], "tzid"],
    ["TZID with a UTC value", ["RRULE:FREQ=DAILY;COUNT=2", "EXDATE;TZID=Europe/Rome:20270113T180000Z"], "date"],
    ["an unknown date parameter", ["RDATE;X-A=1:20270113T190000"], "parameter"],
    ["RDATE;VALUE=PERIOD", ["RDATE;VALUE=PERIOD:20270113T190000Z/PT1H"], "value_type"],
    ["a date on a timed series", ["RRULE:FREQ=DAILY;COUNT=2", "EXDATE;VALUE=DATE:20270113"], "value_type"],
    ["an impossible date", ["RDATE;TZID=Europe/Rome:20270230T190000"], "date"],
    ["HOURLY", ["RRULE:FREQ=HOURLY;COUNT=2"], "sub_daily"],
    ["MINUTELY", ["RRULE:FREQ=MINUTELY;COUNT=2"], "sub_daily"],
    ["SECONDLY", ["RRULE:FREQ=SECONDLY;COUNT=2"], "sub_daily"],
    ["BYHOUR", ["RRULE:FREQ=DAILY;BYHOUR=9,19;COUNT=2"], "sub_daily"],
    ["no FREQ", ["RRULE:COUNT=2"], "freq"],
    ["an unknown FREQ", ["RRULE:FREQ=FORTNIGHTLY"], "freq"],
    ["an unknown part", ["RRULE:FREQ=DAILY;BYEASTER=0"], "rrule_syntax"],
    ["a repeated part", ["RRULE:FREQ=DAILY;COUNT=2;COUNT=3"], "rrule_syntax"],
    ["COUNT=0", ["RRULE:FREQ=DAILY;COUNT=0"], "count"],
    ["COUNT=1001", ["RRULE:FREQ=DAILY;COUNT=1001"], "count"],
    ["COUNT not a number", ["RRULE:FREQ=DAILY;COUNT=two"], "rrule_syntax"],
    ["COUNT and UNTIL", ["RRULE:FREQ=DAILY;COUNT=2;UNTIL=20270201T000000Z"], "count_and_until"],
    ["UNTIL before the start", ["RRULE:FREQ=DAILY;UNTIL=20270112T175959Z"], "until"],
    ["UNTIL not a date", ["RRULE:FREQ=DAILY;UNTIL=tomorrow"], "until"],
    ["INTERVAL=0", ["RRULE:FREQ=DAILY;INTERVAL=0;COUNT=2"], "interval"],
    ["BYDAY with a number in a WEEKLY rule", ["RRULE:FREQ=WEEKLY;BYDAY=1TU;COUNT=2"], "by_part"],
    ["BYDAY=0TU", ["RRULE:FREQ=MONTHLY;BYDAY=0TU;COUNT=2"], "by_part"],
    ["BYDAY=XX", ["RRULE:FREQ=WEEKLY;BYDAY=XX;COUNT=2"], "rrule_syntax"],
    ["BYMONTHDAY in a WEEKLY rule", ["RRULE:FREQ=WEEKLY;BYMONTHDAY=3;COUNT=2"], "by_part"],
    ["BYMONTHDAY=32", ["RRULE:FREQ=MONTHLY;BYMONTHDAY=32;COUNT=2"], "by_part"],
    ["BYMONTH=13", ["RRULE:FREQ=YEARLY;BYMONTH=13;COUNT=2"], "by_part"],
    ["BYWEEKNO in a MONTHLY rule", ["RRULE:FREQ=MONTHLY;BYWEEKNO=3;COUNT=2"], "by_part"],
    ["BYYEARDAY in a DAILY rule", ["RRULE:FREQ=DAILY;BYYEARDAY=3;COUNT=2"], "by_part"],
    ["BYSETPOS alone", ["RRULE:FREQ=MONTHLY;BYSETPOS=1;COUNT=2"], "by_part"],
    ["an RDATE before the start", ["RDATE;TZID=Europe/Rome:20270111T190000"], "rdate_before_start"],
    ["only EXDATEs", ["EXDATE;TZID=Europe/Rome:20270113T190000"], "no_occurrences_rule"],
  ])("%s", (_name, lines, expected) => {
    expect(reason(lines)).toBe(expected);
  });

  test("COUNT=1000 and two RDATEs within the horizon make 1 002 occurrences", () => {
    const lines = ["RRULE:FREQ=DAILY;COUNT=1000", "RDATE;TZID=Europe/Rome:20281201T190000,20281202T190000"];
    expect(reason(lines, { ...rome, start: "2026-01-01 19:00:00" })).toBe("too_many_occurrences");
    // Without the horizon the cap is not checked.
    expect(() => parseRecurrence(lines, { ...rome, start: "2026-01-01 19:00:00" })).not.toThrow();
  });

  test("all-day series take dates only", () => {
    expect(reason(["RRULE:FREQ=DAILY;COUNT=2", "EXDATE:20270113T190000"], allDay)).toBe("value_type");
    expect(reason(["RRULE:FREQ=DAILY;COUNT=2", "EXDATE;TZID=America/New_York:20270113"], allDay)).toBe("value_type");
    expect(reason(["RRULE:FREQ=DAILY;UNTIL=20270111"], allDay)).toBe("until");
  });
});
