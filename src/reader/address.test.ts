// The reader's address and URL policy: every refused range, the wrapped IPv6 forms, IPv4
// spellings, the operator allow-list, ports, schemes and credentials.
import assert from "node:assert/strict";
import { test } from "node:test";
import { addressPolicy, checkUrl, parseCidrs, parsePorts, refusalOf, TargetRefused } from "./address.ts";

const policy = addressPolicy();

test("public unicast addresses are allowed, in both families", () => {
  for (const ip of ["8.8.8.8", "93.184.216.34", "2606:4700::1111", "2a00:1450:4001:82b::200e"]) assert.equal(refusalOf(ip, policy), undefined, ip);
});

test("every non-public range is refused, with the range named", () => {
  const cases: [string, RegExp][] = [
    ["127.0.0.1", /loopback/],
    ["127.255.255.254", /loopback/],
    ["::1", /loopback/],
    ["10.0.0.1", /private/],
    ["172.16.5.4", /private/],
    ["192.168.1.1", /private/],
    ["169.254.169.254", /link-local.*metadata/],
    ["fe80::1", /link-local/],
    ["fc00::1", /unique-local/],
    ["fd12:3456::1", /unique-local/],
    ["224.0.0.1", /multicast/],
    ["ff02::1", /multicast/],
    ["0.0.0.0", /unspecified/],
    ["::", /unspecified/],
    ["255.255.255.255", /broadcast/],
    ["100.64.0.1", /carrier-grade NAT/],
    ["192.0.2.1", /reserved or documentation/],
    ["2001::1", /Teredo/],
  ];
  for (const [ip, why] of cases) assert.match(refusalOf(ip, policy) ?? "allowed", why, ip);
});

test("IPv4-mapped, IPv4-compatible, 6to4 and NAT64 forms are judged by the IPv4 address inside", () => {
  assert.match(refusalOf("::ffff:127.0.0.1", policy) ?? "", /loopback.*IPv4-mapped/);
  assert.match(refusalOf("::ffff:a9fe:a9fe", policy) ?? "", /link-local/);
  assert.match(refusalOf("::127.0.0.1", policy) ?? "", /loopback/);
  assert.match(refusalOf("2002:c0a8:0101::1", policy) ?? "", /private.*6to4/);
  assert.match(refusalOf("64:ff9b::10.0.0.1", policy) ?? "", /private.*NAT64/);
  assert.match(refusalOf("64:ff9b::7f00:1", policy) ?? "", /loopback/);
  assert.equal(refusalOf("::ffff:8.8.8.8", policy), undefined);
  assert.equal(refusalOf("64:ff9b::808:808", policy), undefined);
  // IPv4-compatible in hex (ipaddr.js calls it unicast): judged by the IPv4 address inside too.
  assert.match(refusalOf("::7f00:1", policy) ?? "", /loopback.*IPv4-compatible/);
  assert.match(refusalOf("::a9fe:a9fe", policy) ?? "", /link-local.*IPv4-compatible/);
  assert.equal(refusalOf("::808:808", policy), undefined);
  assert.throws(() => checkUrl("http://[::7f00:1]/", policy), (e: unknown) => e instanceof TargetRefused && /loopback/.test(e.message));
});

test("decimal, octal, hex and short IPv4 spellings are checked as the address they spell", () => {
  for (const url of ["http://2130706433/", "http://0177.0.0.1/", "http://0x7f.0.0.1/", "http://0x7f.1/", "http://127.1/", "http://[::ffff:127.0.0.1]/", "http://0xa9fea9fe/"]) {
    assert.throws(() => checkUrl(url, policy), (e: unknown) => e instanceof TargetRefused && /loopback|link-local/.test(e.message), url);
  }
});

test("only http and https, no credentials, only the allowed ports", () => {
  assert.throws(() => checkUrl("ftp://example.com/a", policy), /scheme ftp is not read/);
  assert.throws(() => checkUrl("file:///etc/passwd", policy), /scheme file/);
  assert.throws(() => checkUrl("gopher://example.com:70/", policy), /scheme gopher/);
  assert.throws(() => checkUrl("https://user:pw@example.com/", policy), /credentials/);
  assert.throws(() => checkUrl("https://user@example.com/", policy), /credentials/);
  assert.throws(() => checkUrl("http://example.com:22/", policy), /port 22 is not read: the reader connects to ports 80, 443, 8080, 8443/);
  assert.throws(() => checkUrl("not a url", policy), /not an absolute URL/);
  for (const ok of ["http://example.com/", "https://example.com/", "http://example.com:8080/x", "https://example.com:8443/"]) assert.equal(checkUrl(ok, policy).href, ok);
});

test("the operator allow-list admits its ranges and nothing else; ports are configurable", () => {
  const open = addressPolicy({ allowCidrs: "10.20.0.0/16, 127.0.0.1, fd00::/8", ports: "80,9000" });
  assert.equal(refusalOf("10.20.3.4", open), undefined);
  assert.equal(refusalOf("127.0.0.1", open), undefined);
  assert.equal(refusalOf("::ffff:10.20.3.4", open), undefined);
  assert.equal(refusalOf("fd00::5", open), undefined);
  assert.match(refusalOf("10.21.0.1", open) ?? "", /private/);
  assert.match(refusalOf("127.0.0.2", open) ?? "", /loopback/);
  assert.equal(checkUrl("http://example.com:9000/", open).port, "9000");
  assert.throws(() => checkUrl("https://example.com/", open), /port 443 is not read/);
  assert.throws(() => parseCidrs("10.0.0.0/33"), /WEB_READ_ALLOW_CIDRS: "10.0.0.0\/33"/);
  assert.throws(() => parsePorts("80,http"), /WEB_READ_PORTS: "http"/);
  assert.deepEqual([...parsePorts(undefined)], [80, 443, 8080, 8443]);
});
