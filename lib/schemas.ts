/**
 * The params schema of every routed action, by action name. Services register theirs from their own
 * params modules; the discovery documents read them from here (one source of truth).
 */
import type { ParamsSchema } from "./params";

const registry = new Map<string, ParamsSchema>();

export function registerSchemas(byAction: Record<string, ParamsSchema>): void {
  for (const [action, schema] of Object.entries(byAction)) registry.set(action, schema);
}

export function schemaOf(action: string): ParamsSchema | undefined {
  return registry.get(action);
}
