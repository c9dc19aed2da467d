/**
 * Authentication and per-key rate limiting for every authenticated call (REST, MCP and the
 * dashboard's GET /v1/account): the key or OAuth access token resolved to its caller, then counted
 * against its limit. The RateLimit-* headers go to a header sink (a Fastify reply, for the routes);
 * past the limit, 429 rate_limited with Retry-After.
 */
import { ApiError } from "../errors.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";
import type { AccountService, Caller } from "./accounts.ts";

export const RATE_WINDOW_MS = 60_000;

/** Where the limit's headers go: every answer carries them (a Fastify reply is one). */
export interface HeaderSink {
  headers(values: Record<string, string>): unknown;
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
  async function count(caller: Caller, sink: HeaderSink, bucket?: RateBucket): Promise<Caller> {
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
    sink.headers(headers);
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
  async function authenticate(key: string | undefined, sink: HeaderSink, bucket?: RateBucket): Promise<Caller> {
    return count(await accounts.authenticate(key), sink, bucket);
  }
  return Object.assign(authenticate, { count });
}

export type Authenticate = ReturnType<typeof makeAuthenticator>;
