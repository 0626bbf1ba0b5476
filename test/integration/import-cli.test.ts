/**
 * The operator command (scripts/import.ts, docs/imports.md "From the command line") run as a child process
 * against a running service, with an iCalendar fixture served from 127.0.0.1.
 */
import * as fs from "fs";
import * as http from "http";
import * as path from "path";
import { execFile } from "child_process";
import type { AddressInfo } from "net";
import { KEYS, startService, Running } from "../helpers/harness";
import { httpJson } from "../helpers/imports";

jest.setTimeout(60_000);

const SCRIPT = path.join(__dirname, "../../dist/scripts/import.js");
const FEED = fs.readFileSync(path.join(__dirname, "../fixtures/ics/google.ics"), "utf8");
let svc: Running;
let feed: http.Server;
let feedUrl: string;

beforeAll(async () => {
  svc = await startService({ IMPORT_POLL_MS: "100", OUTBOUND_ALLOW_PRIVATE: "1" });
  feed = http.createServer((_req, res) => { res.writeHead(200, { "Content-Type": "text/calendar" }); res.end(FEED); });
  await new Promise<void>((r) => feed.listen(0, "127.0.0.1", r));
  feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/feed.ics`;
});
afterAll(async () => {
  await new Promise((r) => feed.close(r));
  await svc?.stop();
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { env: { ...process.env, IMPORT_API_KEY: KEYS.admin, IMPORT_API: svc.base } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const count = (out: string, name: string): number => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(out)?.[1]);

async function importedIds(): Promise<number[]> {
  const list = await httpJson("GET", `${svc.ns}/imports`, KEYS.admin);
  return (list.body as unknown as Array<{ id: number }>).map((i) => i.id);
}

test("--dry-run counts the feed's events and writes nothing", async () => {
  const before = await importedIds();
  const r = await cli([feedUrl, "--dry-run"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/nothing written/);
  expect(count(r.stdout, "events")).toBeGreaterThan(0);
  expect(await importedIds()).toEqual(before);
});

test("an import prints the counts of what it created; run again, nothing new", async () => {
  const r = await cli([feedUrl]);
  expect(r.stderr).toMatch(/done/);
  expect(r.code).toBe(0);
  const created = count(r.stdout, "created");
  expect(created).toBeGreaterThan(0);
  const ids = await importedIds();
  const state = (await httpJson("GET", `${svc.ns}/imports/${Math.max(...ids)}`, KEYS.admin)).body as unknown as { created: number; state: string };
  expect(state).toMatchObject({ state: "done", created });
  const again = await cli([feedUrl]);
  expect(again.code).toBe(0);
  expect(count(again.stdout, "created")).toBe(0);
  expect(count(again.stdout, "unchanged")).toBe(created);
});

test("a bad argument exits 2 with the usage", async () => {
  const r = await cli(["--nope"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/usage: npm run import/);
});
