/**
 * The IANA zone whose rules a feed's own VTIMEZONE follows (docs/imports.md#time-zones). Outlook and
 * Exchange export zones under names that are neither IANA names nor Windows names ("Customized Time Zone")
 * and without X-LIC-LOCATION; their STANDARD/DAYLIGHT parts still say the offsets and when they change.
 * The zone's offset is sampled every 73 hours (each hour of the day in turn) over two years from the
 * event's year; the IANA zones with the same offset at every sample match. Among several, one whose city
 * the TZID names wins, then a zone a Windows name maps to (the usual zone of those rules, in the table's
 * order), then a region's zone (not `Etc/…`), then by name. Pure: ical.js computes the VTIMEZONE's
 * offsets, moment-timezone the IANA zones'.
 */
import ICAL from "ical.js";
import moment from "moment-timezone";
import { WINDOWS_TARGETS } from "./windows-zones";

const STEP_MS = 73 * 3_600_000;

/** Offsets (minutes east of UTC) of the VTIMEZONE at each sample instant. */
function vtimezoneOffsets(vtz: ICAL.Component, samples: number[]): number[] | undefined {
  try {
    const zone = new ICAL.Timezone(vtz);
    // ical.js finds an offset by a local wall clock: the instant's UTC fields give a first guess, the wall
    // clock of that guess the offset (its own conversion from UTC is off for hours after a change)
    const offsetAt = (ms: number): number => zone.utcOffset(ICAL.Time.fromJSDate(new Date(ms), true));
    return samples.map(ms => Math.round(offsetAt(ms + offsetAt(ms) * 1000) / 60));
  } catch {
    return undefined;
  }
}

function rank(name: string, tzidWords: string): number[] {
  const city = name.split("/").pop()!.replace(/_/g, " ").toLowerCase();
  const target = WINDOWS_TARGETS.indexOf(name);
  return [tzidWords.includes(city) ? 0 : 1, target >= 0 ? target : WINDOWS_TARGETS.length, name.startsWith("Etc/") || !name.includes("/") ? 1 : 0];
}

/** The IANA zone following the VTIMEZONE's rules around `year`, or undefined when none does. */
export function zoneMatchingVtimezone(vtz: ICAL.Component, tzid: string, year: number): string | undefined {
  const samples: number[] = [];
  for (let ms = Date.UTC(year, 0, 1); ms < Date.UTC(year + 2, 0, 1); ms += STEP_MS) samples.push(ms);
  const own = vtimezoneOffsets(vtz, samples);
  if (!own) return undefined;
  const matches: string[] = [];
  for (const name of moment.tz.names()) {
    const z = moment.tz.zone(name);
    if (!z) continue;
    // moment's utcOffset is minutes west of UTC
    let same = true;
    for (let i = 0; i < samples.length && same; i++) same = -z.utcOffset(samples[i]) === own[i];
    if (same) matches.push(name);
  }
  if (matches.length === 0) return undefined;
  const words = tzid.toLowerCase();
  const ranked = matches.map(name => ({ name, r: rank(name, words) }));
  ranked.sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1] || a.r[2] - b.r[2] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return ranked[0].name;
}
