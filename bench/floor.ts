/**
 * What a row of the speed bench (bench/speed.ts) is measured against, each in a process of its own:
 * - `floor` (C60: the framework floor of the bench): a bare moleculer-web gateway of the project's installed versions, moleculer's defaults
 *   with metrics and tracing off (and warnings only in its log, as the benches run the service), one route
 *   `GET /r/:row` calling one local action that answers the row's own answer: the same JSON object each
 *   time, serialised per request by moleculer-web. A row with several answers (the read mix) has them
 *   answered in turn, in the row's proportions;
 * - `raw`: the reference column, a node:http server answering the same answers' bytes.
 *
 * `node dist/bench/floor.js <answers.json> <port> floor|raw`; answers.json holds one array of JSON
 * objects per row. `startReference` starts one for the bench.
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as http from "http";
import { ServiceBroker, Context } from "moleculer";
import ApiGateway from "moleculer-web";
import { freePort } from "./free-port";
import { stoppableOnceReady } from "./common";

export type ReferenceKind = "floor" | "raw";

export interface Reference {
  /** The URL answering row `row`'s answers. */
  url(row: number): string;
  stop(): Promise<void>;
}

/** A floor or raw server of its own process answering `answers[row]` at `/r/<row>`. */
export async function startReference(kind: ReferenceKind, answers: readonly unknown[][], file: string): Promise<Reference> {
  fs.writeFileSync(file, JSON.stringify(answers));
  const port = await freePort();
  const child = spawn(process.execPath, [__filename, file, String(port), kind], { stdio: ["ignore", "ignore", "inherit"] });
  const base = `http://127.0.0.1:${port}`;
  const stop = await stoppableOnceReady(child, `${base}/r/0`, 30_000);
  return { url: row => `${base}/r/${row}`, stop };
}

function cycler<T>(xs: readonly T[]): () => T {
  let i = 0;
  return () => xs[i++ % xs.length];
}

async function floor(answers: unknown[][], port: number): Promise<void> {
  const next = answers.map(a => cycler(a));
  const broker = new ServiceBroker({ nodeID: `floor-${process.pid}`, logLevel: "warn", metrics: false, tracing: false });
  broker.createService({
    name: "floor",
    actions: {
      answer(ctx: Context<{ row: string }>) {
        return next[Number(ctx.params.row)]();
      }
    }
  });
  broker.createService({
    name: "gateway",
    mixins: [ApiGateway],
    settings: { port, ip: "127.0.0.1", routes: [{ path: "/r", aliases: { "GET /:row": "floor.answer" } }] }
  });
  await broker.start();
  process.once("SIGTERM", () => void broker.stop().then(() => process.exit(0)));
}

function raw(answers: unknown[][], port: number): void {
  const next = answers.map(a => cycler(a.map(x => Buffer.from(JSON.stringify(x)))));
  http.createServer((req, res) => {
    const body = next[Number(/^\/r\/(\d+)/.exec(req.url ?? "")?.[1] ?? 0)]();
    res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": body.length });
    res.end(body);
  }).listen(port, "127.0.0.1");
}

if (require.main === module) {
  const [file, port, kind] = process.argv.slice(2);
  const answers = JSON.parse(fs.readFileSync(file, "utf8")) as unknown[][];
  if (kind === "raw") raw(answers, Number(port));
  else floor(answers, Number(port)).catch(err => {
    console.error(err);
    process.exit(1);
  });
}
