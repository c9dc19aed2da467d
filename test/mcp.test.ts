/**
 * The MCP endpoint end to end: the SDK's own client over real HTTP with each key form, every tool
 * compared with its REST twin, the refusals (401, 403 Origin, rate limit, unknown argument keys),
 * two concurrent clients kept apart, and a log capture proving the URL key never reaches a log line.
 */
import assert from "node:assert/strict";
import { createServer as createHttpServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { registry } from "../src/capabilities/registry.ts";
import { FollowUpRequestSchema } from "../src/search/follow-up-schema.ts";
import { SharpenRequestSchema } from "../src/sharpen/schema.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { openRaw, splitAnswers } from "./helpers/raw-http.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
type Json = any;
type Form = "header" | "url";

const FORMS: Form[] = ["header", "url"];
const ALLOWED_ORIGIN = "https://agent.example";
const PLANS = JSON.stringify([
  { id: "free", name: "Free", credits: 1000, period: "once", rateLimitPerMinute: 60, capabilities: "*" },
  { id: "pro", name: "Pro", credits: 20000, period: "monthly", rateLimitPerMinute: 60, capabilities: "*" },
  // The per-form suites call every capability over REST and MCP: more than 60 calls a minute.
  { id: "wide", name: "Wide", credits: 200000, period: "monthly", rateLimitPerMinute: 10000, capabilities: "*" },
]);
const ACCEPT = "application/json, text/event-stream";
const example = (id: string) => registry[id]!.examples[0]!.body;

function endpoint(h: Harness, key: string, form: Form): { url: string; headers: Record<string, string> } {
  return form === "header"
    ? { url: `${h.url}/mcp`, headers: { authorization: `Bearer ${key}` } }
    : { url: `${h.url}/mcp/k/${key}`, headers: {} };
}

async function connect(h: Harness, key: string, form: Form): Promise<Client> {
  const { url, headers } = endpoint(h, key, form);
  const client = new Client({ name: "quarry-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** Call a tool; the text block and structuredContent must carry the same JSON. */
async function tool(
  client: Client,
  name: string,
  args?: Record<string, unknown>,
): Promise<{ value: Json; isError: boolean }> {
  const res = (await client.callTool({
    name,
    ...(args === undefined ? {} : { arguments: args }),
  })) as CallToolResult;
  assert.equal(res.content.length, 1);
  const block = res.content[0]!;
  assert.equal(block.type, "text");
  const value = JSON.parse(block.type === "text" ? block.text : "null");
  assert.deepEqual(res.structuredContent, value);
  return { value, isError: res.isError === true };
}

async function ok(client: Client, name: string, args?: Record<string, unknown>): Promise<Json> {
  const r = await tool(client, name, args);
  assert.equal(r.isError, false, JSON.stringify(r.value));
  return r.value;
}

async function toolError(
  client: Client,
  name: string,
  args: Record<string, unknown> | undefined,
  code: string,
): Promise<Json> {
  const r = await tool(client, name, args);
  assert.equal(r.isError, true, JSON.stringify(r.value));
  assert.equal(r.value.error.code, code, JSON.stringify(r.value));
  assert.equal(typeof r.value.error.retryable, "boolean");
  assert.match(r.value.error.requestId, /^req_/);
  return r.value;
}

const VOLATILE = new Set(["search_id", "record_id", "charged_credits", "balance", "requestId"]);

/** Drop what differs between two equal calls: ids of fresh searches, charges, balances, request ids. */
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !VOLATILE.has(k))
      .map(([k, v]) => [k, strip(v)]),
  );
}

/** A raw JSON-RPC POST (for what the SDK client cannot send: wrong keys, Origins, bad JSON). */
async function rawPost(url: string, body: string | unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { accept: ACCEPT, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Json = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, text, body: json };
}

/** A POST with the Host header of our choosing (fetch always sends the URL's). */
function rawHost(h: Harness, path: string, host: string, body: unknown): Promise<{ status: number; body: string }> {
  const url = new URL(h.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path, method: "POST", headers: { host, accept: ACCEPT, "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const callMessage = (name: string, args: unknown, id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

let h: Harness;

before(async () => {
  h = await startHarness({ env: { QUARRY_PLANS: PLANS, MCP_ALLOWED_ORIGINS: ALLOWED_ORIGIN } });
});
after(async () => {
  await h.close();
});

for (const form of FORMS) {
  describe(`MCP with the ${form} key form`, () => {
    let key: string;
    let client: Client;
    const rest = (method: string, path: string, body?: unknown) =>
      h.call(method, path, { key, ...(body === undefined ? {} : { body }) });

    before(async () => {
      ({ key } = await h.account("wide"));
      client = await connect(h, key, form);
    });
    after(async () => {
      await client.close();
    });

    test("tools/list: six tools with exact input schemas and annotations", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ["discover", "inspect", "execute", "follow_up", "sharpen", "account"],
      );
      const schema = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
      const empty = { type: "object", properties: {}, additionalProperties: false };
      assert.deepEqual(schema.discover, empty);
      assert.deepEqual(schema.account, empty);
      assert.deepEqual(schema.inspect, {
        type: "object",
        properties: {
          id: {
            type: "string",
            minLength: 1,
            description: "A capability id from discover, e.g. `music.search`.",
          },
          params: {
            type: "object",
            properties: {},
            additionalProperties: true,
            description:
              "Optional: an execute body to price without running it. The answer then adds `dry_run` with the credits execute would reserve (its most) and whether they fit the balance; nothing is run or charged.",
          },
        },
        required: ["id"],
        additionalProperties: false,
      });
      assert.deepEqual(schema.execute, {
        type: "object",
        properties: {
          capability: {
            type: "string",
            minLength: 1,
            description: "A capability id from discover, e.g. `music.search`.",
          },
          params: {
            type: "object",
            properties: {},
            additionalProperties: true,
            description: "The request body: the fields of inspect's request schema.",
          },
        },
        required: ["capability", "params"],
        additionalProperties: false,
      });
      assert.deepEqual(schema.follow_up, JSON.parse(JSON.stringify(FollowUpRequestSchema)));
      assert.deepEqual(schema.sharpen, JSON.parse(JSON.stringify(SharpenRequestSchema)));
      for (const t of tools) {
        assert.ok((t.description ?? "").length > 40, t.name);
        const a = t.annotations!;
        const readOnly = ["discover", "inspect", "account"].includes(t.name);
        assert.equal(a.readOnlyHint, readOnly, t.name);
        assert.equal(a.idempotentHint, readOnly, t.name);
        assert.equal(a.openWorldHint, !readOnly, t.name);
      }
    });

    test("resources: the guide and every capability's inspect document, as REST answers them; an unknown one is an error", async () => {
      const { resources } = await client.listResources();
      assert.deepEqual(
        resources.map((r) => r.uri),
        ["quarry://guide", ...Object.keys(registry).map((id) => `quarry://capabilities/${id}`)],
      );
      const guide = await client.readResource({ uri: "quarry://guide" });
      const restGuide = await h.call("GET", "/v1/guide", { key });
      assert.equal((guide.contents[0] as { text: string }).text, restGuide.text);
      const id = Object.keys(registry)[0]!;
      const inspect = await client.readResource({ uri: `quarry://capabilities/${id}` });
      assert.deepEqual(JSON.parse((inspect.contents[0] as { text: string }).text), (await rest("GET", `/v1/capabilities/${id}`)).body);
      await assert.rejects(client.readResource({ uri: "quarry://capabilities/nope.search" }), /Resource not found/);
    });

    test("discover, inspect and account answer exactly what REST answers", async () => {
      assert.deepEqual(await ok(client, "discover", {}), (await rest("GET", "/v1/catalog")).body);
      for (const id of Object.keys(registry)) {
        assert.deepEqual(
          await ok(client, "inspect", { id }),
          (await rest("GET", `/v1/capabilities/${id}`)).body,
        );
      }
      assert.deepEqual(await ok(client, "account"), (await rest("GET", "/v1/account")).body);
      const unknown = await toolError(client, "inspect", { id: "nope.search" }, "capability_unknown");
      assert.deepEqual(strip(unknown), strip((await rest("GET", "/v1/capabilities/nope.search")).body));
    });

    test("execute answers what REST answers for every reference capability, with the same charge", async () => {
      for (const id of Object.keys(registry)) {
        const mcp = await ok(client, "execute", { capability: id, params: example(id) });
        const viaRest = await rest("POST", `/v1/capabilities/${id}/execute`, example(id));
        assert.equal(viaRest.status, 200, JSON.stringify(viaRest.body));
        assert.deepEqual(strip(mcp), strip(viaRest.body), id);
        assert.equal(mcp.charged_credits, viaRest.body.charged_credits, id);
        assert.ok(mcp.results.length > 0, id);
      }
      const account = await ok(client, "account");
      assert.equal(account.credits.used, (await rest("GET", "/v1/account")).body.credits.used);
    });

    test("follow_up pages a search with `more` and runs `details` like REST", async () => {
      for (const id of ["music.search", "academic.search"]) {
        const mcp = await ok(client, "execute", { capability: id, params: example(id) });
        const viaRest = (await rest("POST", `/v1/capabilities/${id}/execute`, example(id))).body;
        assert.equal(mcp.has_more, viaRest.has_more, id);
        if (id === "music.search") assert.equal(mcp.has_more, true, "the music example pages");
        if (mcp.has_more) {
          const moreMcp = await ok(client, "follow_up", { search_id: mcp.search_id, action: "more" });
          const moreRest = await rest("POST", "/v1/follow-up", {
            search_id: viaRest.search_id,
            action: "more",
          });
          assert.equal(moreRest.status, 200, JSON.stringify(moreRest.body));
          assert.equal(moreMcp.search_id, mcp.search_id);
          assert.deepEqual(strip(moreMcp), strip(moreRest.body), id);
          assert.equal(moreMcp.charged_credits, moreRest.body.charged_credits);
        }

        const detailsMcp = await ok(client, "follow_up", {
          record_id: mcp.results[0].record_id,
          action: "details",
        });
        const detailsRest = await rest("POST", "/v1/follow-up", {
          record_id: viaRest.results[0].record_id,
          action: "details",
        });
        assert.equal(detailsRest.status, 200, JSON.stringify(detailsRest.body));
        assert.equal(detailsMcp.record_id, mcp.results[0].record_id);
        assert.deepEqual(strip(detailsMcp), strip(detailsRest.body), id);

        // One account, one session store: REST continues the search MCP started.
        const again = await rest("POST", "/v1/follow-up", {
          record_id: mcp.results[0].record_id,
          action: "details",
        });
        assert.deepEqual(again.body.detail, detailsMcp.detail);
      }
    });

    test("sharpen exists and answers what REST answers (503 until reviewers are configured)", async () => {
      const body = { task: "Sum 2 and 2", draft: "4", caller_provider: "family_a" };
      const viaRest = await rest("POST", "/v1/sharpen", body);
      const r = await tool(client, "sharpen", body);
      if (viaRest.status === 200) {
        assert.equal(r.isError, false);
        return;
      }
      assert.equal(r.isError, true);
      assert.equal(viaRest.status, 503);
      assert.equal(r.value.error.code, "capability_unavailable");
      assert.deepEqual(strip(r.value), strip(viaRest.body));
    });

    test("unknown or missing argument keys are invalid_request with pointers into the arguments", async () => {
      const paths = async (name: string, args: Record<string, unknown>) =>
        (await toolError(client, name, args, "invalid_request")).error.violations.map(
          (v: { path: string }) => v.path,
        );
      assert.deepEqual(await paths("discover", { verbose: true }), ["/verbose"]);
      assert.deepEqual(await paths("account", { id: "acct" }), ["/id"]);
      assert.deepEqual(await paths("inspect", { id: "music.search", extra: 1 }), ["/extra"]);
      assert.deepEqual(
        await paths("execute", { capability: "music.search", params: { query: "x" }, num: 3 }),
        ["/num"],
      );
      assert.deepEqual(await paths("execute", { capability: "music.search" }), ["/params"]);

      // params are validated by the search service; MCP points into `params`, REST into the body.
      const params = { query: "Soliloquy", bogus: true };
      const mcp = await toolError(
        client,
        "execute",
        { capability: "music.search", params },
        "invalid_request",
      );
      const viaRest = (await rest("POST", "/v1/capabilities/music.search/execute", params)).body;
      assert.deepEqual(
        mcp.error.violations,
        viaRest.error.violations.map((v: { path: string; message: string }) => ({
          ...v,
          path: "/params" + v.path,
        })),
      );

      const followUp = { search_id: "srch_0123456789abcdef", action: "more", bogus: 1 };
      const fu = await toolError(client, "follow_up", followUp, "invalid_request");
      assert.deepEqual(strip(fu), strip((await rest("POST", "/v1/follow-up", followUp)).body));
      assert.deepEqual(
        fu.error.violations.map((v: { path: string }) => v.path),
        ["/bogus"],
      );
    });

    test("an unknown tool name near a real one says which was meant; one far from all does not guess", async () => {
      const near = await toolError(client, "exeucte", {}, "not_found");
      assert.equal(near.error.message, 'No tool "exeucte" (did you mean "execute"?).');
      const far = await toolError(client, "nope", {}, "not_found");
      assert.equal(far.error.message, 'No tool "nope".');
      assert.equal(far.error.hint, "Tools: discover, inspect, execute, follow_up, sharpen, account.");
    });
  });
}

describe("MCP refusals", () => {
  test("a wrong or missing key in either form is HTTP 401 before any MCP processing; nothing is charged", async () => {
    const { key, accountId } = await h.account("free");
    const client = await connect(h, key, "url");
    const quote = await ok(client, "execute", {
      capability: "markets.quote",
      params: example("markets.quote"),
    });
    assert.equal(quote.charged_credits, 4, "the call below would be billed with a valid key");
    await client.close();

    const usedBefore = (await h.store.getAccount(accountId))!.creditsUsed;
    const ledgerBefore = await h.store.ledgerTotal(accountId);
    const upstreamBefore = h.replay.requests.length;
    const wrong = key.slice(0, -1) + (key.endsWith("A") ? "B" : "A");
    const message = callMessage("execute", { capability: "markets.quote", params: example("markets.quote") });
    const attempts: [string, Record<string, string>][] = [
      [`${h.url}/mcp`, { authorization: `Bearer ${wrong}` }],
      [`${h.url}/mcp/k/${wrong}`, {}],
      [`${h.url}/mcp`, {}],
      [`${h.url}/mcp`, { authorization: `Basic ${key}` }],
      [`${h.url}/mcp/k/`, {}],
      [`${h.url}/mcp/k/${wrong}`, { authorization: `Bearer ${key}` }],
    ];
    for (const [url, headers] of attempts) {
      const res = await rawPost(url, message, headers);
      assert.equal(res.status, 401, url);
      assert.equal(res.body.error.code, "unauthorized");
      assert.equal(res.body.error.retryable, false);
      assert.match(res.body.error.requestId, /^req_/);
      assert.ok(!res.text.includes(wrong) && !res.text.includes(key), "no key is echoed");
    }
    for (const form of FORMS) {
      await assert.rejects(connect(h, wrong, form), (err: { code?: number }) => err.code === 401);
    }
    assert.equal((await h.store.getAccount(accountId))!.creditsUsed, usedBefore);
    assert.equal(await h.store.ledgerTotal(accountId), ledgerBefore);
    assert.equal(h.replay.requests.length, upstreamBefore, "nothing reached the provider");
  });

  test("the server's instructions carry the demo caveat in the offline demo, as the catalog's do", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const { key } = await h.account("free");
    const live = await rawPost(`${h.url}/mcp/k/${key}`, init);
    assert.doesNotMatch(live.body.result.instructions, /DEMO/);
    const demo = await startHarness({ env: { QUARRY_DEMO: "1" }, replay: h.replay });
    try {
      const account = await demo.account("free");
      const answer = await rawPost(`${demo.url}/mcp/k/${account.key}`, init);
      assert.match(answer.body.result.instructions, /recorded demo data/);
      const catalog = await demo.call("GET", "/v1/catalog", { key: account.key });
      assert.match(catalog.body.instructions, /recorded demo data/);
    } finally {
      await demo.close();
    }
  });

  test("DNS-rebinding protection: another site's Origin or Host is 403 (a JSON-RPC error, before the key); the server's own, an allowed one or none passes", async () => {
    const { key } = await h.account("free");
    const init = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    for (const form of FORMS) {
      const { url, headers } = endpoint(h, key, form);
      const refused = await rawPost(url, init, { ...headers, origin: "https://evil.example" });
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.body.error, { code: -32000, message: "Invalid Origin header: requests from this origin are not allowed." });
      assert.match(refused.headers.get("x-request-id") ?? "", /^req_/);
      assert.equal((await rawPost(url, init, { ...headers, origin: ALLOWED_ORIGIN })).status, 200);
      assert.equal((await rawPost(url, init, headers)).status, 200);
      // Same origin: a page served by this server (any of its loopback names) may call it.
      const own = new URL(h.url);
      for (const origin of [own.origin, `http://localhost:${own.port}`]) {
        const res = await rawPost(url, init, { ...headers, origin });
        assert.equal(res.status, 200, origin);
        assert.equal(res.headers.get("access-control-allow-origin"), origin);
      }
    }
    // Host: a name this server (on 127.0.0.1) does not answer to is refused before the key is read.
    for (const host of ["evil.example.com", "evil.example.com:80", "10.0.0.1"]) {
      const res = await rawHost(h, "/mcp", host, init);
      assert.equal(res.status, 403, host);
      assert.match(res.body, /Invalid Host header/);
    }
    for (const host of ["localhost", `localhost:${new URL(h.url).port}`, "127.0.0.1", "[::1]:8080"]) {
      assert.equal((await rawHost(h, "/mcp", host, init)).status, 401, `${host}: accepted, then the missing key`);
    }
  });

  test("OPTIONS, GET, DELETE, PUT and PATCH on /mcp all say Allow: POST", async () => {
    for (const method of ["OPTIONS", "GET", "DELETE", "PUT", "PATCH"]) {
      const res = await fetch(`${h.url}/mcp`, { method });
      assert.equal(res.headers.get("allow"), "POST", method);
      assert.equal(res.status, method === "OPTIONS" ? 204 : 405, method);
    }
    const preflight = await fetch(`${h.url}/mcp`, { method: "OPTIONS", headers: { origin: ALLOWED_ORIGIN } });
    assert.equal(preflight.headers.get("access-control-allow-origin"), ALLOWED_ORIGIN);
    assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /authorization/);
    const foreign = await fetch(`${h.url}/mcp`, { method: "OPTIONS", headers: { origin: "https://evil.example" } });
    assert.equal(foreign.headers.get("access-control-allow-origin"), null);
  });

  test("61 calls in a minute: a tool call over the limit is a tool error rate_limited; the handshake does not spend calls", async () => {
    const { key } = await h.account("free");
    // A host's connection: initialize, notifications/initialized, tools/list (and a ping).
    const client = await connect(h, key, "header");
    await client.listTools();
    await client.ping();
    const first = await h.call("GET", "/v1/account", { key });
    assert.equal(first.headers.get("ratelimit-remaining"), "59", "the handshake counted in its own bound, not against the calls");
    for (let i = 0; i < 29; i++) assert.equal((await h.call("GET", "/v1/account", { key })).status, 200);
    for (let i = 0; i < 30; i++) await ok(client, "account");
    const limited = await toolError(client, "account", undefined, "rate_limited");
    assert.equal(limited.error.retryable, true);
    assert.match(limited.error.hint, /Retry-After/);
    assert.equal((await h.call("GET", "/v1/account", { key })).status, 429, "REST and MCP tool calls share one limit");
    // Protocol messages keep working while the calls are spent: a host can still list its tools.
    const list = await rawPost(`${h.url}/mcp/k/${key}`, { jsonrpc: "2.0", id: 9, method: "tools/list" });
    assert.equal(list.status, 200);
    assert.equal(list.headers.get("ratelimit-limit"), "600", "the protocol bound's own headers");
    await client.close();
  });

  test("a burst of host connections (as parallel conformance runs make) is not rate limited; protocol messages have their own bound", async () => {
    const { key } = await h.account("free");
    const clients = await Promise.all(Array.from({ length: 30 }, () => connect(h, key, "header")));
    await Promise.all(clients.map((c) => c.listTools()));
    await Promise.all(clients.map((c) => c.close()));
    const after = await h.call("GET", "/v1/account", { key });
    assert.equal(after.status, 200);
    assert.equal(after.headers.get("ratelimit-remaining"), "59", "90 handshake messages spent no call");
    // The protocol bound holds: past it, a message without a tool call is HTTP 429.
    const tight = await startHarness({ env: { MCP_PROTOCOL_RATE_PER_MINUTE: "3" }, replay: h.replay });
    try {
      const { key: k } = await tight.account("free");
      const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
      for (let i = 0; i < 3; i++) assert.equal((await rawPost(`${tight.url}/mcp/k/${k}`, ping)).status, 200);
      const over = await rawPost(`${tight.url}/mcp/k/${k}`, ping);
      assert.equal(over.status, 429);
      assert.equal(over.body.error.code, "rate_limited");
      assert.match(over.body.error.message, /mcp-protocol messages per minute/);
    } finally {
      await tight.close();
    }
  });

  test("GET and DELETE answer 405 with Allow: POST and a JSON-RPC error, in both forms", async () => {
    const { key } = await h.account("free");
    for (const method of ["GET", "DELETE"]) {
      for (const path of ["/mcp", `/mcp/k/${key}`]) {
        const res = await fetch(h.url + path, { method, headers: { accept: "text/event-stream" } });
        assert.equal(res.status, 405, `${method} ${path}`);
        assert.equal(res.headers.get("allow"), "POST");
        assert.deepEqual(await res.json(), {
          jsonrpc: "2.0",
          error: { code: -32000, message: "Method not allowed." },
          id: null,
        });
      }
    }
  });

  test("malformed JSON-RPC and batches are answered as the SDK does, after the key check", async () => {
    const { key } = await h.account("free");
    const bad = await rawPost(`${h.url}/mcp/k/${key}`, "{not json");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, -32700);
    const notRpc = await rawPost(`${h.url}/mcp/k/${key}`, { hello: "world" });
    assert.equal(notRpc.status, 400);
    assert.equal(notRpc.body.jsonrpc, "2.0");
    assert.equal((await rawPost(`${h.url}/mcp/k/qk_live_${"A".repeat(32)}`, "{not json")).status, 401);

    const batch = await rawPost(`${h.url}/mcp/k/${key}`, [
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      callMessage("account", {}, 2),
    ]);
    assert.equal(batch.status, 200, batch.text);
    assert.equal(batch.body.length, 2);
    const byId = new Map(batch.body.map((m: Json) => [m.id, m.result]));
    assert.equal((byId.get(1) as Json).tools.length, 6);
    assert.equal((byId.get(2) as Json).structuredContent.plan.id, "free");
    // The refused messages above counted in the protocol bound; the batch's one tools/call once against the calls.
    assert.equal(batch.headers.get("ratelimit-remaining"), "59", "one tools/call, one count");
  });

  test("the JSON answer's HTTP checks are the SDK transport's: same status and body for each refusal", async () => {
    // The SDK's own stateless transport with a bare server, served on loopback: what Quarry's JSON
    // exchange (src/mcp/json-exchange.ts) must answer the same as.
    const sdk = createHttpServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString("utf8");
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const server = new Server({ name: "sdk", version: "1" }, { capabilities: { tools: {} } });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      // Unparsable text goes in as the raw request, so the transport parses (and refuses) it itself.
      await transport.handleRequest(req, res, parsed === undefined ? undefined : parsed);
    });
    await new Promise<void>((resolve) => sdk.listen(0, "127.0.0.1", resolve));
    const sdkUrl = `http://127.0.0.1:${(sdk.address() as AddressInfo).port}/mcp`;
    try {
      const { key } = await h.account("wide");
      const note = { jsonrpc: "2.0", method: "notifications/initialized" };
      const init = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      };
      const cases: { name: string; body: string | unknown; headers?: Record<string, string> }[] = [
        { name: "Accept without text/event-stream", body: note, headers: { accept: "application/json" } },
        { name: "Accept without application/json", body: note, headers: { accept: "text/event-stream" } },
        { name: "Content-Type not JSON", body: note, headers: { "content-type": "text/plain" } },
        { name: "a batch over 100", body: Array.from({ length: 101 }, () => note) },
        { name: "not a JSON-RPC message", body: { hello: "world" } },
        { name: "initialize with another message", body: [init, { jsonrpc: "2.0", id: 2, method: "tools/list" }] },
        { name: "an unsupported MCP-Protocol-Version", body: note, headers: { "mcp-protocol-version": "1999-01-01" } },
        { name: "notifications only", body: [note, note] },
      ];
      for (const c of cases) {
        const ours = await rawPost(`${h.url}/mcp/k/${key}`, c.body, c.headers);
        const theirs = await rawPost(sdkUrl, c.body, c.headers);
        assert.equal(ours.status, theirs.status, `${c.name}: ${ours.text} against ${theirs.text}`);
        assert.deepEqual(ours.body, theirs.body, c.name);
        assert.notEqual(ours.status, 200, c.name);
      }
    } finally {
      sdk.closeAllConnections();
      await new Promise((resolve) => sdk.close(resolve));
    }
  });

  test("a Host the SDK cannot take (none over HTTP/1.0, or no host name) is 400 in the envelope, not counted", async () => {
    const { key } = await h.account("free");
    const port = Number(new URL(h.url).port);
    const body = JSON.stringify(callMessage("account", {}, 1));
    for (const [version, host] of [
      ["1.0", null],
      ["1.1", "a b"],
    ] as const) {
      const conn = openRaw(port);
      conn.socket.write(
        `POST /mcp/k/${key} HTTP/${version}\r\n${host === null ? "" : `host: ${host}\r\n`}` +
          `content-type: application/json\r\naccept: ${ACCEPT}\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
      );
      await conn.closed;
      const [answer] = splitAnswers(conn.received()).answers;
      assert.equal(answer?.status, 400, `HTTP/${version} host ${host}: ${conn.received().slice(0, 300)}`);
      const envelope = JSON.parse(answer.body);
      assert.equal(envelope.error.code, "invalid_request");
      assert.match(envelope.error.message, /Host/);
    }
    const after = await rawPost(`${h.url}/mcp/k/${key}`, callMessage("account", {}, 1));
    assert.equal(after.headers.get("ratelimit-remaining"), "59", "the refused requests were not counted");
  });

  test("a body starting with a byte order mark is read as the SDK reads it: each tools/call still counts", async () => {
    // The SDK decodes the body as fetch does (a leading BOM dropped); a gateway that failed to parse
    // it would count the POST once while the SDK ran every call of the batch.
    const { key } = await h.account("free");
    const batch = Array.from({ length: 5 }, (_, i) => callMessage("account", {}, i + 1));
    const res = await rawPost(`${h.url}/mcp/k/${key}`, `\uFEFF${JSON.stringify(batch)}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.length, 5);
    assert.equal(res.headers.get("ratelimit-remaining"), "55", "five tools/calls, five counts");
  });

  test("a batch using one id for two tools/calls runs neither: each call needs its own answer", async () => {
    const { key, accountId } = await h.account("free");
    const quote = callMessage("execute", { capability: "markets.quote", params: { symbol: "GOOGL:NASDAQ" } }, 1);
    const from = h.replay.requests.length;
    const res = await rawPost(`${h.url}/mcp/k/${key}`, [quote, quote, callMessage("account", {}, 2)]);
    assert.equal(res.status, 200, res.text);
    const byId = new Map<unknown, Json>(res.body.map((m: Json) => [m.id, m]));
    const refused = byId.get(1) as Json;
    assert.equal(refused.result.isError, true, JSON.stringify(refused));
    assert.equal(refused.result.structuredContent.error.code, "invalid_request");
    assert.match(refused.result.structuredContent.error.message, /id 1/);
    assert.equal((byId.get(2) as Json).result.structuredContent.plan.id, "free", "the other call is served");
    assert.equal((await h.store.getAccount(accountId))?.creditsUsed, 0, "nothing ran, nothing charged");
    assert.equal(h.replay.requests.slice(from).filter((r) => r.prefix === "serpapi").length, 0, "no provider call");
  });

  test("a tools/call without a name or with non-object arguments is -32602 Invalid params, not an internal error", async () => {
    const { key, accountId } = await h.account("free");
    const res = await rawPost(`${h.url}/mcp/k/${key}`, [
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "account", arguments: "x" } },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { arguments: {} } },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: 7 } },
      callMessage("account", {}, 4),
    ]);
    assert.equal(res.status, 200, res.text);
    const byId = new Map<unknown, Json>(res.body.map((m: Json) => [m.id, m]));
    for (const id of [1, 2, 3]) {
      const answer = byId.get(id) as Json;
      assert.equal(answer.error?.code, -32602, JSON.stringify(answer));
      assert.match(answer.error.message, /Invalid tools\/call request: .*params/s);
    }
    assert.equal((byId.get(4) as Json).result.structuredContent.plan.id, "free", "the valid call in the batch is served");
    assert.equal((await h.store.getAccount(accountId))?.creditsUsed, 0);
  });

  test("prototype keys in tool arguments are refused with pointers, as REST refuses them; elsewhere they are dropped", async () => {
    const { key, accountId } = await h.account("free");
    const upstreamBefore = h.replay.requests.length;
    // Sent as text: JSON.stringify of an object literal would not keep a "__proto__" key.
    const recipes = JSON.stringify(example("recipes.search"));
    const text =
      `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute","arguments":` +
      `{"capability":"recipes.search","params":{"__proto__":{"x":1},"a":[{"constructor":{"prototype":{}}}]}}}},` +
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute","arguments":` +
      `{"capability":"recipes.search","params":{"\\u005f_proto__":1}}}},` +
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute","__proto__":{"name":"sharpen"},` +
      `"arguments":{"capability":"recipes.search","params":${recipes}}}}]`;
    const res = await rawPost(`${h.url}/mcp/k/${key}`, text);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get("ratelimit-remaining"), "57", "refused calls count against the limit, as on REST");
    const byId = new Map<number, Json>(res.body.map((m: Json) => [m.id, m.result]));
    const refused = byId.get(1)!;
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.error.code, "invalid_request");
    assert.deepEqual(
      refused.structuredContent.error.violations.map((v: Json) => v.path),
      ["/params/__proto__", "/params/a/0/constructor/prototype"],
    );
    assert.deepEqual(
      byId.get(2)!.structuredContent.error.violations.map((v: Json) => v.path),
      ["/params/__proto__"],
      "a key spelled with escapes is the same key",
    );
    const ran = byId.get(3)!;
    assert.equal(ran.isError, undefined, JSON.stringify(ran));
    assert.ok(ran.structuredContent.result_count >= 1, "the key outside the arguments was dropped");
    assert.equal(h.replay.requests.length, upstreamBefore + 1, "only the clean call reached the provider");
    const charged = ran.structuredContent.charged_credits;
    assert.equal((await h.store.getAccount(accountId))!.creditsUsed, charged);
    assert.equal(await h.store.ledgerTotal(accountId), charged, "the refused calls cost nothing");
  });

  test("a body nested far past the call stack, spelled with escapes: 401 without a key, answered with one, never 500", async () => {
    // Parsed with a reviver (recursive), such a body overflowed the stack before the key was checked.
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const text = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"\\u0041","d":${deep}}}`;
    const anonymous = await rawPost(`${h.url}/mcp`, text);
    assert.equal(anonymous.status, 401, anonymous.text.slice(0, 200));
    const { key } = await h.account("free");
    const answered = await rawPost(`${h.url}/mcp/k/${key}`, text);
    assert.equal(answered.status, 200, answered.text.slice(0, 200));
    assert.deepEqual(answered.body.result, {});
  });
});

describe("MCP isolation", () => {
  test("two clients calling concurrently with different keys each get their own results", async () => {
    const a = await h.account("free");
    const b = await h.account("pro");
    const [ca, cb] = await Promise.all([connect(h, a.key, "header"), connect(h, b.key, "url")]);
    const quote = { capability: "markets.quote", params: example("markets.quote") };
    const calls: Promise<[string, string, Json]>[] = [];
    for (let i = 0; i < 6; i++) {
      calls.push(ok(ca, "account").then((v) => ["a", "account", v]));
      calls.push(ok(cb, "account").then((v) => ["b", "account", v]));
      if (i < 2) calls.push(ok(ca, "execute", quote).then((v) => ["a", "execute", v]));
      if (i < 1) calls.push(ok(cb, "execute", quote).then((v) => ["b", "execute", v]));
    }
    const searches: Record<string, string[]> = { a: [], b: [] };
    for (const [who, name, value] of await Promise.all(calls)) {
      if (name === "account") assert.equal(value.plan.id, who === "a" ? "free" : "pro");
      else searches[who]!.push(value.results[0].record_id);
    }
    assert.equal((await ok(ca, "account")).credits.used, 8);
    assert.equal((await ok(cb, "account")).credits.used, 4);
    assert.equal((await h.store.getAccount(a.accountId))!.creditsUsed, 8);
    assert.equal((await h.store.getAccount(b.accountId))!.creditsUsed, 4);
    // One client's records are invisible to the other.
    await toolError(cb, "follow_up", { record_id: searches.a![0], action: "details" }, "record_unknown");
    await ok(ca, "follow_up", { record_id: searches.a![0], action: "details" });
    await Promise.all([ca.close(), cb.close()]);
  });
});

describe("MCP logging", () => {
  test("the URL key never appears in any log line", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        done();
      },
    });
    const logged = await startHarness({
      env: { MCP_ALLOWED_ORIGINS: ALLOWED_ORIGIN },
      logger: { level: "trace", stream },
    });
    try {
      const { key } = await logged.account();
      const wrong = key.slice(0, -1) + (key.endsWith("A") ? "B" : "A");
      const url = `${logged.url}/mcp/k/${key}`;
      const secret = key.slice("qk_live_".length);
      const client = await connect(logged, key, "url");
      await ok(client, "execute", { capability: "music.search", params: example("music.search") });
      await toolError(client, "nope", {}, "not_found");
      // A vendor failure (no recording for this query: both music sources refuse it) is logged at
      // warn, one line without a stack trace; the refusal is not retryable.
      const failed = await tool(client, "execute", {
        capability: "music.search",
        params: { query: "no recording 7Qx" },
      });
      assert.equal(failed.isError, true);
      assert.equal(failed.value.error.retryable, false, JSON.stringify(failed.value));
      await toolError(
        client,
        "execute",
        { capability: "music.search", params: { bogus: key } },
        "invalid_request",
      );
      await client.close();
      assert.equal((await rawPost(`${logged.url}/mcp/k/${wrong}`, callMessage("account", {}))).status, 401);
      assert.equal((await rawPost(url, "{not json")).status, 400);
      assert.equal(
        (await rawPost(url, callMessage("account", {}), { origin: "https://evil.example" })).status,
        403,
      );
      assert.equal((await fetch(url)).status, 405);
      assert.equal((await rawPost(`${url}/extra`, {})).status, 404);
      // Other spellings of the URL form: the router decodes escapes before matching, so the
      // escaped ones reach the key route; the others are 404s whose message must not echo the key.
      const escapedKey = [...key].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("");
      const spellings = [
        `/mcp/%6B/${key}`,
        `/%6Dcp/k/${key}`,
        `/%6d%63%70/%6b/${key}`,
        `/mcp/k/${escapedKey}`,
        `/MCP/k/${key}`,
        `/mcp/K/${key}`,
        `/mcp//k/${key}`,
        `/mcp%2Fk%2F${key}`,
        `/v1/${key}`,
      ];
      for (const path of spellings) {
        const res = await rawPost(`${logged.url}${path}`, callMessage("account", {}));
        assert.ok(!res.text.includes(secret), `key echoed for ${path}: ${res.text}`);
      }
      assert.equal((await rawPost(`${logged.url}/mcp/%6B/${key}`, callMessage("account", {}))).status, 200);

      assert.ok(lines.length >= 8, `log lines were captured (${lines.length})`);
      for (const line of lines) {
        assert.ok(!line.includes(secret), `key in log line: ${line}`);
        assert.ok(!line.includes(wrong.slice("qk_live_".length)), `wrong key in log line: ${line}`);
      }
      const vendor = lines.map((l) => JSON.parse(l)).filter((l) => l.code === "provider_error" && l.tool === "execute");
      assert.equal(vendor.length, 1, "the vendor failure is one line");
      assert.equal(vendor[0].level, 40, "at warn");
      assert.equal(vendor[0].err, undefined, "without a stack trace");
      const urls = lines.map((l) => JSON.parse(l).url).filter(Boolean);
      assert.ok(urls.includes("/mcp/k/***"), "the route is logged redacted");
    } finally {
      await logged.close();
    }
  });
});
