// The plain date-time fast path gives what strtotime gives, and leaves everything else to it.
import { strtotime } from "locutus/php/datetime/strtotime";
import { plainWallClock, parseWallClock, toDb } from "../../lib/time/dates";

const NOW = new Date(Date.UTC(2025, 5, 9, 22, 30, 15));
const viaStrtotime = (s: string): string | null => {
  const seconds = strtotime(s, Math.floor(NOW.getTime() / 1000));
  return seconds === false ? null : toDb(new Date(seconds * 1000));
};
const pad = (n: number, w = 2) => String(n).padStart(w, "0");

describe("plainWallClock", () => {
  it("answers what strtotime answers for plain date-times, over many random ones", () => {
    let seed = 42;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    let answered = 0;
    for (let i = 0; i < 5000; i++) {
      const date = `${pad(1000 + rnd(9000), 4)}-${pad(rnd(14))}-${pad(rnd(33))}`;
      const time = [``, ` ${pad(rnd(26))}:${pad(rnd(62))}`, ` ${pad(rnd(26))}:${pad(rnd(62))}:${pad(rnd(62))}`, `T${pad(rnd(24))}:${pad(rnd(60))}:${pad(rnd(60))}`][rnd(4)];
      const input = date + time;
      const fast = plainWallClock(input);
      if (fast === undefined) continue; // left to strtotime
      answered++;
      expect([input, fast]).toEqual([input, viaStrtotime(input)]);
    }
    expect(answered).toBeGreaterThan(1000);
  });

  it("leaves out-of-range parts, other formats and relative phrases to strtotime", () => {
    for (const input of ["2025-02-29", "2024-02-30", "2025-13-01", "2025-04-31 10:00", "2025-06-10 24:00", "2025-06-10 10:60",
      "0000-00-00 00:00:00", "2025-6-10", "10 June 2025", "tomorrow", "2025-06-10 10:00:00.5", "2025-06-10 9:00"])
      expect(plainWallClock(input)).toBeUndefined();
    expect(plainWallClock("2024-02-29 23:59:59")).toBe("2024-02-29 23:59:59");
    expect(plainWallClock("2000-02-29")).toBe("2000-02-29 00:00:00");
    expect(plainWallClock("2031-01-01T10:00")).toBe("2031-01-01 10:00:00");
  });

  it("keeps the overflow of out-of-range dates (strtotime's answer)", () => {
    expect(parseWallClock("2025-02-30 10:00", "UTC", NOW)).toBe(viaStrtotime("2025-02-30 10:00"));
    expect(parseWallClock("2025-02-30 10:00", "UTC", NOW)).toBe("2025-03-02 10:00:00");
  });
});
