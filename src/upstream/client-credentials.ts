/**
 * OAuth 2 client credentials (RFC 6749 4.4) for providers that offer an application token
 * (ProviderDef.clientCredentials; Reddit and the Quran Foundation today). The upstream client asks
 * `ClientTokens` for a token before each request to such a provider (`tokenRoute` says which requests
 * carry one, where they go and with which scope; `tokenHeaders` how the token is sent):
 * - one token per provider and scope, held in memory by the client instance (never stored, never logged);
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
import type { OAuthClient } from "../providers.ts";
import type { JsonRequest, UpstreamResponse } from "./types.ts";

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

/**
 * Where a request to `host` of a provider with an OAuth client configured goes with a token, and the
 * scope its token is asked with; undefined: the request is sent as it is, without a token. Default-host
 * requests go to the client's `apiHost` (with its `scope`, if any); hosts in `scopedHosts` keep their
 * host with their own scope.
 */
export function tokenRoute(cc: OAuthClient, host: string): { host: string; scope?: string } | undefined {
  if (host === "default") return { host: cc.apiHost, ...(cc.scope === undefined ? {} : { scope: cc.scope }) };
  const scope = cc.scopedHosts?.[host];
  return scope === undefined ? undefined : { host, scope };
}

/** The headers that carry the token: `authorization: bearer <token>`, or the provider's own header (and its client id header). */
export function tokenHeaders(cc: OAuthClient, token: string, clientId: string): Record<string, string> {
  const headers: Record<string, string> = cc.tokenHeader === undefined ? { authorization: `bearer ${token}` } : { [cc.tokenHeader.toLowerCase()]: token };
  if (cc.clientIdHeader !== undefined) headers[cc.clientIdHeader.toLowerCase()] = clientId;
  return headers;
}

/**
 * The token request: HTTP Basic with the client's id and secret, `grant_type=client_credentials`, and
 * `scope` when the token is asked for one.
 */
export function tokenRequest(provider: string, cc: OAuthClient, client: { id: string; secret: string }, scope?: string): JsonRequest<typeof tokenResponse> {
  const basic = Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString("base64");
  return {
    provider,
    host: cc.tokenHost,
    method: "POST",
    path: cc.tokenPath,
    form: { grant_type: "client_credentials", ...(scope === undefined ? {} : { scope }) },
    headers: { authorization: `Basic ${basic}` },
    // Asking for a token twice does no harm: retried like a GET.
    idempotent: true,
    acceptStatus: [400, 401, 403],
    response: tokenResponse,
  };
}

/** The token and its life from a token endpoint's answer; provider_error when there is none. */
export function readToken(provider: string, cc: OAuthClient, res: UpstreamResponse<Static<typeof tokenResponse>>, now: number): Held {
  const body = res.body;
  if (res.status === 400 || res.status === 401 || res.status === 403) {
    throw new ApiError("provider_error", `${provider} refused this deployment's OAuth client (HTTP ${res.status}).`, {
      retryable: false,
      hint: `Check ${cc.idVar} and ${cc.secretVar} (${cc.clientKind ?? `an application of the provider's "script" or "web" kind`}), or unset both to call the provider without a token. Nothing was charged.`,
    });
  }
  const token = body.access_token;
  if (body.token_type !== undefined && body.token_type.toLowerCase() !== "bearer") {
    throw new ApiError("provider_error", `${provider} answered its token request without a bearer token.`);
  }
  const lifeMs = body.expires_in !== undefined && body.expires_in > 0 ? body.expires_in * 1000 : 3_600_000;
  return { token, renewAt: now + lifeMs - Math.min(RENEW_MARGIN_MS, lifeMs / 2) };
}

/** Tokens are held per provider and scope. */
const keyOf = (provider: string, scope: string | undefined) => (scope === undefined ? provider : `${provider} ${scope}`);

export class ClientTokens {
  private readonly held = new Map<string, Held>();
  private readonly pending = new Map<string, Promise<Held>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A valid token for `provider` (of `scope`, when given), fetched with `fetch` when none is held or it is due for renewal. */
  async get(
    provider: string,
    signal: AbortSignal,
    fetch: (signal: AbortSignal) => Promise<UpstreamResponse<Static<typeof tokenResponse>>>,
    cc: OAuthClient,
    scope?: string,
  ): Promise<string> {
    const key = keyOf(provider, scope);
    const held = this.held.get(key);
    if (held !== undefined && held.renewAt > this.now()) return held.token;
    let run = this.pending.get(key);
    if (run === undefined) {
      run = fetch(AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS))
        .then((res) => {
          const fresh = readToken(provider, cc, res, this.now());
          this.held.set(key, fresh);
          return fresh;
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, run);
    }
    return (await untilAborted(run, signal)).token;
  }

  /** Forget `token` (the provider answered 401 to it); a newer one already held is kept. */
  drop(provider: string, token: string, scope?: string): void {
    const key = keyOf(provider, scope);
    if (this.held.get(key)?.token === token) this.held.delete(key);
  }
}
