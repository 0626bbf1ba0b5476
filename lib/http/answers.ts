/**
 * Answers the gateway sends from moleculer-web's public `onError` hook (services/api.service.ts) that are
 * not failures. moleculer-web logs every error whose `code` is not a 4xx before it hands the error to
 * `onError`; these carry a 4xx `code` so that it does not, and `onError` writes what they carry.
 */
import type { ApiError } from "../errors";
import type { StoredAnswer } from "./idempotency";

/**
 * An error answer that is no failure (the 503 `rest_not_ready` while the services start): the gateway's
 * own actions throw the ApiError wrapped in this, and `onError` renders the ApiError inside.
 */
export class QuietError extends Error {
  readonly code = 409;
  constructor(readonly error: ApiError) {
    super(error.message);
    this.name = "QuietError";
  }
}

/**
 * A kept answer to send again instead of calling the action: thrown from the route's hooks before the call,
 * and written by the gateway's `onError` (moleculer-web's public error hook) as it was first sent, with
 * `Idempotent-Replayed: true` (C21: idempotency keys).
 */
export class ReplayAnswer extends Error {
  readonly code = 409;
  constructor(readonly answer: StoredAnswer) {
    super("Idempotent replay");
    this.name = "ReplayAnswer";
  }
}
