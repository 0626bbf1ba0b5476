// Prints, as JSON, what the compiled date logic (dist/lib/time/dates.js, built by test/global-setup.js) answers
// for the cases test/unit/other-zone.test.ts passes on stdin; that test runs it in another process zone.
const path = require("path");
const dates = require(path.join(__dirname, "..", "..", "dist", "lib", "time", "dates.js"));

let input = "";
process.stdin.on("data", chunk => (input += chunk));
process.stdin.on("end", () => {
  const cases = JSON.parse(input);
  const out = cases.map(([fn, args]) => {
    const now = new Date(args[args.length - 1]);
    const rest = args.slice(0, -1);
    return dates[fn](...rest, now);
  });
  process.stdout.write(JSON.stringify({ zoneHoursAtNoonUtcInJanuary: new Date(Date.UTC(2025, 0, 15, 12)).getHours(), out }));
});
