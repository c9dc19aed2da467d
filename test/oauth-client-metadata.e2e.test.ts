/**
 * Sign-in by Client ID Metadata Document (issue 42), end to end with the MCP SDK's own client: the
 * authorization server metadata advertises support, the SDK uses its document URL as client_id
 * (no registration), the consent page names the app by the document's client_name and shows its
 * host, the code is exchanged by the public client, and a tools/call works with the token. Then the
 * documents Quarry refuses, each with a sentence saying why: one that lies about its client_id, one
 * that redirects to a private address, one too large, one with a client secret method, and a
 * redirect_uri the document does not list. The documents are served over https on loopback, allowed
 * by the harness's test-only fetch settings (a loopback address policy and the test CA).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { addressPolicy } from "../src/reader/address.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { MemoryOAuthHost } from "./helpers/oauth-host.ts";
import { person, type Visitor } from "./helpers/people.ts";

const REDIRECT = "http://127.0.0.1:49152/callback";
const TLS = new URL("./fixtures/tls/", import.meta.url);
const CERT = readFileSync(new URL("loopback.crt", TLS), "utf8");

let docs: Server;
let base = "";
let h: Harness;
const served: string[] = [];

/** What the document host serves, by path; `$self` is replaced by the document's own URL. */
const DOCUMENTS: Record<string, (res: import("node:http").ServerResponse) => void> = {
  "/client.json": (res) => json(res, { client_id: "$self", client_name: "Claude-like CIMD host", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }, { "cache-control": "max-age=60" }),
  "/liar.json": (res) => json(res, { client_id: "https://trusted.example/client.json", client_name: "Trusted", redirect_uris: [REDIRECT] }),
  "/to-private.json": (res) => {
    res.writeHead(302, { location: "https://10.1.2.3/client.json" });
    res.end();
  },
  "/huge.json": (res) => json(res, { client_id: "$self", client_name: "Huge", redirect_uris: [REDIRECT], padding: "x".repeat(40_000) }),
  "/secret.json": (res) => json(res, { client_id: "$self", client_name: "Secretive", redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" }),
};

function json(res: import("node:http").ServerResponse, value: Record<string, unknown>, headers: Record<string, string> = {}): void {
  res.writeHead(200, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value).replace('"$self"', JSON.stringify(`${base}${(res.req.url ?? "").split("?")[0]}`)));
}

before(async () => {
  docs = createServer({ key: readFileSync(new URL("loopback.key", TLS)), cert: CERT }, (req, res) => {
    served.push(req.url ?? "");
    const answer = DOCUMENTS[(req.url ?? "").split("?")[0]!];
    if (answer) answer(res);
    else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => docs.listen(0, "127.0.0.1", resolve));
  const port = (docs.address() as AddressInfo).port;
  base = `https://127.0.0.1:${port}`;
  h = await startHarness({
    clientMetadataFetch: { policy: addressPolicy({ allowCidrs: "127.0.0.1/32", ports: `443,${port}` }), ca: CERT },
  });
});
after(async () => {
  await h?.close();
  docs?.closeAllConnections();
  await new Promise<void>((resolve) => docs.close(() => resolve()));
});

/** An MCP host that identifies itself by its metadata document's URL (the SDK's clientMetadataUrl). */
class DocumentHost extends MemoryOAuthHost {
  constructor(readonly clientMetadataUrl: string) {
    super();
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return { client_name: "unused: the document names the client", redirect_uris: [REDIRECT] };
  }
}

async function consentPage(visitor: Visitor, url: URL) {
  const start = await visitor.get(url.href);
  assert.equal(start.status, 303, start.text.slice(0, 400));
  return visitor.get("/dashboard/authorize");
}

describe("sign-in by client metadata document", () => {
  test("the authorization server metadata advertises it", async () => {
    const meta = (await (await fetch(`${h.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    assert.equal(meta.client_id_metadata_document_supported, true);
    assert.ok(meta.registration_endpoint, "dynamic registration stays");
  });

  test("register-free sign-in: consent names the app and its host, token, tools/call", async () => {
    const { visitor, accountId } = await person(h);
    const url = `${base}/client.json`;
    const host = new DocumentHost(url);
    await assert.rejects(
      (async () => {
        const client = new Client({ name: "cimd-test", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { authProvider: host }));
      })(),
      UnauthorizedError,
    );
    assert.ok(host.authorizationUrl, "the SDK was sent to authorize");
    assert.equal(host.authorizationUrl.searchParams.get("client_id"), url, "the document's URL is the client_id: nothing was registered");
    const page = await consentPage(visitor, host.authorizationUrl);
    assert.equal(page.status, 200, page.text.slice(0, 400));
    assert.match(page.text, /Connect “<bdi>Claude-like CIMD host<\/bdi>”\?/);
    assert.match(page.text, new RegExp(`describes itself at <code>127\\.0\\.0\\.1:${new URL(base).port}</code>`));
    const answer = await visitor.post("/dashboard/authorize", { decision: "approve", request: visitor.consentRequest });
    assert.equal(answer.status, 303);
    const code = new URL(answer.location!).searchParams.get("code");
    assert.ok(code, "code");
    const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { authProvider: host });
    await transport.finishAuth(code);
    assert.match(host.saved?.access_token ?? "", /^qat_/);
    const client = new Client({ name: "cimd-test", version: "1.0.0" });
    await client.connect(transport);
    const account = await client.callTool({ name: "account", arguments: {} });
    assert.notEqual(account.isError, true, JSON.stringify(account));
    const grants = await h.store.listOAuthGrants(accountId);
    assert.deepEqual(grants.map((g) => [g.clientId, g.clientName]), [[url, "Claude-like CIMD host"]]);
    await client.close();
    assert.equal(served.filter((p) => p === "/client.json").length, 1, "the document was fetched once and then served from the cache (max-age)");
  });

  for (const [path, why] of [
    ["/liar.json", /names another client_id \(https:\/\/trusted\.example\/client\.json\), not its own URL/],
    ["/to-private.json", /was not fetched: 10\.1\.2\.3 is a private address \(RFC 1918\) \(documents are fetched from public addresses only\)/],
    ["/huge.json", /larger than the 16384 bytes read|is \d+ bytes; at most 16384 are read/],
    ["/secret.json", /token_endpoint_auth_method &quot;client_secret_basic&quot; is not supported/],
    ["/missing.json", /answered HTTP 404/],
  ] as const) {
    test(`a document that cannot be used is refused with a clear page: ${path}`, async () => {
      const url = new URL(`${h.url}/oauth/authorize`);
      url.search = new URLSearchParams({ client_id: `${base}${path}`, redirect_uri: REDIRECT, response_type: "code", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" }).toString();
      const res = await fetch(url, { redirect: "manual" });
      assert.equal(res.status, 400);
      const text = await res.text();
      assert.match(text, why);
      assert.match(text, /invalid_client/);
    });
  }

  test("a redirect_uri the document does not list is refused on a page, never redirected to", async () => {
    const url = new URL(`${h.url}/oauth/authorize`);
    url.search = new URLSearchParams({ client_id: `${base}/client.json`, redirect_uri: "https://attacker.example/cb", response_type: "code", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" }).toString();
    const res = await fetch(url, { redirect: "manual" });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /redirect_uri is not one the app registered/);
  });

  test("client ids that are not usable document URLs are refused before any fetch", async () => {
    const before = served.length;
    for (const [id, why] of [
      [`${base}/`, /must have a path/],
      [`${base}/a/../client.json`, /must not have \. or \.\. path segments/],
      [`https://user:pw@127.0.0.1/client.json`, /must not hold credentials/],
    ] as const) {
      const url = new URL(`${h.url}/oauth/authorize`);
      url.search = new URLSearchParams({ client_id: id, redirect_uri: REDIRECT, response_type: "code", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" }).toString();
      const res = await fetch(url, { redirect: "manual" });
      assert.equal(res.status, 400, id);
      assert.match(await res.text(), why);
    }
    assert.equal(served.length, before, "nothing was fetched");
  });
});
