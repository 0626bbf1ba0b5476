// Cross-process tests start real nodes from the compiled entry point: build it once, before any test.
// Type errors are reported by `npm run typecheck`; tsc still emits, so the build is usable either way.
const { execFileSync } = require("child_process");
const path = require("path");

module.exports = async () => {
  const root = path.resolve(__dirname, "..");
  try {
    execFileSync(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], { cwd: root, stdio: "pipe" });
  } catch (err) {
    process.stderr.write(`\n[global-setup] tsc reported problems while building dist/:\n${err.stdout || ""}${err.stderr || ""}\n`);
  }
};
