/**
 * The venues and organizers a write's checks found (domain/events/write-checks.ts), kept on the call for
 * its write (domain/events/event-writer.ts): an input that names existing records only links exactly those
 * ids, so once the checks have found them the write needs no second call to the venues' or organizers'
 * `link` (which for such an input only counts them again; it makes records from data objects alone, and
 * those inputs still go to it). Kept per input value: a write given another value (a series' own writes)
 * asks `link` as before.
 */
import { linkedIdsOnly } from "../../lib/linked/links";
import type { EventCall } from "./event-ports";

type Kind = "venues" | "organizers";
type Checked = Partial<Record<Kind, { value: unknown; ids: number[] }>>;

const KEY = "checkedLinks";

/** After `value` passed the `kind` check of this call: its ids, when it names existing records only. */
export function noteCheckedLinks(call: EventCall, kind: Kind, value: unknown): void {
  const ids = linkedIdsOnly(value);
  if (!ids) return;
  const locals = (call.locals ??= {});
  locals[KEY] = { ...(locals[KEY] as Checked | undefined), [kind]: { value, ids } };
}

/** The ids the checks of this call found for exactly this `value` of `kind`; undefined when they did not. */
export function checkedLinks(call: EventCall, kind: Kind, value: unknown): number[] | undefined {
  const found = (call.locals?.[KEY] as Checked | undefined)?.[kind];
  return found && found.value === value ? [...found.ids] : undefined;
}
