/**
 * A run's new records written as one shared transaction (domain/imports/import-run.ts `writeAll`, ImportPorts
 * `shared`), without a broker: the new records of a slice go through one shared transaction; one that
 * fails has each of its records written again on its own, and every record is created and counted once
 * whatever happened. The store's side (what a shared transaction commits and undoes) is
 * test/integration/store-shared-transaction.test.ts.
 */
import { emptyCounts, ImportRun, type ImportPorts } from "../../domain/imports/import-run";
import { memoryCollection } from "../helpers/memory-store";
import type { BatchReads } from "../../lib/imports/batch-reads";
import type { Collection, Doc } from "../../store/collection";

const feed = (n: number) => ["BEGIN:VCALENDAR", "VERSION:2.0",
  ...Array.from({ length: n }, (_, i) => ["BEGIN:VEVENT", `UID:e${i}`, `SUMMARY:Event ${i}`, `DTSTART:2027${String(1 + (i % 12)).padStart(2, "0")}10T100000Z`, "END:VEVENT"].join("\r\n")),
  "END:VCALENDAR"].join("\r\n");

interface Seen {
  creates: string[];
  runs: number;
  outside: string[];
  /** The batch reads each create carried (undefined: none). */
  batches: Array<BatchReads | undefined>;
  /** Writes of mapping rows while each create's record had no row yet: inserts and updates, by key. */
  rowWrites: Map<string, number>;
  /** Each appendAll: the keys it stored, and how many creates were made before it. */
  appendAlls: Array<{ keys: string[]; afterCreates: number }>;
}

async function importWith(n: number, shared: (seen: Seen) => ImportPorts["shared"], refuse?: string, several = false): Promise<{ seen: Seen; counts: ReturnType<typeof emptyCounts> }> {
  const stored = (await memoryCollection("import_records", [{ field: "key", unique: true }, { field: "feed" }])).col;
  const seen: Seen = { creates: [], runs: 0, outside: [], batches: [], rowWrites: new Map(), appendAlls: [] };
  const wrote = (key: unknown) => seen.rowWrites.set(String(key), (seen.rowWrites.get(String(key)) ?? 0) + 1);
  // the rows' writes counted: a new record's row is one write inside a batch, a reservation and its fill-in outside
  const mappings: Collection = {
    ...stored,
    append: async (doc: Doc, carry) => { wrote(doc.key); return stored.append(doc, carry); },
    // a store that appends several rows in one statement (PostgreSQL): what each call held, and how many creates came before it
    ...(several ? {
      appendAll: async (docs: readonly Doc[]) => {
        seen.appendAlls.push({ keys: docs.map(d => String(d.key)), afterCreates: seen.creates.length });
        const out = [];
        for (const doc of docs) {
          wrote(doc.key);
          out.push(await stored.append(doc));
        }
        return out;
      }
    } : {}),
    updateOne: async (query, update, opts) => {
      const row = await stored.updateOne(query, update, opts);
      if (row) wrote(row.key);
      return row;
    }
  };
  let inRun = false;
  let nextId = 100;
  const ports: ImportPorts = {
    fetch: async () => { throw new Error("no fetch in this test"); },
    call: async <T>(action: string, params: Record<string, unknown>, _source?: unknown, batch?: BatchReads) => {
      if (action !== "events.create") throw new Error(`unexpected ${action}`);
      if (params.title === refuse) throw new Error("refused");
      seen.creates.push(String(params.title));
      seen.batches.push(batch);
      if (!inRun) seen.outside.push(String(params.title));
      return { id: nextId++ } as T;
    },
    mappings,
    findImportedEvent: async () => undefined,
    progress: async () => true,
    sleep: async () => undefined,
    horizon: () => ({ utc: "2030-01-01 00:00:00", siteZone: "UTC" })
  };
  const made = shared(seen);
  if (made) {
    ports.shared = async <T>(fn: () => Promise<T>) => {
      seen.runs++;
      inRun = true;
      try {
        return await made(fn);
      } finally {
        inRun = false;
      }
    };
  }
  const counts = emptyCounts();
  await new ImportRun({ id: 1, run: 1, settings: { type: "ics", ics: feed(n), update: "overwrite", trash_missing: false } }, ports, counts).run();
  return { seen, counts };
}

describe("an import's new records in one shared transaction", () => {
  test("each slice's new records go through one shared transaction and are created once", async () => {
    const { seen, counts } = await importWith(120, () => fn => fn());
    // slices of 50: 50, 50, 20
    expect(seen.runs).toBe(3);
    expect(seen.creates).toHaveLength(120);
    expect(new Set(seen.creates).size).toBe(120);
    expect(seen.outside).toEqual([]);
    expect(counts).toMatchObject({ created: 120, failed: 0, updated: 0 });
  });

  test("a record its service refuses fails alone: the others of the transaction stand", async () => {
    const { seen, counts } = await importWith(10, () => fn => fn(), "Event 3");
    expect(seen.runs).toBe(1);
    expect(seen.outside).toEqual([]);
    expect(new Set(seen.creates).size).toBe(9);
    expect(counts).toMatchObject({ created: 9, failed: 1 });
    expect(counts.errors).toEqual([{ source: "events e3", message: "refused" }]);
  });

  test("a shared transaction that fails has each of its records written again on its own, counted once", async () => {
    // the commit refused: nothing of the work stands (here: the work never ran)
    const { seen, counts } = await importWith(10, () => async () => { throw new Error("could not commit"); });
    expect(seen.outside).toHaveLength(10);
    expect(new Set(seen.creates).size).toBe(10);
    expect(counts).toMatchObject({ created: 10, failed: 0, errors: [] });
  });

  test("without a shared transaction (SQLite, MongoDB) the records are written as before", async () => {
    const { seen, counts } = await importWith(60, () => undefined);
    expect(seen.runs).toBe(0);
    expect(seen.outside).toHaveLength(60);
    expect(counts).toMatchObject({ created: 60 });
    // no batch reads; each row reserved, then its id filled in
    expect(seen.batches.every(b => b === undefined)).toBe(true);
    expect([...seen.rowWrites.values()].every(n => n === 2)).toBe(true);
  });

  test("the writes of one batch share one set of reads, a set of their own for each batch", async () => {
    const { seen } = await importWith(120, () => fn => fn());
    const sets = [...new Set(seen.batches)];
    expect(sets).toHaveLength(3);
    expect(sets.every(b => b instanceof Map)).toBe(true);
    expect(seen.batches.slice(0, 50).every(b => b === sets[0])).toBe(true);
    expect(seen.batches.slice(100).every(b => b === sets[2])).toBe(true);
  });

  test("inside a batch a new record's mapping row is written once, complete, after its create", async () => {
    const { seen, counts } = await importWith(60, () => fn => fn());
    expect(counts).toMatchObject({ created: 60 });
    expect(seen.rowWrites.size).toBe(60);
    expect([...seen.rowWrites.values()].every(n => n === 1)).toBe(true);
  });

  test("where the store appends several rows at once, a batch's new rows are stored by one statement at its end", async () => {
    const { seen, counts } = await importWith(120, () => fn => fn(), undefined, true);
    expect(counts).toMatchObject({ created: 120 });
    expect(seen.appendAlls.map(a => [a.keys.length, a.afterCreates])).toEqual([[50, 50], [50, 100], [20, 120]]);
    expect([...seen.rowWrites.values()].every(n => n === 1)).toBe(true);
    expect(seen.rowWrites.size).toBe(120);
  });

  test("a batch's reads are kept for it alone: the writes written again after a failed batch carry none", async () => {
    const { seen } = await importWith(10, () => async () => { throw new Error("could not commit"); });
    expect(seen.batches).toHaveLength(10);
    expect(seen.batches.every(b => b === undefined)).toBe(true);
  });
});
