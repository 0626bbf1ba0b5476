/**
 * Params of the gateway's own routed actions (services/api.service.ts), in the params table (lib/http/action-schemas.ts).
 */
import type { ParamDoc, ParamsSchema, Rule } from "../http/params";
import { NAMESPACE_PATH } from "../settings";

/** A rule that only documents: accepts any value (the index's own `namespace` and `context`). */
function documentOnly(doc: ParamDoc): Rule {
  return { type: "any", optional: true, $doc: doc, custom: value => value };
}

/**
 * Params of the gateway's own routed actions. WordPress declares the index's two args with a default
 * only (no description, no type); an empty description is not printed.
 */
export const API_PARAMS: Record<"api.index" | "api.doc" | "api.restIndex" | "api.home" | "api.batch" | "api.batchIndex" | "api.deprecations", ParamsSchema> = {
  "api.index": {
    $$strict: "remove",
    namespace: documentOnly({ description: "", default: NAMESPACE_PATH }),
    context: documentOnly({ description: "", default: "view" })
  },
  "api.doc": { $$strict: "remove" },
  // WordPress discovery (lib/discovery/rest-index.ts): outside the namespace, no params.
  "api.restIndex": { $$strict: "remove", context: documentOnly({ description: "", default: "view" }) },
  "api.home": { $$strict: "remove" },
  // The batch's body is read by lib/batch/requests.ts (its limits and messages are WordPress's); these document it.
  "api.batch": {
    $$strict: "remove",
    validation: documentOnly({ description: "normal (each request runs whatever the others' validation) or require-all-validate (nothing runs unless every request validates).", type: "string", enum: ["require-all-validate", "normal"], default: "normal" }),
    requests: documentOnly({ description: "The requests: {method (POST, PUT, PATCH, DELETE), path, body, headers}.", type: "array" })
  },
  "api.batchIndex": { $$strict: "remove" },
  "api.deprecations": { $$strict: "remove" }
};
