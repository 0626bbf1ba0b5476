/** A TCP port free on 127.0.0.1 now (for a server the bench starts). */
import * as net from "net";

export function freePort(): Promise<number> {
  return new Promise(resolve => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
