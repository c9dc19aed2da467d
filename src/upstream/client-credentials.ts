/**
 * OAuth 2 client credentials (RFC 6749 4.4) for providers that offer an application token
 * (ProviderDef.clientCredentials; Reddit today). The upstream client asks `ClientTokens` for a bearer
 * token before each request to such a provider:
 * - one token per provider, held in memory by the client instance (never stored, never logged);
 * - one token request at a time: callers arriving while it runs wait for it, each within its own
 *   deadline, and the request itself runs on a deadline of its own, so one caller's short deadline
 *   does not fail the others;
 * - renewed a minute before the provider says it expires (or at half its life, when that is shorter),
 *   and dropped when the provider answers 401 to it, so the next call gets a new one.
 *
 * A token endpoint that refuses the credentials is `provider_error`, not retryable, naming the
 * variables (never their values): the operator has to fix them.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../errors.ts";
import { untilAborted } from "./deadlines.ts";
import type { ClientCredentials, JsonRequest, UpstreamResponse } from "./types.ts";

/** What a token endpoint's answer must hold (RFC 6749 5.1): the token; its type and life when given. */
export const tokenResponse = Type.Object({
  access_token: Type.String({ minLength: 1 }),
  token_type: Type.Optional(Type.String()),
  expires_in: Type.Optional(Type.Number()),
});

/** How long a token request may take, whatever the deadline of the call that started it. */
export const TOKEN_REQUEST_TIMEOUT_MS = 10_000;

/** Renew this long before the announced expiry (or at half the token's life when that is shorter). */
export const RENEW_MARGIN_MS = 60_000;

interface Held {
  token: string;
  renewAt: number;
}

/** The token request: HTTP Basic with the client's id and secret, `grant_type=client_credentials`. */
export function tokenRequest(provider: string, cc: ClientCredentials, client: { id: string; secret: string }): JsonRequest<typeof tokenResponse> {
  const basic = Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString("base64");
  return {
    provider,
    host: cc.tokenHost,
    method: "POST",
    path: cc.tokenPath,
    form: { grant_type: "client_credentials" },
    headers: { authorization: `Basic ${basic}` },
    // Asking for a token twice does no harm: retried like a GET.
    idempotent: true,
    acceptStatus: [400, 401, 403],
    response: tokenResponse,
  };
}

/** The token and its life from a token endpoint's answer; provider_error when there is none. */
export function readToken(provider: string, cc: ClientCredentials, res: UpstreamResponse<Static<typeof tokenResponse>>, now: number): Held {
  const body = res.body;
  if (res.status === 400 || res.status === 401 || res.status === 403) {
    throw new ApiError("provider_error", `${provider} refused this deployment's OAuth client (HTTP ${res.status}).`, {
      retryable: false,
      hint: `Check ${cc.idVar} and ${cc.secretVar} (an application of the provider's "script" or "web" kind), or unset both to call the provider without a token. Nothing was charged.`,
    });
  }
  const token = body.access_token;
  if (body.token_type !== undefined && body.token_type.toLowerCase() !== "bearer") {
    throw new ApiError("provider_error", `${provider} answered its token request without a bearer token.`);
  }
  const lifeMs = body.expires_in !== undefined && body.expires_in > 0 ? body.expires_in * 1000 : 3_600_000;
  return { token, renewAt: now + lifeMs - Math.min(RENEW_MARGIN_MS, lifeMs / 2) };
}

export class ClientTokens {
  private readonly held = new Map<string, Held>();
  private readonly pending = new Map<string, Promise<Held>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A valid token for `provider`, fetched with `fetch` when none is held or it is due for renewal. */
  async get(
    provider: string,
    signal: AbortSignal,
    fetch: (signal: AbortSignal) => Promise<UpstreamResponse<Static<typeof tokenResponse>>>,
    cc: ClientCredentials,
  ): Promise<string> {
    const held = this.held.get(provider);
    if (held !== undefined && held.renewAt > this.now()) return held.token;
    let run = this.pending.get(provider);
    if (run === undefined) {
      run = fetch(AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS))
        .then((res) => {
          const fresh = readToken(provider, cc, res, this.now());
          this.held.set(provider, fresh);
          return fresh;
        })
        .finally(() => this.pending.delete(provider));
      this.pending.set(provider, run);
    }
    return (await untilAborted(run, signal)).token;
  }

  /** Forget `token` (the provider answered 401 to it); a newer one already held is kept. */
  drop(provider: string, token: string): void {
    if (this.held.get(provider)?.token === token) this.held.delete(provider);
  }
}
