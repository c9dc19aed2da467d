/**
 * GET /v1/guide: the integration guide (guide.md beside this file) plus this deployment's
 * capabilities and Sharpen settings: what each `caller_provider` family stands for here and what
 * each stage costs. Rendered once at start from the registry and the Sharpen configuration.
 */
import { readFileSync } from "node:fs";
import type { Registry } from "../capabilities/registry.ts";
import type { Plan } from "../config.ts";
import { STAGE_TIER } from "../sharpen/entitlement.ts";
import type { SharpenSettings } from "../sharpen/reviewers.ts";

function sharpenSection(sharpen: Pick<SharpenSettings, "declared" | "tierCredits">): string {
  const models = new Map<string, string[]>();
  for (const r of sharpen.declared) {
    const list = models.get(r.family) ?? [];
    if (!list.includes(r.model)) list.push(r.model);
    models.set(r.family, list);
  }
  const families = [...models.keys()]
    .sort()
    .map((family) => `| \`${family}\` | ${models.get(family)!.map((m) => `\`${m}\``).join(", ")} |`)
    .join("\n");
  const stages = Object.entries(STAGE_TIER)
    .map(([stage, tier]) => `| \`${stage}\` | \`${tier}\` | ${sharpen.tierCredits[tier]} |`)
    .join("\n");
  return [
    "## Sharpen in this deployment",
    "",
    "`caller_provider` is the family of the model that wrote the draft (yours); the reviewer always comes",
    "from another family. The families this deployment is configured with, by the models they stand for",
    "(whether each is reachable right now is the catalog's `sharpen.enabled`). Send `other` when your model",
    "is of none of them: any reviewer may then be chosen.",
    "",
    "| family | models |",
    "|---|---|",
    families || "| (none configured) | |",
    "",
    "A call without `stage` uses the account's saved stage (catalog `sharpen.stage`); a per-call `stage` may",
    "not exceed the plan's tier (catalog `sharpen.tier`: the highest the plan allows; an answer's `tier` is the",
    "stage's own). Credits per call (`stage3+` asks two reviewers: with only one of them answering, half is",
    "charged, rounded up; with none, nothing):",
    "",
    "| stage | tier | credits |",
    "|---|---|---:|",
    stages,
    "",
  ].join("\n");
}

/** The per-key request rates of this deployment's plans, as the guide says them. */
function keyRates(plans: readonly Pick<Plan, "id" | "rateLimitPerMinute">[]): string {
  const rates = new Set(plans.map((p) => p.rateLimitPerMinute));
  if (rates.size === 1) return `${[...rates][0]} requests a minute`;
  return `as many requests a minute as its account's plan allows (${plans.map((p) => `${p.id}: ${p.rateLimitPerMinute}`).join(", ")})`;
}

/** The guide as served: guide.md with this deployment's rates, capabilities and Sharpen. */
export function renderGuide(
  registry: Registry,
  sharpen: Pick<SharpenSettings, "declared" | "tierCredits">,
  mcpProtocolPerMinute: number,
  plans: readonly Pick<Plan, "id" | "rateLimitPerMinute">[],
): string {
  const text = readFileSync(new URL("./guide.md", import.meta.url), "utf8")
    .replace("{mcp_protocol_rate}", String(mcpProtocolPerMinute))
    .replace("{key_rate}", keyRates(plans));
  const rows = Object.values(registry)
    .map((cap) => `| \`${cap.id}\` | ${cap.title} | ${cap.paging} | ${cap.typicalCredits} | ${cap.summary} |`)
    .join("\n");
  return `${text}\n## Capabilities in this deployment\n\n| id | title | paging | typical credits | summary |\n|---|---|---|---|---|\n${rows}\n\n${sharpenSection(sharpen)}`;
}
