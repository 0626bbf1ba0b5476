/**
 * Group commit: requests arriving while a batch is being written join the next batch, so a store that
 * pays per write (NeDB appends one line per operation) pays once per batch under load, and nothing
 * waits when there is no load. Each caller gets its own result, or the batch's error.
 */
export function groupCommit<T, R>(writeMany: (items: T[]) => Promise<R[]>): (item: T) => Promise<R> {
  let queue: Array<{ item: T; resolve: (r: R) => void; reject: (err: unknown) => void }> = [];
  let writing = false;

  const flush = (): void => {
    if (writing || queue.length === 0) return;
    writing = true;
    const batch = queue;
    queue = [];
    writeMany(batch.map(b => b.item)).then(
      results => batch.forEach((b, i) => b.resolve(results[i])),
      err => batch.forEach(b => b.reject(err))
    ).finally(() => {
      writing = false;
      flush();
    });
  };

  return item => new Promise<R>((resolve, reject) => {
    queue.push({ item, resolve, reject });
    if (!writing) setImmediate(flush);
  });
}
