/**
 * Work over many items with a bounded number in flight: each item's `fn` starts as soon as fewer than
 * `width` are running. A store reached over the network (PostgreSQL) answers several statements at once
 * on its pool's connections, where one after another each waits for its own round trip (a daily series'
 * 729 occurrences: domain/events/series-horizon.ts `materialiseOnce`).
 *
 * After a failure no new item starts; the ones running settle, then the first failure is thrown. Items
 * are started in order; they may finish in any order.
 */
export async function boundedEach<T>(items: readonly T[], width: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  const limit = Math.max(1, Math.floor(width));
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        await fn(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.error;
}
