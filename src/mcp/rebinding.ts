/**
 * DNS-rebinding protection of the MCP endpoint (MCP transports, "Security warning"): a web page on
 * an attacker's name that resolves to this server must not reach it. Two checks, before the key:
 * - `Host` must name this server: the listening address's own names (a loopback address answers to
 *   localhost, 127.0.0.1 and [::1], any port) and the names in MCP_ALLOWED_HOSTS (`name` or
 *   `name:port`). A server on a wildcard address (0.0.0.0, ::) with no MCP_ALLOWED_HOSTS cannot know
 *   its public names and accepts any Host (docs/architecture.md says to set the list there).
 * - `Origin`, when a browser sends one, must be the server's own (its host passes the Host check,
 *   or equals the request's Host) or one of MCP_ALLOWED_ORIGINS. MCP hosts send no Origin.
 * A refusal is HTTP 403 with a JSON-RPC error, as MCP transports answer it (docs/errors.md).
 */
import type { Config } from "../config.ts";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"];
const WILDCARD = new Set(["0.0.0.0", "::", "[::]", ""]);

/** `host[:port]` → lower-case host name without IPv6 brackets, and the port if any; null when not a host. */
function parseHost(value: string): { name: string; port: string } | null {
  try {
    const url = new URL(`http://${value}/`);
    return { name: url.hostname.replace(/^\[|\]$/g, "").toLowerCase(), port: url.port };
  } catch {
    return null;
  }
}

function isLoopbackName(name: string): boolean {
  return LOOPBACK_NAMES.includes(name) || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** Whether `Host` names this server. */
export function hostAllowed(config: Pick<Config, "host" | "mcp">, host: string): boolean {
  const parsed = parseHost(host);
  if (parsed === null) return false;
  for (const entry of config.mcp.allowedHosts) {
    const allowed = parseHost(entry);
    // An entry with a port allows that port only; one without, any port.
    if (allowed !== null && allowed.name === parsed.name && (allowed.port === "" || allowed.port === parsed.port)) return true;
  }
  const listening = config.host.replace(/^\[|\]$/g, "").toLowerCase();
  if (WILDCARD.has(listening)) return config.mcp.allowedHosts.length === 0;
  if (isLoopbackName(listening)) return isLoopbackName(parsed.name);
  return parsed.name === listening;
}

/** Whether a request's `Origin` (absent: an MCP host, allowed) may call the endpoint. */
export function originAllowed(config: Pick<Config, "host" | "mcp">, origin: string | undefined, host: string): boolean {
  if (origin === undefined || config.mcp.allowedOrigins.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  // Same origin as the request, or another of the server's own names.
  if (url.host.toLowerCase() === host.toLowerCase()) return true;
  const listening = config.host.replace(/^\[|\]$/g, "").toLowerCase();
  return !WILDCARD.has(listening) || config.mcp.allowedHosts.length > 0 ? hostAllowed(config, url.host) : false;
}
