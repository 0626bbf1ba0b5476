/**
 * Callers: who is behind an API key.
 *
 * `API_KEYS` (docs/contract.md#keys, docs/authorization.md#callers-and-keys) is a comma list of `key:role` or `key:role:userId`; blanks around entries and
 * around the parts of an entry are ignored, empty entries (e.g. a trailing comma) are skipped.
 *
 * Decision D15: an entry without `userId` gets, in list order, the smallest positive integer that is not
 * used by any explicit `userId` of the list and not already handed out to an earlier entry. Several keys
 * may name the same explicit user id (the role is per key).
 *
 * How a caller travels through the services:
 * - `Caller`    — a request authenticated with a known Bearer key;
 * - `null`      — an anonymous request (no `Authorization` header);
 * - `undefined` — a trusted internal call (see lib/access/capabilities.ts).
 */

export type Role = "administrator" | "editor" | "author" | "contributor" | "subscriber";

export const ROLES: readonly Role[] = ["administrator", "editor", "author", "contributor", "subscriber"];

export interface Caller {
  id: number;
  role: Role;
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

interface ParsedEntry {
  key: string;
  role: Role;
  userId: number | undefined;
}

const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

function parseEntry(entry: string): ParsedEntry {
  const parts = entry.split(":").map((part) => part.trim());
  if (parts.length < 2 || parts.length > 3) {
    throw new Error(`API_KEYS: malformed entry "${entry}" (expected key:role or key:role:userId)`);
  }
  const [key, role, userId] = parts;
  if (key === "") throw new Error(`API_KEYS: malformed entry "${entry}" (empty key)`);
  if (!isRole(role)) {
    throw new Error(`API_KEYS: unknown role "${role}" in entry "${entry}" (expected one of ${ROLES.join(", ")})`);
  }
  if (userId === undefined) return { key, role, userId: undefined };
  if (!POSITIVE_INTEGER.test(userId) || !Number.isSafeInteger(Number(userId))) {
    throw new Error(`API_KEYS: malformed user id "${userId}" in entry "${entry}" (expected a positive integer)`);
  }
  return { key, role, userId: Number(userId) };
}

/** Parses `API_KEYS` into key → caller. Throws an Error naming the bad entry when the list is malformed. */
export function parseApiKeys(spec: string | undefined): Map<string, Caller> {
  const entries = (spec ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .map(parseEntry);

  const used = new Set<number>(entries.flatMap((e) => (e.userId === undefined ? [] : [e.userId])));
  let candidate = 1;
  const nextFreeId = (): number => {
    while (used.has(candidate)) candidate++;
    used.add(candidate);
    return candidate;
  };

  const keys = new Map<string, Caller>();
  for (const { key, role, userId } of entries) {
    if (keys.has(key)) throw new Error(`API_KEYS: duplicate key "${key}"`);
    keys.set(key, { id: userId ?? nextFreeId(), role });
  }
  return keys;
}

/** The known user ids (D15: the `author` parameter must name one of them). */
export function knownUserIds(keys: Map<string, Caller>): Set<number> {
  return new Set([...keys.values()].map((caller) => caller.id));
}
