/**
 * Writes docs/action-api.md from the route table and the params table (lib/http/action-schemas.ts).
 *
 *   npm run build && node dist/scripts/action-api.js           # (re)write the page
 *   npm run build && node dist/scripts/action-api.js --check   # exit 1 when the page is out of date
 *
 * (`UPDATE_ACTION_API=1 npx jest test/unit/discovery.test.ts` rewrites it too, without a build.)
 */
import fs from "fs";
import path from "path";
import { actionApiMarkdown, ACTION_API_PATH } from "../lib/discovery";

/** The repository root: the nearest directory above this file with a package.json (works from dist/ too). */
function repoRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, "package.json"))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`No package.json above ${__dirname}`);
    dir = up;
  }
  return dir;
}

function main(argv: string[]): number {
  const file = path.join(repoRoot(), ACTION_API_PATH);
  const text = actionApiMarkdown();
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
  if (argv.includes("--check")) {
    if (current === text) return 0;
    process.stderr.write(`${ACTION_API_PATH} is out of date: run \`npm run build && node dist/scripts/action-api.js\`\n`);
    return 1;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  process.stdout.write(`${current === text ? "Unchanged" : "Wrote"} ${ACTION_API_PATH}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
