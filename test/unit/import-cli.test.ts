import { formatCounts, formatDryRun, ImportCliUsageError, parseImportArgs, progressLine } from "../../lib/imports/cli";
import { readIcs } from "../../lib/imports/ics-reader";

describe("import command arguments", () => {
  it("reads the url, --site, --dry-run and --api", () => {
    expect(parseImportArgs(["https://a.example/feed.ics", "--site", "b.example", "--dry-run", "--api", "http://127.0.0.1:4000/"]))
      .toEqual({ url: "https://a.example/feed.ics", site: "b.example", dryRun: true, api: "http://127.0.0.1:4000", type: undefined });
  });
  it("defaults the API to IMPORT_API, else localhost:PORT", () => {
    expect(parseImportArgs(["http://x.example"], { IMPORT_API: "http://h:1" }).api).toBe("http://h:1");
    expect(parseImportArgs(["http://x.example"], { PORT: "3100" }).api).toBe("http://localhost:3100");
    expect(parseImportArgs(["http://x.example"]).api).toBe("http://localhost:3000");
  });
  it("refuses a missing url, a non-http url, an unknown option and a missing value", () => {
    expect(() => parseImportArgs([])).toThrow(ImportCliUsageError);
    expect(() => parseImportArgs(["ftp://x"])).toThrow(/http/);
    expect(() => parseImportArgs(["http://x", "--nope"])).toThrow(/unknown option/);
    expect(() => parseImportArgs(["http://x", "--site"])).toThrow(/needs a value/);
    expect(() => parseImportArgs(["http://x", "--type", "csv"])).toThrow(/ics or tec/);
  });
});

describe("import command output", () => {
  it("prints every count and the errors", () => {
    const out = formatCounts({ state: "done", created: 3, updated: 1, unchanged: 2, trashed: 0, failed: 1, errors: [{ source: "u1", message: "bad" }] });
    expect(out).toBe("state: done\ncreated: 3\nupdated: 1\nunchanged: 2\nskipped: 0\ntrashed: 0\nfailed: 1\nerror: u1: bad\n");
  });
  it("draws a full bar when finished and a partial one while running", () => {
    expect(progressLine({ state: "done", created: 5 }, 3)).toBe(`[${"#".repeat(20)}] done 5 records`);
    expect(progressLine({ state: "running", created: 2, unchanged: 1 }, 3)).toBe(`[###${"-".repeat(17)}] running 3 records`);
  });
  it("counts a feed's events by kind for a dry run", () => {
    const ics = [
      "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t", "X-WR-CALNAME:Feed",
      "BEGIN:VEVENT", "UID:a", "DTSTART:20260101T100000Z", "DTEND:20260101T110000Z", "SUMMARY:A", "RRULE:FREQ=DAILY;COUNT=3", "END:VEVENT",
      "BEGIN:VEVENT", "UID:b", "DTSTART:20260102T100000Z", "DTEND:20260102T110000Z", "SUMMARY:B", "END:VEVENT",
      "END:VCALENDAR", "",
    ].join("\r\n");
    const out = formatDryRun(readIcs(ics));
    expect(out).toContain("dry run (ics: Feed), nothing written\nevents: 2\nrecurring: 1\n");
  });
});
