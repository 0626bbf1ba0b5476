/**
 * The released v1 contract (docs/api-policy.md#the-breaking-change-check): the /doc document as the
 * default root answers it in English, written to CONTRACT_SNAPSHOT_PATH by `npm run contract:snapshot` and
 * compared with the current one by test/unit/contract-compat.test.ts.
 */
import { openApiDocument } from "./openapi";

export const CONTRACT_SNAPSHOT_PATH = "docs/contract/v1.openapi.json";
/** The API root the snapshot is made for (the servers URL is not part of the comparison). */
const SNAPSHOT_ROOT = "http://localhost:3000/wp-json";

/** The document as a snapshot holds it (JSON, two-space indent, a final newline). */
export function contractSnapshotText(): string {
  return `${JSON.stringify(openApiDocument(SNAPSHOT_ROOT, "en"), null, 2)}\n`;
}
