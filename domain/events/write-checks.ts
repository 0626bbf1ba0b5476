/**
 * The checks of an event write that need the store or other services (an image, a parent event, venues
 * and organizers, the series' rule): all are 400s before any permission check (D23: validation before permission), reported together
 * in one `rest_invalid_param` with the checks of the input itself (lib/events/event-input.ts).
 */
import { ApiError, ParamReason, throwIfInvalid } from "../../lib/errors";
import { settings } from "../../lib/settings";
import { checkEventInput } from "../../lib/events/event-input";
import { sent } from "../../lib/http/params";
import type { SeriesPlanner } from "./series-planner";
import type { EventTargets } from "./event-targets";
import type { EventCall, NeighbourServices, PostServices } from "./event-ports";
import { noteCheckedLinks } from "./checked-links";
import { sendsAttendance } from "./event-status-rule";
import { checkAttendance } from "../../lib/events/event-status";
import type { RecordFields } from "../fields/record-fields";

export interface WriteChecksDeps<C extends EventCall> {
  targets: EventTargets;
  services: NeighbourServices<C>;
  posts: PostServices<C>;
  series: SeriesPlanner<C>;
  fields?: RecordFields<C>;
}

export class EventWriteChecks<C extends EventCall> {
  constructor(private readonly deps: WriteChecksDeps<C>) {}

  /** Every check of a write's params `p` (`p.id`: the event it updates); throws one 400 naming each parameter refused. */
  async check(call: C, p: Record<string, unknown> & { id?: number }, creating = false): Promise<void> {
    const { targets, services, posts, series } = this.deps;
    const bad: Record<string, ParamReason> = checkEventInput(p, settings().siteTimezone);
    // an online or mixed event needs its URL (an update by slug is checked by the writer)
    if (creating || (p.id !== undefined && sendsAttendance(p))) Object.assign(bad, checkAttendance(p, creating ? undefined : (await targets.find(p.id!)) ?? undefined));
    const collect = async (param: string, check: () => Promise<unknown>) => {
      try {
        await check();
      } catch (err) {
        const e = err as ApiError;
        if (e?.type !== "rest_invalid_param" || !e.data?.params || Array.isArray(e.data.params)) throw err;
        Object.assign(bad, Object.keys(e.data.params).length ? e.data.params : { [param]: { key: "param.invalid" } });
      }
    };
    if (sent(p.image)) await collect("image", () => posts.checkImage(call, p.image));
    if (sent(p.post_parent)) await collect("post_parent", () => targets.requireKind([p.post_parent as number], "event", "post_parent"));
    // the ids found are kept for the write (domain/events/checked-links.ts)
    const links = async (kind: "venues" | "organizers", value: unknown) => {
      await services.validateLinks(call, kind, value);
      noteCheckedLinks(call, kind, value);
    };
    if (sent(p.venue)) await collect("venue", () => links("venues", p.venue));
    if (sent(p.organizer)) await collect("organizer", () => links("organizers", p.organizer));
    Object.assign(bad, await series.checkWrite(p, p.id));
    // `meta`'s values (a create's missing required fields are the writer's 400: here a create and an update look alike)
    if (sent(p.meta) && this.deps.fields) Object.assign(bad, await this.deps.fields.check(call, p.meta, { _id: p.id ?? 0 }));
    throwIfInvalid(bad);
  }
}
