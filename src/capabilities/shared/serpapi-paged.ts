/**
 * SerpApi engines paged across provider pages (shopping, jobs): one SerpApi search per provider
 * page read, each billed $0.004 as SerpApi answers it (also when it found nothing, as SerpApi bills
 * it), refused and failed searches not at all. Slicing of provider pages: shared/provider-pages.ts.
 */
import type { UpstreamRequest } from "../../upstream/types.ts";
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

/** Send one SerpApi search, read its answer (shared/serpapi.ts) and charge it: $0.004 once SerpApi answered. */
export async function serpApiSearch(ctx: CapabilityContext<unknown>, request: UpstreamRequest): Promise<SerpAnswer> {
  const response = await ctx.upstream.send<unknown>(request, ctx.signal);
  const answer = readSerpApi(response.status, response.body);
  ctx.meter.charge(SERPAPI_SEARCH_USD);
  return answer;
}
