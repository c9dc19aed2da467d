/**
 * Authentication and per-key rate limiting for every authenticated route (REST and MCP).
 * Sends RateLimit-* headers on every answer and 429 rate_limited with Retry-After past the limit.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AccountService, Caller } from "../accounts/accounts.ts";
import { ApiError } from "../errors.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";

export const RATE_WINDOW_MS = 60_000;

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
 * A limit other than the key's call limit: MCP protocol messages (initialize, tools/list, ping,
 * notifications) are counted in a bucket of their own, so a host's handshake does not spend the
 * calls the key is for, and cannot be sent without bound either.
 */
export interface RateBucket {
  name: string;
  perMinute: number;
}

export function makeAuthenticator(accounts: AccountService, limiter: RateLimiter) {
  /**
   * Count a request of a resolved caller against its limit (or `bucket`'s): per API key; per OAuth
   * grant for a token (a grant is what a connected app holds, as a key is; it outlives the hourly
   * tokens); per account for a dashboard session.
   */
  async function count(caller: Caller, reply: FastifyReply, bucket?: RateBucket): Promise<Caller> {
    const id = caller.keyId ?? caller.grantId ?? caller.account.id;
    const decision =
      bucket === undefined
        ? await limiter.hit(id, caller.plan.rateLimitPerMinute, RATE_WINDOW_MS)
        : await limiter.hit(`${bucket.name}:${id}`, bucket.perMinute, RATE_WINDOW_MS);
    const reset = Math.ceil(decision.resetMs / 1000);
    const headers = {
      // Authenticated answers are the caller's own data: never cached by a proxy or browser.
      "cache-control": "no-store",
      "ratelimit-limit": String(decision.limit),
      "ratelimit-remaining": String(decision.remaining),
      "ratelimit-reset": String(reset),
    };
    reply.headers(headers);
    if (!decision.allowed) {
      const what = bucket === undefined ? "requests" : `${bucket.name} messages`;
      throw new ApiError("rate_limited", `Over ${decision.limit} ${what} per minute for this key.`, {
        retryAfter: Math.max(1, reset),
        headers,
        hint: `Wait ${Math.max(1, reset)} s (Retry-After) before the next call.`,
      });
    }
    return caller;
  }
  /** Resolve the caller from a key or OAuth access token and count the request (count above). */
  async function authenticate(key: string | undefined, reply: FastifyReply, bucket?: RateBucket): Promise<Caller> {
    return count(await accounts.authenticate(key), reply, bucket);
  }
  return Object.assign(authenticate, { count });
}

export type Authenticate = ReturnType<typeof makeAuthenticator>;

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
