/**
 * The dashboard behind a TLS terminator (PUBLIC_URL https, Quarry itself on http): the proxy's
 * X-Forwarded-Proto is believed from TRUST_PROXY (loopback by default with an https PUBLIC_URL), so
 * the Secure session cookie is set and a person can sign in; a request that came over plain http is
 * told so instead of every sign-in "expiring". Found by a walkthrough of the documented deployment.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { loadConfig } from "../src/config.ts";
import { SESSION_COOKIE } from "../src/dashboard/routes.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { PASSWORD, Visitor } from "./helpers/people.ts";

const PUBLIC = "https://quarry.test";
const VIA_TLS = { "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.7" };

let h: Harness;
let email: string;

before(async () => {
  h = await startHarness({ env: { PUBLIC_URL: PUBLIC } });
  const { accountId } = await h.account();
  email = `${accountId.toLowerCase()}@example.com`;
  await h.services.logins.create(accountId, email, PASSWORD);
});
after(async () => {
  await h.close();
});

test("through a TLS terminator on this host: the session cookie is set Secure and the person signs in", async () => {
  const visitor = new Visitor(h.url);
  const page = await visitor.get("/dashboard/sign-in", VIA_TLS);
  assert.equal(page.status, 200, page.text.slice(0, 300));
  assert.match(page.headers.get("strict-transport-security") ?? "", /max-age=/);
  const signedIn = await visitor.post("/dashboard/sign-in", { email, password: PASSWORD }, VIA_TLS);
  assert.equal(signedIn.status, 303, signedIn.text.slice(0, 300));
  const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  assert.ok(cookie, JSON.stringify(signedIn.headers.getSetCookie()));
  assert.match(cookie, /;\s*Secure/i);
  const overview = await visitor.get("/dashboard", VIA_TLS);
  assert.equal(overview.status, 200);
  assert.match(overview.text, new RegExp(email.replace(/[.]/g, "\\.")));
});

test("over plain http (no proxy said https): the sign-in page says to open it over https, not a form that always expires", async () => {
  const visitor = new Visitor(h.url);
  const page = await visitor.get("/dashboard/sign-in");
  assert.equal(page.status, 400);
  assert.match(page.text, /Open the dashboard over https/);
  assert.match(page.text, /TRUST_PROXY/);
  assert.match(page.text, /https:\/\/quarry\.test\/dashboard/);
});

test("a proxy TRUST_PROXY does not name is not believed", async () => {
  const strict = await startHarness({ env: { PUBLIC_URL: PUBLIC, TRUST_PROXY: "10.9.8.7" }, replay: h.replay });
  try {
    const page = await new Visitor(strict.url).get("/dashboard/sign-in", VIA_TLS);
    assert.equal(page.status, 400, "X-Forwarded-Proto from 127.0.0.1, which is not 10.9.8.7, is ignored");
  } finally {
    await strict.close();
  }
});

test("TRUST_PROXY: defaults and what it accepts", () => {
  assert.deepEqual(loadConfig({ PUBLIC_URL: PUBLIC }).trustProxy, ["loopback"]);
  assert.equal(loadConfig({ PUBLIC_URL: "http://quarry.test" }).trustProxy, false);
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: "true" }).trustProxy, true);
  assert.equal(loadConfig({ PUBLIC_URL: PUBLIC, TRUST_PROXY: "false" }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: "2" }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: "10.0.0.0/8, ::1, uniquelocal" }).trustProxy, ["10.0.0.0/8", "::1", "uniquelocal"]);
  for (const bad of ["10.0.0.0/33", "proxy.example", "1.2.3.4/8/1"]) {
    assert.throws(() => loadConfig({ TRUST_PROXY: bad }), /TRUST_PROXY must be/, bad);
  }
});
