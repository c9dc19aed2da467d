/**
 * Authentication on the HTTP side: the Bearer header, the OAuth challenge on a 401, the REST
 * routes' onRequest hook. Resolving and counting a caller is src/accounts/authenticator.ts's.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Caller } from "../accounts/accounts.ts";
import type { Authenticate } from "../accounts/authenticator.ts";
import { ApiError } from "../errors.ts";

export { type Authenticate, makeAuthenticator, RATE_WINDOW_MS, type RateBucket } from "../accounts/authenticator.ts";

declare module "fastify" {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

/** The key of an `Authorization: Bearer <key>` header, or undefined. */
export function bearerKey(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? "";
}

/**
 * The address this deployment is reached at: PUBLIC_URL, else the request's own scheme and Host
 * (what the client used to reach it). The OAuth metadata and the dashboard's URLs are built on it.
 */
export function publicBase(config: { publicUrl: string | undefined }, request: FastifyRequest): string {
  return config.publicUrl ?? `${request.protocol}://${request.host}`;
}

/** Where an MCP host learns how to get a token (RFC 9728): the protected resource metadata. */
export function resourceMetadataUrl(base: string): string {
  return `${base}/.well-known/oauth-protected-resource`;
}

/**
 * A 401 with the challenge OAuth clients follow (RFC 6750 §3, RFC 9728 §5.1): `WWW-Authenticate:
 * Bearer resource_metadata="…"`, with `error="invalid_token"` when a credential was sent. Other
 * errors pass through unchanged.
 */
export function withChallenge(error: unknown, base: string, credentialSent: boolean): unknown {
  if (!(error instanceof ApiError) || error.code !== "unauthorized") return error;
  const challenge =
    `Bearer realm="quarry"${credentialSent ? ', error="invalid_token"' : ""}, resource_metadata="${resourceMetadataUrl(base)}"`;
  return new ApiError("unauthorized", error.message, {
    ...(error.hint === undefined ? {} : { hint: error.hint }),
    headers: { ...error.headers, "www-authenticate": challenge },
    cause: error,
  });
}

/** onRequest hook of REST routes: Bearer key or OAuth token → request.caller, before the body is read or parsed. */
export function restAuth(authenticate: Authenticate, config: { publicUrl: string | undefined }) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization;
    try {
      request.caller = await authenticate(bearerKey(header), reply);
    } catch (error) {
      throw withChallenge(error, publicBase(config, request), header !== undefined);
    }
  };
}
