/**
 * PostgreSQL: how far a reader of the change feed may go (C43). An entry's id is its writing
 * transaction's id (xid8) times FEED_ID_STRIDE plus its rank in that transaction (store/sql/term-counts.ts
 * `feed_id`), so every entry a transaction still running may yet commit lies at or above that
 * transaction's id. The horizon is the oldest transaction of this database still running (or, when none
 * runs, the next id to be given out), read before the feed is: every entry below it belongs to a
 * transaction that has ended, and is visible to the read that follows if it committed. A reader passes
 * nothing at or above it, so a change is never skipped however long its transaction ran; it waits for it.
 *
 * A transaction that takes an id after the horizon was read gets one at or above the snapshot's `xmax`,
 * which the horizon never exceeds. Transactions of other databases of the server are not waited for.
 * SQLite needs none of this: its writers take the database's lock in turn and number their entries
 * under it (one past the highest), so entries become visible in their order.
 */
import type { SqlDriver } from "./driver";
import { FEED_ID_STRIDE } from "./term-counts";

const XID_SPAN = 4294967296;

/**
 * `backend_xid` is a 32-bit xid: widened to the xid8 nearest below the snapshot's `xmax` (a running
 * transaction is never 2^31 ids old).
 */
const HORIZON =
  "WITH s AS (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS n) " +
  `SELECT LEAST(s.n, COALESCE((SELECT MIN(s.n - ((s.n % ${XID_SPAN} - a.backend_xid::text::bigint + ${XID_SPAN}) % ${XID_SPAN})) ` +
  "FROM pg_stat_activity AS a WHERE a.datname = current_database() AND a.backend_xid IS NOT NULL), s.n), " +
  `COALESCE((SELECT MIN(s.n - ((s.n % ${XID_SPAN} - p.transaction::text::bigint + ${XID_SPAN}) % ${XID_SPAN})) ` +
  "FROM pg_prepared_xacts AS p WHERE p.database = current_database()), s.n)) AS h FROM s";

/** The first feed id a reader may not pass yet (entries below it are final). */
export async function feedHorizon(driver: SqlDriver): Promise<number> {
  const [row] = await driver.all<{ h: string | number }>(HORIZON);
  return Number(row.h) * FEED_ID_STRIDE;
}
