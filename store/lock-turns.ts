/**
 * This process's side of the store's lock (`SqlDriver.withLock`, `Store.withLock`). The holders of one
 * key in this process take turns in the order they asked, so one waiter per key and process goes to the
 * lock shared across processes (PostgreSQL's advisory lock, SQLite's lock row), instead of every writer
 * of the process asking the database again and again while it waits. Work that holds a key and asks for
 * it again is its holder already and runs at once (re-entrant by call context), where a queue would make
 * it wait for itself. Work a holder started that asks only after the holder let the key go takes its turn
 * like any other.
 */
import { ScopedStorage } from "./scoped-storage";
import { KeyedQueue } from "../lib/async/queue";

/** A key held by the current work, and the holds it runs inside. */
interface Hold {
  key: number;
  /** False once its holder let the key go (work it started may still run). */
  open: boolean;
  outer?: Hold;
}

export interface LockTurns {
  /**
   * Runs `fn` as this process's holder of `key`, once the earlier holders here have finished; `across`
   * takes the lock of the other processes around `fn` (none given: this process's turn is the lock).
   */
  hold<T>(key: number, fn: () => Promise<T>, across?: (fn: () => Promise<T>) => Promise<T>): Promise<T>;
}

export function lockTurns(): LockTurns {
  const turns = new KeyedQueue();
  const holds = new ScopedStorage<Hold>();
  const held = (key: number): boolean => {
    for (let hold = holds.getStore(); hold; hold = hold.outer) if (hold.open && hold.key === key) return true;
    return false;
  };
  return {
    hold<T>(key: number, fn: () => Promise<T>, across: (fn: () => Promise<T>) => Promise<T> = f => f()): Promise<T> {
      if (held(key)) return fn();
      return turns.run(String(key), () => across(async () => {
        const hold: Hold = { key, open: true, outer: holds.getStore() };
        try {
          return await holds.run(hold, fn);
        } finally {
          hold.open = false;
        }
      }));
    }
  };
}
