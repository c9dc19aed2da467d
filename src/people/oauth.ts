/**
 * Quarry as the OAuth 2.1 authorization server of its own resources (/mcp and the /v1 API), as the
 * MCP authorization specification has MCP hosts expect: protected resource metadata (RFC 9728),
 * authorization server metadata (RFC 8414), dynamic client registration (RFC 7591) and clients known
 * by their Client ID Metadata Document (an https URL as client_id: client-metadata.ts), the
 * authorization code grant with PKCE S256 only (RFC 7636), rotating refresh tokens, revocation
 * (RFC 7009) and resource indicators (RFC 8707). Consent is given in the dashboard by a signed-in
 * person (src/dashboard/routes.ts); a token then acts for that person's account like an API key.
 *
 * What is the MCP SDK's and what is written here (docs/dashboard.md, "OAuth: library and hand-written
 * parts"): the SDK's server-side handlers are Express routers, so their flows are restated here
 * for Fastify, step for step (authorize: client and redirect URI first, answered directly; the other
 * parameters after, answered by redirect). The SDK provides the error classes and their wire form,
 * the client metadata schema registrations are checked against, the metadata and token types, and
 * the resource-indicator check. Written here: the PKCE S256 comparison (RFC 7636 §4.6, one hash and a
 * constant-time compare), the redirect URI rules, token issuance and storage.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import {
  AccessDeniedError,
  InvalidClientError,
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
  type OAuthError,
  UnsupportedGrantTypeError,
  UnsupportedResponseTypeError,
  UnsupportedTokenTypeError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import {
  type OAuthClientInformationFull,
  OAuthClientMetadataSchema,
  type OAuthMetadata,
  type OAuthProtectedResourceMetadata,
  type OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { checkResourceAllowed } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import { ACCESS_TOKEN_PREFIX, hashKey } from "../accounts/accounts.ts";
import type { JsonObject } from "../capabilities/types.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { type IdGenerator, randomBase62 } from "../ids.ts";
import type { OAuthClientRow, OAuthGrantRow, OAuthTokenRow, PeopleStore } from "../store/types.ts";
import { isObject, validate } from "../validation.ts";
import { type ClientMetadataDocuments, isDocumentClientId } from "./client-metadata.ts";
import { ClientRegistrationSchema } from "./oauth-schemas.ts";

export { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";

/** The one scope: a token does what an API key of the account does. */
export const SCOPE = "quarry";
export const REFRESH_TOKEN_PREFIX = "qrt_";
const REFRESH_TOKEN_PATTERN = /^qrt_[0-9A-Za-z]{40}$/;
/** Authorization codes: 43 base62 characters (~256 bits), one use, this long. */
export const CODE_TTL_MS = 5 * 60 * 1000;
const CODE_PATTERN = /^[0-9A-Za-z]{43}$/;
/** A pending authorization request waits this long for the person's decision. */
export const PENDING_TTL_MS = 10 * 60 * 1000;
/** RFC 7636 §4.1 (verifier) and §4.2 (an S256 challenge is 32 bytes in base64url). */
const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Longest `state` kept (it travels back in the redirect). */
const STATE_MAX = 1024;

export const AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"] as const;

/** An authorization request checked and waiting for the person's consent (kept in their dashboard session). */
export interface PendingAuthorization {
  [key: string]: string | number | undefined;
  /**
   * This request's own id, sent back by the consent form: a click approves the request the page
   * showed, never another one a second /oauth/authorize put in the session meanwhile.
   */
  id: string;
  clientId: string;
  clientName: string;
  /** The host serving the client's metadata document (a client whose client_id is its URL), shown with its name. */
  clientHost?: string;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  scope: string;
  resource: string;
  expiresAt: number;
}

/** Form or query parameters as Fastify hands them over: a repeated parameter is an array. */
export type Params = Record<string, unknown>;

/**
 * One value of a parameter: absent, or a single string. A parameter sent twice is refused (RFC 6749
 * §3.1: "Request and response parameters MUST NOT be included more than once").
 */
function param(params: Params, name: string): string | undefined {
  const value = Object.hasOwn(params, name) ? params[name] : undefined;
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new InvalidRequestError(`${name} must be given once`);
  // NUL and unpaired surrogates are no text a parameter holds (PostgreSQL refuses NUL in text).
  if (value.includes("\u0000") || !value.isWellFormed()) throw new InvalidRequestError(`${name} holds characters that are not allowed`);
  return value;
}

function required(params: Params, name: string): string {
  const value = param(params, name);
  if (value === undefined || value === "") throw new InvalidRequestError(`${name} is required`);
  return value;
}

/**
 * Whether a redirect URI sent with a request is one the client registered: the same string, or, for
 * a loopback address, the same but for the port (RFC 8252 §7.3: native apps listen on any free
 * port). The same rule as the MCP SDK's `redirectUriMatches` (its authorize handler), which is not
 * imported because its module loads Express; a test holds the two equal.
 */
export function redirectUriMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  let req: URL;
  let reg: URL;
  try {
    req = new URL(requested);
    reg = new URL(registered);
  } catch {
    return false;
  }
  const loopback = new Set(["localhost", "127.0.0.1", "[::1]"]);
  if (!loopback.has(req.hostname) || !loopback.has(reg.hostname)) return false;
  return req.protocol === reg.protocol && req.hostname === reg.hostname && req.pathname === reg.pathname && req.search === reg.search;
}

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) equals the challenge, compared in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER_PATTERN.test(verifier) || !CHALLENGE_PATTERN.test(challenge)) return false;
  const computed = Buffer.from(createHash("sha256").update(verifier, "ascii").digest("base64url"));
  return timingSafeEqual(computed, Buffer.from(challenge));
}

const sha256 = (text: string) => hashKey(text);

export interface OAuthEndpoints {
  issuer: string;
  authorization: string;
  token: string;
  registration: string;
  revocation: string;
}

export function endpoints(base: string): OAuthEndpoints {
  return {
    issuer: base,
    authorization: `${base}/oauth/authorize`,
    token: `${base}/oauth/token`,
    registration: `${base}/oauth/register`,
    revocation: `${base}/oauth/revoke`,
  };
}

export class OAuthService {
  constructor(
    private readonly store: PeopleStore,
    private readonly config: Config,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly documents: ClientMetadataDocuments,
  ) {}

  /** RFC 8414 authorization server metadata. */
  metadata(base: string): OAuthMetadata & { authorization_response_iss_parameter_supported: boolean; client_id_metadata_document_supported: boolean } {
    const e = endpoints(base);
    return {
      issuer: e.issuer,
      authorization_endpoint: e.authorization,
      token_endpoint: e.token,
      registration_endpoint: e.registration,
      revocation_endpoint: e.revocation,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: [...AUTH_METHODS],
      revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
      scopes_supported: [SCOPE],
      service_documentation: `${base}/v1/openapi.public.json`,
      authorization_response_iss_parameter_supported: true,
      // An https URL as client_id names the client's metadata document (client-metadata.ts).
      client_id_metadata_document_supported: true,
    };
  }

  /** RFC 9728 protected resource metadata: the whole API is one resource, identified by the base URL. */
  resourceMetadata(base: string): OAuthProtectedResourceMetadata {
    return {
      resource: base,
      authorization_servers: [base],
      scopes_supported: [SCOPE],
      bearer_methods_supported: ["header"],
      resource_name: "Quarry",
      resource_documentation: `${base}/v1/openapi.public.json`,
    };
  }

  /** Close what the service opened (connections fetching client metadata documents). */
  close(): Promise<void> {
    return this.documents.close();
  }

  // Registration (RFC 7591)

  /**
   * Register a client. The body is checked against the published schema (oauth-schemas.ts, also in
   * the OpenAPI document) and then the SDK's client metadata schema; a client with a secret gets it
   * here, once (only its SHA-256 is kept).
   */
  async register(body: unknown): Promise<OAuthClientInformationFull> {
    const violations = validate(ClientRegistrationSchema, body);
    if (violations.length > 0) {
      const first = violations[0]!;
      // A redirect URI that is not allowed, or none at all in the list; a missing list is metadata.
      const listed = isObject(body) && Array.isArray(body.redirect_uris);
      const redirect = first.path.startsWith("/redirect_uris/") || (first.path === "/redirect_uris" && listed);
      const message = `${first.path || "the body"}: ${first.message}${redirect ? ` (allowed: https URLs, http on a loopback address, or a private-use scheme such as com.example.app:/cb; no fragment)` : ""}`;
      throw redirect ? new InvalidRedirectUriError(message) : new InvalidClientMetadataError(message);
    }
    const parsed = OAuthClientMetadataSchema.safeParse(body);
    if (!parsed.success) throw new InvalidClientMetadataError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
    // What this server acts on; other members (jwks, software_statement, …) are not kept.
    const { jwks: _jwks, jwks_uri: _jwksUri, software_statement: _statement, ...metadata } = parsed.data;
    const method = metadata.token_endpoint_auth_method ?? "client_secret_basic";
    const grantTypes = metadata.grant_types ?? ["authorization_code"];
    const now = this.clock.now();
    const id = `qc_${randomBase62(24)}`;
    const secret = method === "none" ? undefined : `qcs_${randomBase62(43)}`;
    const registered = {
      ...metadata,
      client_name: metadata.client_name ?? "An unnamed app",
      token_endpoint_auth_method: method,
      grant_types: grantTypes,
      response_types: metadata.response_types ?? ["code"],
      scope: SCOPE,
      client_id: id,
      client_id_issued_at: Math.floor(now / 1000),
    };
    const row: OAuthClientRow = {
      id,
      secretHash: secret === undefined ? null : sha256(secret),
      metadata: JSON.parse(JSON.stringify(registered)) as JsonObject,
      createdAt: now,
    };
    await this.store.createOAuthClient(row);
    // The secret does not expire (0, RFC 7591 §3.2.1); revoking the grant is how access ends.
    return secret === undefined ? registered : { ...registered, client_secret: secret, client_secret_expires_at: 0 };
  }

  /**
   * A registered client, or a client known by its metadata document: fetched (or from the cache),
   * checked, and saved under its URL so codes and grants can name it (a changed document replaces
   * what was saved). A document that cannot be used is InvalidClientError saying why.
   */
  private async client(id: string, beforeFetch?: () => Promise<void>): Promise<{ row: OAuthClientRow; info: OAuthClientInformationFull } | null> {
    if (isDocumentClientId(id)) {
      const document = await this.documents.resolve(id, beforeFetch);
      const row: OAuthClientRow = { id, secretHash: null, metadata: JSON.parse(JSON.stringify(document)) as JsonObject, createdAt: this.clock.now() };
      await this.store.createOAuthClient(row);
      return { row, info: document as unknown as OAuthClientInformationFull };
    }
    const row = await this.store.getOAuthClient(id);
    return row ? { row, info: row.metadata as unknown as OAuthClientInformationFull } : null;
  }

  // Authorization request

  /**
   * The first step of an authorization request: the client and where to answer. Its errors are shown
   * to the person, never sent to a redirect URI that is not known to be the client's (RFC 6749 §4.1.2.1).
   * `beforeFetch` runs when a client metadata document is about to be fetched (the caller's budget).
   */
  async checkClient(params: Params, beforeFetch?: () => Promise<void>): Promise<{ info: OAuthClientInformationFull; redirectUri: string }> {
    const clientId = required(params, "client_id");
    const found = await this.client(clientId, beforeFetch);
    if (!found) throw new InvalidClientError("This app is not registered with this Quarry (unknown client_id).");
    const registered = found.info.redirect_uris;
    const sent = param(params, "redirect_uri");
    if (sent !== undefined) {
      if (!registered.some((uri) => redirectUriMatches(sent, uri))) throw new InvalidRequestError("redirect_uri is not one the app registered.");
      return { info: found.info, redirectUri: sent };
    }
    if (registered.length !== 1) throw new InvalidRequestError("redirect_uri is required: the app registered several.");
    return { info: found.info, redirectUri: registered[0]! };
  }

  /** The rest of the request; its errors go back to the client's redirect URI (errorRedirect). */
  checkRequest(params: Params, client: { info: OAuthClientInformationFull; redirectUri: string }, base: string): PendingAuthorization {
    const responseType = required(params, "response_type");
    if (responseType !== "code") throw new UnsupportedResponseTypeError("Only response_type=code is supported.");
    const challenge = required(params, "code_challenge");
    const method = param(params, "code_challenge_method");
    if (method !== "S256") throw new InvalidRequestError("PKCE with code_challenge_method=S256 is required.");
    if (!CHALLENGE_PATTERN.test(challenge)) throw new InvalidRequestError("code_challenge must be 43 base64url characters (S256).");
    const state = param(params, "state");
    if (state !== undefined && state.length > STATE_MAX) throw new InvalidRequestError(`state must be at most ${STATE_MAX} characters.`);
    const resource = this.checkResource(param(params, "resource"), base);
    // The scope asked for is not refused: what is granted is the one scope there is (RFC 6749 §3.3).
    param(params, "scope");
    return {
      id: randomBase62(22),
      clientId: client.info.client_id,
      clientName: client.info.client_name ?? "An unnamed app",
      ...(isDocumentClientId(client.info.client_id) ? { clientHost: new URL(client.info.client_id).host } : {}),
      redirectUri: client.redirectUri,
      codeChallenge: challenge,
      ...(state === undefined ? {} : { state }),
      scope: SCOPE,
      resource,
      expiresAt: this.clock.now() + PENDING_TTL_MS,
    };
  }

  /** RFC 8707: a resource at this deployment (the API, /mcp or anything under the base URL). */
  private checkResource(resource: string | undefined, base: string): string {
    if (resource === undefined) return base;
    let ok = false;
    try {
      ok = new URL(resource).hash === "" && checkResourceAllowed({ requestedResource: resource, configuredResource: base });
    } catch {
      ok = false;
    }
    if (!ok) throw new InvalidTargetError(`resource must be this server (${base}) or a URL under it.`);
    return resource;
  }

  /** Where the client's redirect URI is sent with an error (and the state, and the issuer: RFC 9207). */
  errorRedirect(redirectUri: string, error: OAuthError, state: string | undefined, base: string): string {
    const url = new URL(redirectUri);
    url.searchParams.set("error", error.errorCode);
    url.searchParams.set("error_description", error.message);
    if (state !== undefined) url.searchParams.set("state", state);
    url.searchParams.set("iss", base);
    return url.href;
  }

  /** The person approved: a one-use code for the client, sent to its redirect URI. */
  async approve(pending: PendingAuthorization, accountId: string, base: string): Promise<string> {
    const code = randomBase62(43);
    const now = this.clock.now();
    await this.store.createOAuthCode({
      hash: sha256(code),
      clientId: pending.clientId,
      accountId,
      grantId: this.ids.id("grant"),
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
      scope: pending.scope,
      resource: pending.resource,
      expiresAt: now + CODE_TTL_MS,
      createdAt: now,
      usedAt: null,
    });
    const url = new URL(pending.redirectUri);
    url.searchParams.set("code", code);
    if (pending.state !== undefined) url.searchParams.set("state", pending.state);
    url.searchParams.set("iss", base);
    return url.href;
  }

  deny(pending: PendingAuthorization, base: string): string {
    return this.errorRedirect(pending.redirectUri, new AccessDeniedError("The person declined to connect this app."), pending.state, base);
  }

  // Token endpoint

  /**
   * The client a token or revocation request comes from (RFC 6749 §2.3.1): HTTP Basic, or client_id
   * (and client_secret) in the form. A client registered with a secret must present it.
   */
  async authenticateClient(params: Params, authorization: string | undefined, beforeFetch?: () => Promise<void>): Promise<OAuthClientRow> {
    let id = param(params, "client_id");
    let secret = param(params, "client_secret");
    if (authorization !== undefined && /^basic /i.test(authorization)) {
      const decoded = Buffer.from(authorization.slice(6).trim(), "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon < 0) throw new InvalidClientError("The Basic credentials must be client_id:client_secret.");
      try {
        id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
        secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "));
      } catch {
        throw new InvalidClientError("The Basic credentials are not valid form-encoding.");
      }
    }
    if (id === undefined || id === "") throw new InvalidClientError("Client authentication is required (client_id).");
    const found = (await this.client(id, beforeFetch))?.row;
    if (!found) throw new InvalidClientError("Unknown client_id.");
    if (found.secretHash !== null) {
      if (secret === undefined || secret === "") throw new InvalidClientError("This client must authenticate with its client_secret.");
      const ok = timingSafeEqual(Buffer.from(sha256(secret), "hex"), Buffer.from(found.secretHash, "hex"));
      if (!ok) throw new InvalidClientError("The client_secret is not valid.");
    }
    return found;
  }

  async token(params: Params, authorization: string | undefined, base: string, beforeFetch?: () => Promise<void>): Promise<OAuthTokens> {
    const client = await this.authenticateClient(params, authorization, beforeFetch);
    const grantType = required(params, "grant_type");
    if (grantType === "authorization_code") return this.exchangeCode(params, client, base);
    if (grantType === "refresh_token") return this.refresh(params, client, base);
    throw new UnsupportedGrantTypeError("grant_type must be authorization_code or refresh_token.");
  }

  private tokens(grantId: string, withRefresh: boolean): { rows: OAuthTokenRow[]; answer: OAuthTokens } {
    const now = this.clock.now();
    const access = ACCESS_TOKEN_PREFIX + randomBase62(40);
    const rows: OAuthTokenRow[] = [
      { hash: sha256(access), grantId, kind: "access", expiresAt: now + this.config.oauth.accessTokenTtlSeconds * 1000, createdAt: now, usedAt: null },
    ];
    const answer: OAuthTokens = { access_token: access, token_type: "Bearer", expires_in: this.config.oauth.accessTokenTtlSeconds, scope: SCOPE };
    if (withRefresh) {
      const refresh = REFRESH_TOKEN_PREFIX + randomBase62(40);
      rows.push({
        hash: sha256(refresh),
        grantId,
        kind: "refresh",
        expiresAt: now + this.config.oauth.refreshTokenTtlSeconds * 1000,
        createdAt: now,
        usedAt: null,
      });
      answer.refresh_token = refresh;
    }
    return { rows, answer };
  }

  private async exchangeCode(params: Params, client: OAuthClientRow, base: string): Promise<OAuthTokens> {
    const code = required(params, "code");
    const verifier = required(params, "code_verifier");
    const redirectUri = param(params, "redirect_uri");
    if (!CODE_PATTERN.test(code)) throw new InvalidGrantError("The authorization code is not valid.");
    const now = this.clock.now();
    const used = await this.store.useOAuthCode(sha256(code), now);
    if (!used || used.code.clientId !== client.id) throw new InvalidGrantError("The authorization code is not valid.");
    const { code: row, firstUse } = used;
    if (!firstUse) {
      // OAuth 2.1 §4.1.3: a code presented twice may have been stolen; what it gave is taken back.
      await this.store.revokeOAuthGrant(row.grantId, now);
      throw new InvalidGrantError("The authorization code was used already; the access it gave has been revoked.");
    }
    if (row.expiresAt <= now) throw new InvalidGrantError("The authorization code has expired; authorize again.");
    if (redirectUri !== undefined && redirectUri !== row.redirectUri) throw new InvalidGrantError("redirect_uri differs from the authorization request's.");
    if (!pkceMatches(verifier, row.codeChallenge)) throw new InvalidGrantError("code_verifier does not match the code_challenge (PKCE).");
    this.checkResource(param(params, "resource"), base);
    const info = client.metadata as unknown as OAuthClientInformationFull;
    const grant: OAuthGrantRow = {
      id: row.grantId,
      accountId: row.accountId,
      clientId: client.id,
      clientName: (info.client_name ?? "An unnamed app").slice(0, 200),
      scope: row.scope,
      resource: row.resource,
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
    };
    const { rows, answer } = this.tokens(grant.id, (info.grant_types ?? []).includes("refresh_token"));
    await this.store.createOAuthGrant(grant, rows);
    return answer;
  }

  private async refresh(params: Params, client: OAuthClientRow, base: string): Promise<OAuthTokens> {
    const token = required(params, "refresh_token");
    if (!REFRESH_TOKEN_PATTERN.test(token)) throw new InvalidGrantError("The refresh token is not valid.");
    this.checkResource(param(params, "resource"), base);
    const hash = sha256(token);
    const found = await this.store.findOAuthToken(hash);
    if (found?.token.kind !== "refresh" || found.grant.clientId !== client.id) throw new InvalidGrantError("The refresh token is not valid.");
    const { rows, answer } = this.tokens(found.grant.id, true);
    const now = this.clock.now();
    const outcome = await this.store.rotateOAuthRefresh(hash, now, rows);
    if (outcome === "reused") {
      // A refresh token is used once (it rotates); a second use means two parties hold it.
      await this.store.revokeOAuthGrant(found.grant.id, now);
      throw new InvalidGrantError("The refresh token was used already; the connection has been revoked. Connect again.");
    }
    if (outcome === "invalid") throw new InvalidGrantError("The refresh token has expired or been revoked. Connect again.");
    return answer;
  }

  /** RFC 7009: revoking either token of a grant ends the grant (both its tokens). Unknown tokens are fine. */
  async revoke(params: Params, authorization: string | undefined): Promise<void> {
    const client = await this.authenticateClient(params, authorization);
    const token = required(params, "token");
    const hint = param(params, "token_type_hint");
    if (hint !== undefined && hint !== "access_token" && hint !== "refresh_token") {
      throw new UnsupportedTokenTypeError("token_type_hint must be access_token or refresh_token.");
    }
    const found = await this.store.findOAuthToken(sha256(token));
    if (found && found.grant.clientId === client.id) await this.store.revokeOAuthGrant(found.grant.id, this.clock.now());
  }

  // The dashboard's view

  async grants(accountId: string): Promise<OAuthGrantRow[]> {
    return (await this.store.listOAuthGrants(accountId)).filter((g) => g.revokedAt === null);
  }

  /** Revoke one of the account's grants; false when the account has no such grant. */
  async revokeGrant(accountId: string, grantId: string): Promise<boolean> {
    const owned = (await this.store.listOAuthGrants(accountId)).some((g) => g.id === grantId);
    if (!owned) return false;
    await this.store.revokeOAuthGrant(grantId, this.clock.now());
    return true;
  }
}

/** RFC 7591 §3.2.2's error for redirect URIs (the SDK has none of its own). */
export class InvalidRedirectUriError extends InvalidClientMetadataError {
  static override errorCode = "invalid_redirect_uri";
}
