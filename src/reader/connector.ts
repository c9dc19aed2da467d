/**
 * The reader's connections: an undici Agent whose `connect` does the DNS lookup itself, checks
 * every address the name resolves to, connects to a checked address (never resolving again, so a
 * name that resolves public and then private cannot slip through: DNS rebinding), and checks the
 * socket's peer address once connected. Each connection of each redirect hop goes through it.
 *
 * The resolver is configurable: tests give a stub that maps names to private addresses.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { Agent, buildConnector } from "undici";
import { type AddressPolicy, refusalOf, TargetRefused } from "./address.ts";

/** Every address a name resolves to. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** The system resolver (getaddrinfo), every address of both families. */
export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** A name that does not resolve: 502 with a message saying so (no address was connected). */
export class NameNotResolved extends Error {
  constructor(readonly hostname: string, cause: unknown) {
    super(`the host name ${hostname} does not resolve`, { cause });
    this.name = "NameNotResolved";
  }
}

/** The checked address to connect to for `hostname`, or a TargetRefused naming why not. */
export async function resolveChecked(hostname: string, policy: AddressPolicy, resolver: Resolver): Promise<string> {
  if (isIP(hostname) !== 0) {
    const why = refusalOf(hostname, policy);
    if (why !== undefined) throw new TargetRefused(`${hostname} is ${why}; the reader connects only to public addresses`);
    return hostname;
  }
  let addresses: string[];
  try {
    addresses = await resolver(hostname);
  } catch (err) {
    throw new NameNotResolved(hostname, err);
  }
  if (addresses.length === 0) throw new NameNotResolved(hostname, new Error("no addresses"));
  // Every address must be allowed: a name with one private address among public ones is refused,
  // since the address a connection uses is not the caller's to choose.
  for (const address of addresses) {
    const why = refusalOf(address, policy);
    // The address itself is not named: the caller may not learn the internal DNS.
    if (why !== undefined) throw new TargetRefused(`the host ${hostname} resolves to ${why}; the reader connects only to public addresses`);
  }
  return addresses[0]!;
}

export interface GuardedAgentOptions {
  policy: AddressPolicy;
  resolver: Resolver;
  /** Connect timeout, ms. */
  connectTimeoutMs?: number;
  /** Certificate authorities to trust instead of Node's (tests serving https on loopback). */
  ca?: string;
}

/** An undici Agent that connects only to addresses `policy` allows. */
export function guardedAgent(options: GuardedAgentOptions): Agent {
  const base = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000, ...(options.ca === undefined ? {} : { ca: options.ca }) });
  const connect: buildConnector.connector = (opts, callback) => {
    const hostname = opts.hostname.startsWith("[") ? opts.hostname.slice(1, -1) : opts.hostname;
    resolveChecked(hostname, options.policy, options.resolver).then(
      (address) => {
        // `host` keeps the name, so TLS still verifies and sends it (SNI); only the address is pinned.
        base({ ...opts, hostname: address }, (err, socket) => {
          if (err !== null || socket === null) return callback(err ?? new Error("no socket"), null);
          const peer = socket.remoteAddress;
          const why = peer === undefined ? "an unknown address" : refusalOf(peer, options.policy);
          if (why !== undefined) {
            socket.destroy();
            return callback(new TargetRefused(`the connection to ${hostname} reached ${why}; the reader connects only to public addresses`), null);
          }
          callback(null, socket);
        });
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null),
    );
  };
  return new Agent({ connect, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 10_000, connections: 16 });
}
