/**
 * The operator command (docs/imports.md "From the command line"):
 *
 *   npm run import -- <url> [--site HOST] [--type ics|tec] [--dry-run] [--api URL]
 *
 * Talks to a running service over its imports routes (docs/contract.md "Imports") with the administrator key of
 * `IMPORT_API_KEY`, else `DATA_DIR/admin-api-key.txt` (README "Configuration"). `--dry-run` reads an
 * iCalendar feed with the service's reader and prints what an import would bring, writing nothing.
 */
import fs from "fs";
import http from "http";
import https from "https";
import path from "path";
import { formatCounts, formatDryRun, ImportCliUsageError, IMPORT_CLI_USAGE, parseImportArgs, progressLine, type ImportCliOptions, type ImportState } from "../lib/imports/cli";
import { readIcs } from "../lib/imports/ics-reader";

const NS = "/wp-json/calendar/events/v1";

function adminKey(): string {
  if (process.env.IMPORT_API_KEY) return process.env.IMPORT_API_KEY;
  const file = path.join(process.env.DATA_DIR || "data", "admin-api-key.txt");
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  throw new ImportCliUsageError(`no administrator key: set IMPORT_API_KEY or keep one in ${file}`);
}

/** One JSON request to the service (node's http: fetch may not send a chosen Host header). */
function call(method: string, url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = (u.protocol === "https:" ? https : http).request(u, { method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => {
        try { resolve({ status: res.statusCode ?? 0, json: JSON.parse(text || "{}") as Record<string, unknown> }); } catch (e) { reject(e as Error); }
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function dryRun(o: ImportCliOptions): Promise<number> {
  if (o.type === "tec") {
    process.stderr.write("--dry-run reads iCalendar feeds only (a TEC site is read by the running service)\n");
    return 2;
  }
  const res = await fetch(o.url);
  if (!res.ok) throw new Error(`${o.url} answered ${res.status}`);
  process.stdout.write(formatDryRun(readIcs(await res.text())));
  return 0;
}

async function run(o: ImportCliOptions): Promise<number> {
  const headers: Record<string, string> = { Authorization: `Bearer ${adminKey()}`, "Content-Type": "application/json" };
  if (o.site) headers.Host = o.site; // a site is chosen by its Host header (docs/contract.md "Sites")
  const body: Record<string, unknown> = { url: o.url };
  if (o.type) body.type = o.type;
  const post = await call("POST", `${o.api}${NS}/imports`, headers, JSON.stringify(body));
  const started = post.json as ImportState & { message?: string };
  if (post.status !== 202) throw new Error(`POST imports answered ${post.status}: ${started.message ?? JSON.stringify(started)}`);
  const tty = process.stderr.isTTY === true;
  let state: ImportState = started;
  for (let tick = 0; state.state !== "done" && state.state !== "failed"; tick++) {
    await new Promise((r) => setTimeout(r, 250));
    const res = await call("GET", `${o.api}${NS}/imports/${started.id}`, headers);
    if (res.status !== 200) throw new Error(`GET imports/${started.id} answered ${res.status}`);
    state = res.json as ImportState;
    if (tty) process.stderr.write(`\r${progressLine(state, tick)}`);
    else if (tick % 8 === 0) process.stderr.write(`${progressLine(state, tick)}\n`);
  }
  process.stderr.write(`${tty ? "\r" : ""}${progressLine(state, 0)}\n`);
  process.stdout.write(formatCounts(state));
  return state.state === "failed" ? 1 : 0;
}

async function main(): Promise<number> {
  let o: ImportCliOptions;
  try {
    o = parseImportArgs(process.argv.slice(2), process.env);
    return await (o.dryRun ? dryRun(o) : run(o));
  } catch (err) {
    if (err instanceof ImportCliUsageError) process.stderr.write(`${err.message}\n${IMPORT_CLI_USAGE}\n`);
    else process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
}

void main().then((code) => { process.exitCode = code; });
