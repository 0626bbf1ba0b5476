/**
 * PHP's `strtotime` does not count the current day when a positive amount of weekdays is asked for:
 * on a Wednesday, "next wednesday", "first wednesday" and "+1 wednesday" are a week away ("+2 wednesday"
 * two weeks), while a bare "wednesday" or "this wednesday" is today. locutus's port counts the current day
 * for all of them, so on that weekday its answer is a week early (docs/dates.md#relative-weekdays).
 * This module says, from the text alone, how many days to add to locutus's answer: 7 when the phrase is
 * such an amount of the current weekday, optionally followed by a time of day, else 0. Longer phrases
 * are left to locutus as they are.
 */

const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const ORDINALS = "first|next|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth";
const DAY_NAME = "sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tue|wed|thu|fri|sat";
const TIME_OF_DAY = String.raw`\d{1,2}(?::\d{2}(?::\d{2})?)?\s*(?:am|pm)?|noon|midnight`;
const PHRASE = new RegExp(String.raw`^\s*(?:${ORDINALS}|\+?\s*\d{1,3})\s+(${DAY_NAME})(?:\s+(?:${TIME_OF_DAY}))?\s*$`, "i");

/** Days to add to locutus's answer for `text`, read on a day whose weekday is `weekday` (0 = Sunday). */
export function sameWeekdayCorrection(text: string, weekday: number): number {
  const m = PHRASE.exec(text);
  if (!m) return 0;
  return DAYS.indexOf(m[1].toLowerCase().slice(0, 3)) === weekday ? 7 : 0;
}
