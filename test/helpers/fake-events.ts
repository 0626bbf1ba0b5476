/**
 * A stand-in `events` service for the venue and organizer tests: it answers `unlinkPost` and
 * `linkedPostIds` (the contract the real events service provides) over an in-memory table the test fills.
 */
import type { ServiceBroker, Context } from "moleculer";
import type { Json } from "./json";

export interface FakeEvent {
  id: number;
  status: string;
  /** Local wall-clock start, DB format. */
  start: string;
  hidden?: boolean;
  venues: number[];
  organizers: number[];
}

type Kind = "venue" | "organizer";

export interface FakeEvents {
  events: Map<number, FakeEvent>;
  /** Every call received, for assertions. */
  calls: Array<{ action: string; params: Json }>;
  add(e: Partial<FakeEvent> & { id: number }): FakeEvent;
  clear(): void;
}

const linksOf = (e: FakeEvent, kind: Kind) => (kind === "venue" ? e.venues : e.organizers);

const pad = (n: number) => String(n).padStart(2, "0");
export function dbFromNow(days: number): string {
  const d = new Date(Date.now() + days * 86_400_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

export function registerFakeEvents(broker: ServiceBroker): FakeEvents {
  const state: FakeEvents = {
    events: new Map(),
    calls: [],
    add(e) {
      const full: FakeEvent = { status: "publish", start: dbFromNow(10), venues: [], organizers: [], ...e };
      state.events.set(full.id, full);
      return full;
    },
    clear() {
      state.events.clear();
      state.calls.length = 0;
    }
  };
  broker.createService({
    name: "events",
    actions: {
      unlinkPost(ctx: Context<{ kind: Kind; id: number }>) {
        state.calls.push({ action: "unlinkPost", params: ctx.params });
        for (const e of state.events.values()) {
          const list = linksOf(e, ctx.params.kind);
          const at = list.indexOf(ctx.params.id);
          if (at >= 0) list.splice(at, 1);
        }
        return true;
      },
      linkedPostIds(ctx: Context<{ kind: Kind; event?: number; hasEvents?: boolean; upcoming?: boolean; statuses?: string[] }>) {
        state.calls.push({ action: "linkedPostIds", params: ctx.params });
        const { kind, event, hasEvents, upcoming, statuses } = ctx.params;
        let events = [...state.events.values()];
        if (event !== undefined) {
          const e = state.events.get(event);
          if (!e) return null;
          events = [e];
        }
        if (hasEvents) events = events.filter(e => e.status !== "draft" && e.status !== "pending");
        if (upcoming) {
          const now = dbFromNow(0);
          events = events.filter(e => e.start >= now && !e.hidden && (statuses ?? ["publish"]).includes(e.status));
        }
        return [...new Set(events.flatMap(e => linksOf(e, kind)))];
      }
    }
  });
  return state;
}
