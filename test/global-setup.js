// Cross-process tests start real nodes from the compiled entry point: build it once, before any test.
// Type errors are reported by `npm run typecheck`; tsc still emits, so the build is usable either way.
const { execFileSync } = require("child_process");
const path = require("path");

module.exports = async () => {
  // The tests' own expectations are computed in UTC: the test processes (started after this) run in it.
  // The service itself runs in any zone (lib/time/dates.ts; test/unit/other-zone.test.ts runs the date logic
  // in another one). Set here, in jest's own process: a test file gets a copy of process.env.
  process.env.TZ = "UTC";
  const root = path.resolve(__dirname, "..");
  try {
    execFileSync(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], { cwd: root, stdio: "pipe" });
  } catch (err) {
    process.stderr.write(`\n[global-setup] tsc reported problems while building dist/:\n${err.stdout || ""}${err.stderr || ""}\n`);
  }
};
