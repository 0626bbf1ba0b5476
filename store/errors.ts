/**
 * What a store reports besides data: a unique key refused a write (every backend says it this way), or
 * the database cannot be reached (the gateway answers 503).
 */

/** A unique constraint refused a write; `constraint` names the index. */
export class UniqueViolation extends Error {
  constructor(readonly constraint: string, cause?: unknown) {
    super(`unique constraint ${constraint} violated`);
    this.cause = cause;
  }
}

/** The database cannot be reached (connection refused or lost). */
export class StoreUnavailable extends Error {
  override readonly name = "StoreUnavailableError";
  readonly type = "STORE_UNAVAILABLE";
}

/** A duplicate key on any store: SQL's UniqueViolation, MongoDB's error 11000. */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof UniqueViolation || (err as { code?: number } | null)?.code === 11000;
}
