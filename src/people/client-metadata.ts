/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, which the MCP
 * authorization specification asks servers to support, and which claude.ai uses instead of dynamic
 * registration): a client whose `client_id` is an https URL is described by the JSON document at that
 * URL. This module fetches, checks and caches those documents.
 *
 * - The URL (the client id): https, a path, no credentials, fragment or dot segments, at most 2,000
 *   characters.
 * - Fetched through the reader's guarded connections (src/reader/connector.ts): no private, loopback,
 *   link-local (cloud metadata) or other non-public address, checked on every connection and on every
 *   redirect hop (at most three hops, each target checked as a new URL); at most 5 s and 16 KiB.
 * - The document must be a JSON object whose `client_id` is exactly the URL, with `redirect_uris` (the
 *   same rules as registration: oauth-schemas.ts), a `client_name` without control or bidi-formatting
 *   characters when given, no `client_secret`, and `token_endpoint_auth_method` absent or `none`
 *   (Quarry takes such clients as public clients with PKCE; private_key_jwt is not supported).
 * - Cached by URL within its HTTP caching headers (`Cache-Control: max-age`, `no-store`, `Expires`),
 *   at most a day, an hour when it says nothing; concurrent requests for one URL share one fetch.
 *
 * Failures are InvalidClientError with a sentence saying what is wrong, shown on the authorization page.
 */
import { InvalidClientError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { LRUCache } from "lru-cache";
import { type Agent, request } from "undici";
import { type AddressPolicy, addressPolicy, checkUrl, clipUrl, TargetRefused } from "../reader/address.ts";
import { guardedAgent, NameNotResolved, type Resolver, systemResolver } from "../reader/connector.ts";
import { isObject, validate } from "../validation.ts";
import { ClientRegistrationSchema } from "./oauth-schemas.ts";

/** The largest document read. */
export const DOCUMENT_MAX_BYTES = 16 * 1024;
/** How long a fetch may take, redirects included. */
export const DOCUMENT_TIMEOUT_MS = 5_000;
/** Redirects followed at most. */
const MAX_REDIRECTS = 3;
/** Cached at most this long, whatever the document's headers say. */
export const DOCUMENT_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** Cached this long when the document says nothing about caching. */
export const DOCUMENT_DEFAULT_AGE_MS = 60 * 60 * 1000;

/** What Quarry keeps of a client's document. */
export interface ClientDocument {
  client_id: string;
  client_name?: string;
  redirect_uris: string[];
  grant_types: ("authorization_code" | "refresh_token")[];
  response_types: ["code"];
  token_endpoint_auth_method: "none";
  client_uri?: string;
  /** Marks a client known by its metadata document (not registered). */
  client_id_metadata_document: true;
}

export interface ClientMetadataOptions {
  /** Who may be connected to: public addresses, and the operator's `allowCidrs` (tests: loopback). */
  policy?: AddressPolicy;
  resolver?: Resolver;
  /** Certificate authorities to trust instead of Node's (tests serving https on loopback). */
  ca?: string;
  userAgent: string;
  now?: () => number;
}

/** Whether a client id names a metadata document (an https URL) rather than a registered client. */
export function isDocumentClientId(clientId: string): boolean {
  return /^https:\/\//i.test(clientId);
}

const refuse = (message: string) => new InvalidClientError(message);

/** The URL rules of a client id (draft §3). */
function checkClientIdUrl(clientId: string): URL {
  if (clientId.length > 2000) throw refuse("The client_id URL is longer than 2,000 characters.");
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw refuse("The client_id is not a URL.");
  }
  if (url.protocol !== "https:") throw refuse("A client_id URL must use https.");
  if (url.username !== "" || url.password !== "") throw refuse("A client_id URL must not hold credentials.");
  if (url.hash !== "" || clientId.includes("#")) throw refuse("A client_id URL must not have a fragment.");
  if (url.pathname === "/" || url.pathname === "") throw refuse("A client_id URL must have a path (the document's own address).");
  // The URL parser removes dot segments, so the id as written is checked (also percent-encoded dots).
  const written = clientId.slice(clientId.indexOf("/", "https://".length));
  if (/(?:^|\/)(?:\.|%2e){1,2}(?:\/|\?|$)/i.test(written)) throw refuse("A client_id URL must not have . or .. path segments.");
  return url;
}

/** Seconds of `Cache-Control: max-age` (or `Expires`), 0 for `no-store`/`no-cache`; the lifetime in ms. */
function lifetimeOf(headers: Record<string, string | string[] | undefined>, now: number): number {
  const cc = String(headers["cache-control"] ?? "").toLowerCase();
  if (/\b(?:no-store|no-cache)\b/.test(cc)) return 0;
  const maxAge = /\bmax-age\s*=\s*(\d+)/.exec(cc);
  if (maxAge !== null) return Math.min(Number(maxAge[1]) * 1000, DOCUMENT_MAX_AGE_MS);
  const expires = Date.parse(String(headers.expires ?? ""));
  if (!Number.isNaN(expires)) return Math.max(0, Math.min(expires - now, DOCUMENT_MAX_AGE_MS));
  return DOCUMENT_DEFAULT_AGE_MS;
}

/** The document's members Quarry acts on, checked; throws a refusal naming the first problem. */
export function checkDocument(clientId: string, value: unknown): ClientDocument {
  if (!isObject(value)) throw refuse("The client's metadata document is not a JSON object.");
  if (value.client_id !== clientId) {
    throw refuse(`The client's metadata document names another client_id (${clipUrl(String(value.client_id ?? "none"), 120)}), not its own URL.`);
  }
  if (value.client_secret !== undefined || value.client_secret_expires_at !== undefined) {
    throw refuse("A client's metadata document must not hold a client_secret.");
  }
  const method = value.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") {
    throw refuse(`token_endpoint_auth_method ${JSON.stringify(method)} is not supported for clients known by a metadata document; use none (a public client with PKCE).`);
  }
  const violations = validate(ClientRegistrationSchema, value);
  if (violations.length > 0) {
    const first = violations[0]!;
    throw refuse(`The client's metadata document is not valid: ${first.path || "the document"} ${first.message}.`);
  }
  const grantTypes = (value.grant_types as ClientDocument["grant_types"] | undefined) ?? ["authorization_code"];
  return {
    client_id: clientId,
    ...(typeof value.client_name === "string" && value.client_name.trim() !== "" ? { client_name: value.client_name } : {}),
    redirect_uris: value.redirect_uris as string[],
    grant_types: grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...(typeof value.client_uri === "string" ? { client_uri: value.client_uri } : {}),
    client_id_metadata_document: true,
  };
}

export class ClientMetadataDocuments {
  private readonly cache = new LRUCache<string, { document: ClientDocument; until: number }>({ max: 1000 });
  private readonly pending = new Map<string, Promise<ClientDocument>>();
  private readonly policy: AddressPolicy;
  private agent: Agent | undefined;
  private readonly now: () => number;

  constructor(private readonly options: ClientMetadataOptions) {
    // Documents are served on the web's ordinary ports (and, for tests, the ports their policy names).
    this.policy = options.policy ?? addressPolicy({ ports: "443,8443" });
    this.now = options.now ?? Date.now;
  }

  /**
   * The checked document of `clientId` (an https URL), from the cache or fetched now. `beforeFetch`
   * runs only when this call starts a fetch (a per-address budget: anyone can name a URL, so fetching
   * is counted like a registration) and may throw to refuse it.
   */
  async resolve(clientId: string, beforeFetch?: () => Promise<void>): Promise<ClientDocument> {
    const hit = this.cache.get(clientId);
    if (hit !== undefined && hit.until > this.now()) return hit.document;
    let run = this.pending.get(clientId);
    if (run === undefined) {
      await beforeFetch?.();
      run = this.pending.get(clientId);
    }
    if (run === undefined) {
      run = this.fetch(clientId).finally(() => this.pending.delete(clientId));
      this.pending.set(clientId, run);
    }
    return run;
  }

  async close(): Promise<void> {
    await this.agent?.close();
  }

  private async fetch(clientId: string): Promise<ClientDocument> {
    let url = checkClientIdUrl(clientId);
    this.agent ??= guardedAgent({ policy: this.policy, resolver: this.options.resolver ?? systemResolver, connectTimeoutMs: DOCUMENT_TIMEOUT_MS, ...(this.options.ca === undefined ? {} : { ca: this.options.ca }) });
    const signal = AbortSignal.timeout(DOCUMENT_TIMEOUT_MS);
    try {
      for (let hop = 0; ; hop++) {
        checkUrl(url.href, this.policy);
        const res = await request(url.href, {
          method: "GET",
          dispatcher: this.agent,
          signal,
          headers: { accept: "application/json", "user-agent": this.options.userAgent, "accept-encoding": "identity" },
        });
        if ([301, 302, 303, 307, 308].includes(res.statusCode)) {
          await res.body.dump();
          const location = res.headers.location;
          if (typeof location !== "string") throw refuse(`The client's metadata document answered HTTP ${res.statusCode} without a Location.`);
          if (hop >= MAX_REDIRECTS) throw refuse(`The client's metadata document redirected more than ${MAX_REDIRECTS} times.`);
          url = new URL(location, url);
          if (url.protocol !== "https:") throw refuse("The client's metadata document redirected to an address that is not https.");
          continue;
        }
        if (res.statusCode !== 200) {
          await res.body.dump();
          throw refuse(`The client's metadata document answered HTTP ${res.statusCode}.`);
        }
        const declared = Number(res.headers["content-length"]);
        if (declared > DOCUMENT_MAX_BYTES) {
          await res.body.dump();
          throw refuse(`The client's metadata document is ${declared} bytes; at most ${DOCUMENT_MAX_BYTES} are read.`);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > DOCUMENT_MAX_BYTES) {
            res.body.destroy();
            throw refuse(`The client's metadata document is larger than the ${DOCUMENT_MAX_BYTES} bytes read.`);
          }
          chunks.push(chunk as Buffer);
        }
        let value: unknown;
        try {
          value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          throw refuse("The client's metadata document is not JSON.");
        }
        const document = checkDocument(clientId, value);
        const life = lifetimeOf(res.headers, this.now());
        if (life > 0) this.cache.set(clientId, { document, until: this.now() + life });
        return document;
      }
    } catch (err) {
      if (err instanceof InvalidClientError) throw err;
      if (err instanceof TargetRefused) {
        const reason = err.message.replace(/; the reader connects only to public addresses$/, "").replace(/the reader connects/g, "Quarry connects");
        throw refuse(`The client's metadata document was not fetched: ${reason} (documents are fetched from public addresses only).`);
      }
      if (err instanceof NameNotResolved) throw refuse(`The client's metadata document was not fetched: ${err.message}.`);
      if (signal.aborted) throw refuse(`The client's metadata document did not arrive within ${DOCUMENT_TIMEOUT_MS / 1000} s.`);
      const code = (err as { code?: string }).code;
      throw refuse(`The client's metadata document could not be fetched (${code ?? (err as Error).message}).`);
    }
  }
}
