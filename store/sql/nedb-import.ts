/**
 * A DATA_DIR written by the NeDB version (one `<collection>.db` file of JSON lines per collection, plus
 * `ids.db`) is imported once into the SQLite database at the first start (C39: migrations and upgrades); the old files are kept,
 * renamed `<file>.imported`. A file is read as NeDB wrote it: one document per line, a later line for the
 * same `_id` replacing the earlier one, `$$deleted` lines removing it, `$$indexCreated` lines ignored and
 * `{"$$date": ms}` values read as the number of milliseconds.
 */
import * as fs from "fs";
import * as path from "path";
import type { SqlDriver } from "./driver";
import { RECORD_TABLES } from "./schema";

type Json = Record<string, unknown>;

function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (value && typeof value === "object") {
    const o = value as Json;
    if (Object.keys(o).length === 1 && typeof o.$$date === "number") return o.$$date;
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, revive(v)]));
  }
  return value;
}

/** The documents of one NeDB file, as NeDB itself would load them. */
export function readNedbFile(file: string): Json[] {
  const docs = new Map<string, Json>();
  const lines = fs.readFileSync(file, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let doc: Json;
    try {
      doc = JSON.parse(line) as Json;
    } catch {
      throw new Error(`${file}: line ${i + 1} is not a JSON document; the NeDB data cannot be imported as it is`);
    }
    if ("$$indexCreated" in doc) return;
    const key = JSON.stringify(doc._id);
    if (doc.$$deleted === true) docs.delete(key);
    else docs.set(key, revive(doc) as Json);
  });
  return [...docs.values()];
}

const NEDB_FILES = [...Object.keys(RECORD_TABLES).filter(t => t !== "idempotency_keys" && t !== "deprecation_uses"), "ids"].map(name => `${name}.db`);

/** Whether `dataDir` holds NeDB files that were never imported. */
export function hasNedbData(dataDir: string): boolean {
  return NEDB_FILES.some(f => fs.existsSync(path.join(dataDir, f)));
}

/** Imports every NeDB file of `dataDir` into the (new, migrated) database in one transaction; answers the counts. */
export async function importNedb(driver: SqlDriver, dataDir: string, site = 1): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const present = NEDB_FILES.filter(f => fs.existsSync(path.join(dataDir, f)));
  await driver.transaction(async tx => {
    for (const file of present) {
      const name = file.slice(0, -3);
      const docs = readNedbFile(path.join(dataDir, file));
      if (name === "ids") {
        for (const doc of docs) {
          const id = String(doc._id);
          if (id.startsWith("seq:") && id !== "seq:posts") {
            await tx.run("INSERT INTO sequences (site, name, value) VALUES (?, ?, ?) ON CONFLICT (site, name) DO UPDATE SET value = excluded.value", [site, id.slice(4), Number(doc.seq)]);
          } else if (id.startsWith("id:")) {
            await tx.run("INSERT INTO post_types (site, id, type, url, extension) VALUES (?, ?, ?, ?, ?)",
              [site, Number(id.slice(3)), String(doc.type), (doc.url as string | undefined) ?? null, (doc.extension as string | undefined) ?? null]);
          }
        }
      } else {
        for (const doc of docs) {
          const { _id, ...body } = doc;
          await tx.run(`INSERT INTO ${name} (site, id, doc) VALUES (?, ?, jsonb(?))`, [site, RECORD_TABLES[name].textId ? String(_id) : Number(_id), JSON.stringify(body)]);
        }
      }
      counts[name] = docs.length;
    }
  });
  // Kept, out of the way: a later start does not import them again.
  for (const file of [...present, "idempotency.db"]) {
    const from = path.join(dataDir, file);
    if (fs.existsSync(from)) fs.renameSync(from, `${from}.imported`);
  }
  return counts;
}
