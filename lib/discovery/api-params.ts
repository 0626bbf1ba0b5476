/**
 * Params of the gateway's own routed actions (services/api.service.ts), in the params table (lib/schemas.ts).
 */
import type { ParamDoc, ParamsSchema, Rule } from "../params";
import { NAMESPACE_PATH } from "../settings";

/** A rule that only documents: accepts any value (the index's own `namespace` and `context`). */
function documentOnly(doc: ParamDoc): Rule {
  return { type: "any", optional: true, $doc: doc, custom: value => value };
}

/**
 * Params of the gateway's own routed actions. WordPress declares the index's two args with a default
 * only (no description, no type); an empty description is not printed.
 */
export const API_PARAMS: Record<"api.index" | "api.doc" | "api.restIndex" | "api.home", ParamsSchema> = {
  "api.index": {
    $$strict: "remove",
    namespace: documentOnly({ description: "", default: NAMESPACE_PATH }),
    context: documentOnly({ description: "", default: "view" })
  },
  "api.doc": { $$strict: "remove" },
  // WordPress discovery (lib/discovery/rest-index.ts): outside the namespace, no params.
  "api.restIndex": { $$strict: "remove", context: documentOnly({ description: "", default: "view" }) },
  "api.home": { $$strict: "remove" }
};
