/**
 * SerpApi engines paged across provider pages (shopping, jobs): one SerpApi search per provider
 * page read, each billed $0.004 as SerpApi answers it (also when it found nothing, as SerpApi bills
 * it), refused and failed searches not at all. Slicing of provider pages: framework/cursors.ts.
 */
import type { TSchema } from "@sinclair/typebox";
import type { JsonRequest } from "../../upstream/types.ts";
import type { CostDecl } from "../framework/costs.ts";
import type { CapabilityContext } from "../types.ts";
import { readSerpApi, SERPAPI_SEARCH_USD, type SerpAnswer } from "./serpapi.ts";

/**
 * The cost of a capability that may read several SerpApi pages in one call: `maxRequests(query)`
 * searches at most (reserved), 4 credits typical (one search).
 */
export function serpApiPagedCost<Q>(maxRequests: (query: Q) => number, basis: string): CostDecl<Q> {
  return { maxMetered: (query) => maxRequests(query) * SERPAPI_SEARCH_USD, typicalCredits: 4, basis };
}

/**
 * Send one SerpApi search (checked: shared/serpapi.ts), read its answer and charge it: $0.004 once
 * SerpApi answered, nothing when Quarry's answer cache did (an identical search within its time to live).
 */
export async function serpApiSearch<S extends TSchema>(ctx: CapabilityContext<unknown>, request: JsonRequest<S>): Promise<SerpAnswer> {
  const response = await ctx.upstream.send(request, ctx.signal);
  const answer = readSerpApi(response.body);
  if (response.cached === undefined) ctx.meter.charge(SERPAPI_SEARCH_USD);
  return answer;
}
