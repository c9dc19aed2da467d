/**
 * (test-alone: a browser process of its own; scripts/test.mjs runs this file by itself.)
 * The dashboard in a real browser: headless Chromium (Debian's `chromium` package, or CHROMIUM_PATH)
 * driven by playwright-core. A person signs in, creates a key and sees it once, copies the MCP
 * configuration, reads usage after a few calls, revokes the key (which then gets 401), approves an
 * MCP host's OAuth request on the consent page (a registered host, and one known by its Client ID
 * Metadata Document, served over https on loopback with the test CA), and does sign-in and revocation
 * again with JavaScript off. Screenshots of the overview, keys, usage and consent pages go to
 * test-artifacts/screenshots/ (not committed). Without a Chromium the suite skips and says why.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { registry } from "../src/capabilities/registry.ts";
import { ManualClock } from "../src/clock.ts";
import { addressPolicy } from "../src/reader/address.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { PASSWORD } from "./helpers/people.ts";

const CHROMIUM = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find(
  (p): p is string => p !== undefined && p !== "" && existsSync(p),
);
const SHOTS = join(process.cwd(), "test-artifacts", "screenshots");
const DAY = 86_400_000;
const REDIRECT = "http://127.0.0.1:49153/callback";
const TLS = new URL("./fixtures/tls/", import.meta.url);
const CERT = readFileSync(new URL("loopback.crt", TLS), "utf8");

if (!CHROMIUM) {
  test("dashboard in a browser", { skip: "no Chromium found: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH" }, () => {});
} else {
  describe("the dashboard in headless Chromium", () => {
    let h: Harness;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let accountId = "";
    const email = "ada@example.com";
    /** Wall time at the start; the harness's clock is moved back to spread calls over days. */
    const start = Date.now();

    /** Serves an MCP host's Client ID Metadata Document over https on loopback (the test CA). */
    let documents: HttpsServer;
    let documentUrl = "";

    before(async () => {
      mkdirSync(SHOTS, { recursive: true });
      const { chromium } = await import("playwright-core");
      documents = createHttpsServer({ key: readFileSync(new URL("loopback.key", TLS)), cert: CERT }, (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ client_id: documentUrl, client_name: "Claude (by metadata document)", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }));
      });
      await new Promise<void>((resolve) => documents.listen(0, "127.0.0.1", resolve));
      const docPort = (documents.address() as AddressInfo).port;
      documentUrl = `https://127.0.0.1:${docPort}/oauth/client-metadata.json`;
      // Six days ago: the account's period and its calls spread over the week shown.
      h = await startHarness({
        clock: new ManualClock(start - 6 * DAY),
        clientMetadataFetch: { policy: addressPolicy({ allowCidrs: "127.0.0.1/32", ports: String(docPort) }), ca: CERT },
      });
      const account = await h.services.accounts.createAccount("Ada's research lab", "pro");
      accountId = account.id;
      await h.services.logins.create(accountId, email, PASSWORD);
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
      context = await browser.newContext({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1 });
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: h.url });
      page = await context.newPage();
      page.on("dialog", (dialog) => void dialog.accept());
    });

    after(async () => {
      await browser?.close();
      await h?.close();
      documents?.closeAllConnections();
      documents?.close();
    });

    /** Calls made with a key on several days (the manual clock), so usage has something to show. */
    async function callsOverTheWeek(key: string): Promise<string[]> {
      // Paid sources (SerpApi, Serper recordings) and free ones, so credits and calls both show.
      const caps = ["markets.quote", "web.search", "recipes.search", "news.search", "academic.search", "shopping.search"].filter((c) => registry[c]);
      const ids: string[] = [];
      for (const [offset, count] of [[6, 2], [5, 1], [4, 3], [2, 2], [1, 4], [0, 3]] as const) {
        h.clock.set(start - offset * DAY + 60_000);
        for (let i = 0; i < count; i++) {
          const cap = caps[(offset + i) % caps.length]!;
          const body = registry[cap]!.examples[0]!.body;
          const res = await h.call("POST", `/v1/capabilities/${cap}/execute`, { key, body });
          if (res.status === 200) ids.push(res.headers.get("x-request-id")!);
        }
      }
      h.clock.set(Date.now());
      return ids;
    }

    test("sign in, create a key and see it once, copy the MCP configuration", async () => {
      await page.goto(`${h.url}/dashboard`);
      assert.match(page.url(), /\/dashboard\/sign-in\?next=/);
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${h.url}/dashboard`);
      assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Overview");

      await page.getByRole("link", { name: "Keys & apps" }).click();
      await page.getByLabel("Key name").fill("Claude Desktop");
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("heading", { name: /Your new key/ }).waitFor();
      const key = (await page.locator("#new-key").textContent())!;
      await page.screenshot({ path: join(SHOTS, "new-key.png"), fullPage: true });
      assert.match(key, /^qk_live_[0-9A-Za-z]{32}$/);

      await page.getByRole("button", { name: "Copy", exact: true }).nth(2).click();
      await page.getByRole("button", { name: "Copied" }).waitFor();
      const copied = (await page.evaluate("navigator.clipboard.readText()")) as string;
      const config = JSON.parse(copied) as { mcpServers: { quarry: { url: string; headers: { Authorization: string } } } };
      assert.equal(config.mcpServers.quarry.url, `${h.url}/mcp`);
      assert.equal(config.mcpServers.quarry.headers.Authorization, `Bearer ${key}`);

      await page.getByRole("link", { name: "Done, I have copied it" }).click();
      await page.waitForURL(`${h.url}/dashboard/keys`);
      assert.ok(!(await page.content()).includes(key), "the key is gone once its page is left");
      // Its page was no-store: going back does not bring it out of a cache.
      await page.goBack().catch(() => null);
      assert.ok(!(await page.content()).includes(key), "going back does not show the key again");
      (globalThis as { browserKey?: string }).browserKey = key;
    });

    test("usage after a few calls: chart, tables, latest calls; screenshots of overview and usage", async () => {
      const key = (globalThis as { browserKey?: string }).browserKey!;
      const ids = await callsOverTheWeek(key);
      assert.ok(ids.length >= 8, `calls answered: ${ids.length}`);
      await page.goto(`${h.url}/dashboard/usage`);
      await page.locator(".chart svg rect").first().waitFor();
      assert.ok((await page.locator(".chart svg rect").count()) >= 6, "bars on several days");
      for (const id of ids.slice(-3)) await page.getByText(id, { exact: true }).waitFor();
      await page.getByRole("row", { name: /recipes\.search/ }).first().waitFor();
      await page.screenshot({ path: join(SHOTS, "usage.png"), fullPage: true });

      await page.goto(`${h.url}/dashboard`);
      await page.getByRole("heading", { name: "Credits" }).waitFor();
      await page.screenshot({ path: join(SHOTS, "overview.png"), fullPage: true });
    });

    test("an MCP host's OAuth request is approved on the consent page and the browser goes back to the host", async () => {
      const register = await fetch(`${h.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Research Assistant", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
      });
      const { client_id } = (await register.json()) as { client_id: string };
      let returned = "";
      await page.route(`${REDIRECT}**`, async (route) => {
        returned = route.request().url();
        await route.fulfill({ status: 200, contentType: "text/html", body: "<p>Back at the host</p>" });
      });
      const url = new URL(`${h.url}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id,
        redirect_uri: REDIRECT,
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
        state: "xyz",
      }).toString();
      await page.goto(url.href);
      await page.getByRole("heading", { name: "Connect “Research Assistant”?" }).waitFor();
      await page.screenshot({ path: join(SHOTS, "consent.png"), fullPage: true });
      await page.getByRole("button", { name: "Connect" }).click();
      await page.getByText("Back at the host").waitFor();
      const back = new URL(returned);
      assert.match(back.searchParams.get("code") ?? "", /^[0-9A-Za-z]{43}$/);
      assert.equal(back.searchParams.get("state"), "xyz");
      const token = await fetch(`${h.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: back.searchParams.get("code")!,
          code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
          redirect_uri: REDIRECT,
          client_id,
        }),
      });
      assert.equal(token.status, 200);
      await page.goto(`${h.url}/dashboard/keys`);
      await page.getByRole("row", { name: /Research Assistant/ }).waitFor();
      // The keys page with a key and a connected app (taken here, before the key is revoked).
      await page.screenshot({ path: join(SHOTS, "keys.png"), fullPage: true });
    });

    test("an MCP host known by its Client ID Metadata Document: the consent page names it and its host, no registration", async () => {
      let returned = "";
      await page.route(`${REDIRECT}**`, async (route) => {
        returned = route.request().url();
        await route.fulfill({ status: 200, contentType: "text/html", body: "<p>Back at the host</p>" });
      });
      const url = new URL(`${h.url}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: documentUrl,
        redirect_uri: REDIRECT,
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
      }).toString();
      await page.goto(url.href);
      await page.getByRole("heading", { name: "Connect “Claude (by metadata document)”?" }).waitFor();
      await page.getByText(`describes itself at ${new URL(documentUrl).host}`).waitFor();
      await page.screenshot({ path: join(SHOTS, "consent-client-metadata.png"), fullPage: true });
      await page.getByRole("button", { name: "Connect" }).click();
      await page.getByText("Back at the host").waitFor();
      const code = new URL(returned).searchParams.get("code") ?? "";
      const token = await fetch(`${h.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", redirect_uri: REDIRECT, client_id: documentUrl }),
      });
      assert.equal(token.status, 200, await token.clone().text());
      const { access_token } = (await token.json()) as { access_token: string };
      assert.equal((await h.call("GET", "/v1/account", { key: access_token })).status, 200);
    });

    test("key limits: a key made with one, another's set in its row, one held to it (402); screenshot of the key table", async () => {
      await page.goto(`${h.url}/dashboard/keys`);
      await page.getByLabel("Key name").fill("Nightly agent");
      await page.locator("#key-limit").fill("500");
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("heading", { name: /Your new key/ }).waitFor();
      const agentKey = (await page.locator("#new-key").textContent())!;
      await page.getByRole("link", { name: "Done, I have copied it" }).click();
      await page.waitForURL(`${h.url}/dashboard/keys`);
      await page.getByLabel("Key name").fill("CI");
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("link", { name: "Done, I have copied it" }).click();
      await page.waitForURL(`${h.url}/dashboard/keys`);
      for (let i = 0; i < 3; i++) {
        const res = await h.call("POST", "/v1/capabilities/web.read/execute", {
          key: agentKey,
          body: { url: "https://hacks.mozilla.org/2015/03/this-api-is-so-fetching/" },
          headers: { "cache-control": "no-cache" },
        });
        assert.equal(res.status, 200, res.text);
      }
      await page.reload();
      await page.getByRole("row", { name: /Nightly agent/ }).getByText("15 of 500 credits this period").waitFor();
      await page.getByRole("row", { name: /^CI / }).getByText("no limit").waitFor();

      // The key that made the week's calls gets a limit in its row: what it used this period counts.
      const desktop = page.getByRole("row", { name: /Claude Desktop/ });
      await desktop.getByLabel(/Credit limit per period of key Claude Desktop/).fill("2000");
      await desktop.getByRole("button", { name: /Set the limit of key Claude Desktop/ }).click();
      await page.getByText("Saved the key's limit").waitFor();
      await page.getByRole("row", { name: /Claude Desktop/ }).getByText(/^[1-9][\d,]* of 2,000 credits this period$/).waitFor();

      // The agent's limit lowered to what it used: its next call is refused, the hint names the limit.
      const agent = page.getByRole("row", { name: /Nightly agent/ });
      await agent.getByLabel(/Credit limit per period of key Nightly agent/).fill("15");
      await agent.getByRole("button", { name: /Set the limit of key Nightly agent/ }).click();
      await page.getByText("Saved the key's limit").waitFor();
      await page.getByRole("row", { name: /Nightly agent/ }).getByText("15 of 15 credits this period").waitFor();
      const refused = await h.call("POST", "/v1/capabilities/web.read/execute", {
        key: agentKey,
        body: { url: "https://hacks.mozilla.org/2015/03/this-api-is-so-fetching/" },
        headers: { "cache-control": "no-cache" },
      });
      assert.equal(refused.status, 402);
      assert.match(refused.body.error.hint, /This key's limit is 15 credits per period; 15 are used or held/);
      await page.getByRole("heading", { name: "API keys" }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, "keys-limits.png"), fullPage: true });
    });

    test("revoke the key: it then gets 401", async () => {
      const key = (globalThis as { browserKey?: string }).browserKey!;
      assert.equal((await h.call("GET", "/v1/account", { key })).status, 200);
      await page.goto(`${h.url}/dashboard/keys`);
      await page.getByRole("button", { name: /Revoke key Claude Desktop/ }).click();
      await page.getByText("The key is revoked").waitFor();
      const res = await h.call("GET", "/v1/account", { key });
      assert.equal(res.status, 401);
      assert.match(res.body.error.message, /revoked/);
    });

    test("without JavaScript: sign in and revoke a key", async () => {
      const { key } = await h.services.accounts.createKey(accountId, "no-js key");
      const plain = await browser.newContext({ javaScriptEnabled: false });
      try {
        const p = await plain.newPage();
        await p.goto(`${h.url}/dashboard/sign-in`);
        await p.getByLabel("Email").fill(email);
        await p.getByLabel("Password").fill(PASSWORD);
        await p.getByRole("button", { name: "Sign in" }).click();
        await p.waitForURL(`${h.url}/dashboard`);
        await p.goto(`${h.url}/dashboard/keys`);
        await p.getByRole("button", { name: /Revoke key no-js key/ }).click();
        await p.getByText("The key is revoked").waitFor();
        assert.equal((await h.call("GET", "/v1/account", { key })).status, 401);
        await p.getByRole("button", { name: "Sign out" }).click();
        await p.getByText("You are signed out.").waitFor();
      } finally {
        await plain.close();
      }
    });
  });
}
