/**
 * net/outbound.ts against receivers on 127.0.0.1. The address rules are proven with loopback only: a
 * refused request must never reach the receiver (its connection count stays 0), and the stub resolvers
 * answer loopback addresses only, so even a wrong rule never opens a socket beyond this machine.
 */
import * as http from "http";
import type { AddressInfo } from "net";
import { outboundRequest, OutboundError, OutboundRefused, USER_AGENT } from "../../net/outbound";

let server: http.Server;
let base: string;
let connections = 0;
const seen: Array<{ method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", c => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.url === "/slow") return void setTimeout(() => res.end("late"), 2000);
      if (req.url === "/big") return void res.end(Buffer.alloc(4096, 97));
      if (req.url?.startsWith("/redirect/")) {
        const n = Number(req.url.split("/")[2]);
        res.writeHead(302, { location: n > 0 ? `/redirect/${n - 1}` : "/done" });
        return void res.end();
      }
      if (req.url === "/see-other") {
        res.writeHead(303, { location: "/done" });
        return void res.end();
      }
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`ok ${req.method} ${body}`);
    });
  });
  server.on("connection", () => (connections += 1));
  await new Promise<void>(r => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>(r => server.close(() => r())));
beforeEach(() => {
  connections = 0;
  seen.length = 0;
});

test("with OUTBOUND_ALLOW_PRIVATE a loopback receiver is reached, with the service's User-Agent", async () => {
  const res = await outboundRequest(`${base}/hook`, { method: "POST", body: "hello", headers: { "content-type": "text/plain" }, timeoutMs: 5000, allowPrivate: true });
  expect(res.status).toBe(200);
  expect(res.body.toString()).toBe("ok POST hello");
  expect(seen[0].headers["user-agent"]).toBe(USER_AGENT);
  expect(USER_AGENT).toMatch(/^calendar-events\/\d+\.\d+\.\d+/);
});

test("without it a loopback address is refused before any connection", async () => {
  await expect(outboundRequest(`${base}/hook`, { timeoutMs: 5000, allowPrivate: false })).rejects.toBeInstanceOf(OutboundRefused);
  expect(connections).toBe(0);
});

test("a name resolving to loopback is refused on the address the socket would connect to", async () => {
  const port = (server.address() as AddressInfo).port;
  const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
  const err = await outboundRequest(`http://hooks.example.test:${port}/hook`, { timeoutMs: 5000, allowPrivate: false, resolve }).catch(e => e);
  expect(err).toBeInstanceOf(OutboundRefused);
  expect((err as OutboundRefused).reason).toBe("loopback");
  expect(connections).toBe(0);
  // the same name, allowed, connects to what the resolver answered
  const ok = await outboundRequest(`http://hooks.example.test:${port}/hook`, { timeoutMs: 5000, allowPrivate: true, resolve });
  expect(ok.status).toBe(200);
  expect(seen[0].headers.host).toBe(`hooks.example.test:${port}`);
});

test("each request resolves again (no kept-alive socket skips the check)", async () => {
  const port = (server.address() as AddressInfo).port;
  let calls = 0;
  const resolve = async () => {
    calls += 1;
    return [{ address: calls === 1 ? "127.0.0.1" : "127.0.0.2", family: 4 }];
  };
  await outboundRequest(`http://rebind.example.test:${port}/a`, { timeoutMs: 5000, allowPrivate: true, resolve });
  await outboundRequest(`http://rebind.example.test:${port}/b`, { timeoutMs: 5000, allowPrivate: true, resolve }).catch(() => undefined);
  expect(calls).toBe(2);
});

test("redirects are answered as they came unless asked to follow them", async () => {
  const res = await outboundRequest(`${base}/redirect/0`, { timeoutMs: 5000, allowPrivate: true });
  expect(res.status).toBe(302);
  expect(seen).toHaveLength(1);
});

test("followed redirects stop after the allowed hops, and 303 continues as a GET without the body", async () => {
  const ok = await outboundRequest(`${base}/redirect/2`, { timeoutMs: 5000, allowPrivate: true, followRedirects: 5 });
  expect(ok.status).toBe(200);
  expect(ok.url).toBe(`${base}/done`);
  await expect(outboundRequest(`${base}/redirect/9`, { timeoutMs: 5000, allowPrivate: true, followRedirects: 5 })).rejects.toMatchObject({ kind: "redirects" });
  seen.length = 0;
  const seeOther = await outboundRequest(`${base}/see-other`, { method: "POST", body: "x", timeoutMs: 5000, allowPrivate: true, followRedirects: 1 });
  expect(seeOther.body.toString()).toBe("ok GET ");
});

test("a redirect to a refused address is refused (each hop checked)", async () => {
  const port = (server.address() as AddressInfo).port;
  // the first hop is a loopback name the stub allows only when private addresses are allowed: with the rules
  // on, the first hop itself is refused and nothing connects
  const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
  await expect(outboundRequest(`http://public.example.test:${port}/redirect/1`, { timeoutMs: 5000, allowPrivate: false, resolve, followRedirects: 5 })).rejects.toBeInstanceOf(OutboundRefused);
  expect(connections).toBe(0);
});

test("timeouts and oversized answers end the request with their kind", async () => {
  const slow = await outboundRequest(`${base}/slow`, { timeoutMs: 200, allowPrivate: true }).catch(e => e);
  expect(slow).toBeInstanceOf(OutboundError);
  expect((slow as OutboundError).kind).toBe("timeout");
  const big = await outboundRequest(`${base}/big`, { timeoutMs: 5000, allowPrivate: true, maxBytes: 1024 }).catch(e => e);
  expect((big as OutboundError).kind).toBe("too-large");
  const fits = await outboundRequest(`${base}/big`, { timeoutMs: 5000, allowPrivate: true, maxBytes: 8192 });
  expect(fits.body.length).toBe(4096);
});
