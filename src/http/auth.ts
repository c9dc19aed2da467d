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
  /** Resolve the caller from a key and count the request against its limit (or `bucket`'s). */
  return async function authenticate(key: string | undefined, reply: FastifyReply, bucket?: RateBucket): Promise<Caller> {
    const caller = await accounts.authenticate(key);
    const id = caller.keyId ?? caller.account.id;
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
  };
}

export type Authenticate = ReturnType<typeof makeAuthenticator>;

/** onRequest hook of REST routes: Bearer key → request.caller, before the body is read or parsed. */
export function restAuth(authenticate: Authenticate) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    request.caller = await authenticate(bearerKey(request.headers.authorization), reply);
  };
}
