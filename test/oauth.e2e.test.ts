/**
 * OAuth for MCP hosts, end to end with the MCP SDK's own client OAuth support: discovery from the
 * 401's WWW-Authenticate (RFC 9728, RFC 8414), dynamic registration (RFC 7591), authorization with
 * PKCE through a signed-in dashboard session, the code exchanged for tokens, tools/call with the
 * token, refresh rotation, and revocation from the dashboard, after which the token gets 401. Then
 * the protocol's refusals (PKCE mismatch, a code replayed, a redirect URI not registered, ...).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { request as httpRequest } from "node:http";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { redirectUriMatches as sdkRedirectUriMatches } from "@modelcontextprotocol/sdk/server/auth/handlers/authorize.js";
import {
  OAuthClientInformationFullSchema,
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
  OAuthTokensSchema,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import pkceChallenge from "pkce-challenge";
import { pkceMatches, redirectUriMatches } from "../src/people/oauth.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { MemoryOAuthHost } from "./helpers/oauth-host.ts";
import { person, type Visitor } from "./helpers/people.ts";

const REDIRECT = "http://127.0.0.1:49152/callback";
const PLANS = JSON.stringify([
  { id: "free", name: "Free", credits: 1000, period: "once", rateLimitPerMinute: 60, capabilities: "*" },
  { id: "tight", name: "Tight", credits: 1000, period: "once", rateLimitPerMinute: 3, capabilities: "*" },
]);

let h: Harness;
before(async () => {
  h = await startHarness({ env: { QUARRY_PLANS: PLANS, OAUTH_REGISTRATIONS_PER_HOUR: "1000" } });
});
after(async () => {
  await h?.close();
});

/** An MCP host's OAuth state, kept in memory; the "browser" part is done by `visitor`. */
class HostAuth extends MemoryOAuthHost {
  constructor(
    private readonly name = "Test MCP host",
    private readonly method: "none" | "client_secret_basic" | "client_secret_post" = "none",
  ) {
    super();
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.method,
    };
  }
}

/** What the person's browser does with the authorization URL: consent, then the app's redirect. */
async function consent(visitor: Visitor, authorizationUrl: URL, decision: "approve" | "deny" = "approve"): Promise<URL> {
  const start = await visitor.get(authorizationUrl.href);
  assert.equal(start.status, 303, start.text.slice(0, 400));
  assert.equal(start.location, "/dashboard/authorize");
  const page = await visitor.get("/dashboard/authorize");
  assert.equal(page.status, 200, page.text.slice(0, 400));
  assert.match(page.headers.get("content-security-policy") ?? "", /form-action 'self' http:\/\/127\.0\.0\.1:49152/);
  const answer = await visitor.post("/dashboard/authorize", { decision, request: visitor.consentRequest });
  assert.equal(answer.status, 303, answer.text.slice(0, 400));
  return new URL(answer.location!);
}

async function connect(auth: HostAuth): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { authProvider: auth });
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** The whole flow with the SDK client: returns a connected client and the host's state. */
async function authorizedHost(visitor: Visitor, name?: string, method?: "none" | "client_secret_basic" | "client_secret_post") {
  const auth = new HostAuth(name, method);
  await assert.rejects(connect(auth), UnauthorizedError, "the first connection is sent to authorize");
  assert.ok(auth.authorizationUrl, "the SDK asked to open the authorization URL");
  assert.equal(auth.authorizationUrl.searchParams.get("code_challenge_method"), "S256");
  const back = await consent(visitor, auth.authorizationUrl);
  const code = back.searchParams.get("code");
  assert.ok(code, `a code came back: ${back.href}`);
  assert.equal(back.searchParams.get("iss"), h.url);
  const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { authProvider: auth });
  await transport.finishAuth(code);
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  await client.connect(transport);
  return { auth, client };
}

async function mcpRaw(token: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

/** A POST to /mcp with the Host header of our choosing (fetch always sends the URL's). */
function rawHost(host: string, token: string, body: unknown): Promise<number> {
  const url = new URL(h.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: "/mcp",
        method: "POST",
        headers: { host, authorization: `Bearer ${token}`, accept: "application/json, text/event-stream", "content-type": "application/json" },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

describe("discovery", () => {
  test("a 401 from /mcp and /v1/account points at the protected resource metadata", async () => {
    for (const path of ["/mcp", "/v1/account", "/v1/catalog"]) {
      const res = await fetch(h.url + path, { method: path === "/mcp" ? "POST" : "GET", headers: { "content-type": "application/json" }, body: path === "/mcp" ? "{}" : null });
      assert.equal(res.status, 401, path);
      assert.equal(
        res.headers.get("www-authenticate"),
        `Bearer realm="quarry", resource_metadata="${h.url}/.well-known/oauth-protected-resource"`,
        path,
      );
    }
    const bad = await fetch(`${h.url}/v1/account`, { headers: { authorization: "Bearer qat_nope" } });
    assert.match(bad.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
  });

  test("both metadata documents are valid for the SDK and name each other", async () => {
    const prm = OAuthProtectedResourceMetadataSchema.parse(await (await fetch(`${h.url}/.well-known/oauth-protected-resource`)).json());
    assert.equal(prm.resource, h.url);
    assert.deepEqual(prm.authorization_servers, [h.url]);
    const res = await fetch(`${h.url}/.well-known/oauth-authorization-server`);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const as = OAuthMetadataSchema.parse(await res.json());
    assert.equal(as.issuer, h.url);
    assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
    assert.equal(as.registration_endpoint, `${h.url}/oauth/register`);
    assert.equal(as.token_endpoint, `${h.url}/oauth/token`);
  });
});

describe("the MCP SDK client connects through OAuth", () => {
  test("register, authorize with PKCE in the dashboard, token, tools/call; revoked in the dashboard → 401", async () => {
    const { visitor, accountId } = await person(h);
    const { auth, client } = await authorizedHost(visitor, "Claude-like host");
    OAuthClientInformationFullSchema.parse(auth.info);
    OAuthTokensSchema.parse(auth.saved);
    assert.match(auth.saved!.access_token, /^qat_[0-9A-Za-z]{40}$/);
    assert.match(auth.saved!.refresh_token ?? "", /^qrt_[0-9A-Za-z]{40}$/);
    assert.equal(auth.saved!.expires_in, 3600);

    const account = await client.callTool({ name: "account", arguments: {} });
    assert.notEqual(account.isError, true, JSON.stringify(account));
    const search = await client.callTool({ name: "execute", arguments: { capability: "recipes.search", params: { query: "Salmon Prawn Risotto" } } });
    assert.notEqual(search.isError, true, JSON.stringify(search));
    const charged = (search.structuredContent as { charged_credits: number }).charged_credits;

    // The token charges the account like its key, and the ledger names the connection.
    const grants = await h.store.listOAuthGrants(accountId);
    assert.equal(grants.length, 1);
    assert.equal(grants[0]!.clientName, "Claude-like host");
    const recent = await h.store.recentCalls(accountId, 5);
    assert.equal(recent[0]!.keyId, grants[0]!.id);
    assert.equal((await h.store.getAccount(accountId))!.creditsUsed, charged);

    // The same token on REST: /v1/account (spec 5.5) and the other /v1 routes.
    const token = auth.saved!.access_token;
    const rest = await h.call("GET", "/v1/account", { key: token });
    assert.equal(rest.status, 200);
    assert.equal(rest.body.credits.used, charged);
    assert.equal((await h.call("GET", "/v1/catalog", { key: token })).status, 200);
    // Tokens go in the header: the URL form of /mcp is for keys.
    const inPath = await fetch(`${h.url}/mcp/k/${token}`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    assert.equal(inPath.status, 401);
    assert.doesNotMatch(await inPath.text(), /qat_/);

    // The dashboard lists the app; disconnecting it ends the token at once.
    const keys = await visitor.get("/dashboard/keys");
    assert.match(keys.text, /Claude-like host/);
    const revoked = await visitor.post(`/dashboard/apps/${grants[0]!.id}/revoke`);
    assert.equal(revoked.status, 303);
    const refused = await mcpRaw(token, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "account", arguments: {} } });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get("www-authenticate") ?? "", /error="invalid_token", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource"/);
    assert.match(JSON.stringify(refused.json), /revoked/);
    assert.equal((await h.call("GET", "/v1/account", { key: token })).status, 401);
    // Its refresh token died with it.
    const refresh = await fetch(`${h.url}/oauth/token`, form({ grant_type: "refresh_token", refresh_token: auth.saved!.refresh_token!, client_id: auth.info!.client_id }));
    assert.equal(refresh.status, 400);
    assert.equal(((await refresh.json()) as { error: string }).error, "invalid_grant");
    await client.close();
  });

  test("refresh tokens rotate; a refresh token used twice ends the connection", async () => {
    const { visitor } = await person(h);
    const { auth, client } = await authorizedHost(visitor, "Rotating host", "client_secret_basic");
    assert.match(auth.info!.client_secret ?? "", /^qcs_/, "a confidential client got a secret");
    const basic = `Basic ${Buffer.from(`${auth.info!.client_id}:${auth.info!.client_secret}`).toString("base64")}`;
    const first = auth.saved!;
    const res = await fetch(`${h.url}/oauth/token`, {
      ...form({ grant_type: "refresh_token", refresh_token: first.refresh_token! }),
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const second = OAuthTokensSchema.parse(await res.json());
    assert.notEqual(second.access_token, first.access_token);
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.equal((await h.call("GET", "/v1/account", { key: second.access_token })).status, 200);
    // Without the client's secret, no token.
    const anonymous = await fetch(`${h.url}/oauth/token`, form({ grant_type: "refresh_token", refresh_token: second.refresh_token!, client_id: auth.info!.client_id }));
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as { error: string }).error, "invalid_client");
    // The first refresh token again: someone else holds it; everything of the grant is revoked.
    const replay = await fetch(`${h.url}/oauth/token`, {
      ...form({ grant_type: "refresh_token", refresh_token: first.refresh_token! }),
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
    });
    assert.equal(replay.status, 400);
    assert.equal(((await replay.json()) as { error: string }).error, "invalid_grant");
    assert.equal((await h.call("GET", "/v1/account", { key: second.access_token })).status, 401);
    await client.close();
  });

  test("an access token expires after an hour (the manual clock), then 401 says so", async () => {
    const { visitor } = await person(h);
    const { auth, client } = await authorizedHost(visitor, "Short-lived");
    const token = auth.saved!.access_token;
    h.clock.advance(3601 * 1000);
    try {
      const res = await h.call("GET", "/v1/account", { key: token });
      assert.equal(res.status, 401);
      assert.match(res.body.error.message, /expired/);
    } finally {
      h.clock.advance(-3601 * 1000);
    }
    await client.close();
  });

  test("a token is rate limited like a key (per connection), and DNS-rebinding protection still applies", async () => {
    const { visitor } = await person(h, "tight");
    const { auth, client } = await authorizedHost(visitor, "Busy host");
    const token = auth.saved!.access_token;
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "account", arguments: {} } };
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await mcpRaw(token, call));
    const limited = answers.map((a) => JSON.stringify(a.json).includes("rate_limited"));
    assert.deepEqual(limited, [false, false, false, true], "the plan's 3 calls a minute, then rate_limited");
    assert.equal(answers[3]!.headers.get("ratelimit-remaining"), "0");
    const rebound = await rawHost("evil.example:80", token, call);
    assert.equal(rebound, 403);
    await client.close();
  });
});

describe("the protocol's refusals", () => {
  let visitor: Visitor;
  let clientId: string;

  before(async () => {
    visitor = (await person(h)).visitor;
    const res = await fetch(`${h.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Manual",
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
      }),
    });
    assert.equal(res.status, 201);
    clientId = ((await res.json()) as { client_id: string }).client_id;
  });

  async function code(challenge: string, extra: Record<string, string> = {}): Promise<string> {
    const url = new URL(`${h.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "s1", ...extra })) {
      url.searchParams.set(k, v);
    }
    const back = await consent(visitor, url);
    assert.equal(back.searchParams.get("state"), "s1");
    return back.searchParams.get("code")!;
  }

  const exchange = (fields: Record<string, string>) => fetch(`${h.url}/oauth/token`, form({ grant_type: "authorization_code", client_id: clientId, redirect_uri: REDIRECT, ...fields }));

  test("PKCE: a wrong verifier is invalid_grant; a code works once, and a replay revokes what it gave", async () => {
    const { code_verifier, code_challenge } = await pkceChallenge();
    // One character off (never the same one: a verifier ending in "x" would be its own "wrong" one).
    const off = `${code_verifier.slice(0, -1)}${code_verifier.endsWith("x") ? "y" : "x"}`;
    const wrong = await exchange({ code: await code(code_challenge), code_verifier: off });
    assert.equal(wrong.status, 400);
    assert.deepEqual(Object.keys((await wrong.json()) as object).sort(), ["error", "error_description"]);

    const good = await code(code_challenge);
    const first = await exchange({ code: good, code_verifier });
    assert.equal(first.status, 200);
    const tokens = OAuthTokensSchema.parse(await first.json());
    assert.equal((await h.call("GET", "/v1/account", { key: tokens.access_token })).status, 200);
    const again = await exchange({ code: good, code_verifier });
    assert.equal(again.status, 400);
    assert.match(((await again.json()) as { error_description: string }).error_description, /used already/);
    assert.equal((await h.call("GET", "/v1/account", { key: tokens.access_token })).status, 401);
  });

  test("a redirect_uri that differs from the authorization request's is invalid_grant", async () => {
    const { code_verifier, code_challenge } = await pkceChallenge();
    const res = await exchange({ code: await code(code_challenge), code_verifier, redirect_uri: "http://127.0.0.1:49152/other" });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: string }).error, "invalid_grant");
  });

  test("authorize: unknown client or unregistered redirect is a page; other errors go back to the app", async () => {
    const base = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "zz" };
    const at = (p: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(p)}`;
    const unknown = await visitor.get(at({ ...base, client_id: "qc_nope" }));
    assert.equal(unknown.status, 400);
    assert.match(unknown.headers.get("content-type") ?? "", /text\/html/);
    assert.equal(unknown.location, null, "never redirected to an unverified address");
    const elsewhere = await visitor.get(at({ ...base, redirect_uri: "https://evil.example/cb" }));
    assert.equal(elsewhere.status, 400);
    assert.equal(elsewhere.location, null);
    for (const [change, error] of [
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ resource: "https://elsewhere.example/mcp" }, "invalid_target"],
    ] as const) {
      const res = await visitor.get(at({ ...base, ...change }));
      assert.equal(res.status, 302, JSON.stringify(change));
      const back = new URL(res.location!);
      assert.equal(back.origin + back.pathname, REDIRECT);
      assert.equal(back.searchParams.get("error"), error);
      assert.equal(back.searchParams.get("state"), "zz");
    }
    // Loopback redirect URIs may change port (RFC 8252 §7.3).
    const otherPort = await visitor.get(at({ ...base, redirect_uri: "http://127.0.0.1:50000/callback" }));
    assert.equal(otherPort.status, 303);
    // A denial goes back as access_denied.
    const denied = await consent(visitor, new URL(h.url + at(base)), "deny");
    assert.equal(denied.searchParams.get("error"), "access_denied");
  });

  test("Connect approves the request its page showed, not one another page started behind it", async () => {
    const registerAs = async (name: string, redirect: string) => {
      const res = await fetch(`${h.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: name, redirect_uris: [redirect], token_endpoint_auth_method: "none", grant_types: ["authorization_code"] }),
      });
      assert.equal(res.status, 201);
      return ((await res.json()) as { client_id: string }).client_id;
    };
    const evil = await registerAs("Evil Host", "https://evil.example/cb");
    const at = (client: string, redirect: string) =>
      `/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: client, redirect_uri: redirect, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s" })}`;
    // The person reads the consent page of the app they started...
    await visitor.get(at(clientId, REDIRECT));
    const shown = await visitor.get("/dashboard/authorize");
    assert.match(shown.text, /Connect “<bdi>Manual<\/bdi>”\?/);
    const shownRequest = visitor.consentRequest;
    // ...while another page opens an authorization request of its own in the same session.
    const behind = await fetch(`${h.url}${at(evil, "https://evil.example/cb")}`, { redirect: "manual", headers: { cookie: visitor.cookieHeader } });
    assert.equal(behind.status, 303);
    // Connect on the page they read: not approved for the other app; its own request is shown instead.
    const click = await visitor.post("/dashboard/authorize", { decision: "approve", request: shownRequest });
    assert.equal(click.status, 303);
    assert.equal(click.location, "/dashboard/authorize");
    const now = await visitor.get("/dashboard/authorize");
    assert.match(now.text, /Connect “<bdi>Evil Host<\/bdi>”\?/);
    assert.notEqual(visitor.consentRequest, shownRequest);
    // Without the page's request id nothing is answered either.
    assert.equal((await visitor.post("/dashboard/authorize", { decision: "approve" })).location, "/dashboard/authorize");
    // Cancel on the page now shown answers that request, as the person chose.
    const cancel = await visitor.post("/dashboard/authorize", { decision: "deny", request: visitor.consentRequest });
    assert.equal(new URL(cancel.location!).searchParams.get("error"), "access_denied");
    assert.equal(new URL(cancel.location!).origin, "https://evil.example");
  });

  test("a person who is not signed in signs in first and comes back to the consent", async () => {
    const fresh = (await person(h)).visitor;
    await fresh.get("/dashboard");
    assert.equal((await fresh.post("/dashboard/sign-out")).location, "/dashboard/sign-in?notice=signed-out");
    const url = `/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: clientId, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" })}`;
    assert.equal((await fresh.get(url)).location, "/dashboard/authorize");
    const consentPage = await fresh.get("/dashboard/authorize");
    assert.equal(consentPage.status, 303);
    assert.equal(consentPage.location, "/dashboard/sign-in?next=%2Fdashboard%2Fauthorize");
  });

  test("registration refuses what it cannot serve, in RFC 7591's error format", async () => {
    for (const [body, error] of [
      [{ redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://app.example/cb#frag"] }, "invalid_redirect_uri"],
      [{ redirect_uris: [] }, "invalid_redirect_uri"],
      [{}, "invalid_client_metadata"],
      [{ redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt" }, "invalid_client_metadata"],
      [{ redirect_uris: [REDIRECT], grant_types: ["client_credentials"] }, "invalid_client_metadata"],
      // A name that would reorder the consent page's own sentence (right-to-left override), or a control character.
      [{ redirect_uris: [REDIRECT], client_name: "Claude \u202e(ton) moc.live" }, "invalid_client_metadata"],
      [{ redirect_uris: [REDIRECT], client_name: "Claude\u2067 isolate" }, "invalid_client_metadata"],
      [{ redirect_uris: [REDIRECT], client_name: "line\nbreak" }, "invalid_client_metadata"],
    ] as const) {
      const res = await fetch(`${h.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(((await res.json()) as { error: string }).error, error, JSON.stringify(body));
    }
    const native = await fetch(`${h.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["cursor://anysphere.cursor-retrieval/oauth/callback", "http://localhost/cb"], unknown_member: 1 }),
    });
    assert.equal(native.status, 201);
    const info = OAuthClientInformationFullSchema.parse(await native.json());
    assert.equal(info.token_endpoint_auth_method, "client_secret_basic", "RFC 7591's default");
    assert.ok(info.client_secret, "info.client_secret");
    const stored = await h.store.getOAuthClient(info.client_id);
    assert.equal(stored!.secretHash, createHash("sha256").update(info.client_secret!).digest("hex"));
    assert.doesNotMatch(JSON.stringify(stored), new RegExp(info.client_secret!), "the secret itself is not stored");
  });

  test("revocation (RFC 7009) ends the connection; unknown tokens are fine", async () => {
    const { code_verifier, code_challenge } = await pkceChallenge();
    const tokens = OAuthTokensSchema.parse(await (await exchange({ code: await code(code_challenge), code_verifier })).json());
    const unknown = await fetch(`${h.url}/oauth/revoke`, form({ token: "qat_whatever", client_id: clientId }));
    assert.equal(unknown.status, 200);
    const res = await fetch(`${h.url}/oauth/revoke`, form({ token: tokens.refresh_token!, client_id: clientId, token_type_hint: "refresh_token" }));
    assert.equal(res.status, 200);
    assert.equal((await h.call("GET", "/v1/account", { key: tokens.access_token })).status, 401);
  });
});

describe("pieces checked against their references", () => {
  test("PKCE S256: RFC 7636 Appendix B's example and the SDK client's own pairs", async () => {
    assert.equal(pkceMatches("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"), true);
    assert.equal(pkceMatches("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"), false);
    assert.equal(pkceMatches("short", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"), false);
    for (let i = 0; i < 20; i++) {
      const pair = await pkceChallenge();
      assert.equal(pkceMatches(pair.code_verifier, pair.code_challenge), true);
    }
  });

  test("redirect URI matching equals the MCP SDK's redirectUriMatches", () => {
    const registered = ["http://127.0.0.1:3000/cb", "http://localhost/cb?x=1", "https://app.example/cb", "cursor://x/cb", "http://[::1]:1/cb"];
    const requested = [
      ...registered,
      "http://127.0.0.1:4000/cb",
      "http://127.0.0.1/cb",
      "http://localhost:9/cb?x=1",
      "http://localhost:9/cb?x=2",
      "http://127.0.0.1:3000/cb/",
      "https://app.example:8443/cb",
      "https://APP.example/cb",
      "http://[::1]:2/cb",
      "http://localhost:3000/cb",
      "not a url",
    ];
    for (const a of requested) for (const b of registered) assert.equal(redirectUriMatches(a, b), sdkRedirectUriMatches(a, b), `${a} vs ${b}`);
  });
});
