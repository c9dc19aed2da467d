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

export function makeAuthenticator(accounts: AccountService, limiter: RateLimiter) {
  /** Resolve the caller from a key and count the request against its limit. */
  return async function authenticate(key: string | undefined, reply: FastifyReply): Promise<Caller> {
    const caller = await accounts.authenticate(key);
    const decision = await limiter.hit(caller.keyId ?? caller.account.id, caller.plan.rateLimitPerMinute, RATE_WINDOW_MS);
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
      throw new ApiError("rate_limited", `Over ${decision.limit} requests per minute for this key.`, {
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
