/**
 * The operator command `npm run import -- <url> [--site HOST] [--dry-run] [--api URL]` (scripts/import.ts):
 * its argument parsing and the text it prints, as pure functions (docs/imports.md "From the command line").
 */
import type { IcsReadResult } from "./ics-reader";

export interface ImportCliOptions {
  url: string;
  site?: string;
  dryRun: boolean;
  api: string;
  type?: "ics" | "tec";
}

/** Thrown for a command line the command cannot run. */
export class ImportCliUsageError extends Error {}

export const IMPORT_CLI_USAGE = "usage: npm run import -- <url> [--site HOST] [--type ics|tec] [--dry-run] [--api URL]";

/** Reads the arguments; `env.IMPORT_API` (else `http://localhost:$PORT`, PORT default 3000) is the default `--api`. */
export function parseImportArgs(argv: readonly string[], env: Record<string, string | undefined> = {}): ImportCliOptions {
  let url: string | undefined;
  let site: string | undefined;
  let api: string | undefined;
  let type: "ics" | "tec" | undefined;
  let dryRun = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) throw new ImportCliUsageError(`${a} needs a value`);
      return v;
    };
    if (a === "--dry-run") dryRun = true;
    else if (a === "--site") site = value();
    else if (a === "--api") api = value();
    else if (a === "--type") {
      const t = value();
      if (t !== "ics" && t !== "tec") throw new ImportCliUsageError(`--type must be ics or tec, not ${t}`);
      type = t;
    } else if (a.startsWith("--")) throw new ImportCliUsageError(`unknown option ${a}`);
    else if (url === undefined) url = a;
    else throw new ImportCliUsageError(`unexpected argument ${a}`);
  }
  if (url === undefined) throw new ImportCliUsageError("the source URL is missing");
  if (!/^https?:\/\//i.test(url)) throw new ImportCliUsageError(`the source must be an http(s) URL: ${url}`);
  api = (api ?? env.IMPORT_API ?? `http://localhost:${env.PORT || "3000"}`).replace(/\/+$/, "");
  return { url, site, dryRun, api, type };
}

/** The import's state as `GET {ns}/imports/{id}` answers it (docs/contract.md "Imports"). */
export interface ImportState {
  id?: number;
  state?: string;
  created?: number;
  updated?: number;
  unchanged?: number;
  skipped?: number;
  failed?: number;
  trashed?: number;
  errors?: Array<{ source: string; message: string }>;
}

const n = (v: number | undefined): number => v ?? 0;

/** One progress line: a 20-cell bar that fills as records are handled (no total is known: it cycles). */
export function progressLine(s: ImportState, tick: number): string {
  const done = n(s.created) + n(s.updated) + n(s.unchanged) + n(s.skipped) + n(s.failed);
  const width = 20;
  const pos = s.state === "done" || s.state === "failed" ? width : tick % (width + 1);
  const bar = "#".repeat(pos) + "-".repeat(width - pos);
  return `[${bar}] ${s.state ?? "?"} ${done} records`;
}

/** The final counts, one per line, then the import's errors. */
export function formatCounts(s: ImportState): string {
  const lines = [
    `state: ${s.state ?? "?"}`,
    `created: ${n(s.created)}`,
    `updated: ${n(s.updated)}`,
    `unchanged: ${n(s.unchanged)}`,
    `skipped: ${n(s.skipped)}`,
    `trashed: ${n(s.trashed)}`,
    `failed: ${n(s.failed)}`,
  ];
  for (const e of s.errors ?? []) lines.push(`error: ${e.source}: ${e.message}`);
  return lines.join("\n") + "\n";
}

/** What an iCalendar import of this feed would bring, by kind (the dry run; nothing is written). */
export function formatDryRun(r: IcsReadResult): string {
  const exceptions = r.events.reduce((sum, e) => sum + e.exceptions.length, 0);
  const recurring = r.events.filter((e) => e.input.recurrence !== undefined).length;
  const lines = [
    `dry run (ics${r.name ? `: ${r.name}` : ""}), nothing written`,
    `events: ${r.events.length}`,
    `recurring: ${recurring}`,
    `changed occurrences: ${exceptions}`,
    `skipped: ${r.skipped}`,
    `unreadable: ${r.errors.length}`,
  ];
  for (const e of r.errors) lines.push(`error: ${e.source}: ${e.message}`);
  return lines.join("\n") + "\n";
}
