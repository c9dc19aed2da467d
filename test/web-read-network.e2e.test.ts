// The reader's network safety, end to end over HTTP (web.read through a real Quarry): every guard of
// src/reader (schemes, credentials, ports, every address DNS gives, the socket's peer, each redirect
// hop, DNS rebinding, the operator allow-list) and what a refusal answers: 400 at /url saying why,
// nothing charged, nothing fetched shown. Also the content types, charsets, PDF, the byte cap and a
// site's failures.
//
// Only loopback is ever connected: pages are served on 127.0.0.1 (and a "private" one on
// 127.0.0.2), reached through the allow-list `127.0.0.1/32` of the harnesses that need it; names that
// resolve to private ranges come from a stub resolver and are refused before any connection.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { gunzipSync } from "node:zlib";
import { webReadCapability } from "../src/capabilities/web-read/capability.ts";
import { registry } from "../src/capabilities/registry.ts";
import { type ReplayServer, startReplay } from "../src/demo/replay/replay-server.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";

const SECRET = "SECRET-INTERNAL-PAGE-127-0-0-2";
const PUBLIC_TEXT = "Welcome to Firefox Developer Edition";
const PAGE = gunzipSync(readFileSync(new URL("../bench/corpus/readability/mozilla-2.html.gz", import.meta.url)));
const PDF = readFileSync(new URL("../fixtures/pages/shared-mime-info-spec.pdf", import.meta.url));
// Test data made here, not a real page: German text in ISO-8859-1 bytes.
const LATIN1 = (meta: boolean) =>
  Buffer.from(`<!DOCTYPE html><html><head>${meta ? '<meta charset="iso-8859-1">' : ""}<title>Gr\u00fc\u00dfe</title></head><body><article><p>Gr\u00fc\u00dfe aus K\u00f6ln, sch\u00f6ne Stra\u00dfen und gro\u00dfe Pl\u00e4tze.</p><p>${"Ein Absatz mit genug Text f\u00fcr den Leser. ".repeat(12)}</p></article></body></html>`, "latin1");

interface Site {
  server: Server;
  port: number;
  paths: string[];
}

async function serve(host: string, handle: (path: string, res: import("node:http").ServerResponse) => void, port = 0): Promise<Site> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? "/");
    handle(req.url ?? "/", res);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return { server, port: (server.address() as AddressInfo).port, paths };
}

let site: Site; // 127.0.0.1, allowed where the allow-list says so
let inside: Site; // 127.0.0.2 on the same port: never allowed; serves the secret
let offPort: Site; // 127.0.0.1 on a port not in WEB_READ_PORTS
let replay: ReplayServer;
let strict: Harness;
let allowed: Harness;
let peer: Harness;
const keys = new Map<Harness, { key: string; accountId: string }>();
let rebindCalls = 0;

const resolver = async (name: string): Promise<string[]> => {
  switch (name) {
    case "loop.test":
      return ["127.0.0.1"];
    case "mixed.test":
      return ["127.0.0.1", "127.0.0.2"];
    case "second.test":
      return ["127.0.0.2"];
    case "intranet.test":
      return ["10.0.0.1"];
    case "metadata.test":
      return ["169.254.169.254"];
    case "mapped.test":
      return ["::ffff:127.0.0.1"];
    case "cgnat.test":
      return ["100.64.0.1"];
    case "rebind.test":
      // Public (allowed) the first time, private after: a rebinding name.
      rebindCalls += 1;
      return rebindCalls === 1 ? ["127.0.0.1"] : ["127.0.0.2"];
    default:
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
  }
};

function page(res: import("node:http").ServerResponse, type: string, body: Buffer | string, extra: Record<string, string> = {}): void {
  res.writeHead(200, { ...(type === "" ? {} : { "content-type": type }), ...extra });
  res.end(body);
}

before(async () => {
  site = await serve("127.0.0.1", (path, res) => {
    const url = new URL(path, "http://x");
    if (url.pathname === "/page") return page(res, "text/html; charset=utf-8", PAGE);
    if (url.pathname === "/redirect") {
      res.writeHead(302, { location: url.searchParams.get("to")! });
      return res.end();
    }
    if (url.pathname.startsWith("/hops/")) {
      const n = Number(url.pathname.slice(6));
      res.writeHead(301, { location: n === 0 ? "/page" : `/hops/${n - 1}` });
      return res.end();
    }
    if (url.pathname === "/start") {
      // A new connection for the next hop, so the name is resolved again.
      res.writeHead(302, { location: "/secret", connection: "close" });
      return res.end();
    }
    if (url.pathname === "/secret") return page(res, "text/html", "<html><body><p>public 127.0.0.1 secret path</p></body></html>");
    if (url.pathname === "/image") return page(res, "image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    if (url.pathname === "/json") return page(res, "application/json", '{"a":1}');
    if (url.pathname === "/plain") return page(res, "text/plain; charset=utf-8", "Plain text,\nkept as it is.\n");
    if (url.pathname === "/pdf") return page(res, "application/pdf", PDF);
    if (url.pathname === "/latin1") return page(res, "text/html; charset=ISO-8859-1", LATIN1(false));
    if (url.pathname === "/latin1-meta") return page(res, "text/html", LATIN1(true));
    if (url.pathname === "/untyped") return page(res, "", PAGE);
    if (url.pathname === "/big") return page(res, "text/html", Buffer.concat([PAGE, Buffer.alloc(1_200_000, " ")]));
    if (url.pathname === "/fail") {
      res.writeHead(500, { "content-type": "text/plain" });
      return res.end("broken");
    }
    if (url.pathname === "/missing") {
      res.writeHead(404, { "content-type": "text/html" });
      return res.end("<p>not here</p>");
    }
    res.writeHead(404);
    res.end();
  });
  // The same port on 127.0.0.2: a name that rebinds there reaches a real server.
  inside = await serve(
    "127.0.0.2",
    (_path, res) => page(res, "text/html", `<html><head><title>${SECRET}</title></head><body><article><p>${SECRET} ${"internal text ".repeat(40)}</p></article></body></html>`),
    site.port,
  );
  offPort = await serve("127.0.0.1", (_path, res) => page(res, "text/html; charset=utf-8", PAGE));
  replay = await startReplay();
  const open = (allow: string) => ({
    // Off the replay environment: every page is fetched from its own address.
    WEB_READ_REPLAY_BASE_URL: "",
    WEB_READ_ALLOW_CIDRS: allow,
    WEB_READ_PORTS: `80,443,${site.port}`,
    WEB_READ_MAX_BYTES: String(1024 * 1024),
    UPSTREAM_BREAKER_THRESHOLD: "2",
  });
  const withStub = { ...registry, "web.read": webReadCapability({ resolver }) };
  const start = (allow: string) => startHarness({ replay, env: open(allow), registry: withStub });
  [strict, allowed, peer] = await Promise.all([start(""), start("127.0.0.1/32"), start("0.0.0.0/32")]);
  for (const h of [strict, allowed, peer]) keys.set(h, await h.account("pro"));
});

after(async () => {
  await Promise.all([strict, allowed, peer].map((h) => h.close()));
  await replay.close();
  for (const s of [site, inside, offPort]) s.server.close();
});

async function read(h: Harness, body: Record<string, unknown>) {
  const { key } = keys.get(h)!;
  return h.call("POST", "/v1/capabilities/web.read/execute", { key, body: { max_chars: 2000, ...body } });
}

async function used(h: Harness): Promise<number> {
  return (await h.store.getAccount(keys.get(h)!.accountId))!.creditsUsed;
}

/** A refusal: 400 invalid_request, one violation at /url matching `why`, nothing charged, nothing fetched shown. */
async function refused(h: Harness, url: string, why: RegExp): Promise<void> {
  const before = await used(h);
  const res = await read(h, { url });
  assert.equal(res.status, 400, `${url}: ${res.text}`);
  assert.equal(res.body.error.code, "invalid_request");
  assert.equal(res.body.error.violations.length, 1, url);
  assert.equal(res.body.error.violations[0].path, "/url");
  assert.match(res.body.error.violations[0].message, why, url);
  assert.doesNotMatch(res.text, new RegExp(`${SECRET}|${PUBLIC_TEXT}|internal text|public 127`), `${url}: nothing fetched is shown`);
  assert.equal(await used(h), before, `${url}: nothing charged`);
}

describe("without an allow-list", () => {
  test("the allow-list is what admits loopback here: the same page reads with it", async () => {
    const res = await read(allowed, { url: `http://127.0.0.1:${site.port}/page` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.results[0].title, PUBLIC_TEXT);
    assert.equal(res.body.charged_credits, 5);
  });

  test("literal private and loopback addresses are refused, in every spelling, before connecting", async () => {
    const seen = site.paths.length;
    const p = site.port;
    for (const url of [`http://127.0.0.1:${p}/page`, `http://2130706433:${p}/page`, `http://0177.0.0.1:${p}/page`, `http://0x7f.1:${p}/page`, `http://127.1:${p}/page`]) {
      await refused(strict, url, /^127\.0\.0\.1 is a loopback address; the reader connects only to public addresses$/);
    }
    await refused(strict, `http://[::1]:${p}/page`, /::1 is a loopback address/);
    await refused(strict, `http://[::ffff:127.0.0.1]:${p}/page`, /loopback address, inside an IPv6 address \(IPv4-mapped\)/);
    await refused(strict, "http://169.254.169.254/latest/meta-data/", /link-local address \(cloud metadata/);
    await refused(strict, "http://10.1.2.3/", /private address/);
    await refused(strict, "http://100.64.0.1/", /carrier-grade NAT/);
    await refused(strict, "http://[fd00::1]/", /unique-local/);
    await refused(strict, "http://0.0.0.0/", /unspecified/);
    assert.equal(site.paths.length, seen, "no request reached the page's server");
  });

  test("names are checked by every address they resolve to, without naming the address", async () => {
    const seen = site.paths.length;
    await refused(strict, `http://loop.test:${site.port}/page`, /^the host loop\.test resolves to a loopback address; the reader connects only to public addresses$/);
    await refused(strict, "http://intranet.test/", /^the host intranet\.test resolves to a private address \(RFC 1918\)/);
    await refused(strict, "http://metadata.test/latest/meta-data/", /resolves to a link-local address/);
    await refused(strict, `http://mapped.test:${site.port}/page`, /resolves to a loopback address, inside an IPv6 address/);
    await refused(strict, "http://cgnat.test/", /carrier-grade NAT/);
    const res = await read(strict, { url: "http://intranet.test/" });
    assert.doesNotMatch(res.text, /10\.0\.0\.1/, "the resolved address is not revealed");
    assert.equal(site.paths.length, seen);
  });
});

describe("with the allow-list 127.0.0.1/32", () => {
  test("a name is refused when any address it resolves to is refused, even if another is allowed", async () => {
    const seen = site.paths.length;
    await refused(allowed, `http://mixed.test:${site.port}/page`, /the host mixed\.test resolves to a loopback address/);
    assert.equal(site.paths.length, seen);
    const ok = await read(allowed, { url: `http://loop.test:${site.port}/page` });
    assert.equal(ok.status, 200, "a name resolving to allowed addresses only is read");
  });

  test("only http and https", async () => {
    await refused(allowed, "ftp://127.0.0.1/page", /the scheme ftp is not read: only http and https URLs are/);
    await refused(allowed, "file:///etc/passwd", /the scheme file is not read/);
    await refused(allowed, "gopher://127.0.0.1:70/", /the scheme gopher is not read/);
  });

  test("no credentials in the URL", async () => {
    await refused(allowed, `http://user:secret@127.0.0.1:${site.port}/page`, /a URL with credentials \(user:password@\) is not read/);
    await refused(allowed, `http://user@127.0.0.1:${site.port}/page`, /credentials/);
  });

  test("only the configured ports", async () => {
    const seen = offPort.paths.length;
    await refused(allowed, `http://127.0.0.1:${offPort.port}/page`, new RegExp(`^port ${offPort.port} is not read: the reader connects to ports 80, 443, `));
    assert.equal(offPort.paths.length, seen);
  });

  test("each redirect hop is checked again: port, scheme, credentials, address", async () => {
    const via = (to: string) => `http://127.0.0.1:${site.port}/redirect?to=${encodeURIComponent(to)}`;
    const seenOff = offPort.paths.length;
    await refused(allowed, via(`http://127.0.0.1:${offPort.port}/page`), new RegExp(`port ${offPort.port} is not read`));
    assert.equal(offPort.paths.length, seenOff, "the refused hop was never requested");
    await refused(allowed, via("file:///etc/passwd"), /scheme file/);
    await refused(allowed, via(`http://u:p@127.0.0.1:${site.port}/page`), /credentials/);
    await refused(allowed, via("http://169.254.169.254/latest/meta-data/"), /link-local/);
    const seenInside = inside.paths.length;
    await refused(allowed, via(`http://second.test:${inside.port}/`), /the host second\.test resolves to a loopback address/);
    await refused(allowed, via(`http://127.0.0.2:${inside.port}/`), /127\.0\.0\.2 is a loopback address/);
    assert.equal(inside.paths.length, seenInside, "the internal server was never reached");
    const relative = await read(allowed, { url: via("/page") });
    assert.equal(relative.status, 200, "an allowed hop is followed");
    assert.equal(relative.body.results[0].url, `http://127.0.0.1:${site.port}/page`);
  });

  test("at most 5 redirects", async () => {
    const five = await read(allowed, { url: `http://127.0.0.1:${site.port}/hops/4` });
    assert.equal(five.status, 200, five.text);
    const used0 = await used(allowed);
    const six = await read(allowed, { url: `http://127.0.0.1:${site.port}/hops/5` });
    assert.equal(six.status, 502);
    assert.equal(six.body.error.code, "provider_error");
    assert.match(six.body.error.message, /redirected more than 5 times/);
    assert.equal(await used(allowed), used0);
  });

  test("DNS rebinding: a name that resolves allowed then private is refused at the connection", async () => {
    rebindCalls = 0;
    const seenInside = inside.paths.length;
    await refused(allowed, `http://rebind.test:${site.port}/start`, /the host rebind\.test resolves to a loopback address/);
    assert.equal(rebindCalls, 2, "resolved once per connection");
    assert.equal(inside.paths.length, seenInside);
  });

  test("types: HTML, plain text and PDF are read; others are refused naming the type", async () => {
    await refused(allowed, `http://127.0.0.1:${site.port}/image`, /^the page is image\/png; the reader reads HTML, plain text and PDF$/);
    await refused(allowed, `http://127.0.0.1:${site.port}/json`, /the page is application\/json/);
    const plain = await read(allowed, { url: `http://127.0.0.1:${site.port}/plain` });
    assert.equal(plain.body.results[0].content, "Plain text,\nkept as it is.");
    const pdf = await read(allowed, { url: `http://127.0.0.1:${site.port}/pdf`, format: "text", max_chars: 600 });
    assert.equal(pdf.status, 200, pdf.text);
    assert.match(pdf.body.results[0].content, /^Shared MIME-info Database/);
    assert.match(pdf.body.results[0].content, /This is version 0\.21 of the Shared MIME-info Database specification/);
    assert.equal(pdf.body.results[0].truncated, true);
    assert.ok(pdf.body.results[0].chars > 30_000, "pdf.body.results[0].chars > 30_000");
    assert.ok(pdf.body.notes.includes("A PDF of 17 pages, read as text."), "pdf.body.notes.includes(\"A PDF of 17 pages, read as text.\")");
    const untyped = await read(allowed, { url: `http://127.0.0.1:${site.port}/untyped` });
    assert.equal(untyped.body.results[0].title, PUBLIC_TEXT, "no Content-Type: sniffed as HTML");
  });

  test("charsets: the header's, else the page's <meta>", async () => {
    for (const path of ["/latin1", "/latin1-meta"]) {
      const res = await read(allowed, { url: `http://127.0.0.1:${site.port}${path}`, format: "text" });
      assert.equal(res.status, 200, res.text);
      assert.match(res.body.results[0].content, /^Grüße aus Köln, schöne Straßen und große Plätze\./, path);
    }
  });

  test("the byte cap: a page over WEB_READ_MAX_BYTES is read to the cap and says so", async () => {
    const res = await read(allowed, { url: `http://127.0.0.1:${site.port}/big` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.results[0].truncated, true);
    assert.match(res.body.notes.join(" "), /larger than the 1048576 bytes the reader reads; its first 1048576 bytes were read/);
  });

  test("a site's failures are 502, free, and never stop other sites being read", async () => {
    const used0 = await used(allowed);
    for (let i = 0; i < 4; i++) {
      const res = await read(allowed, { url: `http://127.0.0.1:${site.port}/fail` });
      assert.equal(res.status, 502);
      assert.equal(res.body.error.message, "The page could not be read: the page answered HTTP 500.");
    }
    const missing = await read(allowed, { url: `http://127.0.0.1:${site.port}/missing` });
    assert.equal(missing.status, 502);
    assert.match(missing.body.error.hint, /retrying will not help/);
    const nowhere = await read(allowed, { url: "http://nowhere.test/" });
    assert.equal(nowhere.status, 502);
    assert.match(nowhere.body.error.message, /the host name nowhere\.test does not resolve/);
    assert.equal(await used(allowed), used0);
    const ok = await read(allowed, { url: `http://127.0.0.1:${site.port}/page` });
    assert.equal(ok.status, 200, "a broken site does not stop another being read");
  });
});

describe("the socket's peer address", () => {
  test("is checked after connecting: 0.0.0.0 allowed by the operator still cannot reach loopback", async () => {
    const seen = site.paths.length;
    await refused(peer, `http://0.0.0.0:${site.port}/page`, /^the connection to 0\.0\.0\.0 reached a loopback address; the reader connects only to public addresses$/);
    assert.equal(site.paths.length, seen, "no request was sent on that connection");
  });
});
