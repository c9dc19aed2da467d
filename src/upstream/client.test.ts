/**
 * Tests for the upstream client's absolute `baseUrl` (operator-declared endpoints such as Sharpen
 * reviewers), against a tiny loopback server: the URL and headers used, and the usual error mapping.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type TestContext, test } from "node:test";
import { loadConfig } from "../config.ts";
import { ApiError } from "../errors.ts";
import { HttpUpstreamClient } from "./client.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

async function server(
  t: TestContext,
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const srv = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    srv.closeAllConnections();
    srv.close();
  });
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, seen };
}

function client(t: TestContext): HttpUpstreamClient {
  const c = new HttpUpstreamClient(loadConfig({}));
  t.after(() => c.close());
  return c;
}

test("baseUrl: the request goes to that URL with the request's own headers, not the provider table", async (t) => {
  const srv = await server(t, (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true }));
  });
  const res = await client(t).send<{ ok: boolean }>(
    {
      provider: "sharpen:family_x/model",
      baseUrl: `${srv.url}/v1/`,
      method: "POST",
      path: "/chat/completions",
      query: { beta: "true", skip: undefined },
      headers: { authorization: "Bearer secret-1" },
      body: { model: "m" },
    },
    AbortSignal.timeout(5000),
  );
  assert.deepEqual(res.body, { ok: true });
  assert.equal(srv.seen.length, 1);
  const seen = srv.seen[0]!;
  assert.equal(seen.method, "POST");
  assert.equal(seen.url, "/v1/chat/completions?beta=true");
  assert.equal(seen.headers.authorization, "Bearer secret-1");
  assert.equal(seen.headers["content-type"], "application/json");
  assert.deepEqual(JSON.parse(seen.body), { model: "m" });
});

test("baseUrl: an unknown provider name is fine; without baseUrl it is an internal error", async (t) => {
  const srv = await server(t, (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  const c = client(t);
  const ok = await c.send(
    { provider: "not-in-table", baseUrl: srv.url, method: "GET", path: "/x" },
    AbortSignal.timeout(5000),
  );
  assert.equal(ok.status, 200);
  await assert.rejects(
    c.send({ provider: "not-in-table", method: "GET", path: "/x" }, AbortSignal.timeout(5000)),
    (err: unknown) => err instanceof ApiError && err.code === "internal_error",
  );
});

test("baseUrl: 5xx maps to provider_error and a hung server to provider_timeout", async (t) => {
  const failing = await server(t, (_req, res) => {
    res.writeHead(500);
    res.end("boom");
  });
  const hanging = await server(t, () => undefined);
  const c = client(t);
  await assert.rejects(
    c.send(
      { provider: "p1", baseUrl: failing.url, method: "POST", path: "/", body: {} },
      AbortSignal.timeout(5000),
    ),
    (err: unknown) => err instanceof ApiError && err.code === "provider_error",
  );
  // POST is not retried by default: exactly one attempt reached the server.
  assert.equal(failing.seen.length, 1);
  await assert.rejects(
    c.send(
      { provider: "p2", baseUrl: hanging.url, method: "POST", path: "/", body: {} },
      AbortSignal.timeout(200),
    ),
    (err: unknown) => err instanceof ApiError && err.code === "provider_timeout",
  );
});

test("a provider's 4xx: a refused request hints at changing it; refused credentials hint that only the operator can help", async (t) => {
  const refusing = (status: number) =>
    server(t, (_req, res) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end("{}");
    });
  const c = client(t);
  const hintFor = async (status: number) => {
    const srv = await refusing(status);
    const err = await c
      .send({ provider: `p${status}`, baseUrl: srv.url, method: "GET", path: "/" }, AbortSignal.timeout(5000))
      .then(
        () => assert.fail("refused"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof ApiError && err.code === "provider_error", String(err));
    return err.hint ?? "";
  };
  assert.match(await hintFor(404), /change it, or try later/);
  for (const status of [401, 402, 403]) assert.match(await hintFor(status), /credentials or account.*the operator has to/);
});

test("responseType bytes: the body as received, byte for byte, with or without a declared length; size cap kept", async (t) => {
  const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0xff, 0xfe, 0x00, 0x80, 0xc3]);
  const srv = await server(t, (req, res) => {
    if (req.url === "/chunked") {
      res.writeHead(200, { "content-type": "application/pdf" });
      res.write(pdf.subarray(0, 4));
      res.end(pdf.subarray(4));
      return;
    }
    res.writeHead(200, { "content-type": "application/pdf", "content-length": String(pdf.length) });
    res.end(pdf);
  });
  for (const path of ["/declared", "/chunked"]) {
    const res = await client(t).send<Uint8Array>({ provider: "x", baseUrl: srv.url, method: "GET", path, responseType: "bytes" }, AbortSignal.timeout(5000));
    assert.ok(res.body instanceof Uint8Array, path);
    assert.deepEqual(Buffer.from(res.body), pdf, path);
    assert.equal(res.text, undefined);
  }
  assert.equal(srv.seen[0]!.headers.accept, "*/*");
  const small = new HttpUpstreamClient(loadConfig({ UPSTREAM_MAX_RESPONSE_BYTES: "1024" }));
  t.after(() => small.close());
  const big = await server(t, (_req, res) => {
    res.writeHead(200, { "content-type": "application/pdf" });
    res.end(Buffer.alloc(4096, 1));
  });
  await assert.rejects(
    small.send({ provider: "x", baseUrl: big.url, method: "GET", path: "/", responseType: "bytes" }, AbortSignal.timeout(5000)),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /exceeded 1024 bytes/.test(e.message),
  );
});
