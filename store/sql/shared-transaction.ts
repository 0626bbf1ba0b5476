/**
 * One transaction shared by a piece of work and everything it starts on this node (PostgreSQL): the
 * statements of every collection of the store, those of the actions it calls on this node included, run
 * on the transaction's connection and commit together. A batch of records costs one commit instead of
 * one per statement, which is what bounds many small writes on PostgreSQL (each commit waits for the
 * write-ahead log to reach the disk; docs/benchmarks.md "Imports on PostgreSQL: one transaction per batch").
 *
 * What the work tells others (bus events, cache cleaning) waits for the commit (`afterCommit`): a reader
 * told of a change before it is committed would read the state before it and keep that. Work under a
 * store lock runs outside the shared transaction (`outsideShared`), as it does without one: a lock held
 * across nodes guards writes that must be visible to the next holder when it is let go, which a
 * transaction still open would not be.
 *
 * A step inside the work (`transaction` of the driver within the scope) is a savepoint: a statement that
 * fails there marks the step, and the step is undone alone when it ends; when its code went on after the
 * error, the step throws `StepUndone` instead of answering. The rest of the shared transaction stands. SQLite needs none of this: its writes share commits
 * already (the driver's group commit).
 */
import { ScopedStorage } from "../scoped-storage";

/** A statement as the driver sends it on the shared connection. */
export type SharedQuery<Q, R> = (query: Q) => Promise<R>;

/** What every part of the work shares. */
export interface SharedState {
  /** Work told after the commit, in order; dropped when the transaction rolls back. */
  readonly after: Array<() => unknown>;
  /** Savepoints open, innermost last; `failed` once a statement failed inside it. */
  readonly steps: Array<{ name: string; failed: boolean }>;
  /** True once a statement failed outside any step: the transaction can only roll back. */
  failed: boolean;
  /** Savepoints made so far (their names). */
  made: number;
  /** The end of the last step begun: steps of the work take turns on its one connection. */
  turn: Promise<void>;
}

export interface SharedScope<Q = unknown, R = unknown> {
  /** The driver that opened it: another store's statements are not part of it. */
  readonly owner: object;
  readonly query: SharedQuery<Q, R>;
  readonly state: SharedState;
  /** Inside a step already (a step within it nests instead of waiting for its turn). */
  readonly inStep: boolean;
}

// the statement type is the driver's own: a scope is read back only by the driver that opened it (sharedScopeOf)
const scopes = new ScopedStorage<SharedScope<never, unknown>>();

/** The shared transaction of the current work, when `owner` opened it. */
export function sharedScopeOf<Q, R>(owner: object): SharedScope<Q, R> | undefined {
  const scope = scopes.getStore();
  return scope && scope.owner === owner ? (scope as SharedScope<Q, R>) : undefined;
}

/** Runs `fn` inside `scope`. */
export function runShared<T, Q, R>(scope: SharedScope<Q, R>, fn: () => Promise<T>): Promise<T> {
  return scopes.run(scope, fn);
}

/** Runs `fn` outside any shared transaction (its statements commit on their own). */
export function outsideShared<T>(fn: () => T): T {
  return scopes.getStore() ? scopes.exit(fn) : fn();
}

/**
 * Runs `fn` now, or once the shared transaction of the current work has committed (never if it rolls
 * back): what tells others of a write waits for the write to be visible to them.
 */
export async function afterCommit(fn: () => unknown): Promise<void> {
  const scope = scopes.getStore();
  if (scope) scope.state.after.push(fn);
  else await fn();
}

/**
 * A step was undone because one of its statements failed, though its work went on and answered: what it
 * answered was not written.
 */
export class StepUndone extends Error {
  constructor() {
    super("a statement of this step failed: the step was undone");
    this.name = "StepUndone";
  }
}

/** Notes a failed statement: its step (or, outside any, the whole transaction) is to be undone. */
export function noteFailure<Q, R>(scope: SharedScope<Q, R>): void {
  const step = scope.state.steps[scope.state.steps.length - 1];
  if (step) step.failed = true;
  else scope.state.failed = true;
}
