/**
 * Reads shared by the writes of one batch (an import's slice written in one transaction): the writes of
 * a batch each check the same few things (the site's field definitions, the venue and terms they link),
 * and reading them once for the batch instead of once for each record takes an action call and a
 * statement off every record. The batch's caller puts a `BatchReads` on the calls' meta (`batchReads`,
 * passed on to the calls they make); a call without one reads as before. What is kept is only what a
 * write made a moment later would read again: a change made by another writer meanwhile is a race either
 * way, as between a write's check and its write.
 */
export type BatchReads = Map<string, Promise<unknown>>;

/** The batch's reads on a call's meta, if it carries them (a call from another node carries none). */
export function batchReadsOf(meta: unknown): BatchReads | undefined {
  const reads = (meta as { batchReads?: unknown } | undefined)?.batchReads;
  return reads instanceof Map ? (reads as BatchReads) : undefined;
}

/** `read()`'s answer, read once for the batch under `key` (a failed read is not kept: the next asks again). */
export function readOnce<T>(reads: BatchReads | undefined, key: string, read: () => Promise<T>): Promise<T> {
  if (!reads) return read();
  let kept = reads.get(key) as Promise<T> | undefined;
  if (!kept) {
    kept = read();
    reads.set(key, kept);
    kept.catch(() => reads.delete(key));
  }
  return kept;
}
