/**
 * A run's new records written as one shared transaction (lib/imports/run.ts `writeAll`, ImportPorts
 * `shared`), without a broker: the new records of a slice go through one `run`, each a `step`; a step
 * undone is written again on its own, a `run` that fails has each of its records written again on its
 * own, and every record is created and counted once whatever happened. The store's side (what a step and
 * a shared transaction undo) is test/integration/store-shared-transaction.test.ts.
 */
import { emptyCounts, ImportRun, type ImportPorts } from "../../lib/imports/run";
import { memoryCollection } from "../helpers/memory-store";

const feed = (n: number) => ["BEGIN:VCALENDAR", "VERSION:2.0",
  ...Array.from({ length: n }, (_, i) => ["BEGIN:VEVENT", `UID:e${i}`, `SUMMARY:Event ${i}`, `DTSTART:2027${String(1 + (i % 12)).padStart(2, "0")}10T100000Z`, "END:VEVENT"].join("\r\n")),
  "END:VCALENDAR"].join("\r\n");

interface Seen { creates: string[]; runs: number; steps: number; outside: string[] }

async function importWith(n: number, shared: (seen: Seen) => ImportPorts["shared"]): Promise<{ seen: Seen; counts: ReturnType<typeof emptyCounts> }> {
  const mappings = (await memoryCollection("import_records", [{ field: "key", unique: true }, { field: "feed" }])).col;
  const seen: Seen = { creates: [], runs: 0, steps: 0, outside: [] };
  let inRun = false;
  let nextId = 100;
  const ports: ImportPorts = {
    fetch: async () => { throw new Error("no fetch in this test"); },
    call: async <T>(action: string, params: Record<string, unknown>) => {
      if (action !== "events.create") throw new Error(`unexpected ${action}`);
      seen.creates.push(String(params.title));
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
    ports.shared = {
      run: async fn => {
        seen.runs++;
        inRun = true;
        try {
          return await made.run(fn);
        } finally {
          inRun = false;
        }
      },
      step: fn => made.step(fn)
    };
  }
  const counts = emptyCounts();
  await new ImportRun({ id: 1, run: 1, settings: { type: "ics", ics: feed(n), update: "overwrite", trash_missing: false } }, ports, counts).run();
  return { seen, counts };
}

const undone = () => Object.assign(new Error("a statement of this step failed"), { name: "StepUndone" });

describe("an import's new records in one shared transaction", () => {
  test("each slice's new records go through one run, one step each, and are created once", async () => {
    const { seen, counts } = await importWith(120, s => ({ run: fn => fn(), step: fn => { s.steps++; return fn(); } }));
    // slices of 50: 50, 50, 20
    expect(seen.runs).toBe(3);
    expect(seen.creates).toHaveLength(120);
    expect(new Set(seen.creates).size).toBe(120);
    expect(seen.outside).toEqual([]);
    expect(counts).toMatchObject({ created: 120, failed: 0, updated: 0 });
  });

  test("a step undone is written again on its own and counted once", async () => {
    const { seen, counts } = await importWith(10, () => {
      let k = 0;
      let depth = 0;
      // the fourth record's step is undone (as the store undoes one whose statement failed): nothing of it
      // stays (the steps inside a record's step, its mapping row's, are not counted)
      return {
        run: fn => fn(),
        step: async fn => {
          if (depth === 0 && ++k === 4) throw undone();
          depth++;
          try {
            return await fn();
          } finally {
            depth--;
          }
        }
      };
    });
    expect(seen.outside).toEqual(["Event 3"]);
    expect(seen.creates.filter(t => t === "Event 3")).toHaveLength(1);
    expect(seen.creates).toHaveLength(10);
    expect(counts).toMatchObject({ created: 10, failed: 0 });
  });

  test("a shared transaction that fails has each of its records written again on its own, counted once", async () => {
    const { seen, counts } = await importWith(10, () => ({
      // the commit refused: nothing of the work stands (here: the work never ran)
      run: async () => { throw new Error("could not commit"); },
      step: fn => fn()
    }));
    expect(seen.outside).toHaveLength(10);
    expect(new Set(seen.creates).size).toBe(10);
    expect(counts).toMatchObject({ created: 10, failed: 0, errors: [] });
  });

  test("without a shared transaction (SQLite, MongoDB) the records are written as before", async () => {
    const { seen, counts } = await importWith(60, () => undefined);
    expect(seen.runs).toBe(0);
    expect(seen.outside).toHaveLength(60);
    expect(counts).toMatchObject({ created: 60 });
  });
});
