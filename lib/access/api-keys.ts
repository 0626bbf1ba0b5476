/**
 * Where the callers come from: `API_KEYS`, or, on a first start without it, one generated administrator
 * key: kept under DATA_DIR on the embedded store, in the store itself (as its hash) on PostgreSQL, so
 * every node of a deployment agrees on it (C40: the generated administrator key); printed once, by the node that made it.
 *
 * The key file holds the key alone, as a client sends it (`Authorization: Bearer $(cat …/admin-api-key.txt)`,
 * docs/contract.md#starting). A file written by an earlier version holds `key:role:id`; it is read and
 * rewritten as the bare key (C39: migrations and upgrades).
 */
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { Caller, parseApiKeys } from "./callers";
import { hashApiKey } from "../sites/keys";
import { Settings } from "../settings";


export const KEY_FILE = "admin-api-key.txt";
/** Who the generated key names: the first administrator (user id 1). */
const GENERATED_ROLE = "administrator:1";
/** What a generated key may be made of (what `Bearer <key>` carries: no blanks, no `:` or `,` of API_KEYS). */
const KEY_SHAPE = /^[A-Za-z0-9._~+/=-]+$/;

let cached: { source: string; keys: Map<string, Caller> } | undefined;
/** PostgreSQL and MongoDB: the generated administrator key's hash, as the store keeps it (useStoredAdminKey). */
let stored: Map<string, Caller> = new Map();

/** The key a key file holds: the bare key, or the key of an old `key:role:id` line; undefined when unusable. */
export function keyFromFile(text: string): string | undefined {
  const line = text.trim();
  const key = line.includes(":") ? line.split(":")[0].trim() : line;
  return key !== "" && KEY_SHAPE.test(key) ? key : undefined;
}

function writeKeyFile(file: string, key: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Written beside the file, then renamed over it: a reader never sees a half-written key.
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${key}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

function generatedKeySpec(s: Settings, announce: (msg: string) => void): string {
  const file = s.dataDir === ":memory:" ? undefined : path.join(s.dataDir, KEY_FILE);
  if (file && fs.existsSync(file)) {
    const text = fs.readFileSync(file, "utf8");
    const key = keyFromFile(text);
    if (key === undefined) throw new Error(`${file} does not hold an API key: remove it to have a new administrator key generated, or set API_KEYS`);
    if (text.trim() !== key) {
      writeKeyFile(file, key);
      announce(`Rewrote ${file} to hold the administrator key alone (as a client sends it)`);
    }
    return `${key}:${GENERATED_ROLE}`;
  }
  const key = crypto.randomBytes(24).toString("hex");
  if (file) writeKeyFile(file, key);
  announce(`No API_KEYS set: generated the administrator key ${key}` +
    (file ? ` (kept in ${file})` : " (DATA_DIR is :memory:, so it lasts for this process only)"));
  return `${key}:${GENERATED_ROLE}`;
}

/**
 * The callers known to this deployment, by the SHA-256 hash of their key (lib/sites/keys.ts): a lookup
 * compares hashes, never the key itself, so its timing says nothing about a key (C40: the generated administrator key).
 */
export function loadApiKeys(s: Settings, announce: (msg: string) => void = msg => console.log(msg)): Map<string, Caller> {
  const source = s.apiKeys ?? `generated:${s.dataDir}`;
  if (cached && cached.source === source) return cached.keys;
  // PostgreSQL and MongoDB keep the generated key in the store (useStoredAdminKey)
  const spec = s.apiKeys ?? (s.mongoUri || s.databaseUrl ? "" : generatedKeySpec(s, announce));
  cached = { source, keys: new Map([...parseApiKeys(spec)].map(([key, caller]): [string, Caller] => [hashApiKey(key), caller])) };
  if (s.apiKeys === undefined) for (const [hash, caller] of stored) cached.keys.set(hash, caller);
  return cached.keys;
}

/** Where a deployment keeps its generated administrator key (store/sites.ts `keepGeneratedKey`). */
export interface GeneratedKeyStore {
  keepGeneratedKey(hash: string): Promise<{ made: boolean; row: { hash: string; role: string; user_id: number } | undefined }>;
}

/**
 * PostgreSQL and MongoDB without API_KEYS: one generated administrator key for the whole deployment, kept
 * in the store as its SHA-256 hash (C40): the first node to start makes it (a unique row: every other node
 * finds it) and prints it once; every node then knows it. A DATA_DIR key file of an earlier version is
 * taken as that key, so an upgraded deployment keeps its key.
 */
export async function useStoredAdminKey(keys: GeneratedKeyStore, s: Settings, announce: (msg: string) => void = msg => console.log(msg)): Promise<void> {
  const file = s.dataDir === ":memory:" ? undefined : path.join(s.dataDir, KEY_FILE);
  const kept = file && fs.existsSync(file) ? keyFromFile(fs.readFileSync(file, "utf8")) : undefined;
  const key = kept ?? crypto.randomBytes(24).toString("hex");
  const { made, row } = await keys.keepGeneratedKey(hashApiKey(key));
  if (made) {
    announce(kept ? `Kept the administrator key of ${file} in the store: every node of the deployment knows it`
      : `No API_KEYS set: generated the administrator key ${key} (kept in the store as its hash, for every node; printed only now)`);
  }
  stored = new Map(row ? [[row.hash, { id: Number(row.user_id), role: row.role } as Caller]] : []);
  cached = undefined;
}

/** The caller a presented key names among the deployment's keys, undefined when none. */
export function callerOfKey(keys: Map<string, Caller>, key: string): Caller | undefined {
  return keys.get(hashApiKey(key));
}
