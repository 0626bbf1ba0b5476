/**
 * What the lists ask of the geolocation service over the bus for their radius search (the rules are
 * lib/geo/near-query.ts): whether it runs, and the venues near a point.
 */
import type { Context, ServiceBroker } from "moleculer";
import { ApiError } from "../lib/errors";
import { NEAR_ACTION, type NearParams } from "../lib/geo/near-query";
import { settings } from "../lib/settings";
import { actionAvailable } from "./bus";

/** 400 `geoloc-not-available` unless the add-on is on for the site (docs/sites.md) and every one of these geolocation actions is served. */
export function requireGeolocation(broker: ServiceBroker, actions: readonly string[]): void {
  if (!settings().geolocation || !actions.every(action => actionAvailable(broker, action))) throw new ApiError("geoloc-not-available", 400);
}

/** The published venues within the radius: venue id → distance in the asked unit (two decimals), nearest first. */
export async function venuesNear(ctx: Context, near: NearParams): Promise<Map<number, number>> {
  const found: Array<{ id: number; distance: number }> = await ctx.call(NEAR_ACTION, { ...near });
  return new Map(found.map(f => [f.id, f.distance]));
}
