/**
 * What MCP hosts need beyond the protocol (issue 42), end to end with the SDK's own client: tool
 * results that fit the deployment's MCP_MAX_RESULT_CHARS (cut, marked and noted over MCP; the same
 * call over REST uncut), a small tools/list, and progress on slow calls (notifications/progress on
 * an event stream when the call carries a progressToken; one JSON body without one).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type Harness, startHarness } from "./helpers/harness.ts";

const MAX = 10_000;
const ARTICLE = "https://hacks.mozilla.org/2015/03/this-api-is-so-fetching/";

let h: Harness;
let key: string;
let client: Client;

before(async () => {
  h = await startHarness({ env: { MCP_MAX_RESULT_CHARS: String(MAX) } });
  ({ key } = await h.account("pro"));
  client = new Client({ name: "quarry-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
});
after(async () => {
  await client.close();
  await h.close();
});

describe("results that fit the host", () => {
  test("a page read over MCP is cut to the limit, marked and noted; the same read over REST is whole", async () => {
    const res = (await client.callTool({ name: "execute", arguments: { capability: "web.read", params: { url: ARTICLE } } })) as CallToolResult;
    assert.equal(res.isError, undefined);
    const block = res.content[0]!;
    assert.equal(block.type, "text");
    const text = block.type === "text" ? block.text : "";
    assert.ok(text.length <= MAX, `the text block fits: ${text.length}`);
    const value = JSON.parse(text);
    assert.deepEqual(res.structuredContent, value, "structured content and text say the same");
    const page = value.results[0];
    assert.match(page.content, / … \[cut by Quarry: the first [\d,]+ of [\d,]+ characters\]$/);
    assert.match(value.notes.at(-1), /^This MCP result was cut to fit this deployment's limit of 10,000 characters \(MCP_MAX_RESULT_CHARS\): results\[0\]\.content/);
    assert.match(value.notes.at(-1), /over REST .* which is never cut/);

    const rest = await h.call("POST", "/v1/capabilities/web.read/execute", { key, body: { url: ARTICLE } });
    assert.equal(rest.status, 200);
    const whole = rest.body.results[0];
    assert.ok(whole.content.length > MAX, `REST is not cut: ${whole.content.length}`);
    assert.ok(!/cut by Quarry/.test(whole.content), "!/cut by Quarry/.test(whole.content)");
    assert.ok(whole.content.startsWith(page.content.replace(/ … \[cut by Quarry.*$/, "")), "the cut text is the start of the whole");
    assert.equal(page.chars, whole.chars, "the record's own figures are the source's");
  });

  test("a small result is not touched", async () => {
    const res = (await client.callTool({ name: "account", arguments: {} })) as CallToolResult;
    const value = res.structuredContent as { notes?: unknown };
    assert.equal(value.notes, undefined);
  });

  test("tools/list stays small", async () => {
    const { tools } = await client.listTools();
    const size = JSON.stringify(tools).length;
    assert.ok(size < 12_000, `tools/list is ${size} characters`);
  });
});

describe("progress on slow calls", () => {
  const read = { name: "execute", arguments: { capability: "web.read", params: { url: ARTICLE, max_chars: 500 } } };

  test("with a progress token a slow multi-step call sends notifications/progress before its result", async () => {
    h.replay.setFault("webpages", { kind: "latency", ms: 1300, times: 1 });
    const seen: { progress: number; message?: string }[] = [];
    let resultAt = 0;
    const res = (await client.callTool(read, undefined, {
      onprogress: (p) => {
        assert.equal(resultAt, 0, "before the result");
        seen.push({ progress: p.progress, ...(p.message === undefined ? {} : { message: p.message }) });
      },
    })) as CallToolResult;
    resultAt = performance.now();
    assert.equal(res.isError, undefined, JSON.stringify(res.structuredContent));
    assert.ok(seen.length >= 1, `progress was sent: ${JSON.stringify(seen)}`);
    assert.deepEqual(seen.map((p) => p.progress), seen.map((_, i) => i + 1), "progress increases");
    assert.ok(seen.some((p) => /^working: |page fetched|content extracted/.test(p.message ?? "")), JSON.stringify(seen));
    assert.equal((res.structuredContent as { charged_credits: number }).charged_credits, 5, "charged as ever");
  });

  test("a quick call with a progress token sends none; without a token the answer is one JSON body", async () => {
    const seen: unknown[] = [];
    const quick = (await client.callTool({ name: "account", arguments: {} }, undefined, { onprogress: (p) => seen.push(p) })) as CallToolResult;
    assert.equal(quick.isError, undefined);
    assert.deepEqual(seen, []);
    const raw = await fetch(`${h.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "account", arguments: {} } }),
    });
    assert.match(raw.headers.get("content-type") ?? "", /^application\/json/);
    const streamed = await fetch(`${h.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "account", arguments: {}, _meta: { progressToken: "t-1" } } }),
    });
    assert.match(streamed.headers.get("content-type") ?? "", /^text\/event-stream/);
    const text = await streamed.text();
    assert.match(text, /"id":8/);
    assert.doesNotMatch(text, /notifications\/progress/, "a quick call: no progress");
  });
});
