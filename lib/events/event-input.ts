/**
 * From validated write parameters to stored event fields (docs/records.md#start-end-and-time-zone, #presentation-flags, #cost, #updating-an-event): time zone,
 * start/end wall clocks and their UTC instants, all-day normalisation, cost, website, flags and text.
 * Absent means unchanged on update (D3: updates are partial). Pure: no store, no broker.
 */
import { dayEnd, dayStart, parseWallClock, wallClockToUtc } from "../time/dates";
import { normaliseCostInput, costCurrency } from "./cost";
import { sanitizeUrl } from "../text/sanitize";
import type { ParamReason } from "../errors";
import { sent } from "../http/params";

export interface EventSchedule {
  timezone: string;
  all_day: boolean;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
}


/**
 * Dates the params schema accepted (read as UTC) that cannot be read in the site zone. The time zone,
 * website and author are checked by the params schema itself (event-params.ts).
 */
export function checkEventInput(p: Record<string, unknown>, siteZone: string): Record<string, ParamReason> {
  const bad: Record<string, ParamReason> = {};
  for (const name of ["start_date", "end_date"]) {
    if (sent(p[name]) && parseWallClock(p[name], siteZone) === null) bad[name] = { key: "param.date" };
  }
  return bad;
}


/** The schedule after a write; `current` is the stored event on update. */
export function resolveSchedule(p: Record<string, unknown>, current: EventSchedule | undefined, siteZone: string, now: Date): EventSchedule {
  const timezone = sent(p.timezone) ? (p.timezone === "" ? siteZone : String(p.timezone)) : current?.timezone ?? siteZone;
  let start = sent(p.start_date) ? parseWallClock(p.start_date, timezone, now)! : current!.start_date;
  let end = sent(p.end_date) ? parseWallClock(p.end_date, timezone, now)! : current!.end_date;
  const allDay = sent(p.all_day) ? !!p.all_day : current?.all_day ?? false;
  // Start after end: the end moves to the start, before the all-day widening (an all-day event ends at 23:59:59).
  if (start > end) end = start;
  if (allDay) {
    start = dayStart(start);
    end = dayEnd(end);
  }
  return { timezone, all_day: allDay, start_date: start, end_date: end, utc_start_date: wallClockToUtc(start, timezone), utc_end_date: wallClockToUtc(end, timezone) };
}

/** Stored cost fields from a `cost` input (values kept raw; symbol and position derived now). */
export function costFields(input: unknown): { cost: string[]; currency_symbol: string; currency_position: string } {
  const cost = normaliseCostInput(input);
  return { cost, ...costCurrency(cost) };
}

const FLAGS = ["show_map", "show_map_link", "hide_from_listings", "sticky", "featured"] as const;

/** Plain fields of a write: text, flags, website, cost (only those sent, except flags default false on create). */
export function plainEventFields(p: Record<string, unknown>, creating: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (sent(p.title)) out.title = String(p.title).trim();
  if (sent(p.description)) out.description = p.description;
  if (sent(p.excerpt)) out.excerpt = p.excerpt;
  for (const flag of FLAGS) {
    if (sent(p[flag])) out[flag] = !!p[flag];
    else if (creating) out[flag] = false;
  }
  // An empty website sent on create stores none (output: the permalink); on update it stores "" (docs/records.md#event-fields).
  if (sent(p.website) && p.website !== "") out.website = sanitizeUrl(String(p.website));
  else if (sent(p.website) && !creating) out.website = "";
  else if (creating) out.website = null;
  if (sent(p.cost)) Object.assign(out, costFields(p.cost));
  else if (creating) Object.assign(out, costFields(null));
  if (sent(p.post_password)) out.post_password = p.post_password;
  return out;
}
