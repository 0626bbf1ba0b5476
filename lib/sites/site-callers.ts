/**
 * Callers and users of the site the current work belongs to (lib/sites/scope.ts): the default site's
 * come from `API_KEYS` (lib/access/api-keys.ts); another site's are its stored keys, resolved by the gateway's
 * front door for the request (a key of another site names nobody here: 401).
 */
import { callerOfKey, loadApiKeys } from "../access/api-keys";
import { Caller, isRole, knownUserIds } from "../access/callers";
import { deploymentSettings } from "../settings";
import { currentBearer, currentSite } from "./scope";

/** The caller `key` names on the current site, undefined when it names none. */
export function callerForKey(key: string): Caller | undefined {
  if (!currentSite()) return callerOfKey(loadApiKeys(deploymentSettings()), key);
  const bearer = currentBearer();
  if (!bearer || bearer.key !== key || !bearer.caller || !isRole(bearer.caller.role)) return undefined;
  return { id: bearer.caller.id, role: bearer.caller.role };
}

/** The user ids the current site's keys name (the `author` parameter must name one, D15: users come from the API keys). */
export function knownUserIdsHere(): Set<number> {
  const site = currentSite();
  return site ? new Set(site.userIds) : knownUserIds(loadApiKeys(deploymentSettings()));
}
