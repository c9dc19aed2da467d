// companies.financials over HTTP: unavailable without SEC_USER_AGENT (503 naming it, catalog and
// inspect say why), and a ticker that two filers share refused at /company/ticker with nothing
// charged. The second harness's replay serves a tickers body made here for the test (two filers
// under "DUP"; EDGAR's recorded file has no shared ticker) beside the recorded submissions.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startCapabilityKit } from "../../../test/helpers/capability-kit.ts";
import { startReplay } from "../../demo/replay/replay-server.ts";

test("without SEC_USER_AGENT: unavailable, 503 capability_unavailable naming it, nothing charged", async () => {
  const kit = await startCapabilityKit("companies.financials", { env: { SEC_USER_AGENT: "" } });
  try {
    const res = await kit.execute({ company: { ticker: "AAPL" } });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "capability_unavailable");
    assert.match(res.body.error.message, /SEC_USER_AGENT/);
    assert.equal(kit.h.replay.requests.filter((r) => r.prefix.startsWith("sec")).length, 0, "EDGAR is never called without its contact");
    const catalog = await kit.h.call("GET", "/v1/catalog", { key: kit.key });
    const entry = catalog.body.capabilities.find((c: { id: string }) => c.id === "companies.financials");
    assert.equal(entry.available, false);
    assert.match(entry.unavailable_reason, /SEC_USER_AGENT/);
    const inspect = await kit.h.call("GET", "/v1/capabilities/companies.financials", { key: kit.key });
    assert.equal(inspect.body.available, false);
    assert.equal(await kit.used(), 0);
  } finally {
    await kit.close();
  }
});

test("a ticker two filers share: 400 at /company/ticker naming both CIKs, the CIK works", async () => {
  const dir = mkdtempSync(join(tmpdir(), "quarry-sec-"));
  const sec = join(dir, "sec");
  mkdirSync(sec);
  const recorded = new URL("../../../fixtures/providers/sec/", import.meta.url);
  copyFileSync(new URL("submissions_CIK0000320193.json", recorded), join(sec, "submissions_CIK0000320193.json"));
  // Made for this test: the tickers file's shape with one ticker under two CIKs.
  writeFileSync(
    join(sec, "tickers_shared.json"),
    JSON.stringify({ "0": { cik_str: 320193, ticker: "DUP", title: "Apple Inc." }, "1": { cik_str: 1065280, ticker: "DUP", title: "NETFLIX INC" } }),
  );
  writeFileSync(
    join(sec, "index.json"),
    JSON.stringify([
      { case: "tickers_shared", file: "tickers_shared.json", method: "GET", url_path: "/files/company_tickers.json", status: 200, source: "made by this test" },
      { case: "submissions", file: "submissions_CIK0000320193.json", method: "GET", url_path: "/submissions/CIK0000320193.json", status: 200, source: "recorded (see fixtures/providers/sec/index.json)" },
    ]),
  );
  const replay = await startReplay({ fixturesDir: dir });
  const kit = await startCapabilityKit("companies.financials", { replay });
  try {
    const violations = await kit.expectViolation({ company: { ticker: "dup" } }, "/company/ticker", /names 2 filers/);
    assert.equal(violations.length, 1);
    assert.match(violations[0]!.message, /CIK 0000320193 Apple Inc\.; CIK 0001065280 NETFLIX INC\); give the one you mean as company\.cik/);
    const byCik = await kit.execute({ company: { cik: "320193" } });
    assert.equal(byCik.status, 200);
    assert.equal(await kit.used(), 0);
  } finally {
    await kit.close();
    await replay.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
