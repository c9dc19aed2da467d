/**
 * OAuth client credentials in the upstream client (Reddit's application-only tokens), against a tiny
 * loopback server that plays both the token endpoint and the API host: the token request's form and
 * Basic auth, the bearer on the API host, one token for many calls, renewal before expiry, a 401 that
 * gets one new token, refused credentials named by variable (never by value), and no token at all
 * when the client's variables are not set; and a provider that differs from those defaults (the Quran
 * Foundation: a token per scope, sent in its own header beside the client id, on two hosts).
 */
import { type Static, Type } from "@sinclair/typebox";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type TestContext, test } from "node:test";
import { loadConfig } from "../config.ts";
import { ApiError } from "../errors.ts";
import { HttpUpstreamClient } from "./client.ts";
import { ClientTokens, RENEW_MARGIN_MS, readToken, tokenHeaders, type tokenResponse, tokenRoute } from "./client-credentials.ts";
import { PROVIDERS } from "../providers.ts";
import type { ClientCredentials, UpstreamResponse } from "./types.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A token endpoint under /www and an API under /oauth; `api` decides the API's answer. */
async function reddit(t: TestContext, options: { token?: (n: number) => { status: number; body: unknown }; api?: (auth: string | undefined, current: string) => number } = {}) {
  const seen: Seen[] = [];
  let issued = 0;
  let current = "";
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      res.setHeader("content-type", "application/json");
      if (req.url === "/www/api/v1/access_token") {
        issued++;
        const answer = options.token?.(issued) ?? { status: 200, body: { access_token: `token-${issued}`, token_type: "bearer", expires_in: 3600, scope: "*" } };
        if (answer.status === 200) current = (answer.body as { access_token: string }).access_token;
        res.writeHead(answer.status);
        res.end(JSON.stringify(answer.body));
        return;
      }
      const status = options.api?.(req.headers.authorization, current) ?? 200;
      res.writeHead(status);
      res.end(JSON.stringify(status === 200 ? { kind: "Listing", data: { children: [], after: null } } : { message: "Unauthorized", error: 401 }));
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    srv.closeAllConnections();
    srv.close();
  });
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { url, seen, tokenRequests: () => seen.filter((s) => s.url === "/www/api/v1/access_token").length };
}

function client(t: TestContext, url: string, extra: Record<string, string> = {}): HttpUpstreamClient {
  const c = new HttpUpstreamClient(loadConfig({ REDDIT_BASE_URL: `${url}/www`, REDDIT_OAUTH_BASE_URL: `${url}/oauth`, ...extra }));
  t.after(() => c.close());
  return c;
}

const OAUTH = { REDDIT_CLIENT_ID: "app-id", REDDIT_CLIENT_SECRET: "s3cret-value" };
const search = { provider: "reddit", method: "GET" as const, path: "/search.json", query: { q: "pop" }, response: Type.Unknown() };
const signal = () => AbortSignal.timeout(5000);

test("without REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET: the public host, no token, no Authorization", async (t) => {
  const srv = await reddit(t);
  const res = await client(t, srv.url, { REDDIT_CLIENT_ID: "only-the-id" }).send(search, signal());
  assert.equal(res.status, 200);
  assert.deepEqual(
    srv.seen.map((s) => [s.method, s.url.split("?")[0], s.headers.authorization]),
    [["GET", "/www/search.json", undefined]],
  );
});

test("with both: one token request (form body, HTTP Basic), then the API host with the bearer token, reused by later and concurrent calls", async (t) => {
  const srv = await reddit(t);
  const c = client(t, srv.url, OAUTH);
  await Promise.all([c.send(search, signal()), c.send(search, signal()), c.send(search, signal())]);
  await c.send({ ...search, path: "/user/spez/about.json", query: {} }, signal());
  assert.equal(srv.tokenRequests(), 1, "one token for all four calls");
  const [tokenCall] = srv.seen;
  assert.equal(tokenCall?.method, "POST");
  assert.equal(tokenCall?.headers["content-type"], "application/x-www-form-urlencoded");
  assert.equal(tokenCall?.body, "grant_type=client_credentials");
  assert.equal(tokenCall?.headers.authorization, `Basic ${Buffer.from("app-id:s3cret-value").toString("base64")}`);
  const api = srv.seen.slice(1);
  assert.equal(api.length, 4);
  for (const call of api) {
    assert.match(call.url, /^\/oauth\//, "API calls go to the OAuth host");
    assert.equal(call.headers.authorization, "bearer token-1");
  }
});

test("a 401 from the API drops the token and the call is sent once more with a new one", async (t) => {
  let revoked = false;
  const srv = await reddit(t, { api: (auth, current) => (revoked && auth === "bearer token-1" ? 401 : auth === `bearer ${current}` ? 200 : 401) });
  const c = client(t, srv.url, OAUTH);
  assert.equal((await c.send(search, signal())).status, 200);
  revoked = true;
  assert.equal((await c.send(search, signal())).status, 200);
  assert.equal(srv.tokenRequests(), 2);
  assert.deepEqual(
    srv.seen.map((s) => s.headers.authorization?.split(" ")[0] === "Basic" ? "token" : s.headers.authorization),
    ["token", "bearer token-1", "bearer token-1", "token", "bearer token-2"],
  );
});

test("an API that refuses even a new token is provider_error, not retryable; a caller that accepts 401 gets the answer", async (t) => {
  const srv = await reddit(t, { api: () => 401 });
  const c = client(t, srv.url, OAUTH);
  await assert.rejects(c.send(search, signal()), (err: unknown) => {
    assert.ok(err instanceof ApiError, "err instanceof ApiError");
    assert.equal(err.code, "provider_error");
    assert.equal(err.retryable, false);
    assert.match(err.message, /refused a new access token/);
    return true;
  });
  assert.equal(srv.tokenRequests(), 2, "one new token, then no more");
  const res = await c.send({ ...search, acceptStatus: [401] }, signal());
  assert.equal(res.status, 401);
});

test("refused credentials: provider_error naming the variables, never the secret; nothing sent to the API", async (t) => {
  const srv = await reddit(t, { token: () => ({ status: 401, body: { message: "Unauthorized", error: 401 } }) });
  const c = client(t, srv.url, OAUTH);
  await assert.rejects(c.send(search, signal()), (err: unknown) => {
    assert.ok(err instanceof ApiError, "err instanceof ApiError");
    assert.equal(err.code, "provider_error");
    assert.equal(err.retryable, false);
    assert.match(err.hint ?? "", /REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET/);
    assert.doesNotMatch(`${err.message} ${err.hint}`, /s3cret-value|app-id/);
    return true;
  });
  assert.deepEqual(srv.seen.map((s) => s.url), ["/www/api/v1/access_token"]);
});

test("an answer without a token is drift at /access_token; a token of another type is provider_error", async (t) => {
  const srv = await reddit(t, { token: () => ({ status: 200, body: { error: "unsupported_grant_type" } }) });
  await assert.rejects(client(t, srv.url, OAUTH).send(search, signal()), /Reddit answered in a shape Quarry does not read: \/access_token is missing/);
  const mac = await reddit(t, { token: () => ({ status: 200, body: { access_token: "t", token_type: "mac" } }) });
  await assert.rejects(client(t, mac.url, OAUTH).send(search, signal()), /without a bearer token/);
});

test("tokens are renewed a minute before they expire (half their life when shorter); a dropped token is fetched again", async () => {
  const cc: ClientCredentials = { idVar: "X_ID", secretVar: "X_SECRET", tokenHost: "default", tokenPath: "/token", apiHost: "api" };
  let now = 1_000_000;
  let n = 0;
  const tokens = new ClientTokens(() => now);
  const fetch = async () => ({ status: 200, headers: {}, body: { access_token: `t${++n}`, token_type: "bearer", expires_in: 3600 } });
  assert.equal(await tokens.get("x", signal(), fetch, cc), "t1");
  now += 3_600_000 - RENEW_MARGIN_MS - 1;
  assert.equal(await tokens.get("x", signal(), fetch, cc), "t1");
  now += 1;
  assert.equal(await tokens.get("x", signal(), fetch, cc), "t2");
  tokens.drop("x", "t1");
  assert.equal(await tokens.get("x", signal(), fetch, cc), "t2", "dropping an older token keeps the newer one");
  tokens.drop("x", "t2");
  assert.equal(await tokens.get("x", signal(), fetch, cc), "t3");
  assert.equal(readToken("x", cc, { status: 200, headers: {}, body: { access_token: "a", expires_in: 60 } }, 0).renewAt, 30_000);
});

test("a caller's own deadline ends its wait for a token, not the token request the others share", async () => {
  const cc: ClientCredentials = { idVar: "X_ID", secretVar: "X_SECRET", tokenHost: "default", tokenPath: "/token", apiHost: "api" };
  const tokens = new ClientTokens();
  let release: () => void = () => {};
  const fetch = () =>
    new Promise<UpstreamResponse<Static<typeof tokenResponse>>>((resolve) => {
      release = () => resolve({ status: 200, headers: {}, body: { access_token: "shared", token_type: "bearer" } });
    });
  const short = new AbortController();
  const impatient = tokens.get("x", short.signal, fetch, cc);
  const patient = tokens.get("x", signal(), fetch, cc);
  short.abort(new Error("deadline"));
  await assert.rejects(impatient, /deadline/);
  release();
  assert.equal(await patient, "shared");
});

/**
 * A provider whose OAuth client differs from RFC 6749's defaults (the Quran Foundation): a token per
 * scope (`scope` in the token request's form), the token in `x-auth-token` with the client id in
 * `x-client-id` (no Authorization), default-host requests moved to the API host and a scoped host's
 * requests kept on their own host.
 */
async function quranFoundation(t: TestContext, token?: (scope: string | null, n: number) => { status: number; body: unknown }) {
  const seen: Seen[] = [];
  let issued = 0;
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      res.setHeader("content-type", "application/json");
      if (req.url === "/auth/oauth2/token") {
        issued++;
        const scope = new URLSearchParams(body).get("scope");
        const answer = token?.(scope, issued) ?? { status: 200, body: { access_token: `${scope}-${issued}`, token_type: "bearer", expires_in: 3600, scope } };
        res.writeHead(answer.status);
        res.end(JSON.stringify(answer.body));
        return;
      }
      res.writeHead(200);
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    srv.closeAllConnections();
    srv.close();
  });
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  const env = {
    QURAN_BASE_URL: `${url}/keyless`,
    QURAN_CONTENT_BASE_URL: `${url}/content`,
    QURAN_SEARCH_BASE_URL: `${url}/search`,
    QURAN_OAUTH2_BASE_URL: `${url}/auth`,
  };
  return { seen, env };
}

const verse = { provider: "quran", method: "GET" as const, path: "/verses/by_key/1:1", query: { translations: "20" }, response: Type.Unknown() };
const qfSearch = { ...verse, host: "search", path: "/api/v1/search", query: { mode: "advanced", query: "mercy" } };
const QF = { QURAN_CLIENT_ID: "qf-app", QURAN_CLIENT_SECRET: "qf-s3cret" };

test("without QURAN_CLIENT_ID and QURAN_CLIENT_SECRET: the keyless host, no token request, no token headers", async (t) => {
  const srv = await quranFoundation(t);
  const c = new HttpUpstreamClient(loadConfig(srv.env));
  t.after(() => c.close());
  await c.send(verse, signal());
  assert.deepEqual(
    srv.seen.map((s) => [s.method, s.url.split("?")[0], s.headers["x-auth-token"], s.headers["x-client-id"], s.headers.authorization]),
    [["GET", "/keyless/verses/by_key/1:1", undefined, undefined, undefined]],
  );
});

test("a provider's own token header and scopes: one token per scope, in x-auth-token with x-client-id; default host → API host, a scoped host kept", async (t) => {
  const srv = await quranFoundation(t);
  const c = new HttpUpstreamClient(loadConfig({ ...srv.env, ...QF }));
  t.after(() => c.close());
  await Promise.all([c.send(verse, signal()), c.send(verse, signal())]);
  await c.send(qfSearch, signal());
  await c.send(verse, signal());
  await c.send(qfSearch, signal());
  const tokens = srv.seen.filter((s) => s.url === "/auth/oauth2/token");
  assert.deepEqual(
    tokens.map((s) => s.body),
    ["grant_type=client_credentials&scope=content", "grant_type=client_credentials&scope=search"],
    "one token request per scope, the scope in the form",
  );
  for (const s of tokens) assert.equal(s.headers.authorization, `Basic ${Buffer.from("qf-app:qf-s3cret").toString("base64")}`);
  const api = srv.seen.filter((s) => s.url !== "/auth/oauth2/token");
  assert.deepEqual(
    api.map((s) => [s.url.split("?")[0], s.headers["x-auth-token"], s.headers["x-client-id"], s.headers.authorization]),
    [
      ["/content/verses/by_key/1:1", "content-1", "qf-app", undefined],
      ["/content/verses/by_key/1:1", "content-1", "qf-app", undefined],
      ["/search/api/v1/search", "search-2", "qf-app", undefined],
      ["/content/verses/by_key/1:1", "content-1", "qf-app", undefined],
      ["/search/api/v1/search", "search-2", "qf-app", undefined],
    ],
  );
});

test("refused credentials name the provider's kind of client (clientKind), never the secret; a host neither default nor scoped carries no token", async (t) => {
  const srv = await quranFoundation(t, () => ({ status: 401, body: { error: "invalid_client" } }));
  const c = new HttpUpstreamClient(loadConfig({ ...srv.env, ...QF }));
  t.after(() => c.close());
  await assert.rejects(c.send(verse, signal()), (err: unknown) => {
    assert.ok(err instanceof ApiError, "err instanceof ApiError");
    assert.equal(err.code, "provider_error");
    assert.match(err.hint ?? "", /QURAN_CLIENT_ID and QURAN_CLIENT_SECRET \(a Quran Foundation API client with the `content` scope/);
    assert.doesNotMatch(`${err.message} ${err.hint}`, /qf-s3cret/);
    return true;
  });
  const cc = PROVIDERS.quran.clientCredentials;
  assert.deepEqual(tokenRoute(cc, "default"), { host: "content", scope: "content" });
  assert.deepEqual(tokenRoute(cc, "search"), { host: "search", scope: "search" });
  assert.equal(tokenRoute(cc, "oauth2"), undefined);
  assert.deepEqual(tokenRoute(PROVIDERS.reddit.clientCredentials, "default"), { host: "oauth" }, "Reddit: no scope");
  assert.deepEqual(tokenHeaders(PROVIDERS.reddit.clientCredentials, "t", "id"), { authorization: "bearer t" });
  assert.deepEqual(tokenHeaders(cc, "t", "id"), { "x-auth-token": "t", "x-client-id": "id" });
});
