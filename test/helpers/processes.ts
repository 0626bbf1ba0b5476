/**
 * Real processes for cross-process tests: a nats-server on a free port, and service nodes started from
 * the compiled entry point (dist/server.js, built by test/global-setup.js) with their own environment.
 */
import { ChildProcess, spawn, execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { freePort, TEST_API_KEYS } from "./harness";

const ROOT = path.resolve(__dirname, "..", "..");

export function natsBinary(): string | undefined {
  for (const p of ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"]) if (fs.existsSync(p)) return p;
  try {
    return execFileSync("which", ["nats-server"]).toString().trim() || undefined;
  } catch {
    return undefined;
  }
}

export interface Nats {
  url: string;
  stop(): Promise<void>;
}

export async function startNats(): Promise<Nats> {
  const bin = natsBinary();
  if (!bin) throw new Error("nats-server is not installed: `npm test` installs it from Debian's packages when run as root (scripts/ensure-test-services.sh; apt-get install nats-server)");
  const port = await freePort();
  const proc = spawn(bin, ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
  const url = `nats://127.0.0.1:${port}`;
  await waitForPort(port);
  return { url, stop: () => stopProcess(proc) };
}

async function waitForPort(port: number, timeoutMs = 10000): Promise<void> {
  const net = await import("net");
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const ok = await new Promise<boolean>(resolve => {
      const s = net.connect(port, "127.0.0.1", () => { s.end(); resolve(true); });
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise(r => setTimeout(r, 50));
  }
  throw new Error(`port ${port} did not open`);
}

export interface Node {
  proc: ChildProcess;
  port?: number;
  base?: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `node dist/server.js` with the given environment (test keys, no metrics, in-memory store by default). */
export async function startNode(env: Record<string, string>, opts: { http?: boolean } = {}): Promise<Node> {
  const port = opts.http ? await freePort() : undefined;
  let out = "";
  const proc = spawn(process.execPath, [path.join(ROOT, "dist", "server.js")], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: ":memory:", METRICS_PORT: "0", API_KEYS: TEST_API_KEYS, LOG_LEVEL: "warn", ...(port ? { PORT: String(port), HOST: "127.0.0.1" } : {}), ...env },
    stdio: ["ignore", "pipe", "pipe"]
  });
  proc.stdout!.on("data", d => { out += d; });
  proc.stderr!.on("data", d => { out += d; });
  const node: Node = { proc, port, base: port ? `http://127.0.0.1:${port}` : undefined, output: () => out, stop: sig => stopProcess(proc, sig) };
  if (node.base) started.set(node.base, node);
  return node;
}

/** The nodes started here, by base URL: a wait on one of them says why it never answered. */
const started = new Map<string, Node>();

const exited = (proc: ChildProcess) => proc.exitCode !== null || proc.signalCode !== null;

/** What a node printed and how it ended. */
function nodeReport(node: Node | undefined): string {
  if (!node) return "";
  const ended = exited(node.proc) ? `; it exited (${node.proc.exitCode ?? node.proc.signalCode})` : "";
  return `${ended}; its output:\n${node.output().slice(-4000)}`;
}

/** Polls `url` every `pollMs` until it answers `status` (default 200); fails at once when its node has exited. */
export async function waitForHttp(url: string, status = 200, timeoutMs = 30000, pollMs = 100): Promise<void> {
  const node = [...started.values()].find(n => url.startsWith(`${n.base}/`));
  const until = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < until) {
    if (node && exited(node.proc)) throw new Error(`${url} will not answer${nodeReport(node)}`);
    try {
      const res = await fetch(url);
      if (res.status === status) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise(r => setTimeout(r, pollMs));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms (last: ${last})${nodeReport(node)}`);
}

export function stopProcess(proc: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  return new Promise(resolve => {
    if (exited(proc)) return resolve();
    const timer = setTimeout(() => proc.kill("SIGKILL"), 8000);
    proc.once("exit", () => { clearTimeout(timer); resolve(); });
    proc.kill(signal);
  });
}
