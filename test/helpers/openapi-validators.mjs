/* global process, Buffer, structuredClone */
// Runs the two third-party OpenAPI validators on documents read from stdin (a JSON array of
// documents) and prints, for each, `{ seriousme: [...errors], swaggerParser: "message" | null }`.
// A separate process because @seriousme/openapi-schema-validator is an ES module that reads its own
// files through import.meta, which the test runner's CommonJS transform cannot load.
import { Validator } from "@seriousme/openapi-schema-validator";
import SwaggerParser from "@apidevtools/swagger-parser";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const documents = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const results = [];
for (const doc of documents) {
  const validator = new Validator();
  const outcome = await validator.validate(structuredClone(doc));
  let swaggerParser = null;
  try {
    await SwaggerParser.validate(structuredClone(doc));
  } catch (err) {
    swaggerParser = String(err?.message ?? err);
  }
  results.push({ seriousme: outcome.valid ? [] : outcome.errors, swaggerParser });
}
process.stdout.write(JSON.stringify(results));
