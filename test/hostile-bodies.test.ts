/**
 * Hostile input that the schema-driven fuzzing (fuzz.test.ts) does not generate: bodies nested
 * thousands of levels deep, and bytes that are not HTTP at all. Each is refused in the envelope
 * (400 invalid_request; a pointer into the body where there is one) on every body-taking route,
 * REST and MCP, and charges nothing.
 */
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { after, before, describe, test } from "node:test";
import { MAX_VIOLATIONS } from "../src/errors.ts";
import { MAX_BODY_DEPTH } from "../src/validation.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { openRaw, splitAnswers } from "./helpers/raw-http.ts";

let h: Harness;
before(async () => {
  // One Sharpen reviewer, so /v1/sharpen gets as far as validating (it is never called: port 9).
  const reviewer = { family: "family_b", kind: "anthropic", model: "m", baseUrl: "http://127.0.0.1:9", keyVar: "SIM_KEY", tiers: ["sharpen"] };
  h = await startHarness({ env: { SHARPEN_REVIEWERS: JSON.stringify([reviewer]), SIM_KEY: "k" } });
});
after(async () => {
  await h.close();
});

/** `[[[…[leaf]…]]]` (or `{"a":{"a":…}}`) `levels` deep, as text: built without recursion. */
function nested(levels: number, kind: "array" | "object", leaf = "1"): string {
  return kind === "array" ? "[".repeat(levels) + leaf + "]".repeat(levels) : '{"a":'.repeat(levels) + leaf + "}".repeat(levels);
}

describe("bodies nested deeper than the limit", () => {
  const deep = (kind: "array" | "object") => nested(10_000, kind);

  test("are 400 invalid_request on execute, follow-up and sharpen, for arrays and objects alike", async () => {
    const { key, accountId } = await h.account("free");
    const bodies: [string, string, string][] = [];
    for (const kind of ["array", "object"] as const) {
      bodies.push(
        ["/v1/capabilities/music.search/execute", `{"query":"x","foo":${deep(kind)}}`, "/foo"],
        ["/v1/capabilities/recipes.search/execute", `{"category":${deep(kind)}}`, "/category"],
        ["/v1/follow-up", `{"search_id":"srch_${"a".repeat(16)}","action":"update","params":${deep(kind)}}`, "/params"],
        ["/v1/sharpen", `{"task":"t","draft":"d","caller_provider":"family_a","extra":${deep(kind)}}`, "/extra"],
      );
    }
    for (const [path, text, under] of bodies) {
      const res = await fetch(h.url + path, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: text,
      });
      const body = (await res.json()) as { error: { code: string; violations?: { path: string; message: string }[] } };
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(body).slice(0, 300)}`);
      assert.equal(body.error.code, "invalid_request");
      const paths = (body.error.violations ?? []).map((v) => v.path);
      assert.ok(paths.length > 0 && paths.every((p) => p.startsWith(under)), `${path}: ${paths.join(", ")}`);
    }
    assert.equal((await h.store.getAccount(accountId))?.creditsUsed, 0);
  });

  test("the violation points at the first level past the limit; the limit itself is accepted by the walk", async () => {
    const { key } = await h.account("free");
    const at = async (levels: number) => {
      const res = await h.call("POST", "/v1/capabilities/music.search/execute", {
        key,
        body: { query: "x", foo: JSON.parse(nested(levels, "array")) },
      });
      assert.equal(res.status, 400);
      return res.body.error.violations as { path: string; message: string }[];
    };
    // At the limit (the innermost array MAX_BODY_DEPTH keys below the root) only the unknown key is reported.
    assert.deepEqual(await at(MAX_BODY_DEPTH), [{ path: "/foo", message: 'unknown field "foo"; fields: query, kind, num' }]);
    const past = await at(MAX_BODY_DEPTH + 5);
    const tooDeep = past.filter((v) => v.message.includes("nested too deeply"));
    assert.equal(tooDeep.length, 1);
    // "/foo" is one level, each array one more: the value at depth MAX_BODY_DEPTH + 1 is refused.
    assert.equal(tooDeep[0]!.path, `/foo${"/0".repeat(MAX_BODY_DEPTH)}`);
  });

  test("are refused the same way through MCP's execute tool", async () => {
    const { key, accountId } = await h.account("free");
    const res = await fetch(`${h.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
      },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute","arguments":{"capability":"music.search","params":{"query":"x","foo":${deep("array")}}}}}`,
    });
    assert.equal(res.status, 200);
    const rpc = (await res.json()) as { result: { isError: boolean; structuredContent: { error: { code: string } } } };
    assert.equal(rpc.result.isError, true);
    assert.equal(rpc.result.structuredContent.error.code, "invalid_request");
    assert.equal((await h.store.getAccount(accountId))?.creditsUsed, 0);
  });
});

/** Send `raw` on a new connection and read until the server closes it (at most 5 s). */
async function rawExchange(url: string, raw: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const { socket, received, closed } = openRaw(Number(port), hostname);
  socket.write(raw);
  let timedOut = false;
  socket.setTimeout(5000, () => {
    timedOut = true;
    socket.destroy();
  });
  await closed;
  if (timedOut) throw new Error(`no close after: ${JSON.stringify(received())}`);
  return received();
}

interface RawResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  body: any;
}

/** Status, headers and JSON body of each response in `text`; nothing else may follow them. */
function responses(text: string): RawResponse[] {
  const { answers, rest } = splitAnswers(text);
  assert.equal(rest, "", `unparsed: ${JSON.stringify(rest)}`);
  return answers.map((a) => ({ status: a.status, headers: a.headers, body: JSON.parse(a.body) }));
}

describe("bytes Node's HTTP parser refuses", () => {
  const cases: [string, string, RegExp][] = [
    ["a header line without a colon", "GET /health/live HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", /not valid HTTP \(HPE_/],
    ["a request line that is not HTTP", "GARBAGE\r\n\r\n", /not valid HTTP \(HPE_/],
    [
      "Content-Length beside chunked encoding",
      "POST /v1/follow-up HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      /not valid HTTP \(HPE_/,
    ],
    ["20 KB of headers", `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, /headers are too large/],
    ["an HTTP/1.1 request without Host", "GET /health/live HTTP/1.1\r\n\r\n", /Host header is required/],
  ];
  for (const [name, raw, message] of cases) {
    test(`${name}: 400 invalid_request in the envelope, with a request id, then the connection closes`, async () => {
      const [res, ...more] = responses(await rawExchange(h.url, raw));
      assert.equal(more.length, 0);
      assert.equal(res!.status, 400);
      assert.equal(res!.body.error.code, "invalid_request");
      assert.match(res!.body.error.message, message);
      assert.equal(res!.body.error.retryable, false);
      assert.match(res!.body.error.requestId, /^req_/);
      assert.equal(res!.headers["x-request-id"], res!.body.error.requestId);
      assert.deepEqual(res!.body.error.violations, [{ path: "", message: res!.body.error.message }]);
    });
  }

  test("the refused bytes are never echoed (they may hold a key)", async () => {
    const { key } = await h.account("free");
    const text = await rawExchange(h.url, `GET /mcp/k/${key} HTTP/1.1\r\nHost: x\r\nBad ${key}\r\n\r\n`);
    assert.equal(responses(text)[0]!.status, 400);
    assert.equal(text.includes(key), false);
  });

  test("calls pipelined before garbage are all answered and charged once; the connection then closes", async () => {
    const { key } = await h.account("pro");
    const used = async () => (await h.call("GET", "/v1/account", { key })).body.credits.used as number;
    const before = await used();
    const body = JSON.stringify({ symbol: "GOOGL:NASDAQ" });
    const quote =
      `POST /v1/capabilities/markets.quote/execute HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    // Both calls are on their provider when the garbage is read.
    h.replay.setFault("serpapi", { kind: "latency", ms: 300, times: 2 });
    const answers = responses(await rawExchange(h.url, quote + quote + "GARBAGE\r\n\r\n"));
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200],
      "both calls answered (the garbage gets none: its 400 would follow a closing answer)",
    );
    assert.notEqual(answers[0]!.headers.connection, "close");
    assert.equal(answers[1]!.headers.connection, "close");
    assert.equal((await used()) - before, 8, "charged once for each answered call");
  });

  test("a request answered before garbage on its connection keeps its answer; the connection then closes", async () => {
    const { key } = await h.account("free");
    const raw =
      `GET /v1/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n` + "GARBAGE\r\n\r\n";
    const [first, ...more] = responses(await rawExchange(h.url, raw));
    assert.equal(first!.status, 200);
    assert.equal(typeof first!.body.credits.used, "number");
    assert.ok(more.length <= 1, "more.length <= 1");
    if (more[0]) assert.equal(more[0].body.error.code, "invalid_request");
  });
});

test("a URL the router refuses (bad percent-encoding, an over-long segment) is a 400 whose hint is about the URL", async () => {
  const { key } = await h.account("free");
  for (const [path, message] of [
    ["/v1/capabilities/%zz", /bad percent-encoding/],
    [`/v1/capabilities/${"a".repeat(3000)}`, /path segment is too long/],
  ] as const) {
    const res = await h.call("GET", path, { key });
    assert.equal(res.status, 400, path.slice(0, 40));
    assert.equal(res.body.error.code, "invalid_request");
    assert.match(res.body.error.message, message);
    assert.match(res.body.error.hint, /Check the URL/);
  }
});

test("a body with a Content-Encoding is refused whatever its bytes; identity is accepted", async () => {
  const { key } = await h.account("free");
  const json = JSON.stringify({ query: "Daft Punk", kind: "album", num: 5 });
  const send = (body: string | Buffer, encoding: string) =>
    fetch(`${h.url}/v1/capabilities/music.search/execute`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-encoding": encoding },
      body,
    });
  for (const [body, encoding] of [
    [gzipSync(json), "gzip"],
    [json, "br"],
    [json, "gzip, identity"],
  ] as const) {
    const res = await send(body, encoding);
    const envelope = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(res.status, 400, encoding);
    assert.equal(envelope.error.code, "invalid_request");
    assert.match(envelope.error.message, /Content-Encoding .* is not accepted; send the body uncompressed\./);
  }
  const plain = await send(json, "identity");
  assert.equal(plain.status, 200, await plain.clone().text());
});

test("a body of thousands of unknown keys lists the first MAX_VIOLATIONS and says how many there were", async () => {
  const { key } = await h.account("free");
  const body: Record<string, number> = { query: 1 };
  for (let i = 0; i < 5000; i++) body[`k${i}`] = i;
  const res = await h.call("POST", "/v1/capabilities/music.search/execute", { key, body });
  assert.equal(res.status, 400);
  const { violations, message } = res.body.error as { violations: { path: string }[]; message: string };
  assert.equal(violations.length, MAX_VIOLATIONS);
  assert.match(message, new RegExp(`the first ${MAX_VIOLATIONS} of 5001 violations are listed`));
  assert.ok(res.text.length < 20_000, `${res.text.length} bytes`);
});

test("a body sent as text/plain or form-encoded is refused as any non-JSON type is", async () => {
  const { key } = await h.account("free");
  for (const type of ["text/plain", "application/x-www-form-urlencoded", "text/plain; charset=utf-8"]) {
    const res = await fetch(`${h.url}/v1/follow-up`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": type },
      body: `{"search_id":"srch_${"A".repeat(16)}","action":"more"}`,
    });
    const envelope = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(res.status, 400, type);
    assert.equal(envelope.error.code, "invalid_request");
    assert.equal(envelope.error.message, "Send the body as application/json.", type);
  }
});
