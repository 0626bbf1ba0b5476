/**
 * Which changes an endpoint asks for (docs/webhooks.md#endpoints): its `events`, a list of
 * `<type>.<action>`, `<type>.*` or `*`, and the event type a change is delivered as (C63: the change's
 * action as the feed records it for the site's administrator; a trash is `deleted`).
 */
import { CHANGE_TYPES, decide, type ChangeDoc, type ChangeType } from "../changes/feed";

export const WEBHOOK_ACTIONS = ["created", "updated", "deleted"] as const;
export type WebhookAction = (typeof WEBHOOK_ACTIONS)[number];

/** The default subscription: every change. */
export const ALL_EVENTS = ["*"];

/** Whether a filter is one the contract allows (`event.created`, `venue.*`, `*`). */
export function isEventFilter(value: unknown): value is string {
  if (typeof value !== "string") return false;
  if (value === "*") return true;
  const [type, action, ...rest] = value.split(".");
  if (rest.length || !(CHANGE_TYPES as readonly string[]).includes(type)) return false;
  return action === "*" || (WEBHOOK_ACTIONS as readonly string[]).includes(action);
}

/**
 * A filter list as sent (an array, or a comma list in a form body) normalised: trimmed, each once, in
 * the order given; undefined when it is not a non-empty list of valid filters.
 */
export function parseEventFilters(value: unknown): string[] | undefined {
  const list = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : undefined;
  if (!list || list.length === 0 || list.length > 64) return undefined;
  const out: string[] = [];
  for (const item of list) {
    const text = typeof item === "string" ? item.trim() : item;
    if (!isEventFilter(text)) return undefined;
    if (!out.includes(text)) out.push(text);
  }
  return out;
}

/** Whether `filters` ask for an event of this type (`event.created`). */
export function matchesEvent(filters: readonly string[], eventType: string): boolean {
  const [type] = eventType.split(".");
  return filters.some(f => f === "*" || f === eventType || f === `${type}.*`);
}

/** The administrator the deliveries are read as (lists, visibility: lib/access/capabilities.ts). */
export const DELIVERY_READER = { id: 0, role: "administrator" as const };

/**
 * The event type a feed entry is delivered as, or undefined when the site's administrator sees no change
 * (a record that was not readable before and is not after, e.g. one trashed while already in the trash).
 * Mirrors what `/changes` answers that administrator (lib/changes/feed.ts `decide`).
 */
export function deliveredType(doc: Pick<ChangeDoc, "type" | "action" | "before" | "after">, nowDb: string): `${ChangeType}.${WebhookAction}` | undefined {
  const decision = decide(DELIVERY_READER, doc, nowDb);
  if (decision === "skip") return undefined;
  if (decision === "tombstone") return `${doc.type}.deleted`;
  return `${doc.type}.${doc.action === "deleted" ? "updated" : doc.action}`;
}
