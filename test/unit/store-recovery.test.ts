import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { checkDataFile, CorruptDataFileError } from "../../mixins/store/recovery";

describe("start-up check of embedded store files (mixins/store/recovery.ts)", () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "recovery-")); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = () => path.join(dir, "events.db");
  const docs = ["{\"_id\":1,\"title\":\"a\"}", "{\"_id\":2,\"title\":\"b\"}", "{\"$$indexCreated\":{\"fieldName\":\"slug\"}}"];

  test("sound, empty and missing files pass untouched", () => {
    expect(checkDataFile(file())).toBeUndefined();
    fs.writeFileSync(file(), "");
    expect(checkDataFile(file())).toBeUndefined();
    fs.writeFileSync(file(), docs.join("\n") + "\n");
    expect(checkDataFile(file())).toBeUndefined();
    expect(fs.readFileSync(file(), "utf8")).toBe(docs.join("\n") + "\n");
  });

  test("a torn last line is moved to a side file, reported, and every complete line kept", () => {
    fs.writeFileSync(file(), docs.join("\n") + "\n{\"_id\":3,\"tit");
    const warnings: string[] = [];
    const r = checkDataFile(file(), msg => warnings.push(msg))!;
    expect(r.line).toBe(4);
    expect(fs.readFileSync(file(), "utf8")).toBe(docs.join("\n") + "\n");
    expect(fs.readFileSync(r.keptIn, "utf8")).toBe("{\"_id\":3,\"tit");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(file());
    expect(fs.readdirSync(dir).filter(f => f.endsWith(".recovering"))).toEqual([]);
    // a torn line that ended with its newline is the last line too
    fs.appendFileSync(file(), "garbage\n");
    expect(checkDataFile(file(), () => undefined)?.line).toBe(4);
  });

  test("damage before the end stops with an error naming the file and lines; nothing is changed", () => {
    const content = [docs[0], "not json", docs[1], "{bad", docs[2]].join("\n") + "\n";
    fs.writeFileSync(file(), content);
    expect(() => checkDataFile(file())).toThrow(CorruptDataFileError);
    try {
      checkDataFile(file());
    } catch (err) {
      expect((err as Error).message).toContain(file());
      expect((err as CorruptDataFileError).lines).toEqual([2, 4]);
    }
    expect(fs.readFileSync(file(), "utf8")).toBe(content);
  });

  test("at start-up (lastLineFirst) a sound last line ends the check; a torn one is recovered as before", () => {
    const content = [docs[0], "not json", docs[1]].join("\n") + "\n";
    fs.writeFileSync(file(), content);
    // damage before the end is left to the store's load, which refuses the file and runs the whole check
    expect(checkDataFile(file(), () => undefined, { lastLineFirst: true })).toBeUndefined();
    expect(fs.readFileSync(file(), "utf8")).toBe(content);
    fs.writeFileSync(file(), docs.join("\n") + "\n{\"_id\":3,\"tit");
    expect(checkDataFile(file(), () => undefined, { lastLineFirst: true })?.line).toBe(4);
    expect(fs.readFileSync(file(), "utf8")).toBe(docs.join("\n") + "\n");
  });
});
