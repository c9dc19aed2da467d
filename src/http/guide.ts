/** GET /v1/guide: the integration guide (guide.md beside this file) plus this deployment's capabilities. */
import { readFileSync } from "node:fs";
import type { Registry } from "../capabilities/registry.ts";

export function renderGuide(registry: Registry): string {
  const text = readFileSync(new URL("./guide.md", import.meta.url), "utf8");
  const rows = Object.values(registry)
    .map((cap) => `| \`${cap.id}\` | ${cap.title} | ${cap.paging} | ${cap.typicalCredits} | ${cap.summary} |`)
    .join("\n");
  return `${text}\n## Capabilities in this deployment\n\n| id | title | paging | typical credits | summary |\n|---|---|---|---|---|\n${rows}\n`;
}
