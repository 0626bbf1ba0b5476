/**
 * What writes one event from a write's parameters: a create (`current` undefined) or an update of
 * `current`; answers the stored event. The series planner (domain/events/series-planner.ts) writes each
 * event of a series through it. `C`: what the write carries from its caller (the request's context).
 */
import type { EventDoc } from "../../lib/events/event-record";

export interface EventWriter<C> {
  write(call: C, params: Record<string, unknown>, current: EventDoc | undefined): Promise<EventDoc>;
}
