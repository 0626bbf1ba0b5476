/**
 * Where the callers come from: `API_KEYS`, or, on a first start of the embedded default without it, one
 * generated administrator key kept under DATA_DIR (printed once, when it is made).
 */
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { Caller, parseApiKeys } from "./callers";
import { Settings } from "./settings";

const KEY_FILE = "admin-api-key.txt";
let cached: { source: string; keys: Map<string, Caller> } | undefined;

function generatedKeySpec(s: Settings, announce: (msg: string) => void): string {
  const file = s.dataDir === ":memory:" ? undefined : path.join(s.dataDir, KEY_FILE);
  if (file && fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  const spec = `${crypto.randomBytes(24).toString("hex")}:administrator:1`;
  if (file) {
    fs.mkdirSync(s.dataDir, { recursive: true });
    fs.writeFileSync(file, spec + "\n", { mode: 0o600 });
  }
  announce(`No API_KEYS set: generated the administrator key ${spec.split(":")[0]}` +
    (file ? ` (kept in ${file})` : " (DATA_DIR is :memory:, so it lasts for this process only)"));
  return spec;
}

/** The callers known to this deployment, by key. */
export function loadApiKeys(s: Settings, announce: (msg: string) => void = msg => console.log(msg)): Map<string, Caller> {
  const source = s.apiKeys ?? `generated:${s.dataDir}`;
  if (cached && cached.source === source) return cached.keys;
  const spec = s.apiKeys ?? (s.mongoUri ? "" : generatedKeySpec(s, announce));
  cached = { source, keys: parseApiKeys(spec) };
  return cached.keys;
}
