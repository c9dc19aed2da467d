/**
 * Documentation that must agree with the code: every error code in docs/errors.md with its
 * status, every provider variable in docs/providers.md and .env.example.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ERROR_CODES } from "../src/errors.ts";
import { PROVIDERS, type ProviderDef } from "../src/providers.ts";

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");

test("docs/errors.md documents exactly the catalog's codes with their statuses", () => {
  const rows = [...read("docs/errors.md").matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (yes|no) \|/gm)];
  const documented = new Map(rows.map((m) => [m[1]!, { status: Number(m[2]), retryable: m[3] === "yes" }]));
  assert.deepEqual([...documented.keys()].sort(), Object.keys(ERROR_CODES).sort());
  for (const [code, spec] of Object.entries(ERROR_CODES)) {
    assert.deepEqual(documented.get(code), spec, code);
  }
});

function providerVariables(): string[] {
  const vars: string[] = [];
  for (const def of Object.values(PROVIDERS) as ProviderDef[]) {
    for (const host of Object.values(def.hosts)) vars.push(host.baseUrlVar);
    if (def.keyVar) vars.push(def.keyVar);
    for (const extra of def.extraVars ?? []) vars.push(extra.name);
    if (def.clientCredentials) vars.push(def.clientCredentials.idVar, def.clientCredentials.secretVar);
  }
  return vars.sort();
}

test("docs/providers.md and .env.example list every provider variable and no other", () => {
  const expected = providerVariables();
  const docVars = [...read("docs/providers.md").matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]!).sort();
  assert.deepEqual(docVars, expected);
  const env = read(".env.example");
  const section = env.slice(env.indexOf("# --- providers"), env.indexOf("# --- end providers"));
  const envVars = [...section.matchAll(/^#? ?([A-Z0-9_]+)=/gm)].map((m) => m[1]!).sort();
  assert.deepEqual(envVars, expected);
  for (const def of Object.values(PROVIDERS) as ProviderDef[]) {
    for (const host of Object.values(def.hosts)) {
      assert.ok(env.includes(`${host.baseUrlVar}=${host.defaultBaseUrl}`), `${host.baseUrlVar} default in .env.example`);
      assert.ok(read("docs/providers.md").includes(host.defaultBaseUrl), `${host.baseUrlVar} default in providers.md`);
    }
  }
});
