/**
 * An imported series kept to the horizon (docs/imports.md#icalendar). A feed's unbounded rule that began
 * long ago (a weekly meeting since 2015, a daily reminder) has more occurrences up to the horizon than a
 * series may hold (C52: 1 000), and the API would refuse the whole series. The API's own unbounded series
 * live to the horizon and move with it; an import keeps the same: the series starts at the earliest
 * occurrence that leaves at most `max` of them up to the horizon, earlier ones (long past) left out, with
 * their RDATEs and EXDATEs. Bounded rules (COUNT, UNTIL) are left as the feed wrote them. Pure.
 */
import { expandSeries } from "../recurrence/expand";
import { parseRecurrence } from "../recurrence/rule";

type Rec = Record<string, unknown>;

/** The write's input with its series started late enough to hold at most `max` occurrences up to `horizonUtc`. */
export function seriesToHorizon(input: Rec, horizonUtc: string, siteZone: string, max: number): Rec {
  const lines = input.recurrence;
  if (!Array.isArray(lines) || typeof input.start_date !== "string" || typeof input.end_date !== "string") return input;
  const rule = lines.find(l => typeof l === "string" && /^RRULE:/i.test(l)) as string | undefined;
  if (!rule || /[;:](COUNT|UNTIL)=/i.test(rule)) return input;
  const zone = typeof input.timezone === "string" && input.timezone !== "" ? input.timezone : siteZone;
  const ctx = { zone, allDay: input.all_day === true, start: input.start_date };
  let all;
  try {
    const recurrence = parseRecurrence(lines, ctx);
    all = expandSeries({ ...ctx, end: input.end_date, recurrence }, horizonUtc);
  } catch {
    return input; // refused as it is: the write says why
  }
  if (all.length <= max) return input;
  const first = all[all.length - max];
  const shift = (Date.parse(`${first.start.replace(" ", "T")}Z`) - Date.parse(`${input.start_date.replace(" ", "T")}Z`)) / 1000;
  const kept = lines.filter(l => typeof l === "string" && !/^(RDATE|EXDATE)/i.test(l));
  // RDATE/EXDATE dates before the new start are left out with the occurrences they named
  for (const l of lines) {
    if (typeof l !== "string" || !/^(RDATE|EXDATE)/i.test(l)) continue;
    const at = l.indexOf(":");
    const values = l.slice(at + 1).split(",").filter(v => wallOfValue(v) >= first.start.replace(/[- :]/g, "").slice(0, wallOfValue(v).length));
    if (values.length) kept.push(`${l.slice(0, at + 1)}${values.join(",")}`);
  }
  return { ...input, start_date: first.start, end_date: addSecondsDb(input.end_date, shift), recurrence: kept };
}

/** A wall clock `YYYY-MM-DD HH:MM:SS` moved by whole seconds (its own arithmetic: no zone). */
function addSecondsDb(db: string, seconds: number): string {
  return new Date(Date.parse(`${db.replace(" ", "T")}Z`) + seconds * 1000).toISOString().replace("T", " ").slice(0, 19);
}

/** A date value's digits (`20270101T080000Z` → `20270101080000`). */
function wallOfValue(v: string): string {
  return v.replace(/[^0-9]/g, "");
}
