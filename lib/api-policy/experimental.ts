/**
 * Experimental routes (docs/api-policy.md#experimental-routes): routes of the table (lib/http/routes.ts) marked
 * `experimental` answer only requests that send `X-Calendar-Experimental: 1`, so no client depends on one
 * without saying so; they are outside v1's promise and the breaking-change check.
 */
import { ROUTES, type RouteDef } from "../http/routes";
import { lazy } from "../memo";

/** The opt-in header, as Node names request headers. */
export const EXPERIMENTAL_HEADER = "x-calendar-experimental";

/** The table's own experimental actions, derived once. */
const tableActions = lazy(() => experimentalActions([...ROUTES]));

/** The actions of experimental routes. */
export function experimentalActions(routes: readonly RouteDef[] = ROUTES): ReadonlySet<string> {
  if (routes !== ROUTES) return new Set(routes.filter(r => r.experimental).flatMap(r => r.endpoints.map(e => e.action)));
  return tableActions();
}
