/**
 * A request answered inside the gateway, through the very handler its HTTP server answers with (the site
 * door, the guards, moleculer-web's routing and hooks, the one error renderer): how a batch runs each of
 * its requests "as it would alone" (docs/api-policy.md#batch-requests). The request is a Node
 * `IncomingMessage` carrying the given method, URL, headers and body; the answer is written to a
 * `Writable` that keeps the status, the headers and the bytes instead of sending them.
 */
import { IncomingMessage } from "http";
import type { IncomingHttpHeaders, ServerResponse } from "http";
import { Writable } from "stream";

export interface LoopbackRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The address the batch came from (the rate limit's bucket of an anonymous caller). */
  remoteAddress?: string;
  /** A request that only checks (require-all-validate's first pass): the rate limit does not count it. */
  validateOnly?: boolean;
}

export interface LoopbackAnswer {
  status: number;
  /** By the names the answer set them with. */
  headers: Record<string, string>;
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** The requests made here that only check. */
const checkOnly = new WeakSet<IncomingMessage>();

/** Whether a request is a batch's check of a request, which runs no action (require-all-validate). */
export function isValidationPass(req: IncomingMessage): boolean {
  return checkOnly.has(req);
}

/**
 * What the request reads of its connection: the peer's address. It counts as open (`readable`: body
 * parsers skip a request whose connection is gone), and nothing is ever read from it: the body is in
 * the request already.
 */
function standInSocket(remoteAddress: string | undefined): unknown {
  return { remoteAddress, remotePort: 0, encrypted: false, readable: true, writable: false, destroyed: false, _paused: false,
    resume() {}, pause() {}, destroy() {}, setTimeout() {}, on() {}, once() {}, removeListener() {} };
}

/** An answer kept instead of sent. */
class KeptAnswer extends Writable {
  statusCode = 200;
  statusMessage = "";
  headersSent = false;
  sendDate = false;
  private readonly names = new Map<string, string>();
  private readonly values = new Map<string, string | number | string[]>();
  private readonly chunks: Buffer[] = [];

  constructor() {
    super();
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    const key = name.toLowerCase();
    this.names.set(key, name);
    this.values.set(key, Array.isArray(value) ? [...value] : (value as string | number));
    return this;
  }
  getHeader(name: string): string | number | string[] | undefined {
    return this.values.get(name.toLowerCase());
  }
  getHeaders(): Record<string, string | number | string[]> {
    return Object.fromEntries(this.values);
  }
  getHeaderNames(): string[] {
    return [...this.values.keys()];
  }
  hasHeader(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }
  removeHeader(name: string): void {
    this.values.delete(name.toLowerCase());
    this.names.delete(name.toLowerCase());
  }
  writeHead(status: number, message?: string | Record<string, string | number | string[]>, headers?: Record<string, string | number | string[]>): this {
    this.statusCode = status;
    const extra = typeof message === "object" ? message : headers;
    if (typeof message === "string") this.statusMessage = message;
    for (const [name, value] of Object.entries(extra ?? {})) this.setHeader(name, value);
    this.headersSent = true;
    return this;
  }
  flushHeaders(): void {
    this.headersSent = true;
  }

  override _write(chunk: Buffer | string, encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.headersSent = true;
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding));
    done();
  }

  answer(): LoopbackAnswer {
    const headers: Record<string, string> = {};
    for (const [key, value] of this.values) headers[this.names.get(key) ?? key] = Array.isArray(value) ? value.join(", ") : String(value);
    return { status: this.statusCode, headers, body: Buffer.concat(this.chunks).toString("utf8") };
  }
}

/** Answers `request` through `handler` (the HTTP server's own request handler). */
export function answerInside(handler: Handler, request: LoopbackRequest): Promise<LoopbackAnswer> {
  const req = new IncomingMessage(standInSocket(request.remoteAddress) as ConstructorParameters<typeof IncomingMessage>[0]);
  req.method = request.method;
  req.url = request.url;
  req.httpVersion = "1.1";
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  const headers: IncomingHttpHeaders = { ...request.headers };
  if (request.body) headers["content-length"] = String(request.body.length);
  req.headers = headers;
  req.rawHeaders = Object.entries(headers).flatMap(([k, v]) => [k, String(v)]);
  if (request.validateOnly) checkOnly.add(req);
  if (request.body) req.push(request.body);
  req.push(null);
  req.complete = true;
  const res = new KeptAnswer();
  return new Promise<LoopbackAnswer>((resolve, reject) => {
    res.once("finish", () => resolve(res.answer()));
    res.once("error", reject);
    // the kept answer has every member of a ServerResponse the handlers use (headers, status, write, end, events)
    Promise.resolve(handler(req, res as unknown as ServerResponse)).catch(reject);
  });
}
