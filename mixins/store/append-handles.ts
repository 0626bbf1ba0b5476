/**
 * NeDB appends one line per write with fs.appendFile, which opens, writes and closes the file each time
 * (three thread-pool round trips). Here each data file keeps one handle open in append mode: one write per
 * append, the same durability (the line is in the OS before the write is answered). A rewrite of the file
 * (NeDB compacts on every load) closes the handle first, so no write goes to a replaced file.
 */
import * as fs from "fs";

const handles = new Map<string, Promise<fs.promises.FileHandle>>();

async function closeHandle(filename: string): Promise<void> {
  const h = handles.get(filename);
  if (!h) return;
  handles.delete(filename);
  try {
    await (await h).close();
  } catch {
    /* already closed or never opened */
  }
}

function handleFor(filename: string, mode?: number): Promise<fs.promises.FileHandle> {
  let h = handles.get(filename);
  if (!h) {
    h = fs.promises.open(filename, "a", mode);
    handles.set(filename, h);
    h.catch(() => handles.delete(filename));
  }
  return h;
}

/** Applies the handle-keeping append to a NeDB storage module (both copies in node_modules). */
function patchStorage(storage: any): void {
  if (!storage || storage.__appendHandles) return;
  const rewrite = storage.crashSafeWriteFileLinesAsync;
  storage.appendFileAsync = async (filename: string, data: string, opts?: { mode?: number }) => {
    const fh = await handleFor(filename, opts?.mode);
    await fh.write(data);
  };
  storage.crashSafeWriteFileLinesAsync = async (filename: string, ...rest: unknown[]) => {
    await closeHandle(filename);
    return rewrite(filename, ...rest);
  };
  storage.__appendHandles = true;
}

for (const path of ["@seald-io/nedb/lib/storage", "moleculer-db/node_modules/@seald-io/nedb/lib/storage"]) {
  try {
    patchStorage(require(path));
  } catch {
    /* that copy is not installed */
  }
}

/** Closes every kept handle (tests that rewrite data files between starts). */
export async function closeAppendHandles(): Promise<void> {
  await Promise.all([...handles.keys()].map(closeHandle));
}
