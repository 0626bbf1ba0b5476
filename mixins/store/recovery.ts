/**
 * Start-up check of an embedded store file (C27), before NeDB loads it.
 *
 * NeDB appends one JSON line per write and answers the write once the line is written, so a process that
 * is killed can leave at most one damaged line: the last one, cut short while it was being appended. That
 * write was never acknowledged. Everything else in a data file is complete lines.
 *
 * - A damaged LAST line (a torn append) is moved out of the way: its bytes are kept in
 *   `<file>.torn-<timestamp>` next to the file, the file is rewritten (atomically) with every complete line,
 *   and a warning names the file, the line and where its bytes went. Nothing acknowledged is lost.
 * - Damage anywhere else is not a crash artefact: start-up stops with an error naming the file and the
 *   lines, and nothing is changed (NeDB's own corruptAlertThreshold stays 0 as a second guard).
 */
import * as fs from "fs";
import * as path from "path";

export class CorruptDataFileError extends Error {
  constructor(readonly file: string, readonly lines: number[]) {
    super(
      `The data file ${file} has ${lines.length} damaged line${lines.length === 1 ? "" : "s"} (line ${lines.join(", ")}) before its end, ` +
      "which a crash cannot cause. Refusing to start rather than drop records silently: restore the file from a backup, " +
      "or move the damaged lines out of it, then start again."
    );
    this.name = "CorruptDataFileError";
  }
}

export interface Recovery {
  file: string;
  /** 1-based number of the torn line that was moved out. */
  line: number;
  /** Where its bytes were kept. */
  keptIn: string;
}

function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/** The last non-empty line of `raw`. */
function lastLine(raw: string): string {
  const end = raw.trimEnd().length;
  return raw.slice(raw.lastIndexOf("\n", end - 1) + 1, end);
}

/** Writes `content` to `file` through a temporary file, flushed and renamed over it. */
function replaceFile(file: string, content: string): void {
  const tmp = `${file}.recovering`;
  const fd = fs.openSync(tmp, "w");
  try {
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  try {
    const dir = fs.openSync(path.dirname(file), "r");
    fs.fsyncSync(dir);
    fs.closeSync(dir);
  } catch {
    /* directories cannot be flushed on every platform */
  }
}

/**
 * Checks one data file; recovers a torn last line, throws CorruptDataFileError for any other damage.
 * Answers what was recovered, or undefined when the file was sound (or absent).
 */
export function checkDataFile(
  file: string, warn: (msg: string) => void = msg => console.warn(msg), opts: { lastLineFirst?: boolean } = {},
): Recovery | undefined {
  if (!fs.existsSync(file)) return undefined;
  const raw = fs.readFileSync(file, "utf8");
  if (raw === "") return undefined;
  // Start-up: a sound last line (the only one a crash can tear) is enough here; damage before it makes
  // NeDB refuse the file (corruptAlertThreshold 0), and the store runs the whole check to say where.
  if (opts.lastLineFirst && parses(lastLine(raw))) return undefined;
  const lines = raw.split("\n");
  const damaged: number[] = [];
  let last = -1;
  lines.forEach((line, i) => {
    if (line === "") return;
    last = i;
    if (!parses(line)) damaged.push(i);
  });
  if (damaged.length === 0) return undefined;
  if (damaged.length > 1 || damaged[0] !== last) throw new CorruptDataFileError(file, damaged.map(i => i + 1));

  const keptIn = `${file}.torn-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  fs.writeFileSync(keptIn, lines[last]);
  const complete = lines.slice(0, last).filter(line => line !== "");
  replaceFile(file, complete.length ? `${complete.join("\n")}\n` : "");
  const recovery = { file, line: last + 1, keptIn };
  warn(`Recovered ${file}: its last line (line ${recovery.line}) was cut short by a crash and was never acknowledged; ` +
    `its ${Buffer.byteLength(lines[last])} bytes were moved to ${keptIn}, every complete record was kept.`);
  return recovery;
}
