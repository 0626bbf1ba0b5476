/**
 * Writes the released v1 contract, docs/contract/v1.openapi.json, from the current /doc document: for an
 * intended change only, in the same commit as the change (docs/api-policy.md#the-breaking-change-check).
 *
 *   npm run contract:snapshot
 */
import fs from "fs";
import path from "path";
import { CONTRACT_SNAPSHOT_PATH, contractSnapshotText } from "../lib/discovery/released-contract";

/** The repository root: the nearest directory above this file with tsconfig.build.json (dist/ has a package.json of its own). */
function repoRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, "tsconfig.build.json"))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`No tsconfig.build.json above ${__dirname}`);
    dir = up;
  }
  return dir;
}

const file = path.join(repoRoot(), CONTRACT_SNAPSHOT_PATH);
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, contractSnapshotText());
process.stdout.write(`Wrote ${CONTRACT_SNAPSHOT_PATH}\n`);
