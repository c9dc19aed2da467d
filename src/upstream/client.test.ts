/**
 * Tests for the upstream client against a tiny loopback server: the absolute `baseUrl` (operator-
 * declared endpoints such as Sharpen reviewers), the usual error mapping, and how answers are
 * checked before a mapper reads them: declared schemas (drift), provider error bodies, bot
 * challenges, document kinds, and a provider's 429 with its wait.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type TestContext, test } from "node:test";
import { Type } from "@sinclair/typebox";
import { loadConfig } from "../config.ts";
import { ApiError } from "../errors.ts";
import { HttpUpstreamClient } from "./client.ts";
import { UpstreamError } from "./faults.ts";

/** Tests of transport only: any JSON answer. */
const ANY = Type.Unknown();

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
  const res = await client(t).send(
    {
      provider: "sharpen:family_x/model",
      baseUrl: `${srv.url}/v1/`,
      method: "POST",
      path: "/chat/completions",
      query: { beta: "true", skip: undefined },
      headers: { authorization: "Bearer secret-1" },
      body: { model: "m" },
      response: Type.Object({ ok: Type.Boolean() }),
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
    { provider: "not-in-table", baseUrl: srv.url, method: "GET", path: "/x", response: ANY },
    AbortSignal.timeout(5000),
  );
  assert.equal(ok.status, 200);
  await assert.rejects(
    c.send({ provider: "not-in-table", method: "GET", path: "/x", response: ANY }, AbortSignal.timeout(5000)),
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
      { provider: "p1", baseUrl: failing.url, method: "POST", path: "/", body: {}, response: ANY },
      AbortSignal.timeout(5000),
    ),
    (err: unknown) => err instanceof ApiError && err.code === "provider_error",
  );
  // POST is not retried by default: exactly one attempt reached the server.
  assert.equal(failing.seen.length, 1);
  await assert.rejects(
    c.send(
      { provider: "p2", baseUrl: hanging.url, method: "POST", path: "/", body: {}, response: ANY },
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
      .send({ provider: `p${status}`, baseUrl: srv.url, method: "GET", path: "/", response: ANY }, AbortSignal.timeout(5000))
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
    const res = await client(t).send({ provider: "x", baseUrl: srv.url, method: "GET", path, responseType: "bytes", response: "pdf" }, AbortSignal.timeout(5000));
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
    small.send({ provider: "x", baseUrl: big.url, method: "GET", path: "/", responseType: "bytes", response: "pdf" }, AbortSignal.timeout(5000)),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /exceeded 1024 bytes/.test(e.message),
  );
});

function logged(): { lines: { obj: Record<string, unknown>; msg: string }[]; logger: { warn(obj: object, msg: string): void } } {
  const lines: { obj: Record<string, unknown>; msg: string }[] = [];
  return { lines, logger: { warn: (obj, msg) => lines.push({ obj: obj as Record<string, unknown>, msg }) } };
}

const faultOf = async (p: Promise<unknown>): Promise<UpstreamError> =>
  p.then(
    () => assert.fail("expected a failure"),
    (e: unknown) => {
      assert.ok(e instanceof UpstreamError, String(e));
      return e;
    },
  );

test("drift: an answer that does not fit the declared schema is 502 naming the provider and the first field, not retried, logged", async (t) => {
  const srv = await server(t, (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ meta: { count: 3 }, works: [] }));
  });
  const log = logged();
  const c = new HttpUpstreamClient(loadConfig({ OPENALEX_BASE_URL: srv.url }), log.logger);
  t.after(() => c.close());
  const schema = Type.Object({ meta: Type.Object({ count: Type.Number() }), results: Type.Array(Type.Object({ id: Type.String() })) });
  const err = await faultOf(c.send({ provider: "openalex", method: "GET", path: "/works", query: { search: "x" }, response: schema }, AbortSignal.timeout(5000)));
  assert.equal(err.code, "provider_error");
  assert.equal(err.fault, "drift");
  assert.equal(err.pointer, "/results");
  assert.equal(err.retryable, false);
  assert.match(err.message, /^OpenAlex answered in a shape Quarry does not read: \/results is missing\.$/);
  assert.equal(srv.seen.length, 1, "a drifted answer is not asked again");
  assert.deepEqual(log.lines, [{ obj: { provider: "openalex", path: "/works", fault: "drift", pointer: "/results" }, msg: "provider answer drifted" }]);
});

test("drift: an HTML page where JSON was expected, and a non-PDF where a PDF was, are drift of the whole body", async (t) => {
  const srv = await server(t, (_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please sign in</body></html>");
  });
  const c = client(t);
  const json = await faultOf(c.send({ provider: "x", baseUrl: srv.url, method: "GET", path: "/", response: ANY }, AbortSignal.timeout(5000)));
  assert.equal(json.fault, "drift");
  assert.equal(json.pointer, "");
  assert.match(json.message, /the body is an HTML page where JSON was expected/);
  const pdf = await faultOf(c.send({ provider: "x", baseUrl: srv.url, method: "GET", path: "/", responseType: "bytes", response: "pdf" }, AbortSignal.timeout(5000)));
  assert.equal(pdf.fault, "drift");
  assert.match(pdf.message, /is not a PDF document/);
  const xml = await faultOf(c.send({ provider: "x", baseUrl: srv.url, method: "GET", path: "/", responseType: "text", response: "xml" }, AbortSignal.timeout(5000)));
  assert.match(xml.message, /an HTML page where XML was expected/);
});

test("challenges: an AWS WAF page (202), a Cloudflare 403 and its header are recognised, whatever the declared answer", async (t) => {
  const pages: Record<string, (res: ServerResponse) => void> = {
    "/aws": (res) => {
      res.writeHead(202, { "content-type": "text/html" });
      res.end('<!DOCTYPE html><html><head><script>window.awsWafCookieDomainList = [];</script></head><body><div id="challenge-container"></div></body></html>');
    },
    "/cloudflare": (res) => {
      res.writeHead(403, { "content-type": "text/html" });
      res.end('<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body></body></html>');
    },
    "/header": (res) => {
      res.writeHead(200, { "content-type": "application/json", "cf-mitigated": "challenge" });
      res.end("{}");
    },
    "/document": (res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!DOCTYPE html><html><head><title>Regulation on CAPTCHA use</title></head><body>Just a moment… this act concerns captcha</body></html>");
    },
  };
  const srv = await server(t, (req, res) => pages[req.url ?? ""]!(res));
  const log = logged();
  const c = new HttpUpstreamClient(loadConfig({ EURLEX_BASE_URL: srv.url }), log.logger);
  t.after(() => c.close());
  const html = (path: string) => c.send({ provider: "eurlex", method: "GET", path, responseType: "text", response: "html" }, AbortSignal.timeout(5000));
  const aws = await faultOf(html("/aws"));
  assert.equal(aws.fault, "challenged");
  assert.equal(aws.retryable, false);
  assert.match(aws.message, /^EUR-Lex answered with a bot challenge \(AWS WAF challenge\) instead of its answer\.$/);
  assert.equal((await faultOf(html("/cloudflare"))).fault, "challenged");
  assert.equal((await faultOf(c.send({ provider: "eurlex", method: "GET", path: "/header", response: ANY }, AbortSignal.timeout(5000)))).fault, "challenged");
  assert.equal((await html("/document")).status, 200, "a document that mentions a captcha is read");
  assert.equal(srv.seen.length, 4, "challenges are not retried");
  assert.deepEqual(log.lines.map((l) => [l.obj.fault, l.msg]), [
    ["challenged", "provider challenged the request"],
    ["challenged", "provider challenged the request"],
    ["challenged", "provider challenged the request"],
  ]);
});

test("refusal: a provider's own error body is answered as its error, on a 200 and on a 4xx, before the schema", async (t) => {
  const srv = await server(t, (req, res) => {
    res.writeHead(req.url === "/bad" ? 400 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: req.url === "/bad" ? "Invalid key" : "No results" }));
  });
  const c = client(t);
  const refusal = (body: unknown, status: number) =>
    typeof body === "object" && body !== null && "error" in body ? new ApiError("provider_error", `said ${String((body as { error: unknown }).error)} with ${status}`, { retryable: false }) : undefined;
  const request = (path: string) => ({ provider: "x", baseUrl: srv.url, method: "GET" as const, path, refusal, response: Type.Object({ results: Type.Array(Type.String()) }) });
  await assert.rejects(c.send(request("/ok"), AbortSignal.timeout(5000)), /said No results with 200/);
  await assert.rejects(c.send(request("/bad"), AbortSignal.timeout(5000)), /said Invalid key with 400/);
});

test("429: the provider's wait is in the hint and Retry-After, never waited past the deadline, and kept for every caller", async (t) => {
  let calls = 0;
  const srv = await server(t, (_req, res) => {
    calls++;
    res.writeHead(429, { "content-type": "application/json", "retry-after": "12000" });
    res.end('{"error":"Rate limit exceeded"}');
  });
  const c = new HttpUpstreamClient(loadConfig({ OPENALEX_BASE_URL: srv.url }));
  t.after(() => c.close());
  const request = { provider: "openalex", method: "GET" as const, path: "/works", response: ANY };
  const started = performance.now();
  const first = await faultOf(c.send(request, AbortSignal.timeout(5000)));
  assert.ok(performance.now() - started < 1000, "a wait of hours is not slept on");
  assert.equal(first.code, "provider_error");
  assert.equal(first.fault, "rate_limited");
  assert.equal(first.retryable, true);
  assert.equal(first.retryAfter, 12000);
  assert.match(first.message, /OpenAlex is rate limiting this deployment \(HTTP 429\) and asks to wait 3 h 20 min/);
  assert.match(first.hint ?? "", /every caller of this deployment; nothing was charged\. Retry after 3 h 20 min/);
  assert.equal(calls, 1);
  const second = await faultOf(c.send(request, AbortSignal.timeout(5000)));
  assert.equal(calls, 1, "not called again while its wait lasts");
  assert.equal(second.fault, "rate_limited");
  assert.match(second.message, /asked this deployment to wait .* left; it was not called/);
  assert.ok((second.retryAfter ?? 0) > 11_990, "(second.retryAfter ?? 0) > 11_990");
});

test("429 with a short wait is retried within the deadline", async (t) => {
  let calls = 0;
  const srv = await server(t, (_req, res) => {
    calls++;
    if (calls === 1) {
      res.writeHead(429, { "retry-after": "0" });
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"ok":true}');
  });
  const res = await client(t).send({ provider: "x", baseUrl: srv.url, method: "GET", path: "/", response: ANY }, AbortSignal.timeout(5000));
  assert.equal(res.status, 200);
  assert.equal(calls, 2);
});

test("redirects: followed only when asked, only to the provider's own hosts (public ones rewritten onto the configured base), headers kept, hops bounded", async (t) => {
  const doc = "/pub/resource/cellar/abc.0001.02/DOC_1";
  const pages: Record<string, (res: ServerResponse) => void> = {
    "/pub/resource/celex/32016R0679": (res) => {
      // CELLAR answers with an absolute http Location on its public host.
      res.writeHead(303, { location: "http://publications.europa.eu/resource/cellar/abc.0001.02/DOC_1" });
      res.end();
    },
    [doc]: (res) => {
      res.writeHead(200, { "content-type": "application/xhtml+xml" });
      res.end("<html><body><p>Article 1</p></body></html>");
    },
    "/pub/relative": (res) => {
      res.writeHead(302, { location: "/resource/celex/32016R0679?x=1" });
      res.end();
    },
    "/pub/resource/celex/32016R0679?x=1": (res) => pages["/pub/resource/celex/32016R0679"]!(res),
    "/pub/configured": (res) => {
      res.writeHead(307, { location: `http://${res.req.headers.host}${doc}` });
      res.end();
    },
    "/pub/away": (res) => {
      res.writeHead(303, { location: "https://elsewhere.example/resource/x" });
      res.end();
    },
    "/pub/loop": (res) => {
      res.writeHead(303, { location: "/loop" });
      res.end();
    },
  };
  const srv = await server(t, (req, res) => pages[req.url ?? ""]!(res));
  const c = new HttpUpstreamClient(loadConfig({ EU_PUBLICATIONS_BASE_URL: `${srv.url}/pub` }));
  t.after(() => c.close());
  const get = (path: string, redirects?: number) =>
    c.send(
      { provider: "eu_publications", method: "GET", path, headers: { accept: "application/xhtml+xml", "accept-language": "eng" }, responseType: "text", response: "html", ...(redirects === undefined ? {} : { redirects }) },
      AbortSignal.timeout(5000),
    );
  const read = await get("/resource/celex/32016R0679", 3);
  assert.equal(read.status, 200);
  assert.match(read.body, /Article 1/);
  assert.deepEqual(srv.seen.map((s) => s.url), ["/pub/resource/celex/32016R0679", doc], "the public http Location is served by the configured base");
  assert.equal(srv.seen[1]!.headers["accept-language"], "eng", "every hop negotiates the same way");
  assert.equal(srv.seen[1]!.headers.accept, "application/xhtml+xml");
  srv.seen.length = 0;
  assert.equal((await get("/relative", 2)).status, 200);
  assert.deepEqual(srv.seen.map((s) => s.url), ["/pub/relative", "/pub/resource/celex/32016R0679?x=1", doc], "a relative Location stays under the base");
  assert.equal((await get("/configured", 1)).status, 200, "a Location on the configured base");
  const tooMany = await faultOf(get("/relative", 1));
  assert.equal(tooMany.code, "provider_error");
  assert.equal(tooMany.retryable, false);
  assert.match(tooMany.message, /redirected the request more than 1 time; Quarry did not follow it/);
  const away = await faultOf(get("/away", 3));
  assert.match(away.message, /^Publications Office of the EU \(CELLAR\) redirected the request to https:\/\/elsewhere\.example, which is not one of its hosts/);
  assert.match((await faultOf(get("/loop", 3))).message, /more than 3 times/);
  srv.seen.length = 0;
  const unasked = await faultOf(get("/resource/celex/32016R0679"));
  assert.match(unasked.message, /answered HTTP 303/, "without `redirects` a redirect is its status");
  assert.equal(srv.seen.length, 1);
});

test("429 without Retry-After: the wait is read from x-ratelimit-reset (seconds left, or an epoch second)", async (t) => {
  const resets = ["42", String(Math.floor(Date.now() / 1000) + 120)];
  const srv = await server(t, (_req, res) => {
    res.writeHead(429, { "content-type": "application/json", "x-ratelimit-reset": resets.shift() ?? "1" });
    res.end("{}");
  });
  const seconds = await faultOf(client(t).send({ provider: "a", baseUrl: srv.url, method: "GET", path: "/", response: ANY }, AbortSignal.timeout(5000)));
  assert.match(seconds.message, /asks to wait 42 s/);
  const epoch = await faultOf(client(t).send({ provider: "b", baseUrl: srv.url, method: "GET", path: "/", response: ANY }, AbortSignal.timeout(5000)));
  assert.match(epoch.message, /asks to wait 2 min/);
});
