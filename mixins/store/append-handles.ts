/**
 * NeDB appends one line per write with fs.appendFile, which opens, writes and closes the file each time
 * (three thread-pool round trips). Here each data file keeps one descriptor open in append mode and a
 * line is written with one synchronous write(2): the same durability as before (the line is in the OS
 * before the write is answered; neither fsyncs), at a fraction of the cost. Measured on the 2-core
 * bench machine: an append through the thread pool costs 50–150 µs of CPU (most of it handing the
 * request to a pool thread and back), a synchronous one 2–5 µs. A rewrite of the file (NeDB compacts on
 * every load) closes the descriptor first, so no write goes to a replaced file.
 */
import * as fs from "fs";
import { patchEveryNedb } from "./nedb-modules";

const descriptors = new Map<string, number>();

function closeDescriptor(filename: string): void {
  const fd = descriptors.get(filename);
  if (fd === undefined) return;
  descriptors.delete(filename);
  try {
    fs.closeSync(fd);
  } catch {
    /* already closed */
  }
}

function descriptorFor(filename: string, mode?: number): number {
  let fd = descriptors.get(filename);
  if (fd === undefined) {
    fd = fs.openSync(filename, "a", mode);
    descriptors.set(filename, fd);
  }
  return fd;
}

/** Writes all of `data` at the end of the file (a short write, e.g. a full disk, is continued or throws). */
function appendLine(filename: string, data: string, mode?: number): void {
  const fd = descriptorFor(filename, mode);
  const bytes = Buffer.from(data);
  for (let written = 0; written < bytes.length; ) written += fs.writeSync(fd, bytes, written);
}

/** Applies the descriptor-keeping append to a NeDB storage module (both copies in node_modules). */
function patchStorage(storage: any): void {
  if (!storage || storage.__appendHandles) return;
  const rewrite = storage.crashSafeWriteFileLinesAsync;
  storage.appendFileAsync = async (filename: string, data: string, opts?: { mode?: number }) => appendLine(filename, data, opts?.mode);
  storage.crashSafeWriteFileLinesAsync = async (filename: string, ...rest: unknown[]) => {
    closeDescriptor(filename);
    return rewrite(filename, ...rest);
  };
  storage.__appendHandles = true;
}

patchEveryNedb("storage", patchStorage);

/** Closes every kept descriptor (tests that rewrite data files between starts). */
export async function closeAppendHandles(): Promise<void> {
  for (const filename of [...descriptors.keys()]) closeDescriptor(filename);
}
