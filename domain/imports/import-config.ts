/**
 * The imports service's timing (docs/imports.md#operating): how often each node looks for due imports
 * (`IMPORT_POLL_MS`, default 2000) and how long a runner's claim lasts without a progress write
 * (`IMPORT_LEASE_MS`, default 60000: a node that died leaves its import to another node after that).
 */
export interface ImportConfig {
  pollMs: number;
  leaseMs: number;
}

function positive(v: string | undefined, fallback: number): number {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export function importConfig(env: NodeJS.ProcessEnv = process.env): ImportConfig {
  return { pollMs: positive(env.IMPORT_POLL_MS, 2000), leaseMs: positive(env.IMPORT_LEASE_MS, 60_000) };
}
