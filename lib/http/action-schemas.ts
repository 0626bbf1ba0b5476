/**
 * The params schema of every routed action, by action name: one table, built from the params modules the
 * services take their schemas from (one source of truth), the first time it is read. Nothing registers
 * into it; the discovery documents (lib/discovery) and the action API read it.
 */
import { lazy } from "../memo";
import type { ParamsSchema } from "./params";
import { EVENT_PARAMS } from "../events/event-params";
import { termSchemasByAction } from "../terms/term-params";
import { CHANGES_PARAMS } from "../changes/params";
import { linkedSchemas } from "../linked/params";
import { ORGANIZER, VENUE } from "../linked/kinds";
import { API_PARAMS } from "../discovery/api-params";
import { WEBHOOK_PARAMS } from "../webhooks/params";
import { IMPORT_PARAMS } from "../imports/params";
import { FIELD_PARAMS } from "../fields/params";

const table = lazy(buildTable);

function buildTable(): ReadonlyMap<string, ParamsSchema> {
  const out = new Map<string, ParamsSchema>();
  for (const [name, schema] of Object.entries(EVENT_PARAMS)) out.set(`events.${name}`, schema);
  for (const spec of [VENUE, ORGANIZER]) {
    for (const [action, schema] of Object.entries(linkedSchemas(spec).documented)) out.set(`${spec.plural}.${action}`, schema);
  }
  for (const [action, schema] of Object.entries(termSchemasByAction("taxonomy"))) out.set(action, schema);
  out.set("changes.list", CHANGES_PARAMS.list);
  for (const [action, schema] of Object.entries(IMPORT_PARAMS)) out.set(`imports.${action}`, schema);
  for (const [action, schema] of Object.entries(API_PARAMS)) out.set(action, schema);
  for (const [action, schema] of Object.entries(WEBHOOK_PARAMS)) out.set(`webhooks.${action}`, schema);
  for (const [action, schema] of Object.entries(FIELD_PARAMS)) out.set(`taxonomy.fields.${action}`, schema);
  return out;
}

export function schemaOf(action: string): ParamsSchema | undefined {
  return table().get(action);
}
