/**
 * The outbound address rules (lib/outbound/addresses.ts): pure checks, no socket is opened.
 */
import { checkOutboundUrl, isLoopbackName, refusedAddress } from "../../lib/outbound/addresses";

describe("refusedAddress", () => {
  test.each([
    ["127.0.0.1", "loopback"], ["127.255.1.2", "loopback"], ["::1", "loopback"], ["[::1]", "loopback"],
    ["10.1.2.3", "private"], ["172.16.0.1", "private"], ["172.31.255.255", "private"], ["192.168.1.1", "private"], ["100.64.0.1", "private"],
    ["169.254.169.254", "link-local"], ["fe80::1", "link-local"],
    ["fc00::1", "unique-local"], ["fd12:3456::1", "unique-local"],
    ["0.0.0.0", "unspecified"], ["::", "unspecified"], ["not-an-address", "unspecified"],
    ["224.0.0.1", "reserved"], ["255.255.255.255", "reserved"], ["ff02::1", "reserved"],
    // IPv4 carried in IPv6
    ["::ffff:127.0.0.1", "loopback"], ["::ffff:7f00:1", "loopback"], ["::ffff:10.0.0.1", "private"],
    ["64:ff9b::a9fe:a9fe", "link-local"], ["2002:c0a8:0101::1", "private"]
  ])("%s is refused as %s", (ip, kind) => {
    expect(refusedAddress(ip)).toBe(kind);
  });

  test.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "192.169.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])("%s is allowed", ip => {
    expect(refusedAddress(ip)).toBeUndefined();
  });
});

describe("checkOutboundUrl", () => {
  test("only http and https", () => {
    expect(checkOutboundUrl("ftp://example.com/x", false)).toEqual({ ok: false, reason: "scheme" });
    expect(checkOutboundUrl("file:///etc/passwd", true)).toEqual({ ok: false, reason: "scheme" });
    expect(checkOutboundUrl("not a url", false)).toEqual({ ok: false, reason: "invalid" });
    expect(checkOutboundUrl("https://hooks.example.com/in", false).ok).toBe(true);
  });

  test("literal addresses in any spelling are checked before anything is resolved", () => {
    for (const raw of ["http://127.0.0.1/", "http://2130706433/", "http://0x7f.1/", "http://[::1]:8080/", "http://[::ffff:127.0.0.1]/", "http://10.0.0.1/", "http://169.254.169.254/latest"])
      expect(checkOutboundUrl(raw, false).ok).toBe(false);
    expect(checkOutboundUrl("http://93.184.216.34/", false).ok).toBe(true);
  });

  test("localhost names are loopback whatever a resolver says", () => {
    expect(isLoopbackName("LOCALHOST.")).toBe(true);
    expect(isLoopbackName("api.localhost")).toBe(true);
    expect(isLoopbackName("localhost.example.com")).toBe(false);
    expect(checkOutboundUrl("http://localhost:3000/", false)).toEqual({ ok: false, reason: "loopback" });
  });

  test("OUTBOUND_ALLOW_PRIVATE lifts the address rules, not the scheme's", () => {
    expect(checkOutboundUrl("http://127.0.0.1:9/", true).ok).toBe(true);
    expect(checkOutboundUrl("gopher://127.0.0.1/", true).ok).toBe(false);
  });
});
