/**
 * The outbound address rules (docs/contract.md#webhooks-outgoing-notifications, C65: outbound requests): where the service may send a
 * request of its own (a webhook delivery, an import's fetch). Pure: which addresses are refused, and
 * whether a URL may be asked for at all before anything is resolved. The request itself, which applies
 * these rules to every address it connects to, is net/outbound.ts.
 */
import { BlockList, isIP } from "net";

/** Why an address is refused. */
export type RefusedKind = "loopback" | "private" | "link-local" | "unique-local" | "unspecified" | "reserved";

/** A URL refused before resolution: not http(s), no host, or a literal address (or `localhost`) refused. */
export type UrlRefusal = RefusedKind | "scheme" | "invalid";

const RANGES: Array<[RefusedKind, "ipv4" | "ipv6", string, number]> = [
  ["unspecified", "ipv4", "0.0.0.0", 8],
  ["loopback", "ipv4", "127.0.0.0", 8],
  ["private", "ipv4", "10.0.0.0", 8],
  ["private", "ipv4", "172.16.0.0", 12],
  ["private", "ipv4", "192.168.0.0", 16],
  // carrier-grade NAT space: private to some network, never a public endpoint
  ["private", "ipv4", "100.64.0.0", 10],
  ["link-local", "ipv4", "169.254.0.0", 16],
  ["reserved", "ipv4", "192.0.0.0", 24],
  ["reserved", "ipv4", "198.18.0.0", 15],
  ["reserved", "ipv4", "224.0.0.0", 4],
  ["reserved", "ipv4", "240.0.0.0", 4],
  ["unspecified", "ipv6", "::", 128],
  ["loopback", "ipv6", "::1", 128],
  ["unique-local", "ipv6", "fc00::", 7],
  ["link-local", "ipv6", "fe80::", 10],
  // the deprecated site-local space, private by definition
  ["private", "ipv6", "fec0::", 10],
  ["reserved", "ipv6", "ff00::", 8],
  ["reserved", "ipv6", "100::", 64]
];

/** The ranges of each kind, as one list each. */
function blockLists(): ReadonlyMap<RefusedKind, BlockList> {
  const lists = new Map<RefusedKind, BlockList>();
  for (const [kind, family, net, prefix] of RANGES) {
    if (!lists.has(kind)) lists.set(kind, new BlockList());
    lists.get(kind)!.addSubnet(net, prefix, family);
  }
  return lists;
}

const LISTS = blockLists();

/** The IPv4 address an IPv6 address carries (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`), if any. */
function embeddedIpv4(ip6: string): string | undefined {
  const lower = ip6.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) return hexPairToIpv4(hex[1], hex[2]);
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/.exec(lower);
  if (sixToFour) return hexPairToIpv4(sixToFour[1], sixToFour[2]);
  return undefined;
}

function hexPairToIpv4(hi: string, lo: string): string {
  const a = parseInt(hi, 16);
  const b = parseInt(lo, 16);
  return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
}

/** Why the service may not connect to this IP address, or undefined when it may (a text that is no IP address is refused as "unspecified"). */
export function refusedAddress(ip: string): RefusedKind | undefined {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const family = isIP(bare);
  if (family === 0) return "unspecified";
  if (family === 6) {
    const inner = embeddedIpv4(bare);
    if (inner !== undefined) return refusedAddress(inner);
  }
  const type = family === 4 ? "ipv4" : "ipv6";
  for (const [kind, list] of LISTS) if (list.check(bare, type)) return kind;
  return undefined;
}

/** Names that are loopback by definition, whatever a resolver says (RFC 6761's `localhost`). */
export function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost");
}

/**
 * Whether a URL may be requested, before any resolution: http or https only, with a host; a literal
 * address, or `localhost`, checked here (a name is checked on each address it resolves to, when the
 * request connects). `allowPrivate` (OUTBOUND_ALLOW_PRIVATE=1) lifts the address rules, not the scheme's.
 */
export function checkOutboundUrl(raw: string, allowPrivate: boolean): { ok: true; url: URL } | { ok: false; reason: UrlRefusal } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "invalid" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "scheme" };
  if (!url.hostname) return { ok: false, reason: "invalid" };
  if (allowPrivate) return { ok: true, url };
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host)) {
    const kind = refusedAddress(host);
    return kind ? { ok: false, reason: kind } : { ok: true, url };
  }
  if (isLoopbackName(host)) return { ok: false, reason: "loopback" };
  return { ok: true, url };
}
