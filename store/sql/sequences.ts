/**
 * The store's numbering on PostgreSQL (post and term ids, the change feed's entries): one sequence object
 * per site and name, `seq_<site>_<name>`, made on first use. A counter row would be locked from the
 * statement that moves it until its transaction commits, so every writer would wait for the previous
 * one's commit to reach the disk; a sequence hands out numbers without a lock, and writers commit side by
 * side (the change feed's readers wait at numbers not yet committed, docs/sync.md#the-change-feed, C43: the change feed on PostgreSQL).
 *
 * A sequence starts past every number drawn before it existed: the `sequences` row of the same name (the
 * counters of the first schema) and the highest id of the table it numbers. SQLite keeps numbering by
 * the highest id (its writers hold the database's lock), so this module is PostgreSQL's alone.
 */
import type { SqlDriver } from "./driver";

export interface PgSequences {
  /** The sequence's name (safe to splice into a statement), made on first use. */
  of(site: number, name: string, table: string): Promise<string>;
}

const NAME = /^[a-z][a-z0-9_]*$/;

export function pgSequences(driver: SqlDriver): PgSequences {
  const made = new Map<string, Promise<string>>();
  const make = async (site: number, name: string, table: string): Promise<string> => {
    if (!Number.isInteger(site) || site < 0 || !NAME.test(name) || !NAME.test(table)) throw new Error(`not a sequence: ${site} ${name} ${table}`);
    const seq = `seq_${site}_${name}`;
    const [row] = await driver.all<{ start: number | string }>(
      `SELECT GREATEST(COALESCE((SELECT value FROM sequences WHERE site = ? AND name = ?), 0), COALESCE((SELECT MAX(id) FROM ${table} WHERE site = ?), 0)) + 1 AS start`,
      [site, name, site]
    );
    try {
      await driver.run(`CREATE SEQUENCE IF NOT EXISTS ${seq} START WITH ${Number(row.start)}`);
    } catch (err) {
      // another node made it at the same moment (its catalog row won): it exists, which is all we need
      if (!/already exists|unique constraint/i.test((err as Error).message)) throw err;
    }
    return seq;
  };
  return {
    of(site, name, table) {
      const key = `${site}:${name}`;
      let seq = made.get(key);
      if (!seq) {
        seq = make(site, name, table);
        made.set(key, seq);
        seq.catch(() => made.delete(key));
      }
      return seq;
    }
  };
}
