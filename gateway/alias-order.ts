/**
 * The order moleculer-web tries a route's aliases in.
 *
 * moleculer-web finds a request's alias by trying every alias of every route in turn, each a regular
 * expression. With its `optimizeOrder` it sorts them all together, deepest path first, so a request to a
 * short path (`/health/live`, the default root's events) was tried against nearly every alias of the
 * language roots first. The gateway turns that sorting off and gives its routes in the order requests
 * most often need them (services/api.service.ts); within a route this module sorts the aliases as
 * moleculer-web did, so which alias answers a path is unchanged: the routes' paths are apart (no path
 * matches aliases of two routes), and a route whose path begins another's comes after it.
 */

/** An alias's path as moleculer-web keeps it: without the slash at either end. */
function aliasPath(key: string): string {
  const path = key.includes(" ") ? key.split(/\s+/)[1] : key;
  return path.replace(/^\//, "").replace(/\/$/, "");
}

/** The number of parts moleculer-web counts in a path (a slash added at either end where missing). */
function depth(path: string): number {
  return `${path.startsWith("/") ? "" : "/"}${path}${path.endsWith("/") ? "" : "/"}`.split("/").length;
}

/** Deeper paths first, then those with fewer parameters, then by text; equal paths keep their order. */
function compare(a: string, b: string): number {
  return depth(b) - depth(a) || a.split(":").length - b.split(":").length || a.localeCompare(b);
}

/** A route's aliases (`"GET events/:id": action`) in the order moleculer-web's `optimizeOrder` gave them. */
export function inMatchOrder<A>(aliases: Record<string, A>): Record<string, A> {
  const keys = Object.keys(aliases);
  const sorted = keys.map((key, i) => ({ key, path: aliasPath(key), i })).sort((x, y) => compare(x.path, y.path) || x.i - y.i);
  return Object.fromEntries(sorted.map(({ key }) => [key, aliases[key]]));
}
