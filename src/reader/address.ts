/**
 * Which addresses and URLs the reader may connect to (OWASP API7, server-side request forgery).
 *
 * An address is allowed when it is public unicast (ipaddr.js's `unicast` range, after unwrapping
 * IPv4-mapped, IPv4-compatible, 6to4 and NAT64 forms to the IPv4 address inside them) or inside
 * one of the operator's allowed CIDR ranges (`WEB_READ_ALLOW_CIDRS`, none by default). Everything
 * else is refused: loopback, private (RFC 1918), link-local (169.254.0.0/16, so the cloud metadata
 * address 169.254.169.254 too, and fe80::/10), unique-local (fc00::/7), multicast, broadcast,
 * unspecified (0.0.0.0, ::), carrier-grade NAT (100.64.0.0/10), Teredo, and the reserved and
 * documentation ranges.
 *
 * A URL is allowed when its scheme is http or https, it carries no credentials, and its port is one
 * of the allowed ports (`WEB_READ_PORTS`, default 80, 443, 8080, 8443). Decimal, octal, hex and
 * short IPv4 spellings (`http://2130706433/`, `http://0177.0.0.1/`, `http://0x7f.1/`) are
 * canonicalised by the WHATWG URL parser before the host is read, so they are checked as the
 * address they spell.
 */
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** The connections the reader may make. */
export interface AddressPolicy {
  /** Ports a URL may name (its scheme's default when it names none). */
  ports: ReadonlySet<number>;
  /** CIDR ranges the operator allows beyond public unicast, as written. */
  allowCidrs: readonly string[];
  /** The parsed ranges. */
  allowed: readonly [Address, number][];
}

export const DEFAULT_PORTS: readonly number[] = [80, 443, 8080, 8443];

/** A target the reader will not connect to: answered `400 invalid_request` at the URL's field. */
export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetRefused";
  }
}

/** Parse `WEB_READ_ALLOW_CIDRS` ("10.0.0.0/8, fd00::/8"; a bare address is its own /32 or /128). */
export function parseCidrs(raw: string | undefined): { cidrs: string[]; allowed: [Address, number][] } {
  const cidrs = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const allowed = cidrs.map((cidr): [Address, number] => {
    try {
      if (cidr.includes("/")) return ipaddr.parseCIDR(cidr);
      const address = ipaddr.parse(cidr);
      return [address, address.kind() === "ipv4" ? 32 : 128];
    } catch {
      throw new Error(`WEB_READ_ALLOW_CIDRS: "${cidr}" is not an address or a CIDR range`);
    }
  });
  return { cidrs, allowed };
}

/** Parse `WEB_READ_PORTS` ("80,443,8080,8443"). */
export function parsePorts(raw: string | undefined): Set<number> {
  if (raw === undefined || raw.trim() === "") return new Set(DEFAULT_PORTS);
  const ports = raw.split(",").map((s) => s.trim());
  for (const p of ports) {
    if (!/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535) throw new Error(`WEB_READ_PORTS: "${p}" is not a port (1-65535)`);
  }
  return new Set(ports.map(Number));
}

export function addressPolicy(env: { allowCidrs?: string; ports?: string } = {}): AddressPolicy {
  const { cidrs, allowed } = parseCidrs(env.allowCidrs);
  return { ports: parsePorts(env.ports), allowCidrs: cidrs, allowed };
}

/** Words for the ranges a refusal names. */
const RANGE_WORDS: Record<string, string> = {
  loopback: "a loopback address",
  private: "a private address (RFC 1918)",
  linkLocal: "a link-local address (cloud metadata services live there)",
  uniqueLocal: "a unique-local address (fc00::/7)",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  unspecified: "the unspecified address (0.0.0.0 or ::)",
  carrierGradeNat: "a carrier-grade NAT address (100.64.0.0/10)",
  teredo: "a Teredo tunnel address",
  reserved: "a reserved or documentation address",
};

/** The IPv4 address inside an IPv6 form that carries one (mapped, compatible, 6to4, NAT64), else undefined. */
function embeddedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray();
  if (range === "ipv4Mapped" || range === "rfc6145" || range === "rfc6052") {
    return new ipaddr.IPv4(bytes.slice(12, 16));
  }
  if (range === "6to4") return new ipaddr.IPv4(bytes.slice(2, 6));
  // IPv4-compatible (::/96, deprecated by RFC 4291 §2.5.5.1): ipaddr.js reads `::7f00:1` as unicast,
  // though a host may route it to the IPv4 address inside. `::` and `::1` have ranges of their own.
  if (range === "unicast" && bytes.slice(0, 12).every((b) => b === 0)) return new ipaddr.IPv4(bytes.slice(12, 16));
  return undefined;
}

function inAllowed(address: Address, policy: AddressPolicy): boolean {
  return policy.allowed.some(([range, bits]) => address.kind() === range.kind() && address.match(range, bits));
}

/**
 * Why the reader must not connect to `ip`, or undefined when it may. `ip` is an address as DNS or a
 * socket gives it (no brackets). An address the operator allowed is accepted as it is; otherwise it
 * must be public unicast, also when an IPv6 form wraps an IPv4 address.
 */
export function refusalOf(ip: string, policy: AddressPolicy): string | undefined {
  let address: Address;
  try {
    address = ipaddr.parse(ip);
  } catch {
    return `"${ip}" is not an IP address`;
  }
  if (inAllowed(address, policy)) return undefined;
  if (address.kind() === "ipv6") {
    const v6 = address as ipaddr.IPv6;
    const range = v6.range();
    const inner = embeddedIPv4(v6, range);
    if (inner !== undefined) {
      if (inAllowed(inner, policy)) return undefined;
      const why = refusalOfRange(inner.range());
      const form = range === "6to4" ? "6to4" : range === "rfc6052" ? "NAT64" : range === "unicast" ? "IPv4-compatible" : "IPv4-mapped";
      return why === undefined ? undefined : `${why}, inside an IPv6 address (${form})`;
    }
    return refusalOfRange(range);
  }
  return refusalOfRange(address.range());
}

function refusalOfRange(range: string): string | undefined {
  if (range === "unicast") return undefined;
  return RANGE_WORDS[range] ?? `an address in the ${range} range`;
}

/** The host of a URL as an address literal (brackets removed), or undefined for a name. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(":") || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : undefined;
}

/** The URL's port, or its scheme's default. */
export function portOf(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/**
 * Checks a URL the reader is asked to fetch (the caller's, or a redirect's target): scheme,
 * credentials, port, and a literal address in the host. Names are checked at connection time
 * (connector.ts), where every address DNS gives and the socket's peer are checked.
 */
export function checkUrl(raw: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused(`"${clipUrl(raw)}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TargetRefused(`the scheme ${url.protocol.replace(/:$/, "")} is not read: only http and https URLs are`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new TargetRefused("a URL with credentials (user:password@) is not read");
  }
  const port = portOf(url);
  if (!policy.ports.has(port)) {
    throw new TargetRefused(`port ${port} is not read: the reader connects to ports ${[...policy.ports].sort((a, b) => a - b).join(", ")}`);
  }
  const literal = literalAddress(url.hostname);
  if (literal !== undefined) {
    const why = refusalOf(literal, policy);
    if (why !== undefined) throw new TargetRefused(`${literal} is ${why}; the reader connects only to public addresses`);
  }
  return url;
}

/** A URL shortened for a message. */
export function clipUrl(url: string, max = 200): string {
  return url.length <= max ? url : `${url.slice(0, max - 1)}…`;
}
