import assert from "node:assert/strict";
import { test } from "node:test";
import { registry } from "../capabilities/registry.ts";
import { DEFAULT_PLANS } from "../config.ts";
import { renderGuide } from "./guide.ts";

test("the guide's Sharpen section is this deployment's: its families' models and its stage credits", () => {
  const reviewer = { kind: "openai" as const, baseUrl: "http://127.0.0.1:9", keyVar: "K", tiers: ["sharpen" as const] };
  const text = renderGuide(registry, {
    declared: [
      { ...reviewer, family: "family_c", model: "local-a" },
      { ...reviewer, family: "family_a", model: "local-b" },
      { ...reviewer, family: "family_a", model: "local-c" },
      { ...reviewer, family: "family_a", model: "local-b" },
    ],
    tierCredits: { sharpen: 1, plus: 2, ultra: 3, ultra2x: 7 },
  }, 600, DEFAULT_PLANS);
  const section = text.slice(text.indexOf("## Sharpen in this deployment"));
  assert.match(section, /\| `family_a` \| `local-b`, `local-c` \|\n\| `family_c` \| `local-a` \|/);
  assert.match(section, /\| `stage1` \| `sharpen` \| 1 \|\n\| `stage2` \| `plus` \| 2 \|\n\| `stage3` \| `ultra` \| 3 \|\n\| `stage3\+` \| `ultra2x` \| 7 \|/);
  assert.doesNotMatch(section, /family_b/);
  assert.match(renderGuide(registry, { declared: [], tierCredits: { sharpen: 1, plus: 2, ultra: 3, ultra2x: 7 } }, 600, DEFAULT_PLANS), /\(none configured\)/);
});

test("the guide states MCP's limits as enforced: tool calls on the key's limit, the rest on the protocol bound", () => {
  const text = renderGuide(registry, { declared: [], tierCredits: { sharpen: 1, plus: 2, ultra: 3, ultra2x: 7 } }, 250, DEFAULT_PLANS);
  assert.match(text, /each tool call is\none request/);
  assert.match(text, /separate, larger\nper-key bound \(250 a minute\)/);
  assert.doesNotMatch(text, /\{mcp_protocol_rate\}/);
});

test("the guide states each key's request rate as this deployment's plans set it", () => {
  const sharpen = { declared: [], tierCredits: { sharpen: 1, plus: 2, ultra: 3, ultra2x: 7 } };
  const same = renderGuide(registry, sharpen, 250, [{ id: "free", rateLimitPerMinute: 60 }, { id: "pro", rateLimitPerMinute: 60 }]);
  assert.match(same, /Each key may make 60 requests a minute;/);
  const mixed = renderGuide(registry, sharpen, 250, [{ id: "free", rateLimitPerMinute: 60 }, { id: "demo", rateLimitPerMinute: 1200 }]);
  assert.match(mixed, /Each key may make as many requests a minute as its account's plan allows \(free: 60, demo: 1200\);/);
  assert.doesNotMatch(mixed, /\{key_rate\}/);
});
