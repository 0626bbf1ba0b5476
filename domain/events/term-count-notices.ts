/**
 * What follows writes of events that moved term counts (docs/records.md#term-counts): the counts
 * themselves moved with each write, in its transaction (store/sql/term-counts.ts; MongoDB:
 * store/mongo/store.ts); here the kept answers that show counts are cleaned (terms, their lists and the
 * events embedding them; C16: read your writes; cache/staleness.ts termCountPatterns) and each term's update is told on the bus, before the write is
 * answered. Shared by the writer of one event (domain/events/event-writer.ts), the series planner
 * (domain/events/series-planner.ts) and the other writes of events (domain/events/event-commands.ts).
 */
import type { EventDoc } from "../../lib/events/event-doc";
import { termDeltas } from "../../lib/terms/term-counts";
import { nowDb } from "../../lib/time/dates";

export interface TermCountNoticesDeps {
  /** Cleans the site's kept answers that show term counts (cache/staleness.ts termCountPatterns). */
  cleanCaches(): Promise<void>;
  /** Tells the bus (`calendar.<type>.<action>`). */
  emit(event: string, payload: Record<string, unknown>): void;
  now(): Date;
}

export class TermCountNotices {
  constructor(private readonly deps: TermCountNoticesDeps) {}

  /** After writes, each a pair of the event as found and as left (undefined / null: none). */
  async afterWrites(pairs: Array<[EventDoc | null | undefined, EventDoc | null | undefined]>): Promise<void> {
    const deltas = termDeltas(pairs);
    if (!deltas.size) return;
    await this.deps.cleanCaches();
    const now = nowDb(this.deps.now());
    for (const [id, { type }] of deltas) this.deps.emit(`calendar.${type}.updated`, { id, modified_utc: now });
  }
}
