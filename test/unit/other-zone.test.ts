/**
 * Nothing in lib/time/dates.ts depends on the process time zone (lib/time/dates.ts, top): the compiled date logic
 * answers the same in a child process whose zone is New York (daylight saving time) as here. A child
 * process, because a test cannot change its own process zone: jest hands each test file a copy of
 * process.env, and Date reads the real one.
 */
import { spawnSync } from "child_process";
import * as path from "path";
import * as dates from "../../lib/time/dates";

const ROOT = path.resolve(__dirname, "..", "..");
const NOW = "2025-06-09T14:30:15Z";
/** Around New York's spring-forward night (2025-03-09 07:00 UTC): local-time arithmetic would be an hour off. */
const NEAR_CHANGE = "2025-03-09T00:30:00Z";

const PHRASES = [
  "2025-06-10 9am", "2018-01-01 4pm", "2025/06/10 21:30", "2025-06-10T09:00:00.123-05:00", "20250610T090000", "today", "tomorrow",
  "yesterday", "midnight", "noon", "tomorrow 9am", "yesterday 23:59", "next wednesday 4pm", "+5 days 11am", "last monday",
  "monday next week", "9am", "9:30pm", "14:00:05", "06/10/2025", "10-06-2025", "10 June 2025", "June 10, 2025", "Jun 10 2025 5pm",
  "+1 day", "+6 hours", "tomorrow 2:30am", "today 02:30", "+24 months", "last day of next month", "2025-06 ", "1749479415"
];

type Case = [keyof typeof dates, unknown[]];
const CASES: Case[] = [
  ...PHRASES.flatMap((p): Case[] => [NOW, NEAR_CHANGE].flatMap((now): Case[] => [
    ["parseUtc", [p, now]],
    ["parseWallClock", [p, "Europe/Rome", now]],
    ["parseInZone", [p, "America/New_York", now]],
    ["listBound", [p, "start_date", false, "Asia/Kolkata", now]]
  ])),
  ["defaultListWindow", [false, "America/New_York", NOW]],
  ["defaultListWindow", [true, "Europe/Rome", NEAR_CHANGE]]
];

/** What this process answers (jest runs it in UTC, test/global-setup.js). */
function here(): unknown[] {
  return CASES.map(([fn, args]) => {
    const now = new Date(args[args.length - 1] as string);
    return (dates[fn] as (...a: unknown[]) => unknown)(...args.slice(0, -1), now);
  });
}

describe("the date logic in another process zone", () => {
  test("answers in a New York process exactly as in this one, relative phrases near a change of that zone included", () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, "test", "helpers", "zone-probe.js")], {
      cwd: ROOT, env: { ...process.env, TZ: "America/New_York" }, input: JSON.stringify(CASES), encoding: "utf8", timeout: 60_000
    });
    expect(run.stderr).toBe("");
    const child = JSON.parse(run.stdout) as { zoneHoursAtNoonUtcInJanuary: number; out: unknown[] };
    // the child really ran in New York time (UTC-5 in January)
    expect(child.zoneHoursAtNoonUtcInJanuary).toBe(7);
    const mine = here();
    expect(mine.filter(v => v !== null).length).toBeGreaterThan(CASES.length / 2);
    expect(child.out).toEqual(mine);
  });
});
