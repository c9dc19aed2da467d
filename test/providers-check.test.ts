/**
 * `quarry providers check` against the replay upstream (never a real provider): every probe is
 * answered by a recording and passes the adapter's own declared response; a drifted recording, a
 * refused key, a 429, a challenge page, a hung or unreachable provider each get their own line; the
 * exit code is 1 on drift (and, with --strict, on any failure); unconfigured providers are skipped.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import { PROBES } from "../src/capabilities/probes.ts";
import { runCli } from "../src/cli/run.ts";
import { checkProviders, exitCodeOf, formatResults, type ProbeResult } from "../src/cli/providers-check.ts";
import { loadConfig } from "../src/config.ts";
import { replayEnvironment } from "../src/demo/replay/replay-env.ts";
import { type ReplayServer, startReplay } from "../src/demo/replay/replay-server.ts";
import { HttpUpstreamClient } from "../src/upstream/client.ts";
import { PROVIDERS, type ProviderId } from "../src/providers.ts";

let replay: ReplayServer;
let env: Record<string, string>;

before(async () => {
  replay = await startReplay();
  env = { ...replayEnvironment(replay.url), UPSTREAM_MAX_RETRIES: "0" };
});
after(async () => {
  await replay.close();
});

/** Runs the check in-process on a fresh client (a provider's kept 429 wait would carry over otherwise). */
async function check(extra: Record<string, string> = {}, only?: ProviderId[]): Promise<ProbeResult[]> {
  const config = loadConfig({ ...env, ...extra });
  const client = new HttpUpstreamClient(config);
  try {
    return await checkProviders(config, PROBES, client, { ...(only ? { only } : {}), timeoutMs: 2000 });
  } finally {
    await client.close();
  }
}

async function cli(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { line: (t) => out.push(t), notice: (t) => err.push(t) }, { ...env, ...extra });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("providers check", () => {
  test("every provider of the table has a probe", () => {
    assert.deepEqual(Object.keys(PROBES).sort(), Object.keys(PROVIDERS).sort());
  });

  test("against the recordings every probe is ok, with its latency, and the exit code is 0", async () => {
    const from = replay.requests.length;
    const results = await check();
    const unrecorded = replay.requests.slice(from).filter((r) => r.matched === null);
    assert.deepEqual(unrecorded.map((r) => r.path), [], "every probe asks for something a recording answers");
    for (const r of results) assert.equal(r.status, "ok", `${r.provider}: ${r.message}`);
    assert.ok(results.every((r) => typeof r.latency_ms === "number"), "results.every((r) => typeof r.latency_ms === \"number\")");
    assert.equal(exitCodeOf(results, true), 0);
  });

  test("a drifted answer is a drift line naming the pointer, and exit code 1", async () => {
    replay.setFault("openalex", { kind: "rename", pointer: "/id", to: "work_id" });
    try {
      const { code, out } = await cli(["providers", "check", "--provider", "openalex"]);
      assert.equal(code, 1);
      assert.match(out, /^drift\s+openalex\s+\d+ ms {2}at \/id: OpenAlex answered in a shape Quarry does not read: \/id is missing\.$/);
    } finally {
      replay.setFault("openalex", null);
    }
  });

  test("--json: one document with each provider's status, latency and pointer", async () => {
    replay.setFault("openalex", { kind: "rename", pointer: "/display_name", to: "name" });
    try {
      const { code, out } = await cli(["providers", "check", "--json", "--provider", "openalex,jina"]);
      assert.equal(code, 1);
      const doc = JSON.parse(out) as { checked_at: string; results: ProbeResult[] };
      assert.ok(!Number.isNaN(Date.parse(doc.checked_at)), "!Number.isNaN(Date.parse(doc.checked_at))");
      assert.deepEqual(
        doc.results.map((r) => [r.provider, r.status, r.pointer]),
        [
          ["openalex", "drift", "/display_name"],
          ["jina", "ok", undefined],
        ],
      );
    } finally {
      replay.setFault("openalex", null);
    }
  });

  test("a refused key, a 429, a challenge page, a hang and an unreachable host each say so; only --strict fails on them", async () => {
    const port = await closedPort();
    const faults: [string, Parameters<ReplayServer["setFault"]>[1]][] = [
      ["openalex", { kind: "status", status: 401, body: '{"error":"Invalid API key"}' }],
      ["jina", { kind: "rate_limit", retryAfterSeconds: 60 }],
    ];
    for (const [p, f] of faults) replay.setFault(p, f);
    try {
      const refused = await check({}, ["openalex", "jina"]);
      assert.deepEqual(
        refused.map((r) => [r.provider, r.status]),
        [
          ["openalex", "key_refused"],
          ["jina", "rate_limited"],
        ],
      );
      assert.match(refused[1]!.message!, /asks to wait 60 s/);
      replay.setFault("openalex", { kind: "status", status: 202, body: '<!DOCTYPE html><html><head><script>window.awsWafCookieDomainList = [];</script></head></html>' });
      replay.setFault("jina", { kind: "hang" });
      const odd = await check({}, ["openalex", "jina"]);
      assert.deepEqual(
        odd.map((r) => [r.provider, r.status]),
        [
          ["openalex", "challenged"],
          ["jina", "timeout"],
        ],
      );
    } finally {
      replay.setFault("openalex", null);
      replay.setFault("jina", null);
    }
    const gone = await check({ OPENALEX_BASE_URL: `http://127.0.0.1:${port}` }, ["openalex"]);
    assert.equal(gone[0]!.status, "unreachable");
    assert.equal(exitCodeOf(gone, false), 0, "not drift: exit 0 without --strict");
    assert.equal(exitCodeOf(gone, true), 1);
    const text = formatResults(gone);
    assert.match(text, /^unreachable\s+openalex\s+\d+ ms {2}openalex failed: network error/);
  });

  test("a provider whose key is not set is not called: 'not configured', naming the variable", async () => {
    const before = replay.requests.length;
    const results = await check({ JINA_API_KEY: "" }, ["jina"]);
    assert.deepEqual(results.map((r) => [r.status, r.message]), [["skipped", "JINA_API_KEY is not set"]]);
    assert.equal(replay.requests.length, before);
    assert.match(formatResults(results), /^not configured\s+jina\s+JINA_API_KEY is not set$/);
  });

  test("an unknown provider is refused in one line", async () => {
    const { code, err } = await cli(["providers", "check", "--provider", "nope"]);
    assert.equal(code, 1);
    assert.match(err, /^quarry: error: no probe for provider nope/);
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
