/**
 * The id registry (store/registry.ts) on SQL: a sequence is one row of `sequences`, moved on by an
 * atomic upsert (the row is locked for that statement only), so ids are unique across every node; the
 * owner of each post id is a row of `post_types`, and an image's URL is unique per site.
 */
import type { IdRegistry, ImageRecord, Sequence } from "../registry";
import type { PgSequences } from "./sequences";
import { SqlDriver, UniqueViolation } from "./driver";

/** The table whose ids a sequence numbers (where a new PostgreSQL sequence starts past, store/sql/sequences.ts). */
const NUMBERED: Record<Sequence, string> = { posts: "post_types", terms: "terms", changes: "changes" };

export function sqlRegistry(driver: SqlDriver, site: number, sequences?: PgSequences): IdRegistry {
  const next = async (seq: Sequence): Promise<number> => {
    const [row] = sequences
      ? await driver.all<{ value: number | string }>(`SELECT nextval('${await sequences.of(site, seq, NUMBERED[seq])}') AS value`)
      : await driver.all<{ value: number | string }>(
        "INSERT INTO sequences (site, name, value) VALUES (?, ?, 1) ON CONFLICT (site, name) DO UPDATE SET value = sequences.value + 1 RETURNING value",
        [site, seq]
      );
    return Number(row.value);
  };
  const image = (r: { id: number | string; url: string; extension: string }): ImageRecord => ({ id: Number(r.id), url: r.url, extension: r.extension });
  const findImage = async (url: string): Promise<ImageRecord | undefined> => {
    const [row] = await driver.all<{ id: number; url: string; extension: string }>("SELECT id, url, extension FROM post_types WHERE site = ? AND url = ?", [site, url]);
    return row ? image(row) : undefined;
  };
  return {
    async allocate(seq, type) {
      if (seq !== "posts") return next(seq);
      // One statement draws the id and records its type: on PostgreSQL from the site's sequence; on SQLite
      // (one writer at a time) the next id is one past the highest ever drawn.
      const [row] = sequences
        ? await driver.all<{ id: number | string }>(
          `INSERT INTO post_types (site, id, type) VALUES (?, nextval('${await sequences.of(site, "posts", NUMBERED.posts)}'), ?) RETURNING id`, [site, type])
        : await driver.all<{ id: number | string }>(
          "INSERT INTO post_types (site, id, type) SELECT ?, COALESCE(MAX(id), 0) + 1, ? FROM post_types WHERE site = ? RETURNING id", [site, type, site]);
      return Number(row.id);
    },
    async allocatePosts(type, count) {
      if (count <= 0) return [];
      // the ids drawn by one statement, as `allocate` draws one (SQLite: past the highest, a counter CTE numbering the rows)
      const rows = sequences
        ? await driver.all<{ id: number | string }>(
          `INSERT INTO post_types (site, id, type) SELECT ?, nextval('${await sequences.of(site, "posts", NUMBERED.posts)}'), ? FROM generate_series(1, ?::int) RETURNING id`, [site, type, count])
        : await driver.all<{ id: number | string }>(
          "INSERT INTO post_types (site, id, type) WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?) " +
          "SELECT ?, (SELECT COALESCE(MAX(id), 0) FROM post_types WHERE site = ?) + i, ? FROM k RETURNING id", [count, site, site, type]);
      return rows.map(r => Number(r.id)).sort((a, b) => a - b);
    },
    async typeOf(id) {
      const [row] = await driver.all<{ type: string }>("SELECT type FROM post_types WHERE site = ? AND id = ?", [site, id]);
      return row?.type;
    },
    async imageForUrl(url, extension) {
      const found = await findImage(url);
      if (found) return found;
      try {
        const id = await this.allocate("posts", "image");
        await driver.run("UPDATE post_types SET url = ?, extension = ? WHERE site = ? AND id = ?", [url, extension, site, id]);
        return { id, url, extension };
      } catch (err) {
        // Another writer made the record of this URL first: use theirs (the id drawn stays unused).
        if (err instanceof UniqueViolation) return (await findImage(url))!;
        throw err;
      }
    },
    async images(ids) {
      if (ids.length === 0) return [];
      const rows = await driver.all<{ id: number; url: string; extension: string }>(
        `SELECT id, url, extension FROM post_types WHERE site = ? AND type = 'image' AND id IN (${ids.map(() => "?").join(",")})`,
        [site, ...ids]
      );
      return rows.map(image);
    }
  };
}
