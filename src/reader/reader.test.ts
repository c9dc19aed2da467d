// The reader's settings: parsed from the environment as documented, and every one of them listed in
// docs/providers.md ("The reader") and .env.example (the web reader section), beside the provider
// variables test/docs.test.ts keeps equal to the provider table.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { DEFAULT_MAX_BYTES, readerSettings } from "./reader.ts";

const SETTINGS = ["WEB_READ_ENGINE", "WEB_READ_ALLOW_CIDRS", "WEB_READ_PORTS", "WEB_READ_MAX_BYTES", "WEB_READ_REPLAY_BASE_URL"];
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

test("defaults: local engine, no allow-list, ports 80/443/8080/8443, 10 MiB", () => {
  const s = readerSettings({});
  assert.equal(s.engine, "local");
  assert.deepEqual(s.policy.allowCidrs, []);
  assert.deepEqual([...s.policy.ports], [80, 443, 8080, 8443]);
  assert.equal(s.maxBytes, DEFAULT_MAX_BYTES);
  assert.equal(DEFAULT_MAX_BYTES, 10 * 1024 * 1024);
  const set = readerSettings({ WEB_READ_ENGINE: "jina", WEB_READ_ALLOW_CIDRS: "10.0.0.0/8", WEB_READ_PORTS: "443", WEB_READ_MAX_BYTES: "2048" });
  assert.deepEqual([set.engine, set.policy.allowCidrs, [...set.policy.ports], set.maxBytes], ["jina", ["10.0.0.0/8"], [443], 2048]);
});

test("a wrong setting is refused with the variable's name", () => {
  assert.throws(() => readerSettings({ WEB_READ_ENGINE: "chrome" }), /WEB_READ_ENGINE must be local or jina/);
  assert.throws(() => readerSettings({ WEB_READ_MAX_BYTES: "10" }), /WEB_READ_MAX_BYTES must be an integer >= 1024/);
  assert.throws(() => readerSettings({ WEB_READ_ALLOW_CIDRS: "intranet" }), /WEB_READ_ALLOW_CIDRS: "intranet"/);
});

test("every reader setting has its row in docs/providers.md and its line in .env.example", () => {
  const rows = [...read("docs/providers.md").matchAll(/^\| [a-z -]+ \| `(WEB_READ_[A-Z_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual(rows.sort(), [...SETTINGS].sort());
  const env = read(".env.example");
  const section = env.slice(env.indexOf("# --- web reader"));
  for (const name of SETTINGS) assert.match(section, new RegExp(`^#? ?${name}=`, "m"), name);
});
