/**
 * The catalog (what is enabled and available for this caller) and inspect (one capability's
 * request schema, follow-ups, examples and cost).
 */
import type { Caller } from "../accounts/accounts.ts";
import type { Availability } from "./availability.ts";
import type { Registry } from "../capabilities/registry.ts";
import type { Capability, JsonObject } from "../capabilities/types.ts";
import type { Config } from "../config.ts";
import { cacheSentence } from "../upstream/answer-cache.ts";
import type { SharpenBlock } from "../sharpen/entitlement.ts";
import type { CapabilityInspectResponse, CatalogResponse } from "../wire.ts";

const PAGING_MORE: Record<string, string> = {
  local: "Next page from the result set held in the session; free, no provider call.",
  page: "Next page from the source (provider page number); billed like the search, as `cost.basis` says (which also says when a page is free).",
  offset: "Next slice from the source (provider offset); billed like the search, as `cost.basis` says (which also says when a page is free).",
  token: "Next slice from the source (provider cursor); billed like the search, as `cost.basis` says (which also says when a page is free).",
};

/** How `update` applies its params: the capability's own rule, or the default merge. */
function updateRuleOf(cap: Capability): string {
  return cap.updateRule ?? "Merge params (any subset of the request fields) into the stored query; null removes an optional field (its default applies).";
}

/** The request schema with nothing required: what `update` params may hold. */
export function updateParamsSchema(cap: Capability): JsonObject {
  const clone = JSON.parse(JSON.stringify(cap.schema)) as JsonObject;
  const required = new Set(Array.isArray(clone.required) ? (clone.required as string[]) : []);
  delete clone.required;
  // `null` removes an optional field from the stored query (its default applies again); a required
  // field can be replaced, not removed.
  const properties = clone.properties as Record<string, JsonObject>;
  for (const [name, schema] of Object.entries(properties)) {
    if (!required.has(name)) properties[name] = { anyOf: [schema, { type: "null" }] };
  }
  clone.description = `${updateRuleOf(cap)} Paging is reset.`;
  return clone;
}


export class CatalogService {
  constructor(
    private readonly deps: {
      registry: Registry;
      config: Config;
      availability: Availability;
      /** Said wherever an agent is oriented (these instructions, MCP's), when the deployment has one (the offline demo's). */
      notice?: string;
      sharpen: (caller: Caller) => SharpenBlock;
    },
  ) {}

  catalog(caller: Caller): CatalogResponse {
    const caps = Object.values(this.deps.registry).map((cap) => {
      const { available, reason } = this.deps.availability.status(cap);
      return {
        id: cap.id,
        title: cap.title,
        summary: cap.summary,
        topic: cap.topic,
        enabled: this.deps.availability.enabled(caller, cap),
        available,
        ...(reason ? { unavailable_reason: reason } : {}),
        typical_credits: cap.typicalCredits,
        inspect_url: `/v1/capabilities/${cap.id}`,
      };
    });
    return { capabilities: caps, sharpen: this.deps.sharpen(caller), instructions: this.instructions() };
  }

  private instructions(): string {
    const lines = [
      "Quarry gives typed, stateful search capabilities. Flow: pick an enabled and available capability here,",
      "GET its inspect_url for the request schema, POST the typed body to /v1/capabilities/{id}/execute, then use",
      "POST /v1/follow-up with the search_id (`more`, `update`) or a record_id (`details` and other record actions).",
      "Every response carries charged_credits and balance; refused and failed calls cost nothing.",
      "Search sessions live 24 hours after their last use. Sharpen (POST /v1/sharpen) gets a second opinion on a draft",
      "from a model of a different family than yours. Over MCP the same steps are the tools inspect, execute,",
      "follow_up and sharpen (discover answers this catalog).",
    ];
    if (this.deps.notice !== undefined) lines.push(this.deps.notice);
    return lines.join(" ");
  }

  inspect(capabilityId: string): CapabilityInspectResponse {
    const cap = this.deps.availability.capability(capabilityId);
    const { available, reason } = this.deps.availability.status(cap);
    const followUps: CapabilityInspectResponse["follow_ups"] = [];
    if (cap.paging !== "single") {
      followUps.push({ action: "more", scope: "search", description: PAGING_MORE[cap.paging] ?? "Next page." });
    }
    if (cap.offersUpdate) {
      // The capability's update example, in the description (FollowUpDescriptor has no example field).
      const example = cap.updateExample === undefined ? "" : ` Example (${cap.updateExample.title}): params ${JSON.stringify(cap.updateExample.params)}.`;
      followUps.push({
        action: "update",
        scope: "search",
        description: `${updateRuleOf(cap)} Paging is reset and the search runs again under the same search_id.${example}`,
        params_schema: updateParamsSchema(cap),
      });
    }
    for (const a of Object.values(cap.actions)) {
      followUps.push({ action: a.name, scope: "record", description: a.description });
    }
    const checked = cap.sourceChecked.map((f) => `\`${f}\``).join(", ");
    return {
      id: cap.id,
      title: cap.title,
      description:
        checked === ""
          ? cap.description
          : `${cap.description} Checked by the source: ${checked} (a value the source cannot resolve is refused 400 at its field, nothing charged).`,
      available,
      ...(reason ? { unavailable_reason: reason } : {}),
      execute: { method: "POST", url: `/v1/capabilities/${cap.id}/execute`, body_schema: cap.publishedSchema },
      follow_ups: followUps,
      examples: cap.examples,
      cost: { typical_credits: cap.typicalCredits, basis: cap.costBasis + (this.deps.config.answerCache.enabled ? cacheSentence(cap.cacheTtlMs) : "") },
    };
  }
}
